// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump: the RUNNING -> DATA_PENDING -> EMPTY -> RUNNING cycle of each
 * overwrite ring (pause, copy, resume), then file building on a worker
 * thread. See dump.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <perf/evlist.h>
#include <perf/mmap.h>
#include <perf/event.h>

#include "backward_ring.h"
#include "capture.h"
#include "config.h"
#include "dump.h"
#include "log.h"
#include "snapshot.h"
#include "snapshot_perfdata.h"

struct dump {
	struct capture *cap;
	const struct perfsnapd_config *cfg;
	int argc;
	const char *const *argv;
	dump_done_fn done;
	void *done_ctx;

	void *copy_buf;
	size_t copy_buf_size;

	int notify_pipe[2];
	struct event *notify_ev;
	pthread_t worker;
	bool running, pending;
	char pending_reason[64];
	unsigned long seq;
	char hostname[256];

	/* Handed from the loop to the worker and back. */
	struct snapshot *snap;
	uint64_t trigger_ns;
	char stem[512];
	struct dump_report report;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t ring_head(const struct ring_view *ring)
{
	const struct perf_event_mmap_page *pc = ring->base;

	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

/*
 * Pause, copy, resume one backward ring. A record the kernel was writing
 * when the pause landed is published after the copy as a further drop of
 * data_head; the bytes it took were the oldest ones in the copy, so they
 * are cut off rather than trusted.
 */
static int copy_backward_ring(struct dump *d, const struct ring_view *ring, size_t *ret_len)
{
	uint64_t head, head_after, t0 = now_ns(), blind;
	size_t len;
	int r;

	r = capture__pause_ring(ring, true);
	if (r < 0)
		return r;
	head = ring_head(ring);
	len = backward_ring__copy(d->copy_buf, ring->data, ring->data_size, head);
	head_after = ring_head(ring);
	r = capture__pause_ring(ring, false);
	blind = now_ns() - t0;
	if (head_after != head) {
		uint64_t clobbered = head - head_after;

		len = clobbered >= ring->data_size ? 0 :
		      (len > ring->data_size - clobbered ? ring->data_size - clobbered : len);
	}
	d->report.blind_total_ns += blind;
	if (blind > d->report.blind_max_ns)
		d->report.blind_max_ns = blind;
	d->report.copy_bytes += len;
	*ret_len = len;
	return r;
}

static int copy_forward_rings(struct dump *d, struct snapshot *s)
{
	struct perf_evlist *main = capture__main_evlist(d->cap);
	struct perf_mmap *map;
	union perf_event *ev;
	int r = 0;

	if (!main)
		return 0;
	perf_evlist__for_each_mmap(main, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		/* CPU is in every record's trailer; the chunk's own is informational. */
		r = snapshot__begin_chunk(s, -1, false);
		while (r == 0 && (ev = perf_mmap__read_event(map))) {
			r = snapshot__append(s, ev, ev->header.size);
			perf_mmap__consume(map);
		}
		perf_mmap__read_done(map);
		if (r == 0)
			r = snapshot__end_chunk(s);
		if (r < 0)
			break;
	}
	return r;
}

static int collect(struct dump *d, struct snapshot *s)
{
	int r;

	for (size_t i = 0; i < capture__nr_events(d->cap); i++) {
		const struct capture_event *ev = capture__event(d->cap, i);

		r = snapshot__add_event(s, ev->attr, ev->name, ev->ids, ev->nr_ids);
		if (r < 0)
			return r;
	}
	r = snapshot__open_spill(s, d->cfg->directory);
	if (r < 0)
		return r;
	for (int i = 0; i < capture__nr_rings(d->cap, true); i++) {
		const struct ring_view *ring = capture__ring(d->cap, true, i);
		size_t len;

		r = copy_backward_ring(d, ring, &len);
		if (r == 0)
			r = snapshot__begin_chunk(s, ring->cpu, true);
		if (r == 0)
			r = snapshot__append(s, d->copy_buf, len);
		if (r == 0)
			r = snapshot__end_chunk(s);
		if (r < 0)
			return r;
	}
	return copy_forward_rings(d, s);
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		r = -errno;
	close(fd);
	return r;
}

/*
 * Writes one output file under a hidden temporary name and renames it into
 * place only once it is complete and on disk.
 */
static int write_perfdata_file(struct dump *d, struct perfdata_result *res)
{
	struct perfdata_meta meta = {
		.argc = d->argc, .argv = d->argv, .clock_res_ns = 1,
	};
	char tmp[4096 + 64];
	int fd, r;

	snprintf(d->report.path, sizeof(d->report.path), "%s/%s.perf.data", d->cfg->directory,
		 d->stem);
	snprintf(tmp, sizeof(tmp), "%s/.%s.perf.data.tmp", d->cfg->directory, d->stem);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0)
		return -errno;
	r = snapshot__write_perfdata(d->snap, fd, &meta, res);
	if (r == 0 && fchmod(fd, 0640) < 0)
		r = -errno;
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, d->report.path) < 0)
		r = -errno;
	if (r < 0) {
		(void)unlink(tmp);
		return r;
	}
	return fsync_dir(d->cfg->directory);
}

