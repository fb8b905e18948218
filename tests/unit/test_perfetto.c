// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the Perfetto layer's pieces: protobuf wire encoding (pb),
 * interning (intern), the compressed output stream (pftrace_out), the
 * ftrace events (the schema's generated table and the typed messages
 * written for hand-made formats); and of the whole writer, what each
 * sample kind encodes, where a lost record is marked and whose SystemInfo
 * goes in. The whole writer is checked against
 * Perfetto's schema by the integration tests (protoc --decode).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#include "ftrace_schema.h"
#include "intern.h"
#include "pb.h"
#include "pftrace_out.h"
#include "snapshot.h"
#include "snapshot_perfetto.h"
#include "test_dir.h"
#include "test_records.h"
#include "tracing_meta.h"

static void test_varints(void **state)
{
	struct pb_buf b = { 0 };
	static const uint8_t want[] = {
		0x08, 0x00,	  /* field 1: 0 */
		0x10, 0xac, 0x02, /* field 2: 300 */
		0xf8, 0x01, 0x7f, /* field 31: 127 */
		0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 3: -1 */
		0x22, 0x02, 'h',  'i', /* field 4: "hi" */
	};

	(void)state;
	pb__varint(&b, 1, 0);
	pb__varint(&b, 2, 300);
	pb__varint(&b, 31, 127);
	pb__varint(&b, 3, (uint64_t)(int64_t)-1);
	pb__str(&b, 4, "hi");
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	assert_int_equal(pb__varint_size(127), 1);
	assert_int_equal(pb__varint_size(128), 2);
	assert_int_equal(pb__varint_size(UINT64_MAX), 10);
	pb_buf__fini(&b);
}

/* A nested length is a 4-byte varint: 3 continued bytes and a last one. */
static void test_nested(void **state)
{
	struct pb_buf b = { 0 };
	pb_nested outer, inner;
	char big[200];

	(void)state;
	memset(big, 'x', sizeof(big));
	outer = pb__begin(&b, 1);
	inner = pb__begin(&b, 2);
	pb__bytes(&b, 3, big, sizeof(big)); /* 1 + 2 + 200 bytes */
	pb__end(&b, inner);
	pb__end(&b, outer);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, 1 + 4 + 1 + 4 + 203);
	/* outer: 4 + 1 + 203 = 208 = 0xd0 -> d0 81 80 00 */
	assert_int_equal(b.data[0], 0x0a);
	assert_int_equal(b.data[1], 0xd0);
	assert_int_equal(b.data[2], 0x81);
	assert_int_equal(b.data[3], 0x80);
	assert_int_equal(b.data[4], 0x00);
	/* inner: 203 = 0xcb -> cb 81 80 00 */
	assert_int_equal(b.data[5], 0x12);
	assert_int_equal(b.data[6], 0xcb);
	assert_int_equal(b.data[7], 0x81);
	assert_int_equal(b.data[9], 0x00);
	pb_buf__reset(&b);
	assert_int_equal(b.len, 0);
	pb_buf__fini(&b);
}

static void test_intern(void **state)
{
	struct intern_table t = { 0 };
	char key[32];
	bool is_new;

	(void)state;
	assert_int_equal(intern_table__get(&t, "a", 1, &is_new), 1);
	assert_true(is_new);
	assert_int_equal(intern_table__get(&t, "ab", 2, &is_new), 2);
	assert_true(is_new);
	assert_int_equal(intern_table__get(&t, "a", 1, &is_new), 1);
	assert_false(is_new);
	assert_int_equal(intern_table__get(&t, "", 0, &is_new), 3);
	/* Many keys: growth keeps every iid. */
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal(intern_table__get(&t, key, strlen(key), &is_new), 4 + i);
		assert_true(is_new);
	}
	for (int i = 0; i < 5000; i += 7) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal(intern_table__get(&t, key, strlen(key), &is_new), 4 + i);
		assert_false(is_new);
	}
	intern_table__fini(&t);
}

