// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_files: unnamed files (O_TMPFILE), fsync, linkat into place,
 * and unlink on failure, for all the files of one snapshot. The data
 * formats are written and synced by concurrent threads, one per format (a
 * table entry each). See snapshot_files.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "dump_figures.h"
#include "monotonic.h"
#include "snapshot.h"
#include "snapshot_files.h"
#include "snapshot_json.h"
#include "snapshot_name.h"
#include "snapshot_perfetto.h"
#include "snapshot_tracedat.h"

/*
 * zstd level for perf.data: 1, as perf record -z. On a busy snapshot of
 * 32 MiB per CPU it was both faster and smaller than level 3: the records
 * are so repetitive that level 1's matches already find nearly
 * everything (docs/decisions.md).
 */
#define PERFDATA_ZSTD_LEVEL 1

struct pending_file {
	char tmp[PATH_MAX]; /* the hidden name, where O_TMPFILE is not supported */
	char final[PATH_MAX];
	int fd;		/* open until the file is linked or renamed into place */
	bool named;	/* created under tmp, not with O_TMPFILE */
	bool published; /* under final */
	/* The job of the thread that writes and syncs it. */
	enum snapshot_file kind;
	const struct snapshot *s;
	const struct snapshot_files_params *p;
	struct dump_figures *f;
	uint64_t bytes;
	int error;
	pthread_t thread;
	bool threaded;
};

static int fsync_dir(const char *dir)
{
	_cleanup_close_ int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fsync(fd) < 0)
		return -errno;
	return 0;
}

static int write_perfdata(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
			  const struct dump_figures *f)
{
	struct perfdata_meta pmeta = p->perfdata;
	struct perfdata_result res;

	pmeta.compress_level = f->compressed ? PERFDATA_ZSTD_LEVEL : 0;
	return snapshot_perfdata__write(s, fd, &pmeta, &res);
}

static int write_tracedat(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
			  const struct dump_figures *f)
{
	struct tracedat_result tres = { 0 };
	struct tracedat_meta tmeta = {
		.compression = f->compressed ? TRACEDAT_COMPRESS_ZSTD : TRACEDAT_COMPRESS_NONE,
		.nr_cpus = p->nr_cpus,
	};

	return snapshot_tracedat__write(s, fd, &tmeta, &tres);
}

static int write_perfetto(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
			  const struct dump_figures *f)
{
	struct perfetto_meta pfmeta = {
		.compression = f->compressed ? PFTRACE_COMPRESS_ZSTD : PFTRACE_COMPRESS_NONE,
	};

	(void)p;
	return snapshot_perfetto__write(s, fd, &pfmeta, NULL);
}

static int write_json(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
		      const struct dump_figures *f)
{
	FILE *out = fdopen(dup(fd), "w");
	int r;

	(void)p;
	if (!out)
		return -errno;
	r = snapshot_json__write(s, f, out);
	if (fclose(out) != 0 && r == 0)
		r = -errno;
	return r;
}

/*
 * The writer of each file, one table entry per format. A writer reads only
 * the snapshot, the parameters and the figures; the data files are
 * written by concurrent threads.
 */
typedef int (*file_writer)(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
			   const struct dump_figures *f);

static const file_writer writers[SNAPSHOT_NR_FILES] = {
	[SNAPSHOT_FILE_PERFDATA] = write_perfdata,
	[SNAPSHOT_FILE_TRACEDAT] = write_tracedat,
	[SNAPSHOT_FILE_PERFETTO] = write_perfetto,
	[SNAPSHOT_FILE_JSON] = write_json,
};

/*
 * An unnamed file in @dir (O_TMPFILE): a crash at any point leaves nothing
 * behind. Where the file system has no O_TMPFILE, the hidden pf->tmp,
 * which perfsnapd removes at its next start (retention__remove_temporaries).
 */
static int create(const char *dir, struct pending_file *pf)
{
	pf->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0640);
	if (pf->fd >= 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != EISDIR)
		return -errno;
	pf->fd = open(pf->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (pf->fd < 0)
		return -errno;
	pf->named = true;
	return 0;
}

/*
 * Gives the complete file its final name. linkat() never replaces a file,
 * so an existing name fails with EEXIST rather than losing a snapshot.
 */
static int publish(struct pending_file *pf)
{
	char proc[64];

	if (pf->named)
		return rename(pf->tmp, pf->final) < 0 ? -errno : 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pf->fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, pf->final, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	/* No /proc: AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH. */
	if (errno == ENOENT && linkat(pf->fd, "", AT_FDCWD, pf->final, AT_EMPTY_PATH) == 0)
		return 0;
	return -errno;
}

static int open_file(const struct dump_figures *f, struct pending_file *pf)
{
	int r = snapshot_name__path(pf->final, sizeof(pf->final), f->directory, f->stem, pf->kind);

	if (r == 0)
		r = snapshot_name__temp_path(pf->tmp, sizeof(pf->tmp), f->directory, f->stem,
					     pf->kind);
	return r ? r : create(f->directory, pf);
}

/*
 * How long the calling thread has run on a CPU and waited, runnable, for
 * one (ns): the first two fields of /proc/thread-self/schedstat; 0 and 0
 * without it.
 */