static void *worker_main(void *arg)
{
	struct dump *d = arg;
	struct perfdata_result res = { 0 };
	char byte = 0;
	int r;

	r = snapshot__seal(d->snap);
	if (r == 0)
		r = write_perfdata_file(d, &res);
	d->report.error = r;
	if (r < 0)
		d->report.path[0] = '\0';
	d->report.nr_records = snapshot__stats(d->snap)->nr_records;
	d->report.bytes = res.bytes;
	d->report.dump_ns = now_ns() - d->trigger_ns;
	while (write(d->notify_pipe[1], &byte, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void make_stem(struct dump *d)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	snprintf(d->stem, sizeof(d->stem), "%s-%s.%03ld-%lu", d->hostname, when,
		 ts.tv_nsec / 1000000, ++d->seq);
}

static void start(struct dump *d, const char *reason)
{
	int r;

	memset(&d->report, 0, sizeof(d->report));
	d->trigger_ns = now_ns();
	make_stem(d);
	log_debug("dump %s (%s)", d->stem, reason);
	d->snap = snapshot__new();
	r = d->snap ? collect(d, d->snap) : -ENOMEM;
	if (r == 0) {
		r = -pthread_create(&d->worker, NULL, worker_main, d);
		if (r == 0) {
			d->running = true;
			return;
		}
	}
	snapshot__delete(d->snap);
	d->snap = NULL;
	d->report.error = r;
	d->report.dump_ns = now_ns() - d->trigger_ns;
	d->done(d->done_ctx, &d->report);
}

static void on_worker_done(evutil_socket_t fd, short what, void *arg)
{
	struct dump *d = arg;
	char buf[16];

	(void)what;
	while (read(fd, buf, sizeof(buf)) < 0 && errno == EINTR)
		;
	pthread_join(d->worker, NULL);
	d->running = false;
	snapshot__delete(d->snap);
	d->snap = NULL;
	d->done(d->done_ctx, &d->report);
	if (d->pending) {
		d->pending = false;
		start(d, d->pending_reason);
	}
}

/**
 * dump__trigger - take a snapshot now, or right after the one in flight
 * @d: the dumper
 * @reason: recorded in logs ("signal", ...)
 */
void dump__trigger(struct dump *d, const char *reason)
{
	if (d->running) {
		if (!d->pending)
			log_info("dump requested (%s) during a dump: it will follow", reason);
		d->pending = true;
		snprintf(d->pending_reason, sizeof(d->pending_reason), "%s", reason);
		return;
	}
	start(d, reason);
}

/**
 * dump__new - prepare dumps of a capture
 * @cap: the open capture
 * @cfg: the configuration (kept by reference)
 * @base: the event loop that is told when a worker finishes
 * @argc: the daemon's argument count, for the CMDLINE feature
 * @argv: the daemon's arguments
 * @done: called in the loop after each dump, successful or not
 * @done_ctx: its argument
 * @ret: the dumper
 *
 * Returns 0 or -errno (logged).
 */
int dump__new(struct capture *cap, const struct perfsnapd_config *cfg, struct event_base *base,
	      int argc, const char *const *argv, dump_done_fn done, void *done_ctx,
	      struct dump **ret)
{
	struct dump *d = calloc(1, sizeof(*d));
	size_t max = 0;

	if (!d)
		return log_errno(-ENOMEM, "dump");
	d->cap = cap;
	d->cfg = cfg;
	d->argc = argc;
	d->argv = argv;
	d->done = done;
	d->done_ctx = done_ctx;
	d->notify_pipe[0] = d->notify_pipe[1] = -1;
	if (gethostname(d->hostname, sizeof(d->hostname) - 1) < 0)
		snprintf(d->hostname, sizeof(d->hostname), "localhost");
	for (int i = 0; i < capture__nr_rings(cap, true); i++)
		if (capture__ring(cap, true, i)->data_size > max)
			max = capture__ring(cap, true, i)->data_size;
	if (max) {
		/* Faulted in now, so a dump's blind window holds no page faults. */
		d->copy_buf = mmap(NULL, max, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (d->copy_buf == MAP_FAILED) {
			d->copy_buf = NULL;
			dump__delete(d);
			return log_errno(-ENOMEM, "cannot allocate the %zu-byte copy buffer", max);
		}
		d->copy_buf_size = max;
	}
	if (pipe2(d->notify_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		int r = -errno;

		dump__delete(d);
		return log_errno(r, "pipe");
	}
	d->notify_ev = event_new(base, d->notify_pipe[0], EV_READ | EV_PERSIST, on_worker_done, d);
	if (!d->notify_ev || event_add(d->notify_ev, NULL) < 0) {
		dump__delete(d);
		return log_errno(-ENOMEM, "event_new");
	}
	*ret = d;
	return 0;
}

/**
 * dump__delete - wait for a dump in flight and free the dumper
 * @d: the dumper, or NULL
 */
void dump__delete(struct dump *d)
{
	if (!d)
		return;
	if (d->running) {
		pthread_join(d->worker, NULL);
		if (d->report.error == 0)
			log_info("snapshot %s finished during shutdown", d->report.path);
	}
	snapshot__delete(d->snap);
	if (d->notify_ev)
		event_free(d->notify_ev);
	if (d->notify_pipe[0] >= 0)
		close(d->notify_pipe[0]);
	if (d->notify_pipe[1] >= 0)
		close(d->notify_pipe[1]);
	if (d->copy_buf)
		munmap(d->copy_buf, d->copy_buf_size);
	free(d);
}

uint64_t dump__copy_buffer_size(const struct dump *d)
{
	return d->copy_buf_size;
}
