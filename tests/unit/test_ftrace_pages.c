// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for ftrace_pages and ftrace_ring: sub-buffers built by hand
 * in the kernel's encoding (kernel/trace/ring_buffer.c) made into samples,
 * corrupt ones refused; then a real instance's ring (libtracefs, root),
 * mapped, copied twice without consuming and converted, with marked
 * system calls counted and ordered, also after the ring has wrapped.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <tracefs.h>

#include "ftrace_pages.h"
#include "ftrace_ring.h"
#include "test_skip.h"

#define SB	     4096u /* the synthetic pages' sub-buffer size */
#define HDR	     16u   /* u64 time stamp, long commit */
#define TS_MASK	     ((1u << 27) - 1)
#define MISSED	     (1UL << 31)
#define MISSED_STORE (1UL << 30)

/* ---- Records passed to fn, kept in one growing buffer ---- */

struct collected {
	unsigned char *data;
	size_t len;
	size_t nr;
	int fail_after; /* > 0: fn returns -ENOSPC once it has this many */
};

static int collect(void *ctx, const void *rec, size_t len)
{
	struct collected *c = ctx;

	if (c->fail_after && c->nr == (size_t)c->fail_after)
		return -ENOSPC;
	c->data = realloc(c->data, c->len + len);
	assert_non_null(c->data);
	memcpy(c->data + c->len, rec, len);
	c->len += len;
	c->nr++;
	return 0;
}

/* One record taken apart; raw points into the collected buffer. */
struct sample {
	uint16_t size;
	uint64_t id;
	uint64_t ip;
	uint64_t time;
	uint32_t raw_size;
	const unsigned char *raw;
};