static void thread_schedstat(uint64_t *run_ns, uint64_t *delay_ns)
{
	_cleanup_close_ int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	unsigned long long run, delay;
	char buf[96];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	*run_ns = *delay_ns = 0;
	if (n <= 0)
		return;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &run, &delay) == 2) {
		*run_ns = run;
		*delay_ns = delay;
	}
}

/* Write, then sync: each file's fsync overlaps the other files' work. */
static void *write_file(void *arg)
{
	struct pending_file *pf = arg;
	struct dump_file_figures *res = &pf->f->files;
	uint64_t t0 = monotonic_ns(), run0, delay0, run1, queued;
	struct stat st;
	int r;

	thread_schedstat(&run0, &delay0);
	r = writers[pf->kind](pf->s, pf->p, pf->fd, pf->f);
	/* The umask must not loosen or tighten what operators expect. */
	if (r == 0 && fchmod(pf->fd, 0640) < 0)
		r = -errno;
	res->written_at_ns[pf->kind] = monotonic_ns();
	if (r == 0 && fsync(pf->fd) < 0)
		r = -errno;
	res->synced_at_ns[pf->kind] = monotonic_ns();
	thread_schedstat(&run1, &queued);
	queued = queued > delay0 ? queued - delay0 : 0;
	res->run_ns[pf->kind] = run1 > run0 ? run1 - run0 : 0;
	res->cost_ns[pf->kind] = res->synced_at_ns[pf->kind] - t0 > queued ?
					 res->synced_at_ns[pf->kind] - t0 - queued :
					 0;
	if (r == 0 && fstat(pf->fd, &st) == 0)
		pf->bytes = (uint64_t)st.st_size;
	pf->error = r;
	return NULL;
}

/*
 * Every data file but the last in a thread of its own, the last on this
 * one; a file whose thread cannot be started is written here too.
 */
static void write_data_files(struct pending_file *files, int nr)
{
	for (int i = 0; i + 1 < nr; i++)
		files[i].threaded = pthread_create(&files[i].thread, NULL, write_file, &files[i]) ==
				    0;
	for (int i = nr - 1; i >= 0; i--)
		if (!files[i].threaded)
			write_file(&files[i]);
	for (int i = 0; i < nr; i++)
		if (files[i].threaded)
			pthread_join(files[i].thread, NULL);
}

/**
 * snapshot_files__write - write every file of a snapshot, all or nothing
 * @s: a sealed snapshot
 * @p: what the writers need besides
 * @f: the dump's figures: directory, stem, formats and compression in;
 *     f->files out (the final paths on success, what failed otherwise)
 *
 * Returns 0 or -errno; on failure every temporary and every file already
 * renamed for this snapshot is removed.
 */
int snapshot_files__write(const struct snapshot *s, const struct snapshot_files_params *p,
			  struct dump_figures *f)
{
	struct dump_file_figures *ret = &f->files;
	struct pending_file files[SNAPSHOT_NR_FILES] = { 0 };
	enum snapshot_file kinds[SNAPSHOT_NR_FILES];
	int nr = 0, r = 0;

	memset(ret, 0, sizeof(*ret));
	for (int i = 0; i < SNAPSHOT_NR_FILES; i++)
		files[i].fd = -1;
	for (int k = 0; k < SNAPSHOT_FILE_JSON; k++)
		if (f->formats & SNAPSHOT_FILE_BIT(k))
			kinds[nr++] = (enum snapshot_file)k;
	kinds[nr++] = SNAPSHOT_FILE_JSON;

	for (int i = 0; i < nr && r == 0; i++) {
		files[i] = (struct pending_file){
			.fd = -1, .kind = kinds[i], .s = s, .p = p, .f = f
		};
		r = open_file(f, &files[i]);
		if (r < 0)
			snprintf(ret->failed, sizeof(ret->failed), "'%s'", files[i].final);
	}
	if (r == 0)
		write_data_files(files, nr - 1);
	for (int i = 0; i < nr && r == 0; i++) {
		/* The sidecar once every data file is whole. */
		if (i == nr - 1)
			write_file(&files[i]);
		r = files[i].error;
		ret->bytes += files[i].bytes;
		if (r < 0)
			snprintf(ret->failed, sizeof(ret->failed), "'%s'", files[i].final);
	}
	/* The sidecar last: its presence says the data files are there. */
	for (int i = 0; i < nr && r == 0; i++) {
		r = publish(&files[i]);
		files[i].published = r == 0;
		if (r < 0)
			snprintf(ret->failed, sizeof(ret->failed), "'%s'", files[i].final);
	}
	if (r == 0) {
		r = fsync_dir(f->directory);
		if (r < 0)
			snprintf(ret->failed, sizeof(ret->failed), "the directory '%s'",
				 f->directory);
		ret->published_at_ns = monotonic_ns();
	}
	for (int i = 0; i < nr; i++) {
		if (files[i].fd >= 0 && close(files[i].fd) < 0 && r == 0)
			r = -errno;
		if (r < 0 && files[i].published)
			(void)unlink(files[i].final);
		else if (r < 0 && files[i].named && files[i].fd >= 0)
			(void)unlink(files[i].tmp);
		else if (r == 0 && kinds[i] != SNAPSHOT_FILE_JSON)
			snprintf(ret->paths[ret->nr_paths++], PATH_MAX, "%s", files[i].final);
	}
	if (r == 0)
		snprintf(ret->paths[ret->nr_paths++], PATH_MAX, "%s", files[nr - 1].final);
	return r;
}