/* Packets through each compression, read back: Trace.packet fields of the same bytes. */
static void roundtrip(enum pftrace_compression c)
{
	size_t n = 3000, plain_len = 0, got_len;
	int fd = memfd_create("pftrace", 0);
	uint8_t *plain = malloc(n * 104), *file, *got;
	struct pftrace_out *o;
	off_t size;

	assert_true(fd >= 0 && plain);
	o = pftrace_out__new(fd, c);
	assert_non_null(o);
	for (size_t i = 0; i < n; i++) {
		uint8_t pkt[100];

		memset(pkt, (int)i, sizeof(pkt));
		assert_int_equal(pftrace_out__packet(o, pkt, sizeof(pkt)), 0);
		plain[plain_len++] = 0x0a;
		plain[plain_len++] = 100;
		memcpy(plain + plain_len, pkt, sizeof(pkt));
		plain_len += sizeof(pkt);
	}
	assert_int_equal(pftrace_out__finish(o), 0);
	size = lseek(fd, 0, SEEK_END);
	assert_int_equal((uint64_t)size, pftrace_out__bytes(o));
	pftrace_out__delete(o);
	file = malloc((size_t)size);
	got = malloc(plain_len + 1);
	assert_int_equal(pread(fd, file, (size_t)size, 0), size);
	if (c == PFTRACE_COMPRESS_NONE) {
		memcpy(got, file, (size_t)size);
		got_len = (size_t)size;
	} else if (c == PFTRACE_COMPRESS_ZSTD) {
		got_len = ZSTD_decompress(got, plain_len + 1, file, (size_t)size);
		assert_false(ZSTD_isError(got_len));
	} else {
		z_stream z = { .next_in = file,
			       .avail_in = (uInt)size,
			       .next_out = got,
			       .avail_out = (uInt)plain_len + 1 };

		assert_int_equal(file[0], 0x1f); /* gzip magic */
		assert_int_equal(file[1], 0x8b);
		assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
		assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
		got_len = z.total_out;
		inflateEnd(&z);
	}
	assert_int_equal(got_len, plain_len);
	assert_memory_equal(got, plain, plain_len);
	free(plain);
	free(file);
	free(got);
	close(fd);
}

static void test_out_plain(void **state)
{
	(void)state;
	roundtrip(PFTRACE_COMPRESS_NONE);
}

static void test_out_gzip(void **state)
{
	(void)state;
	roundtrip(PFTRACE_COMPRESS_GZIP);
}

static void test_out_zstd(void **state)
{
	(void)state;
	roundtrip(PFTRACE_COMPRESS_ZSTD);
}

/* A write error (a read-only fd) comes back as -errno, not silently. */
static void test_out_error(void **state)
{
	int fd = memfd_create("ro", 0), ro;
	struct pftrace_out *o;
	char path[64], pkt[4096] = { 0 };
	int r = 0;

	(void)state;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	assert_true(ro >= 0);
	o = pftrace_out__new(ro, PFTRACE_COMPRESS_NONE);
	for (int i = 0; i < 100 && !r; i++)
		r = pftrace_out__packet(o, pkt, sizeof(pkt));
	if (!r)
		r = pftrace_out__finish(o);
	assert_int_equal(r, -EBADF);
	pftrace_out__delete(o);
	close(ro);
	close(fd);
}

/* The generated table: the schema's numbers, groups and field types. */
static const struct ftrace_schema_event *schema(const char *name)
{
	for (size_t i = 0; i < ftrace_schema_nr_events; i++)
		if (!strcmp(ftrace_schema_events[i].name, name))
			return &ftrace_schema_events[i];
	return NULL;
}

static void test_schema_table(void **state)
{
	const struct ftrace_schema_event *e;

	(void)state;
	e = schema("irq_handler_entry");
	assert_non_null(e);
	assert_string_equal(e->group, "irq");
	assert_int_equal(e->number, 36);
	assert_true(e->nr_fields >= 2);
	assert_string_equal(e->fields[0].name, "irq");
	assert_int_equal(e->fields[0].number, 1);
	assert_int_equal(e->fields[0].type, FTRACE_SCHEMA_INT32);
	assert_string_equal(e->fields[1].name, "name");
	assert_int_equal(e->fields[1].number, 2);
	assert_int_equal(e->fields[1].type, FTRACE_SCHEMA_STRING);
	e = schema("print");
	assert_non_null(e);
	assert_string_equal(e->group, "ftrace");
	assert_int_equal(e->number, 3);
	e = schema("sched_switch");
	assert_non_null(e);
	assert_int_equal(e->number, 4);
	assert_int_equal(schema("sys_enter")->number, 329);
	assert_string_equal(schema("signal_generate")->group, "signal");
	assert_string_equal(schema("cpu_frequency")->group, "power");
	/* Not a tracepoint's message: the generic event is written by hand. */
	assert_null(schema("generic"));
	for (size_t i = 1; i < ftrace_schema_nr_events; i++)
		assert_true(strcmp(ftrace_schema_events[i - 1].name, ftrace_schema_events[i].name) <
			    0);
}

/* Tracepoint formats as tracefs writes them, for a snapshot written whole. */
#define COMMON                                                                         \
	"format:\n"                                                                    \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"         \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"         \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

enum { ID_ENTRY = 100, ID_EXIT, ID_PRINT, ID_FOO, ID_SWITCH, ID_READ, ID_READ_EXIT, ID_WRITE };