static size_t next_sample(const struct collected *c, size_t off, struct sample *s)
{
	struct perf_event_header h;

	assert_true(off + sizeof(h) <= c->len);
	memcpy(&h, c->data + off, sizeof(h));
	assert_int_equal(h.type, PERF_RECORD_SAMPLE);
	assert_int_equal(h.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(h.size % 8, 0);
	assert_true(h.size >= 36 && off + h.size <= c->len);
	memcpy(&s->id, c->data + off + 8, 8);
	memcpy(&s->ip, c->data + off + 16, 8);
	memcpy(&s->time, c->data + off + 24, 8);
	memcpy(&s->raw_size, c->data + off + 32, 4);
	/* The raw part is all the record holds after its u32 size. */
	assert_int_equal(36 + s->raw_size, h.size);
	s->size = h.size;
	s->raw = c->data + off + 36;
	return off + h.size;
}

/* ---- Sub-buffers in the kernel's encoding ---- */

struct page {
	unsigned char *p;
	size_t off; /* into the data, after the header */
};

static void page_start(struct page *pg, unsigned char *at, uint64_t ts)
{
	memset(at, 0, SB);
	memcpy(at, &ts, 8);
	pg->p = at;
	pg->off = 0;
}

static void put32(struct page *pg, uint32_t v)
{
	memcpy(pg->p + HDR + pg->off, &v, 4);
	pg->off += 4;
}

/* struct ring_buffer_event: type_len in the low 5 bits, time_delta above. */
static void put_header(struct page *pg, uint32_t type_len, uint32_t delta)
{
	put32(pg, type_len | delta << 5);
}

/*
 * A data event: type_len counts its 4-byte words up to 28 (112 bytes);
 * a longer one has type_len 0 and its length plus 4 in array[0].
 */
static void put_event(struct page *pg, uint32_t delta, const void *data, size_t len)
{
	assert_true(len && len % 4 == 0);
	if (len <= 112) {
		put_header(pg, (uint32_t)len / 4, delta);
	} else {
		put_header(pg, 0, delta);
		put32(pg, (uint32_t)len + 4);
	}
	memcpy(pg->p + HDR + pg->off, data, len);
	pg->off += len;
}

/* TIME_EXTEND (30) adds a delta too large for 27 bits; TIME_STAMP (31) sets the time. */
static void put_time(struct page *pg, uint32_t type_len, uint64_t t)
{
	put_header(pg, type_len, (uint32_t)(t & TS_MASK));
	put32(pg, (uint32_t)(t >> 27));
}

/* A discarded event of @len data bytes: PADDING with a non-zero delta, array[0] = @len. */
static void put_discarded(struct page *pg, uint32_t delta, uint32_t len)
{
	put_header(pg, 29, delta);
	put32(pg, len);
	memset(pg->p + HDR + pg->off, 0xee, len - 4);
	pg->off += len - 4;
}

static void page_commit(struct page *pg, unsigned long flags)
{
	unsigned long commit = pg->off | flags;

	memcpy(pg->p + 8, &commit, 8);
}

/* An event's bytes: common_type, flags, preempt_count, common_pid, then @fill. */
static void event_bytes(unsigned char *buf, size_t len, uint16_t type, int32_t pid, uint8_t fill)
{
	memset(buf, fill, len);
	memcpy(buf, &type, 2);
	buf[2] = 0;
	buf[3] = 0;
	memcpy(buf + 4, &pid, 4);
}

struct expect {
	uint16_t type;
	int32_t pid;
	size_t len;
	uint8_t fill;
	uint64_t time;
};

static const struct ftrace_pages_event table[] = { { 7, 0x700, 0xffffffff81000700 },
						   { 9, 0x900, 0 },
						   { 12, 0xc00, 0xffffffff81000c00 } };

/*
 * Three sub-buffers, oldest first: events of every size encoding, a
 * discarded event, a TIME_EXTEND and a TIME_STAMP, an empty sub-buffer.
 */
static const struct expect synth[] = {
	{ 7, 100, 12, 0xa1, 1005 },
	{ 9, 101, 16, 0xa2, 1010 },
	{ 12, 102, 120, 0xa3, 1010 + (1ull << 27) + 7 },
	{ 9, 103, 8, 0xa4, 200000000 },
	{ 7, 104, 24, 0xa5, 200000100 },
	{ 12, 105, 8, 0xa6, 300000000 },
};

static unsigned char *synth_pages(size_t *ret_len)
{
	unsigned char *pages = aligned_alloc(8, 3 * SB);
	unsigned char ev[128];
	struct page pg;

	assert_non_null(pages);
	page_start(&pg, pages, 1000);
	event_bytes(ev, 12, 7, 100, 0xa1);
	put_event(&pg, 5, ev, 12);
	/*
	 * kbuffer adds a discarded event's delta, as trace-cmd reads it (the
	 * kernel's own reader skips it): the next event is at 1005 + 3 + 2.
	 */
	put_discarded(&pg, 3, 8);
	event_bytes(ev, 16, 9, 101, 0xa2);
	put_event(&pg, 2, ev, 16);
	put_time(&pg, 30, (1ull << 27) + 7);
	event_bytes(ev, 120, 12, 102, 0xa3);
	put_event(&pg, 0, ev, 120);
	page_commit(&pg, 0);

	page_start(&pg, pages + SB, 5000); /* a commit of 0: nothing in it */

	page_start(&pg, pages + 2 * SB, 200000000);
	event_bytes(ev, 8, 9, 103, 0xa4);
	put_event(&pg, 0, ev, 8);
	event_bytes(ev, 24, 7, 104, 0xa5);
	put_event(&pg, 100, ev, 24);
	put_time(&pg, 31, 300000000);
	event_bytes(ev, 8, 12, 105, 0xa6);
	put_event(&pg, 0, ev, 8);
	page_commit(&pg, 0);
	*ret_len = 3 * SB;
	return pages;
}

static void check_sample(const struct sample *s, const struct expect *e)
{
	unsigned char ev[128];
	size_t padded = ((4 + e->len + 7) & ~(size_t)7) - 4;

	assert_int_equal(s->id, (uint64_t)e->type << 8);
	/* The ip the table gives the event's type: ftrace records none. */
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].type == e->type)
			assert_int_equal(s->ip, table[i].ip);
	assert_int_equal(s->time, e->time);
	assert_int_equal(s->raw_size, padded);
	event_bytes(ev, e->len, e->type, e->pid, e->fill);
	assert_memory_equal(s->raw, ev, e->len);
	for (size_t i = e->len; i < padded; i++)
		assert_int_equal(s->raw[i], 0);
}

