// SPDX-License-Identifier: GPL-2.0-only
/*
 * capture: opens the configured events with libperf and maps their rings.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/event.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "capture-internal.h"
#include "capture_tracefs.h"
#include "capture.h"
#include "config.h"
#include "log.h"
#include "snapshot_name.h"
#include "tracing_meta.h"

static long read_sysctl(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Turns open/mmap errnos into what the operator has to change. */
static int explain_open_error(int err, const char *what, const char *event)
{
	long paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid");
	long mlock_kb = read_sysctl("/proc/sys/kernel/perf_event_mlock_kb");

	switch (-err) {
	case EACCES:
	case EPERM:
		if (strcmp(what, "mmap") == 0)
			log_error("cannot map the rings: locked memory is over perf_event_mlock_kb "
				  "(%ld KiB) and RLIMIT_MEMLOCK, even for the smallest rings: run "
				  "with CAP_IPC_LOCK (root may lack it in a container), raise "
				  "RLIMIT_MEMLOCK (LimitMEMLOCK=), or raise "
				  "/proc/sys/kernel/perf_event_mlock_kb",
				  mlock_kb);
		else
			log_error("cannot open '%s': permission denied: run as root or with "
				  "CAP_PERFMON (and CAP_DAC_READ_SEARCH for tracefs), or lower "
				  "/proc/sys/kernel/perf_event_paranoid (now %ld) to -1",
				  event, paranoid);
		return err;
	case ENOENT:
		log_error("cannot open '%s': no such event: is tracefs mounted at "
			  "/sys/kernel/tracing (mount -t tracefs nodev /sys/kernel/tracing)?",
			  event);
		return err;
	case ENOMEM:
		return log__errno(err, "cannot %s '%s': lower [capture] buffer_size", what, event);
	default:
		return log__errno(err, "cannot %s '%s'", what, event);
	}
}

/*
 * libperf returns -errno from some calls and -1 with errno set from others
 * (perf_evlist__mmap() fails with -1 whatever the cause), and -1 reads as
 * -EPERM. Every call goes through this, with errno as it was right after
 * the call: a genuine -EPERM has errno EPERM too.
 */
int capture__libperf_err(int r, int err)
{
	if (r >= 0)
		return 0;
	if (r == -1 && err > 0)
		return -err;
	return r == -1 ? -EIO : r;
}

static int libperf_err(int r, int err)
{
	return capture__libperf_err(r, err);
}

/*
 * Reads a ring once through this mapping, the two ways a dump reads it:
 * the kernel's copy into a copy file (a scratch one here, rewritten in
 * place, so that it never holds more than a piece) and user space's
 * memcpy. The first read of each page faults, once for the kernel and once
 * for user space, and on a paravirtualized guest such faults make the first
 * dump's pause and copy several times longer than the later ones
 * (docs/decisions.md). At start it costs no dump anything.
 */
static void warm_ring(struct capture *c, const struct ring_view *v, int scratch)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), piece = 64 << 10;
	const volatile char *p = v->data;

	for (size_t off = 0; off < v->data_size && !atomic_load(&c->stop_warming); off += page)
		(void)p[off];
	for (size_t off = 0; scratch >= 0 && off < v->data_size; off += piece) {
		if (atomic_load(&c->stop_warming))
			break;
		if (pwrite(scratch, (const char *)v->data + off,
			   piece < v->data_size - off ? piece : v->data_size - off, 0) < 0)
			break; /* only slower first dump: nothing to report */
	}
}

/*
 * On a thread of its own: a reload opens new rings while the loop answers
 * clients and a dump may run, and touching every page of every ring takes
 * far longer than opening them. A dump that comes first faults the pages
 * itself, as it would have without the warming.
 */