static const struct {
	const char *path, *text;
} formats[] = {
	{ "irq/irq_handler_entry",
	  "name: irq_handler_entry\nID: 100\n" COMMON
	  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n" },
	{ "irq/irq_handler_exit", "name: irq_handler_exit\nID: 101\n" COMMON
				  "\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n"
				  "\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\n"
				  "print fmt: \"irq=%d ret=%d\", REC->irq, REC->ret\n" },
	{ "ftrace/print", "name: print\nID: 102\n" COMMON
			  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
			  "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:1;\n\n"
			  "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n" },
	{ "foo/foo_event",
	  "name: foo_event\nID: 103\n" COMMON "\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"x=%d\", REC->x\n" },
	{ "sched/sched_switch", "name: sched_switch\nID: 104\n" COMMON
				"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
				"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
				"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
				"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
				"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
				"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
				"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n"
				"print fmt: \"prev_comm=%s\", REC->prev_comm\n" },
	{ "syscalls/sys_enter_read", "name: sys_enter_read\nID: 105\n" COMMON
				     "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
				     "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
				     "\tfield:char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
				     "\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\n"
				     "print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n" },
	{ "syscalls/sys_exit_read", "name: sys_exit_read\nID: 106\n" COMMON
				    "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
				    "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n\n"
				    "print fmt: \"0x%lx\", REC->ret\n" },
	{ "syscalls/sys_enter_write", "name: sys_enter_write\nID: 107\n" COMMON
				      "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
				      "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\n"
				      "print fmt: \"fd: 0x%08lx\", ((unsigned long)(REC->fd))\n" },
};

#define TP_TYPE                                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_RAW)

static char tp_dir[64];

static void put_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int tp_setup(void **state)
{
	char path[256];

	(void)state;
	snprintf(tp_dir, sizeof(tp_dir), "/tmp/test_perfetto.XXXXXX");
	if (!mkdtemp(tp_dir))
		return -1;
	snprintf(path, sizeof(path), "%s/events", tp_dir);
	if (mkdir(path, 0700))
		return -1;
	snprintf(path, sizeof(path), "%s/events/header_page", tp_dir);
	put_text(path, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		       "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		       "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		       "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n");
	snprintf(path, sizeof(path), "%s/events/header_event", tp_dir);
	put_text(path, "# compressed entry header\n\ttype_len    :    5 bits\n"
		       "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n");
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char sys[64];

		snprintf(sys, sizeof(sys), "%s", formats[i].path);
		*strchr(sys, '/') = 0;
		snprintf(path, sizeof(path), "%s/events/%s", tp_dir, sys);
		(void)mkdir(path, 0700);
		snprintf(path, sizeof(path), "%s/events/%s", tp_dir, formats[i].path);
		if (mkdir(path, 0700))
			return -1;
		snprintf(path, sizeof(path), "%s/events/%s/format", tp_dir, formats[i].path);
		put_text(path, formats[i].text);
	}
	return 0;
}

static int tp_teardown(void **state)
{
	(void)state;
	return test_dir__remove(tp_dir);
}

/* A raw tracepoint record: common fields, then @size bytes of @body. */
struct raw {
	uint8_t b[64];
	uint32_t size;
};

static struct raw raw_of(uint16_t type, int32_t pid, const void *body, size_t size)
{
	struct raw r = { .size = (uint32_t)(8 + size) };

	memcpy(r.b, &type, 2);
	memcpy(r.b + 4, &pid, 4);
	memcpy(r.b + 8, body, size);
	return r;
}

/* One ftrace event as written: its bundle's CPU, its message's number and bytes. */
struct ev {
	uint32_t cpu, number;
	const uint8_t *msg;
	size_t len;
};

/* The next field of [*p, end): varint (wire 0) or length-delimited (wire 2). */
static bool pb_next(const uint8_t **p, const uint8_t *end, uint32_t *field, uint64_t *v,
		    const uint8_t **data, size_t *len)
{
	uint64_t key = 0, x = 0;

	for (int sh = 0; *p < end; sh += 7) {
		key |= (uint64_t)(**p & 0x7f) << sh;
		if (!(*(*p)++ & 0x80))
			break;
	}
	if (*p >= end && !key)
		return false;
	for (int sh = 0; *p < end; sh += 7) {
		x |= (uint64_t)(**p & 0x7f) << sh;
		if (!(*(*p)++ & 0x80))
			break;
	}
	*field = (uint32_t)(key >> 3);
	*v = x;
	*data = NULL;
	*len = 0;
	if ((key & 7) == 2) {
		assert_true(x <= (uint64_t)(end - *p));
		*data = *p;
		*len = (size_t)x;
		*p += x;
	} else {
		assert_int_equal(key & 7, 0);
	}
	return true;
}

/* The varint or bytes of field @want in message [m, m + len); false if absent. */
static bool pb_find(const uint8_t *m, size_t len, uint32_t want, uint64_t *v, const uint8_t **data,
		    size_t *dlen)
{
	const uint8_t *p = m, *end = m + len;
	uint32_t f;

	while (p < end && pb_next(&p, end, &f, v, data, dlen))
		if (f == want)
			return true;
	return false;
}

