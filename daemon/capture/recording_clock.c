// SPDX-License-Identifier: GPL-2.0-only
/*
 * recording_clock: "now" in the clock the events stamp their records with,
 * for times the daemon itself states in a snapshot (a CPU's offline span).
 * See recording_clock.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "monotonic.h"
#include "recording_clock.h"

struct recording_clock {
	bool use_clockid;
	clockid_t clockid;
	int fd; /* perf clock: the marker event, else -1 */
	struct perf_event_mmap_page *page;
	size_t map_size;
};

/* One data page: the marker's records are read at once, one at a time. */
#define MARKER_PAGES 1
#define OFFSET_TRIES 5

/**
 * recording_clock__new - a source of "now" in the events' clock
 * @use_clockid: the events' attr.use_clockid
 * @clockid: their attr.clockid
 * @ret: the clock
 *
 * With use_clockid the clock is clock_gettime()'s. perf's own clock (the
 * kernel's local clock) has no such call, and user space can compute it
 * only where the kernel exports the TSC's conversion (cap_user_time_zero,
 * absent on many virtual machines): there a marker event on the calling
 * thread stamps a COMM record, which its own renaming (to the same name)
 * makes the kernel write. recording_clock__now() must be called from the
 * thread that made the clock. Returns 0 or -errno.
 */
int recording_clock__new(bool use_clockid, int clockid, struct recording_clock **ret)
{
	struct recording_clock *rc = calloc(1, sizeof(*rc));
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.comm = 1,
		.exclude_kernel = 1,
	};
	void *p;
	int r;

	if (!rc)
		return -ENOMEM;
	rc->fd = -1;
	rc->use_clockid = use_clockid;
	rc->clockid = (clockid_t)clockid;
	if (use_clockid) {
		*ret = rc;
		return 0;
	}
	rc->fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (rc->fd < 0)
		goto out_err;
	rc->map_size = (size_t)(1 + MARKER_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
	p = mmap(NULL, rc->map_size, PROT_READ | PROT_WRITE, MAP_SHARED, rc->fd, 0);
	if (p == MAP_FAILED)
		goto out_err;
	rc->page = p;
	*ret = rc;
	return 0;

out_err:
	r = -errno;
	recording_clock__delete(rc);
	return r;
}

void recording_clock__delete(struct recording_clock *rc)
{
	if (!rc)
		return;
	if (rc->page)
		munmap(rc->page, rc->map_size);
	if (rc->fd >= 0)
		close(rc->fd);
	free(rc);
}

/*
 * The time of the newest COMM record in the marker's ring, all of it
 * consumed: with sample_id_all and PERF_SAMPLE_TIME alone, a record's
 * last 8 bytes are its time.
 */
static int newest_comm(struct recording_clock *rc, uint64_t *ret_ns)
{
	const uint8_t *data = (const uint8_t *)rc->page + sysconf(_SC_PAGESIZE);
	uint64_t size = rc->map_size - (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&rc->page->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = rc->page->data_tail;
	int r = -EAGAIN;

	while (tail < head) {
		struct perf_event_header h;
		uint64_t t;

		for (size_t i = 0; i < sizeof(h); i++)
			((uint8_t *)&h)[i] = data[(tail + i) & (size - 1)];
		if (h.size < sizeof(h) + sizeof(t))
			break;
		if (h.type == PERF_RECORD_COMM) {
			for (size_t i = 0; i < sizeof(t); i++)
				((uint8_t *)&t)[i] =
					data[(tail + h.size - sizeof(t) + i) & (size - 1)];
			*ret_ns = t;
			r = 0;
		}
		tail += h.size;
	}
	__atomic_store_n(&rc->page->data_tail, head, __ATOMIC_RELEASE);
	return r;
}

/**
 * recording_clock__now - the events' clock now
 * @rc: the clock, on the thread that made it
 * @ret_ns: ns
 *
 * Returns 0 or -errno.
 */
int recording_clock__now(struct recording_clock *rc, uint64_t *ret_ns)
{
	char name[16] = "";
	struct timespec ts;

	if (rc->use_clockid) {
		if (clock_gettime(rc->clockid, &ts) < 0)
			return -errno;
		*ret_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		return 0;
	}
	if (prctl(PR_GET_NAME, name) < 0 || prctl(PR_SET_NAME, name) < 0)
		return -errno;
	return newest_comm(rc, ret_ns);
}

/**
 * recording_clock__offset - the events' clock minus CLOCK_MONOTONIC
 * @rc: the clock, on the thread that made it
 * @ret_ns: ns
 *
 * From the tightest of a few readings back to back: a preemption between
 * the two clocks would be an error of its whole length (milliseconds on a
 * busy machine). Returns 0 or -errno.
 */
int recording_clock__offset(struct recording_clock *rc, int64_t *ret_ns)
{
	uint64_t best_span = UINT64_MAX;
	int r = 0;

	for (int i = 0; i < OFFSET_TRIES; i++) {
		uint64_t before = monotonic_ns(), after, rec;

		r = recording_clock__now(rc, &rec);
		if (r < 0)
			break;
		after = monotonic_ns();
		if (after - before < best_span) {
			best_span = after - before;
			*ret_ns = (int64_t)(rec - (before + (after - before) / 2));
		}
	}
	return best_span == UINT64_MAX ? r : 0;
}