static void *warm_rings(void *arg)
{
	struct capture *c = arg;
	int scratch = memfd_create("perfsnapd-warm", MFD_CLOEXEC);

	for (int i = 0; i < c->nr_rings[1] && !atomic_load(&c->stop_warming); i++)
		warm_ring(c, &c->rings[1][i], scratch);
	if (scratch >= 0)
		close(scratch);
	atomic_store(&c->warm, true);
	return NULL;
}

/* The live rings of one kind: the base evlist's, then each reopened CPU's. */
static int fill_rings(struct capture *c, int which)
{
	struct perf_evlist *evlist = which ? c->aux : c->main;
	int n = c->opened[which] ? perf_internals__rings(evlist, which, NULL, 0) : 0, total;
	struct ring_view *views;

	for (size_t i = 0; i < c->nr_patches; i++)
		if (c->patches[i]->opened[which])
			n += perf_internals__rings(which ? c->patches[i]->aux : c->patches[i]->main,
						   which, NULL, 0);
	views = calloc(n ? (size_t)n : 1, sizeof(*views));
	if (!views)
		return -ENOMEM;
	total = n;
	n = c->opened[which] ? perf_internals__rings(evlist, which, views, total) : 0;
	for (int k = 0; k < n; k++)
		views[k].start_time = c->start_time;
	for (size_t i = 0; i < c->nr_patches; i++) {
		const struct capture_patch *p = c->patches[i];
		int first = n;

		if (!p->opened[which])
			continue;
		n += perf_internals__rings(which ? p->aux : p->main, which, views + n, total - n);
		for (int k = first; k < n; k++)
			views[k].start_time = p->start_time;
		for (int k = first; which && p->replaced && k < n; k++) {
			views[k].replaced = true;
			views[k].skip = p->skip;
		}
	}
	free(c->rings[which]);
	c->rings[which] = views;
	c->nr_rings[which] = n;
	return 0;
}

/**
 * capture__refill_rings - the views of the live rings, again
 * @c: the capture, no dump in flight and the warmer joined
 *
 * Returns 0 or -ENOMEM (the old views are then kept, and still valid for
 * every ring but those just closed).
 */
int capture__refill_rings(struct capture *c)
{
	int r = fill_rings(c, 0);

	return r < 0 ? r : fill_rings(c, 1);
}

static int open_evlist(struct capture *c, int which, unsigned int pages)
{
	struct perf_evlist *evlist = which ? c->aux : c->main;
	const char *name = "?";
	int r;

	for (size_t i = 0; i < c->nr_events; i++)
		if (c->events[i].overwrite == (which == 1)) {
			name = c->events[i].name;
			break;
		}
	perf_evlist__set_maps(evlist, c->cpus, c->threads);
	errno = 0;
	r = perf_evlist__open(evlist);
	r = libperf_err(r, errno);
	if (r < 0)
		return explain_open_error(r, "open", name);
	c->opened[which] = true;
	errno = 0;
	r = perf_evlist__mmap(evlist, (int)pages);
	r = libperf_err(r, errno);
	if (r == -EPERM && c->quiet_mlock) {
		c->mlock_refused = true;
		return r;
	}
	if (r < 0)
		return explain_open_error(r, "mmap", name);
	r = fill_rings(c, which);
	/* Without the thread only the first dump is slower: nothing to report. */
	if (r == 0 && which && c->nr_rings[which] > 0)
		c->warming = pthread_create(&c->warmer, NULL, warm_rings, c) == 0;
	return r;
}

/*
 * The side-band event: no samples, only the records that name tasks and
 * map their code, on the forward ring the daemon drains.
 */
static struct perf_event_attr sideband_attr(clockid_t clockid, bool use_clockid)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CPU,
		.read_format = PERF_FORMAT_ID,
		.disabled = 1,
		.sample_id_all = 1,
		.comm = 1,
		.comm_exec = 1,
		.mmap = 1,
		.mmap2 = 1,
		/*
		 * No attr.build_id: on 6.18, while an event has it, other
		 * processes' perf record intermittently gets MMAP2s flagged
		 * MMAP_BUILD_ID with the inode layout, and perf 6.1 aborts on
		 * them. The side-band reads build-ids itself (proc_table).
		 */
		.task = 1,
		.use_clockid = use_clockid,
		.clockid = clockid,
	};

	return attr;
}

