// SPDX-License-Identifier: GPL-2.0-only
/*
 * loop_sched: nice and slice of the loop thread. See loop_sched.h.
 */
#include "loop_sched.h"

#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/sched/types.h>'s first version (glibc before 2.41 has none; the uapi header clashes with <sched.h>). */
struct loop_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#define LOOP_SCHED_RESET_ON_FORK 0x01 /* SCHED_FLAG_RESET_ON_FORK */

/*
 * As the dump's own threads (dump.c): at nice -10 the loop, once woken,
 * keeps its CPU against nice-0 tasks until it has started the copy. That
 * alone does not wake it sooner: the task running where it wakes keeps
 * its slice (EEVDF's run to parity), which ends only at a tick, 4 ms
 * apart at HZ=250. A slice shorter than that task's lets the waking loop
 * preempt it at once (kernels from 6.12 on; older ones ignore it).
 */
#define LOOP_NICE     (-10)
#define LOOP_SLICE_NS 100000ull /* the shortest the kernel accepts */

static int set_attr(int nice)
{
	struct loop_sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_OTHER,
		.sched_flags = LOOP_SCHED_RESET_ON_FORK,
		.sched_nice = nice,
		.sched_runtime = LOOP_SLICE_NS,
	};

	return syscall(SYS_sched_setattr, 0, &attr, 0) < 0 ? -errno : 0;
}

int loop_sched__raise(void)
{
	int r = set_attr(LOOP_NICE), now;

	if (r != -EPERM)
		return r;
	/* Without CAP_SYS_NICE: the slice and the reset on fork still help. */
	errno = 0;
	now = getpriority(PRIO_PROCESS, 0);
	if (errno == 0)
		(void)set_attr(now);
	return r;
}
