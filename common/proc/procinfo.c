// SPDX-License-Identifier: GPL-2.0-only
/*
 * procinfo: dump-time synthesis of COMM, MMAP2 and the kernel MMAP from
 * /proc, laid out like the kernel's records (and perf's synthesized ones,
 * tools/perf/util/synthetic-events.c) plus a sample_id_all trailer. Records
 * are built in a heap buffer sized for each name, so no comm or path length
 * can overflow a fixed struct.
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "procinfo.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
/* The kernel's and perf's comm[] hold TASK_COMM_LEN (16) bytes with the NUL. */
#define COMM_MAX  15

/* Fixed parts of the records; the name, then the trailer, follow each. */
struct comm_fixed {
	struct perf_event_header header;
	uint32_t pid, tid;
};

struct mmap_fixed {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
};

struct mmap2_fixed {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
};

_Static_assert(sizeof(struct comm_fixed) == 16, "COMM layout");
_Static_assert(sizeof(struct mmap_fixed) == 40, "MMAP layout");
_Static_assert(sizeof(struct mmap2_fixed) == 72, "MMAP2 layout");

/* One growing buffer reused for every record of a call. */
struct rec_buf {
	uint8_t *p;
	size_t cap;
};

/*
 * Lays out @fixed_size bytes of @fixed, @name NUL-padded to 8 bytes and
 * the trailer in @buf, and sets header.size. Returns the record or NULL
 * with *err set (-ENOMEM, -E2BIG past the u16 header.size).
 */
static struct perf_event_header *build_record(struct rec_buf *buf, const void *fixed,
					      size_t fixed_size, const char *name,
					      const struct procinfo_stamp *stamp, uint32_t pid,
					      uint32_t tid, int *err)
{
	struct perf_record_info s = {
		.pid = pid,
		.tid = tid,
		.time = stamp->time,
		.id = stamp->id,
		.cpu = 0,
	};
	size_t name_len = strlen(name);
	size_t name_size = ALIGN8(name_len + 1);
	size_t size = fixed_size + name_size + perf_record__id_trailer_size(stamp->sample_type);
	struct perf_event_header *hdr;

	if (size > UINT16_MAX) {
		*err = -E2BIG;
		return NULL;
	}
	if (size > buf->cap) {
		uint8_t *p = realloc(buf->p, size);

		if (!p) {
			*err = -ENOMEM;
			return NULL;
		}
		buf->p = p;
		buf->cap = size;
	}
	memcpy(buf->p, fixed, fixed_size);
	memcpy(buf->p + fixed_size, name, name_len);
	memset(buf->p + fixed_size + name_len, 0, name_size - name_len);
	perf_record__write_id_trailer(buf->p + fixed_size + name_size, stamp->sample_type, &s);
	hdr = (struct perf_event_header *)buf->p;
	hdr->size = (uint16_t)size;
	return hdr;
}

/* include/linux/sched.h: the task is a workqueue worker. */
#define PF_WQ_WORKER 0x00000020

/*
 * /proc shows a workqueue worker as "kworker/1:1-events": the kernel adds
 * what it last ran ("-desc", "+desc" while running) to the worker's own
 * name, which is what ftrace and perf's COMM show. A rescuer's own name is
 * "kworker/R-<workqueue>" and has no such part.
 */
static void strip_worker_desc(char *comm)
{
	char *p;

	if (strncmp(comm, "kworker/", 8) || !strncmp(comm, "kworker/R-", 10))
		return;
	p = comm + 8 + strcspn(comm + 8, "-+");
	*p = '\0';
}

/**
 * procinfo__parse_stat - the fields of a /proc/<pid>/stat line perfsnapd uses
 * @line: the line, NUL-terminated
 * @ret: receives the parent, the flags and the name ftrace gives the task
 *
 * The name sits between the first '(' and the last ')' (it may hold both).
 * It is cut to 15 characters, and a workqueue worker's description is
 * dropped (see strip_worker_desc()).
 *
 * Returns 0 or -EINVAL for a line that does not parse.
 */