static int add_event(struct capture *c, const char *name, const struct perf_event_attr *src,
		     bool overwrite, unsigned int main_pages)
{
	struct perf_event_attr attr = *src;
	struct perf_evsel *evsel;

	if (!overwrite) {
		/* Wake the daemon when a quarter of the ring is used, not per record. */
		attr.watermark = 1;
		attr.wakeup_watermark = main_pages * (unsigned int)sysconf(_SC_PAGESIZE) / 4;
	}
	evsel = perf_evsel__new(&attr);
	if (!evsel)
		return -ENOMEM;
	c->evsels[c->nr_events] = evsel;
	/* Owned: a reload frees the configuration but keeps the capture. */
	c->events[c->nr_events].name = strdup(name);
	if (!c->events[c->nr_events].name) {
		perf_evsel__delete(evsel);
		return -ENOMEM;
	}
	c->events[c->nr_events].attr = perf_evsel__attr(evsel);
	c->events[c->nr_events].overwrite = overwrite;
	c->nr_events++;
	perf_evlist__add(overwrite ? c->aux : c->main, evsel);
	if (overwrite)
		c->aux_used = true;
	else
		c->main_used = true;
	return 0;
}

/*
 * The forward ring: 1 MiB for side-band alone (a burst of thousands of
 * execs and mmaps between two wake-ups must fit), buffer_size if larger
 * and /no-overwrite/ events share it.
 */
#define SIDEBAND_RING_PAGES CONFIG_SIDEBAND_RING_PAGES /* [capture] memory counts it */

static unsigned int main_ring_pages(const struct perfsnapd_config *cfg)
{
	for (size_t i = 0; i < cfg->nr_events; i++)
		if (!cfg->events[i].overwrite && cfg->buffer_pages > SIDEBAND_RING_PAGES)
			return cfg->buffer_pages;
	return SIDEBAND_RING_PAGES;
}

/*
 * The tracepoints a snapshot of @cfg may hold: [capture]'s and the event
 * triggers'. Returns how many are in *ret (strings of @cfg), or -ENOMEM.
 */
static ssize_t tracepoints_of(const struct perfsnapd_config *cfg, const char ***ret)
{
	const char **names = calloc(cfg->nr_events + cfg->nr_triggers + 1, sizeof(*names));
	size_t nr = 0;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nr_events; i++)
		if (cfg->events[i].is_tracepoint)
			names[nr++] = cfg->events[i].name;
	for (size_t i = 0; i < cfg->nr_triggers; i++)
		if (cfg->triggers[i].kind == TRIGGER_KIND_EVENT)
			names[nr++] = cfg->triggers[i].event.name;
	*ret = names;
	return (ssize_t)nr;
}

static void free_tracing_names(char **names, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(names[i]);
	free(names);
}

/* True when the metadata held has every format @cfg needs. */
static bool has_tracing(const struct capture *c, const struct perfsnapd_config *cfg,
			const char *const *names, size_t nr)
{
	if (!c->tracing)
		return !nr && !(cfg->formats & SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_TRACEDAT));
	for (size_t i = 0; i < nr; i++) {
		size_t j = 0;

		while (j < c->nr_tracing_names && strcmp(c->tracing_names[j], names[i]))
			j++;
		if (j == c->nr_tracing_names)
			return false;
	}
	return true;
}

/*
 * Tracepoint formats and ring-buffer headers, read from tracefs once for
 * the life of the capture (again only for a reload that needs formats it
 * lacks): every dump's snapshot shares them. Needed by tracepoints in any
 * format, and by trace.dat always.
 */