static size_t events_of(const uint8_t *trace, size_t size, struct ev *evs, size_t max,
			bool *cpu_1024)
{
	const uint8_t *p = trace, *end = trace + size, *pkt, *bun, *ev;
	size_t n = 0, plen, blen, elen;
	uint32_t f, g, h;
	uint64_t v;

	while (p < end && pb_next(&p, end, &f, &v, &pkt, &plen)) {
		const uint8_t *q, *qe;
		uint32_t cpu = 0;

		if (f != 1 || !pb_find(pkt, plen, 1, &v, &bun, &blen) || !bun)
			continue;
		/* A packet's ftrace_events: its bundle's cpu, then each event. */
		q = bun, qe = bun + blen;
		while (q < qe && pb_next(&q, qe, &g, &v, &ev, &elen))
			if (g == 1)
				cpu = (uint32_t)v;
		if (cpu >= 1024)
			*cpu_1024 = true;
		q = bun;
		while (q < qe && pb_next(&q, qe, &g, &v, &ev, &elen)) {
			const uint8_t *r = ev, *re = ev + elen, *msg;
			size_t mlen;

			if (g != 2)
				continue;
			while (r < re && pb_next(&r, re, &h, &v, &msg, &mlen))
				if (msg && n < max)
					evs[n++] = (struct ev){ cpu, h, msg, mlen };
		}
	}
	return n;
}

/*
 * A snapshot of the tracepoints @names (formats from tp_dir), each its
 * own id from @first_id on (their IDs in tp_dir, in order).
 */
static struct snapshot *tp_snapshot(const char *const *names, size_t nr, uint64_t first_id)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT,
				     .size = sizeof(a),
				     .sample_type = TP_TYPE,
				     .sample_id_all = 1 };
	struct snapshot *s = snapshot__new();
	struct tracing_meta *m = NULL;

	assert_non_null(s);
	assert_int_equal(tracing_meta__read(tp_dir, names, nr, &m), 0);
	snapshot__set_tracing(s, m);
	tracing_meta__put(m);
	for (uint64_t id = first_id; id < first_id + nr; id++) {
		a.config = id;
		assert_int_equal(snapshot__add_event(s, &a, names[id - first_id], &id, 1), 0);
	}
	return s;
}