int procinfo__parse_stat(const char *line, struct procinfo_stat *ret)
{
	const char *open = strchr(line, '('), *close = strrchr(line, ')');
	struct procinfo_stat st = { 0 };
	unsigned long long v[5];
	long long tpgid;
	char state;
	size_t len;

	if (!open || !close || close < open)
		return -EINVAL;
	/* state ppid pgrp session tty_nr tpgid flags */
	if (sscanf(close + 1, " %c %llu %llu %llu %llu %lld %llu", &state, &v[0], &v[1], &v[2],
		   &v[3], &tpgid, &v[4]) != 7)
		return -EINVAL;
	len = (size_t)(close - open - 1);
	if (len > COMM_MAX)
		len = COMM_MAX;
	memcpy(st.comm, open + 1, len);
	st.comm[len] = '\0';
	st.ppid = v[0] <= INT32_MAX ? (pid_t)v[0] : 0;
	st.flags = (uint32_t)v[4];
	if (st.flags & PF_WQ_WORKER)
		strip_worker_desc(st.comm);
	*ret = st;
	return 0;
}

/**
 * procinfo__read_stat - a thread's parent, flags and name, from /proc
 * @pid: thread group id
 * @tid: the thread
 * @ret: set on success
 *
 * Reads /proc/<pid>/task/<tid>/stat (see procinfo__parse_stat()).
 *
 * Returns 0, -ESRCH if the thread is gone, or -errno.
 */
int procinfo__read_stat(pid_t pid, pid_t tid, struct procinfo_stat *ret)
{
	char path[64], line[512];
	ssize_t n;
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* A thread that died since the open reads as -ESRCH. */
	n = read(fd, line, sizeof(line) - 1);
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	line[n] = '\0';
	return procinfo__parse_stat(line, ret);
}

/**
 * procinfo__read_comm - the name of a thread, as ftrace and perf give it
 * @pid: thread group id
 * @tid: the thread
 * @comm: receives the name, NUL-terminated, at most 15 characters
 * @size: bytes at @comm, at least 16
 *
 * From /proc/<pid>/task/<tid>/stat: its comm file shows the same name
 * with a workqueue worker's description added (procinfo__parse_stat()).
 *
 * Returns 0, -ESRCH if the thread is gone, or -errno.
 */
int procinfo__read_comm(pid_t pid, pid_t tid, char *comm, size_t size)
{
	struct procinfo_stat st;
	int r;

	if (size <= COMM_MAX)
		return -EINVAL;
	r = procinfo__read_stat(pid, tid, &st);
	if (r < 0)
		return r;
	memcpy(comm, st.comm, sizeof(st.comm));
	return 0;
}

/**
 * procinfo__read_cmdline - a process's command line, as /proc gives it
 * @pid: the process
 * @buf: receives the arguments, each NUL-terminated, one after the other
 * @size: bytes at @buf
 *
 * Longer command lines are cut at @size (the last argument NUL-terminated
 * there). A kernel thread, or a process past its exit, has none: 0.
 *
 * Returns the bytes stored, -ESRCH if the process is gone, or -errno.
 */
ssize_t procinfo__read_cmdline(pid_t pid, char *buf, size_t size)
{
	char path[64];
	size_t len = 0;
	ssize_t n = 0;
	int fd, r = 0;

	if (!size)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	while (len < size && (n = read(fd, buf + len, size - len)) > 0)
		len += (size_t)n;
	if (len < size && n < 0)
		r = -errno;
	close(fd);
	if (r < 0)
		return r;
	if (len && buf[len - 1] != '\0') {
		if (len == size)
			len--;
		buf[len++] = '\0';
	}
	return (ssize_t)len;
}

static int emit_comm(pid_t pid, pid_t tid, const struct procinfo_stamp *stamp,
		     procinfo_emit_fn emit, void *ctx, struct rec_buf *buf)
{
	struct comm_fixed f = {
		.header = { .type = PERF_RECORD_COMM },
		.pid = (uint32_t)pid,
		.tid = (uint32_t)tid,
	};
	const struct perf_event_header *hdr;
	char comm[64];
	int r;

	r = procinfo__read_comm(pid, tid, comm, sizeof(comm));
	if (r < 0)
		return r;
	hdr = build_record(buf, &f, sizeof(f), comm, stamp, f.pid, f.tid, &r);
	if (!hdr)
		return r;
	r = emit(ctx, hdr);
	return r < 0 ? r : 0;
}

