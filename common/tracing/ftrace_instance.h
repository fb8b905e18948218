/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_instance: a tracefs instance of perfsnapd's own, made and removed
 * with libtracefs: its events and their filters, its clock, each CPU's
 * ring size, its on/off switch (an fd kept open, for the dump's stop) and
 * each CPU's stats. An instance is named PREFIX-PID, so two daemons never
 * share one and a killed daemon's leftover is known by its dead PID.
 * Nothing here logs: -errno, and the caller says what failed.
 */
#ifndef PERFSNAPD_FTRACE_INSTANCE_H
#define PERFSNAPD_FTRACE_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ftrace_instance;

/*
 * Creates instance "@prefix-@pid" (@seq 0) or "@prefix-@pid.@seq" under
 * the system's tracefs, tracing off, overwrite on (record-cmd and
 * record-tgid as the system has them: see ftrace_instance.c). Returns 0,
 * -EEXIST where it exists (it is left alone), or -errno.
 */
int ftrace_instance__create(const char *prefix, pid_t pid, unsigned int seq,
			    struct ftrace_instance **ret);
/*
 * Turns tracing off and removes the instance, and frees @fi whatever the
 * result; NULL is fine. Close the fds of ftrace_instance__open_cpu_raw()
 * (and unmap their rings) first: the kernel keeps an instance with an
 * open file (-EBUSY; it is left off, for a later run's remove_leftovers).
 * Returns 0 or -errno.
 */
int ftrace_instance__destroy(struct ftrace_instance *fi);
/*
 * Removes every instance "@prefix-PID" whose PID does not run (a killed
 * daemon's), and no other. Returns how many, or the -errno of the first
 * that could not be removed (the others are still tried).
 */
int ftrace_instance__remove_leftovers(const char *prefix);

const char *ftrace_instance__name(const struct ftrace_instance *fi);
/* Whether the system's trace_clock offers @clock ("perf", "mono", "boot"). */
bool ftrace_instance__has_clock(const char *clock);
int ftrace_instance__set_clock(struct ftrace_instance *fi, const char *clock);
/* @cpu's ring to @kb KiB (per_cpu/cpuN/buffer_size_kb); EBUSY while mapped. */
int ftrace_instance__set_cpu_kb(struct ftrace_instance *fi, int cpu, size_t kb);
int ftrace_instance__cpu_kb(const struct ftrace_instance *fi, int cpu, size_t *ret_kb);
/*
 * Enables @system:@event (names, not patterns), with @filter (NULL or "":
 * none) in its events/.../filter. A filter the kernel rejects: -EINVAL,
 * and the event is left disabled. -ENOENT for an event the kernel has not.
 */
int ftrace_instance__enable_event(struct ftrace_instance *fi, const char *system, const char *event,
				  const char *filter);
/* tracing_on, through an fd opened at create: one write(2). Returns 0 or -errno. */
int ftrace_instance__set_on(struct ftrace_instance *fi, bool on);
/* An ftrace:print event saying @text, stamped now (trace_marker). Returns 0 or -errno. */
int ftrace_instance__mark(struct ftrace_instance *fi, const char *text);
/* The common_type of @system:@event (events/.../id). Returns it or -errno. */
int ftrace_instance__event_type(const char *system, const char *event);
/*
 * per_cpu/cpuN/trace_pipe_raw, opened O_RDONLY|O_NONBLOCK|O_CLOEXEC.
 * Returns an fd or -errno; the fd keeps the instance busy (see destroy).
 */
int ftrace_instance__open_cpu_raw(const struct ftrace_instance *fi, int cpu);

/*
 * per_cpu/cpuN/stats; -EPROTO where a count is missing or not a number, or
 * the clock is a counter (its time stamps are not seconds).
 */
struct ftrace_cpu_stats {
	uint64_t entries;
	uint64_t overrun;	 /* overwritten: the oldest, as an overwrite ring does */
	uint64_t commit_overrun; /* lost: nested writers overflowed a sub-buffer */
	uint64_t dropped_events; /* lost: the ring was full with overwrite off */
	uint64_t bytes;		 /* the events it holds */
	uint64_t oldest_ns;	 /* the oldest's time, in the instance's clock; 0: none */
	uint64_t now_ns;	 /* the clock when read */
};
int ftrace_instance__cpu_stats(const struct ftrace_instance *fi, int cpu,
			       struct ftrace_cpu_stats *ret);

#endif