/* Every event once, in order, with its id, time, bytes and zero padding. */
static void test_synthetic_records(void **state)
{
	struct collected c = { 0 };
	struct ftrace_pages_info info;
	struct sample s;
	size_t len, off = 0;
	unsigned char *pages = synth_pages(&len);

	(void)state;
	assert_int_equal(
		ftrace_pages__records(pages, len, SB, table, 3, UINT64_MAX, collect, &c, &info), 0);
	assert_int_equal(c.nr, 6);
	for (size_t i = 0; i < 6; i++) {
		off = next_sample(&c, off, &s);
		check_sample(&s, &synth[i]);
	}
	assert_int_equal(off, c.len);
	assert_int_equal(info.nr_events, 6);
	assert_int_equal(info.nr_unknown, 0);
	assert_int_equal(info.nr_after, 0);
	assert_int_equal(info.missed_events, 0);
	assert_int_equal(info.first_time, 1005);
	assert_int_equal(info.last_time, 300000000);
	free(c.data);
	free(pages);
}

/* Events after @until and types not in the table are counted, not made. */
static void test_until_and_unknown(void **state)
{
	static const struct ftrace_pages_event only7[] = { { 7, 0x700, 0xffffffff81000700 } };
	struct collected c = { 0 };
	struct ftrace_pages_info info;
	struct sample s;
	size_t len, off = 0;
	unsigned char *pages = synth_pages(&len);

	(void)state;
	/* Up to and including the event at 200000000. */
	assert_int_equal(
		ftrace_pages__records(pages, len, SB, table, 3, 200000000, collect, &c, &info), 0);
	assert_int_equal(c.nr, 4);
	assert_int_equal(info.nr_after, 2);
	assert_int_equal(info.last_time, 200000000);
	for (size_t i = 0; i < 4; i++) {
		off = next_sample(&c, off, &s);
		check_sample(&s, &synth[i]);
	}
	free(c.data);

	memset(&c, 0, sizeof(c));
	assert_int_equal(
		ftrace_pages__records(pages, len, SB, only7, 1, UINT64_MAX, collect, &c, &info), 0);
	assert_int_equal(c.nr, 2);
	assert_int_equal(info.nr_unknown, 4);
	off = next_sample(&c, 0, &s);
	check_sample(&s, &synth[0]);
	next_sample(&c, off, &s);
	check_sample(&s, &synth[4]);

	/* No table at all: nothing is made, nothing fails. */
	assert_int_equal(
		ftrace_pages__records(pages, len, SB, NULL, 0, UINT64_MAX, collect, &c, &info), 0);
	assert_int_equal(info.nr_unknown, 6);
	assert_int_equal(info.nr_events, 0);
	assert_int_equal(info.first_time, 0);
	free(c.data);
	free(pages);
}

/* The missed-events flags: a stored count, and a flag without room for one. */
static void test_missed_events(void **state)
{
	unsigned char *pages = aligned_alloc(8, 2 * SB);
	struct collected c = { 0 };
	struct ftrace_pages_info info;
	unsigned long count = 5;
	unsigned char ev[8];
	struct page pg;

	(void)state;
	assert_non_null(pages);
	page_start(&pg, pages, 10);
	event_bytes(ev, 8, 7, 1, 0);
	put_event(&pg, 0, ev, 8);
	memcpy(pg.p + HDR + pg.off, &count, sizeof(count));
	page_commit(&pg, MISSED | MISSED_STORE);
	page_start(&pg, pages + SB, 20);
	put_event(&pg, 0, ev, 8);
	page_commit(&pg, MISSED);
	assert_int_equal(
		ftrace_pages__records(pages, 2 * SB, SB, table, 3, UINT64_MAX, collect, &c, &info),
		0);
	assert_int_equal(info.missed_events, 6);
	assert_int_equal(info.nr_events, 2);
	free(c.data);
	free(pages);
}

static int records_of(unsigned char *pages, size_t len, struct collected *c)
{
	struct ftrace_pages_info info;

	return ftrace_pages__records(pages, len, SB, table, 3, UINT64_MAX, collect, c, &info);
}