static int parse_u64(char **p, int base, char sep, uint64_t *ret)
{
	char *end;

	errno = 0;
	*ret = strtoull(*p, &end, base);
	if (end == *p || errno || *end != sep)
		return -EINVAL;
	*p = end + 1;
	return 0;
}

/**
 * procinfo__parse_maps_line - one line of /proc/<pid>/maps
 * @line: the line, NUL-terminated; its newline is cut off in place
 * @m: the mapping; its name points into @line ("//anon" for none)
 *
 * "start-end perms pgoff maj:min ino   name", as perf's
 * read_proc_maps_line() reads it; the name is the rest of the line, as a
 * user named the file (the kernel escapes its newlines).
 *
 * Returns 0 or -EINVAL for a line that does not parse.
 */
int procinfo__parse_maps_line(char *line, struct procinfo_map *m)
{
	uint64_t maj, min;
	char *p = line;

	if (parse_u64(&p, 16, '-', &m->start) || parse_u64(&p, 16, ' ', &m->end))
		return -EINVAL;
	if (strlen(p) < 5 || p[4] != ' ')
		return -EINVAL;
	m->prot = (p[0] == 'r' ? PROT_READ : 0) | (p[1] == 'w' ? PROT_WRITE : 0) |
		  (p[2] == 'x' ? PROT_EXEC : 0);
	if (p[3] != 's' && p[3] != 'p')
		return -EINVAL;
	m->flags = p[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	p += 5;
	if (parse_u64(&p, 16, ' ', &m->pgoff) || parse_u64(&p, 16, ':', &maj) ||
	    parse_u64(&p, 16, ' ', &min))
		return -EINVAL;
	m->maj = (uint32_t)maj;
	m->min = (uint32_t)min;
	/* The inode is the last field of an anonymous map: no separator after it. */
	errno = 0;
	m->ino = strtoull(p, &p, 10);
	if (errno)
		return -EINVAL;
	p += strspn(p, " ");
	p[strcspn(p, "\n")] = '\0';
	/* " (deleted)" stays part of the name, as perf keeps it. */
	m->name = *p ? p : "//anon";
	return 0;
}

static int emit_mmap2(pid_t pid, const struct procinfo_map *m, const struct procinfo_stamp *stamp,
		      procinfo_emit_fn emit, void *ctx, struct rec_buf *buf)
{
	struct mmap2_fixed f = {
		.header = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER },
		.pid = (uint32_t)pid,
		.tid = (uint32_t)pid,
		.start = m->start,
		.len = m->end - m->start,
		.pgoff = m->pgoff,
		.maj = m->maj,
		.min = m->min,
		.ino = m->ino,
		.ino_generation = 0,
		.prot = m->prot,
		.flags = m->flags,
	};
	const struct perf_event_header *hdr;
	int r;

	hdr = build_record(buf, &f, sizeof(f), m->name, stamp, f.pid, f.tid, &r);
	if (!hdr)
		return r;
	r = emit(ctx, hdr);
	return r < 0 ? r : 0;
}

/**
 * procinfo__for_each_exec_map - walk the executable mappings of a process
 * @pid: the process
 * @fn: called with each mapping; a negative return stops the walk
 * @ctx: passed to @fn
 *
 * Parses /proc/<pid>/maps and calls @fn for every mapping with PROT_EXEC
 * except [vsyscall], in address order. Anonymous ones are named "//anon".
 *
 * Returns 0, -ESRCH if the process is gone, @fn's error, or -errno.
 */
int procinfo__for_each_exec_map(pid_t pid, procinfo_map_fn fn, void *ctx)
{
	char path[64];
	char *line = NULL;
	size_t cap = 0;
	struct procinfo_map m;
	FILE *f;
	int r = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	errno = 0;
	while (getline(&line, &cap, f) > 0) {
		if (procinfo__parse_maps_line(line, &m) < 0 || !(m.prot & PROT_EXEC))
			continue;
		if (!strcmp(m.name, "[vsyscall]"))
			continue;
		r = fn(ctx, &m);
		if (r < 0)
			break;
		r = 0;
		errno = 0;
	}
	if (!r && ferror(f))
		r = errno ? -errno : -EIO;
	free(line);
	fclose(f);
	return r;
}