static int read_tracing(struct capture *c, const struct perfsnapd_config *cfg)
{
	struct tracing_meta *m = NULL;
	const char **names = NULL;
	ssize_t nr = tracepoints_of(cfg, &names);
	char **kept = NULL;
	int r = 0;

	if (nr < 0)
		return log__errno((int)nr, "capture");
	if (has_tracing(c, cfg, names, (size_t)nr))
		goto out;
	kept = calloc((size_t)nr + 1, sizeof(*kept));
	for (ssize_t i = 0; kept && i < nr; i++)
		if (!(kept[i] = strdup(names[i])))
			r = -ENOMEM;
	if (!kept)
		r = -ENOMEM;
	if (r == 0)
		r = tracing_meta__read(NULL, names, (size_t)nr, &m);
	if (r < 0) {
		free_tracing_names(kept, kept ? (size_t)nr : 0);
		log__errno(r, "cannot read the tracepoint formats from tracefs");
		goto out;
	}
	tracing_meta__put(c->tracing);
	c->tracing = m;
	free_tracing_names(c->tracing_names, c->nr_tracing_names);
	c->tracing_names = kept;
	c->nr_tracing_names = (size_t)nr;
out:
	free(names);
	return r;
}

/**
 * capture__update_tracing - the formats a reloaded configuration needs
 * @c: the capture, kept by the reload
 * @cfg: the new configuration
 *
 * Reads tracefs only when @cfg names tracepoints (new triggers) whose
 * formats the capture lacks; dumps in flight keep the metadata they have.
 * Returns 0 or -errno (logged); on error the capture keeps what it had.
 */
int capture__update_tracing(struct capture *c, const struct perfsnapd_config *cfg)
{
	return read_tracing(c, cfg);
}

/*
 * One try at @ring_pages per overwrite ring. @quiet: a mmap refused for
 * locked memory is not logged, and sets *@refused.
 */
static int open_pages(const struct perfsnapd_config *cfg, unsigned int ring_pages, bool quiet,
		      bool *refused, struct capture **ret)
{
	struct capture *c = calloc(1, sizeof(*c));
	size_t nr = cfg->nr_events + 1;
	unsigned int pages = main_ring_pages(cfg);
	int r = -ENOMEM;

	if (!c)
		return log__errno(-ENOMEM, "capture");
	c->ring_pages = ring_pages;
	c->main_pages = pages;
	c->quiet_mlock = quiet;
	c->threads = perf_thread_map__new_dummy();
	c->aux = perf_evlist__new();
	c->main = perf_evlist__new();
	c->events = calloc(nr, sizeof(*c->events));
	c->evsels = calloc(nr, sizeof(*c->evsels));
	c->ids = calloc(nr, sizeof(*c->ids));
	c->nr_ids = calloc(nr, sizeof(*c->nr_ids));
	c->ids_size = calloc(nr, sizeof(*c->ids_size));
	if (!c->threads || !c->aux || !c->main || !c->events || !c->evsels || !c->ids ||
	    !c->nr_ids || !c->ids_size)
		goto out_err;
	if ((r = capture__open_cpus(c, cfg)) < 0 ||
	    (r = capture_tracefs__open(cfg, c->cpus,
				       (size_t)ring_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024,
				       &c->tracefs)) < 0)
		goto out_close;
	if (cfg->sideband) {
		struct perf_event_attr attr = sideband_attr(
			cfg->nr_events ? cfg->events[0].attr.clockid : 0,
			cfg->nr_events && cfg->events[0].attr.use_clockid);

		if ((r = add_event(c, "dummy", &attr, false, pages)) < 0)
			goto out_err;
		c->sideband = c->evsels[0];
	}
	for (size_t i = 0; i < cfg->nr_events; i++) {
		struct perf_event_attr attr = cfg->events[i].attr;

		if (c->tracefs && capture_tracefs__takes(&cfg->events[i]))
			continue;
		/* Without the side-band no record names a compact record's process. */
		if (!cfg->sideband && attr.type == PERF_TYPE_TRACEPOINT)
			attr.sample_type |= PERF_SAMPLE_TID;
		if ((r = add_event(c, cfg->events[i].name, &attr, cfg->events[i].overwrite,
				   pages)) < 0)
			goto out_err;
	}
	if (cfg->window_ms)
		r = capture__open_window(c, cfg);
	else if (c->aux_used)
		r = open_evlist(c, 1, ring_pages);
	if (r < 0)
		goto out_close;
	if (c->main_used && (r = open_evlist(c, 0, pages)) < 0)
		goto out_close;
	if ((r = read_tracing(c, cfg)) < 0)
		goto out_close;
	for (size_t i = 0; i < c->nr_events; i++)
		if ((r = capture__add_ids(c, i, c->evsels[i])) < 0)
			goto out_err;
	/* The rest waits for capture__start(). */
	if (c->sideband) {
		errno = 0;
		r = perf_evsel__enable(c->sideband);
		r = libperf_err(r, errno);
		if (r < 0) {
			log__errno(r, "cannot enable the side-band event");
			goto out_close;
		}
	}
	*ret = c;
	return 0;

out_err:
	log__errno(r, "capture");
out_close:
	*refused = c->mlock_refused;
	capture__close(c);
	return r;
}