static void test_typed_events(void **state)
{
	static const char *const names[] = { "irq:irq_handler_entry", "irq:irq_handler_exit",
					     "ftrace:print", "foo:foo_event",
					     "sched:sched_switch" };
	struct perfetto_meta meta = { .compression = PFTRACE_COMPRESS_NONE };
	uint8_t entry[8], exit_[8], print[8 + 6], foo[4], sw[32];
	struct snapshot *s = tp_snapshot(names, 5, ID_ENTRY);
	struct perfetto_result res;
	struct test_records rec;
	uint8_t trace[8192];
	struct ev evs[16];
	bool cpu_1024 = false;
	const uint8_t *d;
	uint64_t v, ip = 0xffffffff81000000ull;
	int32_t irq = 19, ret = -5, x = -7;
	uint32_t loc = (uint32_t)6 << 16 | 16; /* "eth0\0" + pad, after the fixed fields */
	size_t n, len;
	ssize_t got;
	int fd;

	(void)state;
	test_records__init(&rec, TP_TYPE);
	memcpy(entry, &irq, 4);
	memcpy(entry + 4, &loc, 4);
	memcpy(exit_, &irq, 4);
	memcpy(exit_ + 4, &ret, 4);
	memcpy(print, &ip, 8);
	memcpy(print + 8, "hello\0", 6);
	memcpy(foo, &x, 4);
	memset(sw, 0, sizeof(sw));
	memcpy(sw, "prev", 4);
	memcpy(sw + 16, &(int32_t){ 42 }, 4);
	memcpy(sw + 20, &(int32_t){ 120 }, 4);
	{
		struct raw r[6];
		uint8_t e16[16];

		memcpy(e16, entry, 8);
		memcpy(e16 + 8, "eth0\0\0\0\0", 8);
		r[0] = raw_of(ID_ENTRY, 7, e16, 16);
		r[1] = raw_of(ID_EXIT, 7, exit_, 8);
		r[2] = raw_of(ID_PRINT, 7, print, sizeof(print));
		r[3] = raw_of(ID_FOO, 7, foo, 4);
		/* Cut after prev_state: the compact encoding refuses it. */
		r[4] = raw_of(ID_SWITCH, 7, sw, 32);
		r[5] = raw_of(ID_ENTRY, 7, e16, 16);
		for (int i = 0; i < 6; i++)
			test_records__sample(
				&rec, &(struct test_sample){
					      .id = (uint64_t)(i == 5 ? ID_ENTRY : ID_ENTRY + i),
					      .pid = 7,
					      .tid = 7,
					      .time = 1000 + (uint64_t)i,
					      .cpu = i == 5 ? 1024 : 1,
					      .raw = r[i].b,
					      .raw_size = r[i].size,
				      });
		assert_int_equal(snapshot__add_chunk_memory(s, 0, false, rec.data, rec.len, false),
				 0);
	}
	assert_int_equal(snapshot__seal(s), 0);

	fd = memfd_create("pftrace", 0);
	assert_true(fd >= 0);
	assert_int_equal(snapshot_perfetto__write(s, fd, &meta, &res), 0);
	assert_int_equal(res.nr_cpu_skipped, 1);
	assert_int_equal(res.nr_ftrace, 5);
	got = pread(fd, trace, sizeof(trace), 0);
	assert_true(got > 0 && (size_t)got < sizeof(trace));
	n = events_of(trace, (size_t)got, evs, 16, &cpu_1024);
	assert_false(cpu_1024);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(evs[i].cpu, 1);
	/* irq_handler_entry: irq (int32) 1, name (string) 2. */
	assert_int_equal(evs[0].number, 36);
	assert_true(pb_find(evs[0].msg, evs[0].len, 1, &v, &d, &len));
	assert_int_equal(v, 19);
	assert_true(pb_find(evs[0].msg, evs[0].len, 2, &v, &d, &len));
	assert_int_equal(len, 4);
	assert_memory_equal(d, "eth0", 4);
	/* irq_handler_exit: a negative int32 is a 64-bit two's complement varint. */
	assert_int_equal(evs[1].number, 37);
	assert_true(pb_find(evs[1].msg, evs[1].len, 2, &v, &d, &len));
	assert_int_equal((int64_t)v, -5);
	/* print: ip (uint64) 1 and the flexible array buf (string) 2. */
	assert_int_equal(evs[2].number, 3);
	assert_true(pb_find(evs[2].msg, evs[2].len, 1, &v, &d, &len));
	assert_true(v == ip);
	assert_true(pb_find(evs[2].msg, evs[2].len, 2, &v, &d, &len));
	assert_int_equal(len, 5);
	assert_memory_equal(d, "hello", 5);
	/* Not in the schema: GenericFtraceEvent, x signed (int_value 4). */
	assert_int_equal(evs[3].number, 327);
	assert_true(pb_find(evs[3].msg, evs[3].len, 1, &v, &d, &len));
	assert_int_equal(len, 9);
	assert_memory_equal(d, "foo_event", 9);
	/* sched_switch refused by the compact encoding: a SchedSwitchFtraceEvent. */
	assert_int_equal(evs[4].number, 4);
	assert_true(pb_find(evs[4].msg, evs[4].len, 1, &v, &d, &len));
	assert_int_equal(len, 4);
	assert_memory_equal(d, "prev", 4);
	assert_true(pb_find(evs[4].msg, evs[4].len, 2, &v, &d, &len));
	assert_int_equal(v, 42);
	assert_true(pb_find(evs[4].msg, evs[4].len, 3, &v, &d, &len));
	assert_int_equal(v, 120);
	assert_false(pb_find(evs[4].msg, evs[4].len, 6, &v, &d, &len));
	close(fd);
	snapshot__delete(s);
	test_records__fini(&rec);
}

/*
 * @rec's records as CPU 0's chunk of @s, sealed and written as a .pftrace
 * into @trace (@size bytes): its first @max ftrace events in @evs, and
 * how many there are.
 */
