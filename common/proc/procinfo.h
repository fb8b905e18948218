/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * procinfo: what /proc says about tasks now, turned into the perf records
 * that name them: COMM, and MMAP2 for every executable mapping, plus the
 * kernel's MMAP for [kernel.kallsyms]_text. This is the dump-time ("tail")
 * synthesis: it names tasks that still exist.
 */
#ifndef PERFSNAPD_PROCINFO_H
#define PERFSNAPD_PROCINFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "perf_record.h"

/*
 * Receives each synthesized record (header.size bytes, already carrying
 * the sample_id_all trailer). Returns 0 to go on or -errno to stop.
 */
typedef int (*procinfo_emit_fn)(void *ctx, const struct perf_event_header *rec);

/* How synthesized records are stamped: all perfsnapd attrs share sample_id_all. */
struct procinfo_stamp {
	uint64_t sample_type; /* of the attr whose id is used */
	uint64_t id;
	uint64_t time; /* usually just before the snapshot's first event */
};

/*
 * Emits COMM and then MMAP2 (executable mappings only) for thread @tid of
 * process @pid. Returns 0, -ESRCH if it is gone, or the emitter's error.
 */
int procinfo__synthesize_task(pid_t pid, pid_t tid, const struct procinfo_stamp *stamp,
			      procinfo_emit_fn emit, void *ctx);

/*
 * Emits PERF_RECORD_MMAP (pid -1) "[kernel.kallsyms]_text" starting at
 * _text from /proc/kallsyms, so that kernel callchains resolve. Returns 0
 * or -errno (-ENOENT if _text is not visible, e.g. kptr_restrict).
 */
int procinfo__synthesize_kernel_mmap(const struct procinfo_stamp *stamp, procinfo_emit_fn emit,
				     void *ctx);

/* One mapping parsed from /proc/<pid>/maps; @name is valid only during the callback. */
struct procinfo_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags; /* prot: PROT_*; flags: MAP_PRIVATE or MAP_SHARED */
	const char *name;
};

/* One line of /proc/<pid>/maps into @ret. Returns 0 or -EINVAL. */
int procinfo__parse_maps_line(char *line, struct procinfo_map *ret);

/* Receives each mapping. Returns 0 to go on or -errno to stop. */
typedef int (*procinfo_map_fn)(void *ctx, const struct procinfo_map *m);

/*
 * Calls @fn for each executable mapping of process @pid (not [vsyscall]),
 * as procinfo__synthesize_task() would emit them. Returns 0, -ESRCH if it
 * is gone, @fn's error, or -errno.
 */
int procinfo__for_each_exec_map(pid_t pid, procinfo_map_fn fn, void *ctx);

/*
 * Reads the name of thread @tid of process @pid into @comm (@size >= 16),
 * as ftrace and perf's COMM give it: cut to 15 characters, without the
 * description /proc adds to a workqueue worker's name. Returns 0, -ESRCH
 * if it is gone, or -errno.
 */
int procinfo__read_comm(pid_t pid, pid_t tid, char *comm, size_t size);

/* What /proc/<pid>/task/<tid>/stat says of a thread, as far as perfsnapd needs it. */
struct procinfo_stat {
	pid_t ppid;	/* its process's parent; 0 for init and kthreadd */
	uint32_t flags; /* PF_* */
	char comm[16];	/* the name ftrace gives it (see procinfo__read_comm()) */
};

/* Parses one stat line. Returns 0 or -EINVAL. */
int procinfo__parse_stat(const char *line, struct procinfo_stat *ret);
/* Reads thread @tid of process @pid. Returns 0, -ESRCH if it is gone, or -errno. */
int procinfo__read_stat(pid_t pid, pid_t tid, struct procinfo_stat *ret);
/*
 * Reads process @pid's command line (NUL-separated arguments) into @buf,
 * cut at @size. Returns its length (0 for a kernel thread), -ESRCH if the
 * process is gone, or -errno.
 */
ssize_t procinfo__read_cmdline(pid_t pid, char *buf, size_t size);

/*
 * Reads the kernel's addresses from /proc/kallsyms once, now (they are
 * fixed from boot); procinfo__synthesize_kernel_mmap() then uses them.
 * Returns 0, -ENOENT if they are hidden (kptr_restrict), or -errno.
 */
int procinfo__load_kernel_symbols(void);

/*
 * The addresses of core kernel symbols @names[@nr] into @addrs (0 for one
 * not found or hidden), from one read of /proc/kallsyms. Returns 0 or
 * -errno.
 */
int procinfo__kernel_addrs(const char *const *names, size_t nr, uint64_t *addrs);

/* Returns the thread group id of @tid from /proc, or -errno. */
pid_t procinfo__tgid(pid_t tid);

/*
 * Whether this process sees the host's PID namespace. In one of its own
 * (a container without the host's PIDs), the kernel writes pid 0 in the
 * samples of every task outside it. Returns 1, 0, or -errno.
 */
int procinfo__host_pid_ns(void);

#endif