/* Corrupt sub-buffers are refused with -EPROTO, neither read past nor looped on. */
static void test_corrupt(void **state)
{
	unsigned char *pages = aligned_alloc(8, 2 * SB);
	struct collected c = { 0 };
	unsigned long commit;
	unsigned char ev[16];
	struct page pg;

	(void)state;
	assert_non_null(pages);
	event_bytes(ev, 16, 7, 1, 0x55);

	/* A commit past the sub-buffer's end. */
	page_start(&pg, pages, 10);
	put_event(&pg, 0, ev, 16);
	commit = SB - HDR + 4;
	memcpy(pages + 8, &commit, 8);
	assert_int_equal(records_of(pages, SB, &c), -EPROTO);

	/* Flags and size bits beyond them (a 32-bit kernel's page, say). */
	commit = (1UL << 40) | 20;
	memcpy(pages + 8, &commit, 8);
	assert_int_equal(records_of(pages, SB, &c), -EPROTO);

	/* An event running past the commit. */
	page_start(&pg, pages, 10);
	put_event(&pg, 0, ev, 16);
	pg.off -= 4;
	page_commit(&pg, 0);
	assert_int_equal(records_of(pages, SB, &c), -EPROTO);

	/* A discarded event whose length points back: kbuffer would loop forever. */
	page_start(&pg, pages, 10);
	put_time(&pg, 30, 1);
	put_header(&pg, 29, 1);
	put32(&pg, (uint32_t)-12);
	page_commit(&pg, 0);
	assert_int_equal(records_of(pages, SB, &c), -EPROTO);

	/* A large event with a length below its own array word. */
	page_start(&pg, pages, 10);
	put_header(&pg, 0, 0);
	put32(&pg, 2);
	put32(&pg, 0);
	page_commit(&pg, 0);
	assert_int_equal(records_of(pages, SB, &c), -EPROTO);

	/* An unaligned length. */
	page_start(&pg, pages, 10);
	put_header(&pg, 29, 1);
	put32(&pg, 6);
	put32(&pg, 0);
	put32(&pg, 0);
	page_commit(&pg, 0);
	assert_int_equal(records_of(pages, SB, &c), -EPROTO);

	/* A stored missed count with no room after a full page. */
	page_start(&pg, pages, 10);
	commit = (SB - HDR) | MISSED | MISSED_STORE;
	memcpy(pages + 8, &commit, 8);
	assert_int_equal(records_of(pages, SB, &c), -EPROTO);
	assert_int_equal(c.nr, 0);

	/* A good page, then a bad one: the good one's records came out first. */
	page_start(&pg, pages, 10);
	put_event(&pg, 0, ev, 16);
	page_commit(&pg, 0);
	page_start(&pg, pages + SB, 20);
	put_event(&pg, 0, ev, 16);
	pg.off += 8;
	page_commit(&pg, 0);
	assert_int_equal(records_of(pages, 2 * SB, &c), -EPROTO);
	assert_int_equal(c.nr, 1);

	/* Lengths that are no whole number of sub-buffers. */
	assert_int_equal(records_of(pages, SB + 1, &c), -EINVAL);
	{
		struct ftrace_pages_info info;

		assert_int_equal(ftrace_pages__records(pages, SB, 8, table, 3, UINT64_MAX, collect,
						       &c, &info),
				 -EINVAL);
	}
	free(c.data);
	free(pages);
}

/* fn's error stops the walk and is returned. */
static void test_fn_error(void **state)
{
	struct collected c = { .fail_after = 2 };
	size_t len;
	unsigned char *pages = synth_pages(&len);

	(void)state;
	assert_int_equal(records_of(pages, len, &c), -ENOSPC);
	assert_int_equal(c.nr, 2);
	free(c.data);
	free(pages);
}

/* ---- A real instance's ring ---- */

#define MARK 4660 /* no such system call: ENOSYS, but raw_syscalls:sys_enter sees it */

struct kstate {
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct ftrace_ring *ring;
	cpu_set_t saved;
	bool pinned;
	int cpu;
	struct ftrace_pages_event ev; /* sys_enter's common_type and an id for it */
	int pid_off, id_off, args_off;
	pthread_t writer; /* test_kernel_copy_while_writing's */
	bool writing;
	int go, stop; /* for the writer: atomics */
	pid_t writer_tid;
};

static int kernel_setup(void **state)
{
	*state = calloc(1, sizeof(struct kstate));
	return *state ? 0 : -1;
}

/* Runs after a failed or skipped test too: no instance is left behind. */
static int kernel_teardown(void **state)
{
	struct kstate *ks = *state;

	if (ks->writing) {
		__atomic_store_n(&ks->stop, 1, __ATOMIC_RELEASE);
		pthread_join(ks->writer, NULL);
	}
	ftrace_ring__unmap(ks->ring);
	if (ks->inst) {
		tracefs_instance_destroy(ks->inst);
		tracefs_instance_free(ks->inst);
	}
	tep_free(ks->tep);
	if (ks->pinned)
		sched_setaffinity(0, sizeof(ks->saved), &ks->saved);
	free(ks);
	return 0;
}