static size_t convert(struct snapshot *s, const struct test_records *rec, uint8_t *trace,
		      size_t size, struct ev *evs, size_t max)
{
	struct perfetto_meta meta = { .compression = PFTRACE_COMPRESS_NONE };
	struct perfetto_result res;
	bool cpu_1024 = false;
	ssize_t got;
	size_t n;
	int fd;

	assert_int_equal(snapshot__add_chunk_memory(s, 0, false, rec->data, rec->len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);
	fd = memfd_create("pftrace", 0);
	assert_true(fd >= 0);
	assert_int_equal(snapshot_perfetto__write(s, fd, &meta, &res), 0);
	got = pread(fd, trace, size, 0);
	assert_true(got > 0 && (size_t)got < size);
	n = events_of(trace, (size_t)got, evs, max, &cpu_1024);
	assert_false(cpu_1024);
	close(fd);
	return n;
}

/*
 * irq_handler_entry without irq_handler_exit recorded: the importer would
 * open irq slices nothing closes, so the entries stay generic.
 */
static void test_begin_without_end(void **state)
{
	static const char *const names[] = { "irq:irq_handler_entry" };
	uint32_t loc = (uint32_t)6 << 16 | 16;
	struct snapshot *s = tp_snapshot(names, 1, ID_ENTRY);
	struct test_records rec;
	uint64_t id = ID_ENTRY;
	uint8_t body[16] = { 19 }, trace[4096];
	struct ev evs[4];
	struct raw r;

	(void)state;
	memcpy(body + 4, &loc, 4);
	memcpy(body + 8, "eth0", 4);
	r = raw_of(ID_ENTRY, 7, body, sizeof(body));
	test_records__init(&rec, TP_TYPE);
	test_records__sample(&rec, &(struct test_sample){ .id = id,
							  .pid = 7,
							  .tid = 7,
							  .time = 1000,
							  .cpu = 0,
							  .raw = r.b,
							  .raw_size = r.size });
	assert_int_equal(convert(s, &rec, trace, sizeof(trace), evs, 4), 1);
	assert_int_equal(evs[0].number, 327);
	snapshot__delete(s);
	test_records__fini(&rec);
}

/*
 * syscalls:sys_enter_read and sys_exit_read as the typed sys_enter (id,
 * then each argument) and sys_exit (id, ret) Perfetto makes slices of;
 * sys_enter_write, recorded without its exit, stays generic.
 */
static void test_syscall_events(void **state)
{
	static const char *const names[] = { "syscalls:sys_enter_read", "syscalls:sys_exit_read",
					     "syscalls:sys_enter_write" };
	uint64_t enter[4] = { 0, 3, 0x7ffd0000, 4096 }, exit_[2] = { 0, (uint64_t)-11 };
	uint64_t want_args[] = { 3, 0x7ffd0000, 4096 }, v;
	struct snapshot *s = tp_snapshot(names, 3, ID_READ);
	struct test_records rec;
	uint8_t trace[4096];
	const uint8_t *d, *p, *end;
	size_t len, nargs = 0;
	struct ev evs[4];
	struct raw r[3];
	uint32_t f;

	(void)state;
	r[0] = raw_of(ID_READ, 7, enter, sizeof(enter));
	r[1] = raw_of(ID_READ_EXIT, 7, exit_, sizeof(exit_));
	r[2] = raw_of(ID_WRITE, 7, enter, 16);
	test_records__init(&rec, TP_TYPE);
	for (int i = 0; i < 3; i++)
		test_records__sample(&rec, &(struct test_sample){ .id = (uint64_t)(ID_READ + i),
								  .pid = 7,
								  .tid = 7,
								  .time = 1000 + (uint64_t)i,
								  .raw = r[i].b,
								  .raw_size = r[i].size });
	assert_int_equal(convert(s, &rec, trace, sizeof(trace), evs, 4), 3);
	/* SysEnterFtraceEvent: id (read is 0), then the arguments in order. */
	assert_int_equal(evs[0].number, 329);
	assert_true(pb_find(evs[0].msg, evs[0].len, 1, &v, &d, &len));
	assert_int_equal(v, 0);
	p = evs[0].msg, end = evs[0].msg + evs[0].len;
	while (p < end && pb_next(&p, end, &f, &v, &d, &len)) {
		if (f != 2)
			continue;
		assert_true(nargs < 3);
		assert_true(v == want_args[nargs++]);
	}
	assert_int_equal(nargs, 3);
	/* SysExitFtraceEvent: id 1, ret 2 (negative: a 64-bit varint). */
	assert_int_equal(evs[1].number, 330);
	assert_true(pb_find(evs[1].msg, evs[1].len, 2, &v, &d, &len));
	assert_int_equal((int64_t)v, -11);
	assert_int_equal(evs[2].number, 327);
	snapshot__delete(s);
	test_records__fini(&rec);
}

/* A protobuf field of a message: its number, and its varint or bytes. */
struct pb_field {
	uint32_t num;
	uint64_t v;
	const uint8_t *data;
	size_t len;
};

static uint64_t get_varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end && shift < 64; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	fail_msg("bad varint");
	return 0;
}

/* The next field at *@p (varint or length-delimited only); false at @end. */
static bool next_field(const uint8_t **p, const uint8_t *end, struct pb_field *f)
{
	uint64_t key;

	if (*p >= end)
		return false;
	key = get_varint(p, end);
	f->num = (uint32_t)(key >> 3);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	if ((key & 7) == 0) {
		f->v = get_varint(p, end);
	} else if ((key & 7) == 2) {
		f->len = (size_t)get_varint(p, end);
		assert_true(f->len <= (size_t)(end - *p));
		f->data = *p;
		*p += f->len;
	} else {
		fail_msg("wire type %u", (unsigned)(key & 7));
	}
	return true;
}

/* Field @num of the message [@data, +@len): found (first one) or not. */
static bool find_field(const uint8_t *data, size_t len, uint32_t num, struct pb_field *ret)
{
	const uint8_t *p = data;
	struct pb_field f;

	while (next_field(&p, data + len, &f))
		if (f.num == num) {
			*ret = f;
			return true;
		}
	return false;
}

#define EV_ID 7
#define SAMPLE_TYPE                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/*
 * cpu-clock samples with callchains on CPU 1 at 100, 110 and 120, and a LOST
 * on their (forward) ring; in CLOCK_MONOTONIC if @monotonic, else perf's clock.
 */