struct emit_mmaps_ctx {
	pid_t pid;
	const struct procinfo_stamp *stamp;
	procinfo_emit_fn emit;
	void *ctx;
	struct rec_buf *buf;
};

static int emit_one_mmap(void *ctx, const struct procinfo_map *m)
{
	struct emit_mmaps_ctx *e = ctx;

	return emit_mmap2(e->pid, m, e->stamp, e->emit, e->ctx, e->buf);
}

/**
 * procinfo__synthesize_task - describe one thread as perf records
 * @pid: thread group id; 0 or less to look it up from @tid
 * @tid: the thread
 * @stamp: sample_type, id and time for the sample_id_all trailers
 * @emit: called with each record; a negative return stops the walk
 * @ctx: passed to @emit
 *
 * Emits PERF_RECORD_COMM for @tid, then, for a thread group leader only
 * (as perf does, the maps belong to the process), PERF_RECORD_MMAP2 for
 * every executable mapping in /proc/<pid>/maps except [vsyscall].
 * Anonymous ones are named "//anon". Records already emitted stay emitted
 * when a later step fails.
 *
 * Returns 0, -ESRCH if the task is gone, the emitter's error, or -errno.
 */
int procinfo__synthesize_task(pid_t pid, pid_t tid, const struct procinfo_stamp *stamp,
			      procinfo_emit_fn emit, void *ctx)
{
	struct rec_buf buf = { NULL, 0 };
	int r;

	if (tid <= 0)
		return -EINVAL;
	if (pid <= 0) {
		pid = procinfo__tgid(tid);
		if (pid < 0)
			return pid;
	}
	r = emit_comm(pid, tid, stamp, emit, ctx, &buf);
	if (!r && pid == tid) {
		struct emit_mmaps_ctx e = { pid, stamp, emit, ctx, &buf };

		r = procinfo__for_each_exec_map(pid, emit_one_mmap, &e);
	}
	free(buf.p);
	return r;
}

/* Addresses of the core kernel symbols perf uses to place the kernel map. */
struct kernel_syms {
	uint64_t text, stext, etext, edata;
};

/**
 * procinfo__kernel_addrs - the addresses of core kernel symbols by name
 * @names: symbol names
 * @nr: how many
 * @addrs: each one's address, 0 where the kernel has none of that name or
 *	   hides its addresses (kptr_restrict)
 *
 * One read of /proc/kallsyms (tens of milliseconds): for a caller's setup,
 * not for a dump. Returns 0 or -errno.
 */
int procinfo__kernel_addrs(const char *const *names, size_t nr, uint64_t *addrs)
{
	char *line = NULL;
	size_t cap = 0;
	char type, name[128];
	uint64_t addr;
	FILE *f;
	int r = 0;

	memset(addrs, 0, nr * sizeof(*addrs));
	f = fopen("/proc/kallsyms", "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (strchr(line, '\t'))
			break; /* the modules' symbols, after the core kernel's */
		if (sscanf(line, "%" SCNx64 " %c %127s", &addr, &type, name) != 3)
			continue;
		for (size_t i = 0; i < nr; i++)
			if (!addrs[i] && !strcmp(name, names[i]))
				addrs[i] = addr;
	}
	if (ferror(f))
		r = -EIO;
	free(line);
	fclose(f);
	return r;
}

static int read_kernel_syms(struct kernel_syms *ks)
{
	static const char *const names[] = { "_text", "_stext", "_etext", "_edata" };
	uint64_t addrs[4];
	int r = procinfo__kernel_addrs(names, 4, addrs);

	*ks = (struct kernel_syms){ addrs[0], addrs[1], addrs[2], addrs[3] };
	return r;
}

/*
 * The core kernel's addresses are fixed from boot (KASLR picks them once),
 * and reading /proc/kallsyms takes tens of milliseconds: read it once.
 */
static pthread_mutex_t kernel_syms_lock = PTHREAD_MUTEX_INITIALIZER;
static struct kernel_syms kernel_syms_cache;
static bool kernel_syms_cached;