/*
 * The smallest overwrite ring a locked-memory limit may cut them to: below
 * it a snapshot holds too little to be worth taking, and the error says
 * what to change.
 */
#define MIN_RING_PAGES 16

/**
 * capture__open - open, map and enable every configured event
 * @cfg: validated configuration
 * @ret: the capture, on success
 *
 * With [capture] sideband on, the main evlist gets the side-band dummy
 * event first, so it owns the forward rings. Only that event is enabled;
 * capture__start() enables the others.
 *
 * Where the kernel refuses to lock the overwrite rings' memory (no
 * CAP_IPC_LOCK, RLIMIT_MEMLOCK and perf_event_mlock_kb too small) and
 * @may_cut, they are halved until it does, down to MIN_RING_PAGES, and a
 * warning names the size and the fix: recording smaller beats not
 * recording, and a service that exits is restarted into the same refusal.
 * Without @may_cut (other rings of ours still hold locked memory, so a cut
 * would outlast them) the refusal is -EPERM, not logged.
 *
 * Returns 0 or -errno, having logged what to change.
 */
int capture__open(const struct perfsnapd_config *cfg, bool may_cut, struct capture **ret)
{
	unsigned int pages = cfg->window_ms ? capture__window_start_pages(cfg) : cfg->buffer_pages;
	unsigned int asked = pages;
	int r;

	for (;;) {
		bool last = !may_cut || pages / 2 < MIN_RING_PAGES, refused = false;

		/* The last try logs a refusal, unless the caller has another way. */
		r = open_pages(cfg, pages, !may_cut || !last, &refused, ret);
		if (!refused || last)
			break;
		pages /= 2;
	}
	if (r == 0) {
		(*ret)->backends[0] = (struct capture_backend){ &capture_perf__ops, *ret };
		(*ret)->nr_backends = 1;
		if ((*ret)->tracefs)
			(*ret)->backends[(*ret)->nr_backends++] = (struct capture_backend){
				&capture_tracefs__ops, (*ret)->tracefs
			};
	}
	if (r == 0 && pages != asked)
		log_warning("locked memory: overwrite rings cut from %llu to %llu KiB each; for "
			    "the configured size run with CAP_IPC_LOCK, raise RLIMIT_MEMLOCK "
			    "(LimitMEMLOCK=) or /proc/sys/kernel/perf_event_mlock_kb",
			    (unsigned long long)asked * (unsigned long long)sysconf(_SC_PAGESIZE) /
				    1024,
			    (unsigned long long)pages * (unsigned long long)sysconf(_SC_PAGESIZE) /
				    1024);
	return r;
}