static struct snapshot *sampling_snapshot_in(bool monotonic)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_period = 10000,
				     .sample_type = SAMPLE_TYPE,
				     .sample_id_all = 1,
				     .use_clockid = monotonic,
				     .clockid = monotonic ? CLOCK_MONOTONIC : 0 };
	uint64_t ids[] = { EV_ID }, chain[] = { (uint64_t)PERF_CONTEXT_USER, 0x401000, 0x402000 };
	struct snapshot *s = snapshot__new();
	struct test_records r;

	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "cpu-clock", ids, 1), 0);
	assert_int_equal(snapshot__open_spill(s, "/tmp"), 0);
	test_records__init(&r, SAMPLE_TYPE);
	for (uint64_t t = 100; t < 130; t += 10)
		test_records__sample(&r, &(struct test_sample){ .misc = PERF_RECORD_MISC_USER,
								.id = EV_ID,
								.ip = 0x401000,
								.pid = 42,
								.tid = 43,
								.time = t,
								.cpu = 1,
								.period = 10000,
								.callchain = chain,
								.callchain_nr = 3 });
	test_records__lost(&r,
			   &(struct test_lost){ .id = EV_ID, .lost = 5, .time = 125, .cpu = 1 });
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);
	test_records__fini(&r);
	return s;
}

static struct snapshot *sampling_snapshot(void)
{
	return sampling_snapshot_in(false);
}

struct packet_counts {
	size_t perf_samples, perf_sample_stacks, lost_marks, stack_samples, ftrace, system_info;
	uint64_t lost, lost_cpu;
	uint64_t perf_defaults; /* sequences whose defaults name a PerfSample timebase */
	char release[65], machine[65];
	bool has_realtime;
	uint64_t realtime; /* the ClockSnapshot's CLOCK_REALTIME reading */
};

static void count_packets(const uint8_t *file, size_t size, struct packet_counts *c)
{
	const uint8_t *p = file;
	struct pb_field pkt, f, g, h;

	memset(c, 0, sizeof(*c));
	while (next_field(&p, file + size, &pkt)) {
		assert_int_equal(pkt.num, 1); /* Trace.packet */
		if (find_field(pkt.data, pkt.len, 66, &f)) {
			if (find_field(f.data, f.len, 17, &g)) {
				c->lost_marks++;
				c->lost += g.v;
				assert_true(find_field(f.data, f.len, 1, &g));
				c->lost_cpu = g.v;
			} else {
				c->perf_samples++;
				c->perf_sample_stacks += find_field(f.data, f.len, 4, &g);
				assert_true(find_field(f.data, f.len, 2, &g) && g.v == 42);
				assert_true(find_field(f.data, f.len, 3, &g) && g.v == 43);
				assert_true(find_field(f.data, f.len, 1, &g) && g.v == 1);
			}
		}
		c->stack_samples += find_field(pkt.data, pkt.len, 135, &f);
		c->ftrace += find_field(pkt.data, pkt.len, 1, &f);
		if (find_field(pkt.data, pkt.len, 59, &f) && find_field(f.data, f.len, 12, &g) &&
		    find_field(g.data, g.len, 1, &h) && find_field(h.data, h.len, 10, &h) &&
		    h.len == strlen("cpu-clock") && !memcmp(h.data, "cpu-clock", h.len))
			c->perf_defaults++;
		if (find_field(pkt.data, pkt.len, 6, &f)) { /* ClockSnapshot */
			const uint8_t *q = f.data;

			while (next_field(&q, f.data + f.len, &g))
				if (g.num == 1 && find_field(g.data, g.len, 1, &h) && h.v == 1) {
					assert_true(find_field(g.data, g.len, 2, &h));
					c->has_realtime = true;
					c->realtime = h.v;
				}
		}
		if (find_field(pkt.data, pkt.len, 45, &f)) {
			c->system_info++;
			assert_true(find_field(f.data, f.len, 1, &g));
			if (find_field(g.data, g.len, 3, &h))
				snprintf(c->release, sizeof(c->release), "%.*s", (int)h.len,
					 h.data);
			if (find_field(g.data, g.len, 4, &h))
				snprintf(c->machine, sizeof(c->machine), "%.*s", (int)h.len,
					 h.data);
		}
	}
}

static void write_and_count(const struct snapshot *s, const struct perfetto_meta *m,
			    struct packet_counts *c)
{
	int fd = memfd_create("pftrace", 0);
	struct perfetto_result res;
	uint8_t *file;
	off_t size;