static void write_file(struct kstate *ks, const char *file, const char *text)
{
	if (tracefs_instance_file_write(ks->inst, file, text) < 0)
		fail_msg("cannot write '%s' to '%s': %s", text, file, strerror(errno));
}

static int field_offset(struct tep_event *e, const char *name)
{
	const struct tep_format_field *f = tep_find_any_field(e, name);

	assert_non_null(f);
	return f->offset;
}

/*
 * An instance recording this thread's raw_syscalls:sys_enter on the CPU
 * it is pinned to, with perf's clock, stopped; its ring mapped.
 */
static void start_instance(struct kstate *ks, const char *kb)
{
	char name[64], text[64], *format;
	enum tep_errno err;
	struct tep_event *e;
	cpu_set_t one;
	int fd, r, size;

	if (geteuid() != 0 || !tracefs_tracing_dir())
		test_skip("tracefs needs root and /sys/kernel/tracing");
	assert_int_equal(sched_getaffinity(0, sizeof(ks->saved), &ks->saved), 0);
	ks->cpu = sched_getcpu();
	assert_true(ks->cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(ks->cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	ks->pinned = true;
	assert_int_equal(sched_getcpu(), ks->cpu);

	snprintf(name, sizeof(name), "perfsnapd-test-%d", (int)getpid());
	ks->inst = tracefs_instance_create(name);
	if (!ks->inst)
		test_skip("cannot create a tracefs instance");
	write_file(ks, "tracing_on", "0");
	write_file(ks, "trace_clock", "perf");
	write_file(ks, "buffer_size_kb", kb);
	snprintf(text, sizeof(text), "common_pid == %d", (int)gettid());
	write_file(ks, "events/raw_syscalls/sys_enter/filter", text);
	write_file(ks, "events/raw_syscalls/sys_enter/enable", "1");

	/* The format file alone: tracefs_local_events_system() reads all of kallsyms. */
	format = tracefs_event_file_read(ks->inst, "raw_syscalls", "sys_enter", "format", &size);
	assert_non_null(format);
	ks->tep = tep_alloc();
	assert_non_null(ks->tep);
	err = tep_parse_event(ks->tep, format, (unsigned long)size, "raw_syscalls");
	free(format);
	assert_int_equal(err, TEP_ERRNO__SUCCESS);
	e = tep_find_event_by_name(ks->tep, "raw_syscalls", "sys_enter");
	assert_non_null(e);
	ks->ev.type = (uint16_t)e->id;
	ks->ev.id = 0x5e0000 + (uint64_t)e->id;
	ks->pid_off = field_offset(e, "common_pid");
	ks->id_off = field_offset(e, "id");
	ks->args_off = field_offset(e, "args");

	snprintf(text, sizeof(text), "per_cpu/cpu%d/trace_pipe_raw", ks->cpu);
	fd = tracefs_instance_file_open(ks->inst, text, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	r = ftrace_ring__map(fd, &ks->ring);
	close(fd); /* the mapping keeps the file */
	if (r == -ENODEV || r == -EINVAL || r == -EOPNOTSUPP)
		test_skip("this kernel cannot map trace_pipe_raw (6.10 on)");
	assert_int_equal(r, 0);
	assert_true(ftrace_ring__nr_subbufs(ks->ring) >= 3);
	assert_int_equal(ftrace_ring__bytes(ks->ring),
			 ftrace_ring__nr_subbufs(ks->ring) * ftrace_ring__subbuf_size(ks->ring));
}

/* @n system calls MARK, with 0 .. @n - 1 as their first argument, traced alone. */
static void mark_calls(struct kstate *ks, long n)
{
	write_file(ks, "tracing_on", "1");
	for (long i = 0; i < n; i++)
		assert_int_equal(syscall(MARK, i), -1);
	write_file(ks, "tracing_on", "0");
}

/* The ring's sub-buffers with data, oldest first, as the daemon copies them. */
static unsigned char *copy_ring(const struct kstate *ks, size_t *ret_len,
				struct ftrace_ring_copy_info *info)
{
	size_t bytes = ftrace_ring__bytes(ks->ring);
	unsigned char *buf = malloc(bytes);

	assert_non_null(buf);
	assert_int_equal(ftrace_ring__copy(ks->ring, buf, bytes, ret_len, info), 0);
	assert_int_equal(*ret_len % ftrace_ring__subbuf_size(ks->ring), 0);
	assert_int_equal(*ret_len / ftrace_ring__subbuf_size(ks->ring), info->nr_subbufs);
	return buf;
}

struct marks {
	size_t nr;
	long first, last; /* the first arguments */
};

/*
 * Checks every record of @c: sys_enter of thread @tid, in time order; the
 * MARK calls among them (the write of tracing_on 0 is traced too) have
 * consecutive arguments, or increasing ones where there may be @gaps.
 */
static struct marks check_marks(const struct kstate *ks, const struct collected *c, pid_t tid,
				bool gaps)
{
	struct marks m = { 0, -1, -1 };
	uint64_t last_time = 0;
	struct sample s;
	int32_t pid;
	long id, arg;

	for (size_t off = 0; off < c->len;) {
		off = next_sample(c, off, &s);
		assert_int_equal(s.id, ks->ev.id);
		assert_true(s.time > last_time);
		last_time = s.time;
		assert_true(s.raw_size >= (uint32_t)ks->args_off + 8);
		memcpy(&pid, s.raw + ks->pid_off, sizeof(pid));
		assert_int_equal(pid, tid);
		memcpy(&id, s.raw + ks->id_off, sizeof(id));
		if (id != MARK)
			continue;
		memcpy(&arg, s.raw + ks->args_off, sizeof(arg));
		if (m.nr && gaps)
			assert_true(arg > m.last);
		else if (m.nr)
			assert_int_equal(arg, m.last + 1);
		else
			m.first = arg;
		m.last = arg;
		m.nr++;
	}
	return m;
}

static void convert(const struct kstate *ks, const unsigned char *buf, size_t len,
		    struct collected *c, struct ftrace_pages_info *info)
{
	assert_int_equal(ftrace_pages__records(buf, len, ftrace_ring__subbuf_size(ks->ring),
					       &ks->ev, 1, UINT64_MAX, collect, c, info),
			 0);
	assert_int_equal(info->nr_unknown, 0);
	assert_int_equal(info->nr_events, c->nr);
}

/*
 * N marked calls come out exactly once each, in order, twice: the first
 * copy consumed nothing. A copy with room for two sub-buffers keeps the
 * newest two.
 */
static void test_kernel_ring(void **state)
{
	const long n = 300;
	struct kstate *ks = *state;
	struct ftrace_ring_copy_info i1, i2, i3;
	struct collected c1 = { 0 }, c2 = { 0 };
	struct ftrace_pages_info p1, p2;
	unsigned char *b1, *b2, *small;
	size_t l1, l2, l3, sb;
	struct marks m;

	start_instance(ks, "64");
	sb = ftrace_ring__subbuf_size(ks->ring);
	mark_calls(ks, n);

	b1 = copy_ring(ks, &l1, &i1);
	assert_true(i1.nr_subbufs >= 2);
	assert_true(i1.first_time < i1.last_time);
	convert(ks, b1, l1, &c1, &p1);
	m = check_marks(ks, &c1, gettid(), false);
	assert_int_equal(m.nr, n);
	assert_int_equal(m.first, 0);
	assert_int_equal(m.last, n - 1);
	assert_true(p1.first_time >= i1.first_time);
	assert_int_equal(p1.missed_events, 0);

	b2 = copy_ring(ks, &l2, &i2);
	assert_int_equal(l2, l1);
	assert_memory_equal(b2, b1, l1);
	assert_int_equal(i2.first_time, i1.first_time);
	convert(ks, b2, l2, &c2, &p2);
	assert_int_equal(c2.len, c1.len);
	assert_memory_equal(c2.data, c1.data, c1.len);

	small = malloc(2 * sb + 100);
	assert_non_null(small);
	assert_int_equal(ftrace_ring__copy(ks->ring, small, 2 * sb + 100, &l3, &i3), 0);
	assert_int_equal(l3, 2 * sb);
	assert_int_equal(i3.nr_subbufs, 2);
	assert_int_equal(i3.last_time, i1.last_time);
	assert_memory_equal(small, b1 + l1 - 2 * sb, 2 * sb);
	assert_int_equal(ftrace_ring__copy(ks->ring, small, sb - 1, &l3, &i3), -EINVAL);

	free(small);
	free(b1);
	free(b2);
	free(c1.data);
	free(c2.data);
}

/*
 * After the ring has wrapped many times, the sub-buffers' ring order is
 * not their time order: sorted by their headers, they hold the newest
 * calls, consecutive, up to the last. The reader page stays empty.
 */
static void test_kernel_wrapped(void **state)
{
	const long n = 3000;
	struct kstate *ks = *state;
	struct ftrace_ring_copy_info info;
	struct collected c = { 0 };
	struct ftrace_pages_info pinfo;
	unsigned char *buf;
	struct marks m;
	size_t len;

	start_instance(ks, "16");
	mark_calls(ks, n);
	buf = copy_ring(ks, &len, &info);
	assert_int_equal(info.nr_subbufs, ftrace_ring__nr_subbufs(ks->ring) - 1);
	convert(ks, buf, len, &c, &pinfo);
	m = check_marks(ks, &c, gettid(), false);
	assert_true(m.nr > 0 && m.nr < (size_t)n);
	assert_int_equal(m.last, n - 1);
	assert_int_equal(m.first, n - (long)m.nr);
	free(buf);
	free(c.data);
}

/* On the traced CPU: MARK calls with increasing arguments, until told to stop. */
static void *write_marks(void *arg)
{
	struct kstate *ks = arg;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(ks->cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return NULL;
	__atomic_store_n(&ks->writer_tid, gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&ks->go, __ATOMIC_ACQUIRE))
		if (__atomic_load_n(&ks->stop, __ATOMIC_ACQUIRE))
			return NULL;
	for (long i = 0; !__atomic_load_n(&ks->stop, __ATOMIC_ACQUIRE); i++)
		syscall(MARK, i);
	return NULL;
}

/* Moves this thread to a CPU other than the traced one; false where there is none. */
static bool move_off(const struct kstate *ks)
{
	cpu_set_t other = ks->saved;

	CPU_CLR(ks->cpu, &other);
	return CPU_COUNT(&other) > 0 && sched_setaffinity(0, sizeof(other), &other) == 0;
}

/*
 * Beyond the contract (the instance running, the ring wrapping under the
 * copy): every copy still converts, its records in order. A sub-buffer
 * the writer reset during the copy is left out, so there may be gaps.
 */
static void test_kernel_copy_while_writing(void **state)
{
	struct kstate *ks = *state;
	struct ftrace_ring_copy_info info;
	struct ftrace_pages_info pinfo;
	char filter[64];
	unsigned char *buf;
	size_t len;
	pid_t tid;

	start_instance(ks, "16");
	if (!move_off(ks))
		test_skip("one CPU: no room for a writer beside the copy");
	assert_int_equal(pthread_create(&ks->writer, NULL, write_marks, ks), 0);
	ks->writing = true;
	/* Waits for the writer to be on the traced CPU: it spins, no sleep. */
	while (!(tid = __atomic_load_n(&ks->writer_tid, __ATOMIC_ACQUIRE)))
		sched_yield();
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)tid);
	write_file(ks, "events/raw_syscalls/sys_enter/filter", filter);
	write_file(ks, "tracing_on", "1");
	__atomic_store_n(&ks->go, 1, __ATOMIC_RELEASE);
	buf = malloc(ftrace_ring__bytes(ks->ring));
	assert_non_null(buf);
	for (int i = 0; i < 200; i++) {
		struct collected c = { 0 };

		assert_int_equal(
			ftrace_ring__copy(ks->ring, buf, ftrace_ring__bytes(ks->ring), &len, &info),
			0);
		convert(ks, buf, len, &c, &pinfo);
		check_marks(ks, &c, tid, true);
		free(c.data);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synthetic_records),
		cmocka_unit_test(test_until_and_unknown),
		cmocka_unit_test(test_missed_events),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_fn_error),
		cmocka_unit_test_setup_teardown(test_kernel_ring, kernel_setup, kernel_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_wrapped, kernel_setup, kernel_teardown),
		cmocka_unit_test_setup_teardown(test_kernel_copy_while_writing, kernel_setup,
						kernel_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