static int cached_kernel_syms(struct kernel_syms *ks)
{
	int r = 0;

	pthread_mutex_lock(&kernel_syms_lock);
	if (!kernel_syms_cached) {
		r = read_kernel_syms(&kernel_syms_cache);
		/* 0 addresses (kptr_restrict) may change with privileges: retry later. */
		kernel_syms_cached = r == 0 && (kernel_syms_cache.text || kernel_syms_cache.stext);
	}
	*ks = kernel_syms_cache;
	pthread_mutex_unlock(&kernel_syms_lock);
	return r;
}

/**
 * procinfo__load_kernel_symbols - read /proc/kallsyms now rather than at
 * the first dump
 *
 * Returns 0, -ENOENT if the kernel's addresses are hidden (kptr_restrict),
 * or -errno.
 */
int procinfo__load_kernel_symbols(void)
{
	struct kernel_syms ks;
	int r = cached_kernel_syms(&ks);

	if (r < 0)
		return r;
	return ks.text || ks.stext ? 0 : -ENOENT;
}

/**
 * procinfo__synthesize_kernel_mmap - the kernel's own PERF_RECORD_MMAP
 * @stamp: sample_type, id and time for the sample_id_all trailer
 * @emit: receives the record
 * @ctx: passed to @emit
 *
 * Emits what perf record synthesizes (perf_event__synthesize_kernel_mmap()):
 * pid -1, start and pgoff at _text (or _stext), named
 * "[kernel.kallsyms]_text" so perf report relocates kallsyms against it.
 * The length runs to _edata, else _etext, else the end of the address
 * space, as perf's machine__get_running_kernel_start() decides; stopping
 * at the kernel image keeps module addresses out of the kernel map.
 *
 * Returns 0, -ENOENT if the symbol is missing or reads as 0
 * (kptr_restrict), the emitter's error, or -errno.
 */
int procinfo__synthesize_kernel_mmap(const struct procinfo_stamp *stamp, procinfo_emit_fn emit,
				     void *ctx)
{
	struct mmap_fixed f = {
		.header = { .type = PERF_RECORD_MMAP, .misc = PERF_RECORD_MISC_KERNEL },
		.pid = (uint32_t)-1,
		.tid = 0,
	};
	struct rec_buf buf = { NULL, 0 };
	const struct perf_event_header *hdr;
	const char *name = "[kernel.kallsyms]_text";
	struct kernel_syms ks;
	uint64_t end;
	int r;

	r = cached_kernel_syms(&ks);
	if (r < 0)
		return r;
	if (!ks.text) {
		ks.text = ks.stext;
		name = "[kernel.kallsyms]_stext";
	}
	if (!ks.text)
		return -ENOENT;
	end = ks.edata ? ks.edata : ks.etext;
	if (end <= ks.text)
		end = UINT64_MAX;
	f.start = ks.text;
	f.pgoff = ks.text;
	f.len = end - ks.text;
	hdr = build_record(&buf, &f, sizeof(f), name, stamp, f.pid, f.tid, &r);
	if (hdr)
		r = emit(ctx, hdr);
	free(buf.p);
	return r < 0 ? r : 0;
}

/**
 * procinfo__tgid - thread group id of a thread
 * @tid: the thread
 *
 * Reads the Tgid: line of /proc/<tid>/status.
 *
 * Returns the tgid, -ESRCH if the thread is gone, or -errno.
 */
pid_t procinfo__tgid(pid_t tid)
{
	char path[64];
	char *line = NULL;
	size_t cap = 0;
	long tgid = -ENOENT;
	FILE *f;

	if (tid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "Tgid:", 5)) {
			char *end;

			tgid = strtol(line + 5, &end, 10);
			if (end == line + 5 || tgid <= 0)
				tgid = -EINVAL;
			break;
		}
	}
	free(line);
	fclose(f);
	return (pid_t)tgid;
}

/* The inode of the initial PID namespace, fixed by the kernel (PROC_PID_INIT_INO). */
#define INIT_PID_NS_INO 0xeffffffcu

int procinfo__host_pid_ns(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) < 0)
		return -errno;
	return st.st_ino == INIT_PID_NS_INO;
}