	assert_true(fd >= 0);
	assert_int_equal(snapshot_perfetto__write(s, fd, m, &res), 0);
	size = lseek(fd, 0, SEEK_END);
	file = malloc((size_t)size + 1);
	assert_non_null(file);
	assert_int_equal(pread(fd, file, (size_t)size, 0), size);
	count_packets(file, (size_t)size, c);
	assert_int_equal(res.nr_samples, 3);
	assert_int_equal(res.lost_events, 5);
	assert_int_equal(res.nr_lost_marks, 0);
	assert_int_equal(res.nr_sample_lost_marks, 1);
	free(file);
	close(fd);
}

/* PerfSample: cpu, pid, tid, callstack_iid; the timebase named in the defaults. */
static void test_perf_sample(void **state)
{
	struct snapshot *s = sampling_snapshot();
	struct perfetto_meta m = { .samples = PERFETTO_SAMPLE_PERF };
	struct packet_counts c;

	(void)state;
	write_and_count(s, &m, &c);
	assert_int_equal(c.perf_samples, 3);
	assert_int_equal(c.perf_sample_stacks, 3);
	assert_int_equal(c.stack_samples, 0);
	assert_int_equal(c.perf_defaults, 1);
	snapshot__delete(s);
}

static void test_stack_sample(void **state)
{
	struct snapshot *s = sampling_snapshot();
	struct perfetto_meta m = { .samples = PERFETTO_SAMPLE_STACK };
	struct packet_counts c;

	(void)state;
	write_and_count(s, &m, &c);
	assert_int_equal(c.stack_samples, 3);
	assert_int_equal(c.perf_samples, 0);
	snapshot__delete(s);
}

/*
 * A LOST on a ring of sampling events only: a kernel_records_lost mark of
 * its CPU for the samples (either kind), no ftrace bundle marked lost.
 */
static void test_sample_loss(void **state)
{
	struct snapshot *s = sampling_snapshot();
	struct perfetto_meta m = { .samples = PERFETTO_SAMPLE_PERF };
	struct packet_counts c;

	(void)state;
	for (int kind = PERFETTO_SAMPLE_PERF; kind <= PERFETTO_SAMPLE_STACK; kind++) {
		m.samples = (enum perfetto_sample_kind)kind;
		write_and_count(s, &m, &c);
		assert_int_equal(c.lost_marks, 1);
		assert_int_equal(c.lost, 5);
		assert_int_equal(c.lost_cpu, 1);
		assert_int_equal(c.ftrace, 0);
	}
	snapshot__delete(s);
}

/* SystemInfo is the meta's (the recording machine's), and none without one. */
static void test_system_info(void **state)
{
	struct snapshot *s = sampling_snapshot();
	struct perfetto_meta m = {
		.system = { .sysname = "Linux", .release = "4.19.0-other", .machine = "aarch64" }
	};
	struct packet_counts c;

	(void)state;
	write_and_count(s, &m, &c);
	assert_int_equal(c.system_info, 1);
	assert_string_equal(c.release, "4.19.0-other");
	assert_string_equal(c.machine, "aarch64");
	m.system = (struct perfetto_system){ 0 };
	write_and_count(s, &m, &c);
	assert_int_equal(c.system_info, 0);
	snapshot__delete(s);
}

/*
 * The recording's wall-clock reference (perf.data's CLOCK_DATA) puts
 * CLOCK_REALTIME in the ClockSnapshot, only for the clock it was read in.
 */
static void test_clock_ref(void **state)
{
	struct snapshot *s = sampling_snapshot_in(true);
	struct perfetto_meta m = { .clock_ref = { .valid = true,
						  .clockid = CLOCK_MONOTONIC,
						  .clock_ns = 90,
						  .realtime_ns = 1764892800000000000ull } };
	struct packet_counts c;

	(void)state;
	write_and_count(s, &m, &c);
	assert_true(c.has_realtime);
	assert_int_equal(c.realtime, 1764892800000000010ull); /* first record at 100 */
	m.clock_ref.clockid = CLOCK_BOOTTIME;
	write_and_count(s, &m, &c);
	assert_false(c.has_realtime);
	m.clock_ref = (struct perfetto_clock_ref){ 0 };
	write_and_count(s, &m, &c);
	assert_false(c.has_realtime);
	snapshot__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_intern),
		cmocka_unit_test(test_out_plain),
		cmocka_unit_test(test_out_gzip),
		cmocka_unit_test(test_out_zstd),
		cmocka_unit_test(test_out_error),
		cmocka_unit_test(test_schema_table),
		cmocka_unit_test_setup_teardown(test_typed_events, tp_setup, tp_teardown),
		cmocka_unit_test_setup_teardown(test_begin_without_end, tp_setup, tp_teardown),
		cmocka_unit_test_setup_teardown(test_syscall_events, tp_setup, tp_teardown),
		cmocka_unit_test(test_perf_sample),
		cmocka_unit_test(test_stack_sample),
		cmocka_unit_test(test_sample_loss),
		cmocka_unit_test(test_system_info),
		cmocka_unit_test(test_clock_ref),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
