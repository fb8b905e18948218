// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_files: all the files of one snapshot as one file_publish set
 * (unnamed files linked into place together, or none). The data formats
 * are written and synced by concurrent threads, one per format (a table
 * entry each). See snapshot_files.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "dump_figures.h"
#include "file_publish.h"
#include "monotonic.h"
#include "snapshot.h"
#include "snapshot_files.h"
#include "snapshot_json.h"
#include "snapshot_name.h"
#include "snapshot_perfetto.h"
#include "snapshot_pprof.h"
#include "snapshot_tracedat.h"
#include "symbol_cache.h"
#include "symbol_pack.h"
#include "symbols.h"

/*
 * zstd level for perf.data: 1, as perf record -z. On a busy snapshot of
 * 32 MiB per CPU it was both faster and smaller than level 3: the records
 * are so repetitive that level 1's matches already find nearly
 * everything (docs/decisions.md).
 */
#define PERFDATA_ZSTD_LEVEL 1

struct pending_file {
	char final[PATH_MAX];
	struct file_publish *set; /* its set, at index */
	int index;
	int fd; /* the set's: open until the set is published or discarded */
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

static int write_perfdata(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
			  const struct dump_figures *f)
{
	struct perfdata_meta pmeta = p->perfdata;
	struct perfdata_result res;

	int r;

	pmeta.compress_level = f->compressed ? PERFDATA_ZSTD_LEVEL : 0;
	r = snapshot_perfdata__write(s, fd, &pmeta, &res);
	if (r == 0 && p->nr_build_ids)
		*p->nr_build_ids = res.nr_build_ids;
	return r;
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

/*
 * Stacks are named from the objects the side-band keeps open since they
 * were mapped, as the pack holds them: a binary deleted or replaced
 * before the dump is named too.
 */
static int cache_open(void *ctx, const struct symbols_key *key, int *ret_fd, uint64_t *ret_offset,
		      uint64_t *ret_size)
{
	struct symbol_cache_key k = {
		.has_ino = key->has_ino,
		.maj = key->maj,
		.min = key->min,
		.ino = key->ino,
		.path = key->path,
	};
	struct elf_buildid id;

	if (key->build_id_size > ELF_BUILDID_MAX || !strcmp(key->path, SYMBOLS_KERNEL_DSO))
		return -ENOENT;
	k.id.size = (uint8_t)key->build_id_size;
	if (k.id.size)
		memcpy(k.id.data, key->build_id, k.id.size);
	*ret_offset = 0;
	return symbol_cache__open(ctx, &k, ret_fd, &id, ret_size);
}

static void cache_source(const struct snapshot_files_params *p, struct symbols_source *ret)
{
	*ret = (struct symbols_source){ .open = p->symbol_cache ? cache_open : NULL,
					.ctx = p->symbol_cache };
}

/*
 * The .pftrace: samples as the configuration says (auto: PerfSample, which
 * every Perfetto version reads), gzip unless zstd was asked for by name
 * (Perfetto opens whole-file zstd only from v58), and the SystemInfo of
 * this machine, the recording one.
 */
static int write_perfetto(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
			  const struct dump_figures *f)
{
	struct perfetto_meta pfmeta = {
		.compression = !f->compressed  ? PFTRACE_COMPRESS_NONE :
			       f->pftrace_zstd ? PFTRACE_COMPRESS_ZSTD :
						 PFTRACE_COMPRESS_GZIP,
		.samples = p->perfetto_samples == CONFIG_PERFETTO_SAMPLES_STACK_SAMPLE ?
				   PERFETTO_SAMPLE_STACK :
				   PERFETTO_SAMPLE_PERF,
	};
	struct symbols_source src;
	struct utsname u;

	cache_source(p, &src);
	pfmeta.symbols = &src;
	if (uname(&u) == 0)
		pfmeta.system = (struct perfetto_system){ .sysname = u.sysname,
							  .version = u.version,
							  .release = u.release,
							  .machine = u.machine };
	return snapshot_perfetto__write(s, fd, &pfmeta, NULL);
}

/* The symbol pack: its own figures, for the sidecar written after it. */
static int write_symbols(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
			 const struct dump_figures *f)
{
	const struct symbol_pack_params sp = { .cache = p->symbol_cache };

	(void)f;
	return symbol_pack__write(s, &sp, fd, p->symbols);
}

/*
 * The events' clock now, read beside CLOCK_REALTIME: what places the
 * profile's samples in wall-clock time. perf's own clock has no
 * clock_gettime(): no reference then, and no time_nanos.
 */
static void clock_ref_now(const struct snapshot *s, struct pprof_clock_ref *ret)
{
	struct timespec c, rt;

	for (size_t i = 0; i < snapshot__nr_events(s); i++) {
		const struct perf_event_attr *a = &snapshot__event(s, i)->attr;

		if (!a->use_clockid)
			continue;
		if (clock_gettime(a->clockid, &c) || clock_gettime(CLOCK_REALTIME, &rt))
			return;
		*ret = (struct pprof_clock_ref){
			.valid = true,
			.clockid = a->clockid,
			.clock_ns = (uint64_t)c.tv_sec * 1000000000 + (uint64_t)c.tv_nsec,
			.realtime_ns = (uint64_t)rt.tv_sec * 1000000000 + (uint64_t)rt.tv_nsec,
		};
		return;
	}
}

/* The .pb.gz: always gzipped, as pprof reads it. */
static int write_pprof(const struct snapshot *s, const struct snapshot_files_params *p, int fd,
		       const struct dump_figures *f)
{
	struct pprof_meta meta = { 0 };
	struct symbols_source src;

	(void)f;
	cache_source(p, &src);
	meta.symbols = &src;
	clock_ref_now(s, &meta.clock_ref);
	return snapshot_pprof__write(s, fd, &meta, NULL);
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
	[SNAPSHOT_FILE_PERFDATA] = write_perfdata, [SNAPSHOT_FILE_TRACEDAT] = write_tracedat,
	[SNAPSHOT_FILE_PERFETTO] = write_perfetto, [SNAPSHOT_FILE_PPROF] = write_pprof,
	[SNAPSHOT_FILE_SYMBOLS] = write_symbols,   [SNAPSHOT_FILE_JSON] = write_json,
};

/*
 * A new file of the set. Where the file system has no O_TMPFILE it lives
 * under snapshot_name's hidden temporary name until published: a crash
 * leaves that, and perfsnapd removes it at its next start
 * (retention__remove_temporaries).
 */
static int open_file(const struct dump_figures *f, struct file_publish *set,
		     struct pending_file *pf)
{
	char tmp[PATH_MAX];
	int r = snapshot_name__path(pf->final, sizeof(pf->final), f->directory, f->stem, pf->kind);

	if (r == 0)
		r = snapshot_name__temp_path(tmp, sizeof(tmp), f->directory, f->stem, pf->kind);
	if (r == 0)
		r = file_publish__add(set, strrchr(pf->final, '/') + 1, strrchr(tmp, '/') + 1,
				      0640);
	if (r < 0)
		return r;
	pf->set = set;
	pf->index = r;
	pf->fd = file_publish__fd(set, r);
	return 0;
}

/*
 * How long the calling thread has run on a CPU (ns): the first field of
 * /proc/thread-self/schedstat; 0 without it.
 */
static uint64_t thread_run_ns(void)
{
	_cleanup_close_ int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	unsigned long long run;
	char buf[96];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%llu", &run) == 1 ? run : 0;
}

/* Write, then sync: each file's fsync overlaps the other files' work. */
static void *write_file(void *arg)
{
	struct pending_file *pf = arg;
	struct dump_file_figures *res = &pf->f->files;
	uint64_t t0 = monotonic_ns(), run0 = thread_run_ns(), run1;
	struct stat st;
	int r;

	r = writers[pf->kind](pf->s, pf->p, pf->fd, pf->f);
	/* The umask must not loosen or tighten what operators expect. */
	if (r == 0 && fchmod(pf->fd, 0640) < 0)
		r = -errno;
	res->written_at_ns[pf->kind] = monotonic_ns();
	if (r == 0)
		r = file_publish__sync(pf->set, pf->index);
	res->synced_at_ns[pf->kind] = monotonic_ns();
	run1 = thread_run_ns();
	res->run_ns[pf->kind] = run1 > run0 ? run1 - run0 : 0;
	/*
	 * Its waits for a CPU included: on a busy machine the mode that needs
	 * more CPU time waits longer for it, and the dump waits with it.
	 */
	res->cost_ns[pf->kind] = res->synced_at_ns[pf->kind] - t0;
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
 * published for this snapshot is removed.
 */
/* A final name is shorter than PATH_MAX: the precision says so to the compiler. */
static void say_failed(struct dump_file_figures *ret, const char *name)
{
	snprintf(ret->failed, sizeof(ret->failed), "'%.*s'", PATH_MAX - 1, name);
}

int snapshot_files__write(const struct snapshot *s, const struct snapshot_files_params *p,
			  struct dump_figures *f)
{
	struct dump_file_figures *ret = &f->files;
	struct pending_file files[SNAPSHOT_NR_FILES] = { 0 };
	enum snapshot_file kinds[SNAPSHOT_NR_FILES];
	struct file_publish *set = NULL;
	int nr = 0, failed = -1, r;

	memset(ret, 0, sizeof(*ret));
	for (int k = 0; k < SNAPSHOT_FILE_JSON; k++)
		if (f->formats & SNAPSHOT_FILE_BIT(k))
			kinds[nr++] = (enum snapshot_file)k;
	kinds[nr++] = SNAPSHOT_FILE_JSON;

	r = file_publish__new(f->directory, &set);
	if (r < 0) {
		snprintf(ret->failed, sizeof(ret->failed), "the directory '%s'", f->directory);
		return r;
	}
	for (int i = 0; i < nr && r == 0; i++) {
		files[i] = (struct pending_file){
			.fd = -1, .kind = kinds[i], .s = s, .p = p, .f = f
		};
		r = open_file(f, set, &files[i]);
		if (r < 0)
			say_failed(ret, files[i].final);
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
			say_failed(ret, files[i].final);
	}
	/*
	 * Closed and linked in the order added, the sidecar last: its presence
	 * says the data files are there. On failure the set removes them again.
	 */
	if (r == 0) {
		r = file_publish__commit(set, &failed);
		if (r < 0 && failed >= 0)
			say_failed(ret, files[failed].final);
		else if (r < 0)
			snprintf(ret->failed, sizeof(ret->failed), "the directory '%s'",
				 f->directory);
		ret->published_at_ns = monotonic_ns();
	}
	file_publish__delete(set);
	for (int i = 0; i < nr && r == 0; i++)
		snprintf(ret->paths[ret->nr_paths++], PATH_MAX, "%.*s", PATH_MAX - 1,
			 files[i].final);
	return r;
}