/**
 * capture__ring_pages - pages of each overwrite ring
 * @c: an open capture
 *
 * Returns buffer_size's pages, or fewer where locked memory cut them.
 */
unsigned int capture__ring_pages(const struct capture *c)
{
	return c->ring_pages;
}

/**
 * capture__start - enable the events that sample
 * @c: an open capture
 *
 * Apart from capture__open() so that the side-band can scan /proc in
 * between: a task sampled from now on either lived through that scan or
 * was born with the side-band on, so its name is known either way.
 */
void capture__start(struct capture *c)
{
	c->started = true;
	if (c->opened[1])
		perf_evlist__enable(c->aux);
	/* [capture] window: each CPU's overwrite ring is a patch, opened before the start. */
	for (size_t i = 0; i < c->nr_patches; i++)
		if (c->patches[i]->opened[1] && !c->patches[i]->replaced)
			perf_evlist__enable(c->patches[i]->aux);
	if (c->main_used)
		perf_evlist__enable(c->main);
	if (c->tracefs)
		(void)capture_tracefs__start(c->tracefs); /* logged */
}

/**
 * capture__set_start - since when every event of a CPU's new rings records
 * @c: a started capture, on the loop thread
 * @cpu: the CPU whose rings just opened (capture__cpu_up()), or -1 for
 *       every ring open at capture__start()
 * @time: recording clock ns, read after their enable
 *
 * The events of a ring are enabled one after the other: until the last,
 * the ring holds some and not others (a system call's entries without
 * their exits), so a snapshot leaves out its records from before @time.
 */
void capture__set_start(struct capture *c, int cpu, uint64_t time)
{
	if (cpu < 0)
		c->start_time = time;
	for (size_t i = 0; i < c->nr_patches; i++) {
		struct capture_patch *p = c->patches[i];

		if ((cpu < 0 || p->cpu == cpu) && !p->start_set) {
			p->start_time = time;
			p->start_set = true;
		}
	}
	/* The warmer only reads the views' rings, never this. */
	for (int k = 0; k < c->nr_rings[1]; k++) {
		struct ring_view *v = &c->rings[1][k];

		if ((cpu < 0 || v->cpu == cpu) && !v->start_time && !v->replaced)
			v->start_time = time;
	}
}

/**
 * capture__close - disable, unmap and close everything
 * @c: the capture, or NULL, or a half-opened one
 */
void capture__close(struct capture *c)
{
	if (!c)
		return;
	if (c->warming) {
		atomic_store(&c->stop_warming, true);
		pthread_join(c->warmer, NULL);
	}
	capture_tracefs__close(c->tracefs);
	capture__close_cpus(c);
	for (int which = 0; which < 2; which++) {
		struct perf_evlist *evlist = which ? c->aux : c->main;

		if (!evlist)
			continue;
		if (c->opened[which])
			perf_evlist__disable(evlist);
		perf_evlist__munmap(evlist);
		perf_evlist__close(evlist);
		free(c->rings[which]);
	}
	/* perf_evlist__delete() also deletes the evsels added to it. */
	for (size_t i = 0; c->evsels && i < c->nr_events; i++)
		perf_internals__release_evsel(c->evsels[i]);
	perf_evlist__delete(c->aux);
	perf_evlist__delete(c->main);
	perf_cpu_map__put(c->cpus);
	perf_thread_map__put(c->threads);
	for (size_t i = 0; c->events && i < c->nr_events; i++)
		free((char *)c->events[i].name);
	free(c->events);
	free(c->evsels);
	tracing_meta__put(c->tracing);
	free_tracing_names(c->tracing_names, c->nr_tracing_names);
	for (size_t i = 0; c->ids && i < c->nr_events; i++)
		free(c->ids[i]);
	free(c->ids);
	free(c->nr_ids);
	free(c->ids_size);
	perf_cpu_map__put(c->wanted);
	free(c->win);
	free(c);
}

size_t capture__nr_events(const struct capture *c)
{
	return c->nr_events;
}

const struct capture_event *capture__event(const struct capture *c, size_t idx)
{
	return idx < c->nr_events ? &c->events[idx] : NULL;
}

/* CPUs with live rings. */
int capture__nr_cpus(const struct capture *c)
{
	int n = 0;

	for (int cpu = 0; cpu < c->nr_cpu_slots; cpu++)
		n += c->cpu_state[cpu] != CAPTURE_CPU_NONE;
	return n;
}

/*
 * Of the CPUs that have had rings: a snapshot holds no other, and trace.dat
 * numbers them all (where every possible CPU were counted, a VM with 240
 * possible and 2 online would write 240).
 */
int capture__max_cpu(const struct capture *c)
{
	return c->max_cpu;
}

/**
 * capture__tracing - the tracepoint metadata of the capture's snapshots
 * @c: the capture
 *
 * Read when the capture opened, or by the last capture__update_tracing().
 * Returns it (snapshot__set_tracing() takes a reference), or NULL when no
 * event and no format needs it.
 */
struct tracing_meta *capture__tracing(const struct capture *c)
{
	return c->tracing;
}

const struct capture_event *capture__sideband_event(const struct capture *c)
{
	return c->sideband ? &c->events[0] : NULL;
}

bool capture__warm(struct capture *c)
{
	return !c->warming || atomic_load(&c->warm);
}

int capture__nr_rings(const struct capture *c, bool overwrite)
{
	return c->nr_rings[overwrite];
}

const struct ring_view *capture__ring(const struct capture *c, bool overwrite, int idx)
{
	return idx < c->nr_rings[overwrite] ? &c->rings[overwrite][idx] : NULL;
}

struct perf_evlist *capture__main_evlist(const struct capture *c)
{
	return c->main_used ? c->main : NULL;
}

/**
 * capture__pause_ring - stop or restart the kernel writing into one ring
 * @ring: the ring
 * @pause: true to pause
 *
 * One ioctl on the ring's own fd: no IPI to other CPUs, no other ring
 * affected. Returns 0 or -errno.
 */
int capture__pause_ring(const struct ring_view *ring, bool pause)
{
	if (ioctl(ring->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, pause ? 1 : 0) < 0)
		return -errno;
	return 0;
}

/**
 * capture__drain_forward - hand every record in the forward rings to @fn
 * @c: the capture
 * @fn: called per record; a non-zero return stops the drain after that
 *	record (negative: an error)
 * @ctx: its argument
 *
 * Records are consumed as they are handed over. No perf_mmap__read_done():
 * on a forward ring it moves the read position to the head as it is then,
 * so what the kernel wrote since the last read_event would never be read;
 * read_event and consume already keep the position and the tail.
 * Returns 0 or @fn's return that stopped it.
 */
int capture__drain_forward(struct capture *c, capture_record_fn fn, void *ctx)
{
	struct perf_mmap *map;
	union perf_event *ev;
	int r;

	if (!c->main_used)
		return 0;
	for (size_t i = 0; i <= c->nr_patches; i++) {
		struct perf_evlist *evlist = i ? c->patches[i - 1]->main : c->main;

		if (!(i ? c->patches[i - 1]->opened[0] : c->opened[0]))
			continue;
		perf_evlist__for_each_mmap(evlist, map, false) {
			/* A closed CPU's map is unmapped: read_init refuses it. */
			if (perf_mmap__read_init(map) < 0)
				continue;
			while ((ev = perf_mmap__read_event(map))) {
				r = fn(ctx, &ev->header);
				perf_mmap__consume(map);
				if (r)
					return r;
			}
		}
	}
	return 0;
}
