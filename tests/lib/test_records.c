// SPDX-License-Identifier: GPL-2.0-only
/* test_records: perf records built by hand. See test_records.h. */
#include <stdlib.h>
#include <string.h>

#include "test_records.h"

/* What a SAMPLE may hold here: the kernel's order up to RAW, less READ. */
#define SAMPLE_BITS                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |  \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW)

void test_records__init(struct test_records *r, uint64_t sample_type)
{
	*r = (struct test_records){ .sample_type = sample_type };
}

void test_records__reset(struct test_records *r)
{
	r->len = 0;
	r->nr = 0;
	r->start = 0;
}

void test_records__fini(struct test_records *r)
{
	free(r->data);
	*r = (struct test_records){ 0 };
}

static uint8_t *grow(struct test_records *r, size_t len)
{
	uint8_t *p;

	if (len > r->cap - r->len) {
		size_t cap = r->cap ? r->cap : 4096;

		while (cap - r->len < len)
			cap *= 2;
		/* malloc's alignment is at least 8: so is every record's. */
		p = realloc(r->data, cap);
		if (!p)
			abort();
		r->data = p;
		r->cap = cap;
	}
	p = r->data + r->len;
	r->len += len;
	return p;
}

void test_records__put(struct test_records *r, const void *data, size_t len)
{
	if (len)
		memcpy(grow(r, len), data, len);
}

void test_records__put_u32(struct test_records *r, uint32_t v)
{
	test_records__put(r, &v, 4);
}

void test_records__put_u64(struct test_records *r, uint64_t v)
{
	test_records__put(r, &v, 8);
}

void test_records__put_str(struct test_records *r, const char *s)
{
	test_records__put(r, s, strlen(s) + 1);
}

static void put_zeros(struct test_records *r, size_t len)
{
	if (len)
		memset(grow(r, len), 0, len);
}

/* Zeros up to the next 8-byte boundary of the record. */
static void pad8(struct test_records *r)
{
	put_zeros(r, (8 - (r->len - r->start) % 8) % 8);
}

void test_records__begin(struct test_records *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	if (r->len % 8)
		abort();
	r->start = r->len;
	test_records__put(r, &h, sizeof(h));
}

struct perf_event_header *test_records__end(struct test_records *r)
{
	struct perf_event_header *h;

	pad8(r);
	if (r->len - r->start > UINT16_MAX)
		abort();
	h = (struct perf_event_header *)(r->data + r->start);
	h->size = (uint16_t)(r->len - r->start);
	r->nr++;
	return h;
}

/* The sample_id_all trailer: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER. */
static size_t trailer_size(uint64_t st)
{
	static const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
					 PERF_SAMPLE_ID,  PERF_SAMPLE_STREAM_ID,
					 PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
	size_t size = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		size += st & bits[i] ? 8 : 0;
	return size;
}

static void put_trailer(struct test_records *r, uint32_t pid, uint32_t tid, uint64_t time,
			uint64_t id, uint32_t cpu)
{
	uint64_t st = r->sample_type;

	if (st & PERF_SAMPLE_TID) {
		test_records__put_u32(r, pid);
		test_records__put_u32(r, tid);
	}
	if (st & PERF_SAMPLE_TIME)
		test_records__put_u64(r, time);
	if (st & PERF_SAMPLE_ID)
		test_records__put_u64(r, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		test_records__put_u64(r, id);
	if (st & PERF_SAMPLE_CPU) {
		test_records__put_u32(r, cpu);
		test_records__put_u32(r, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		test_records__put_u64(r, id);
}

/* A name and its NUL, padded to 8 bytes. */
static void put_name(struct test_records *r, const char *name)
{
	test_records__put_str(r, name);
	pad8(r);
}

struct perf_event_header *test_records__sample(struct test_records *r, const struct test_sample *s)
{
	uint64_t st = r->sample_type;

	if (st & ~(uint64_t)SAMPLE_BITS)
		abort();
	test_records__begin(r, PERF_RECORD_SAMPLE, s->misc);
	if (st & PERF_SAMPLE_IDENTIFIER)
		test_records__put_u64(r, s->id);
	if (st & PERF_SAMPLE_IP)
		test_records__put_u64(r, s->ip);
	if (st & PERF_SAMPLE_TID) {
		test_records__put_u32(r, s->pid);
		test_records__put_u32(r, s->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		test_records__put_u64(r, s->time);
	if (st & PERF_SAMPLE_ADDR)
		test_records__put_u64(r, s->addr);
	if (st & PERF_SAMPLE_ID)
		test_records__put_u64(r, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		test_records__put_u64(r, s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		test_records__put_u32(r, s->cpu);
		test_records__put_u32(r, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		test_records__put_u64(r, s->period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		test_records__put_u64(r, s->callchain_nr);
		test_records__put(r, s->callchain, s->callchain_nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		size_t padded = (4 + (size_t)s->raw_size + 7) / 8 * 8 - 4;

		test_records__put_u32(r, (uint32_t)padded);
		test_records__put(r, s->raw, s->raw_size);
		put_zeros(r, padded - s->raw_size);
	}
	return test_records__end(r);
}

struct perf_event_header *test_records__comm(struct test_records *r, const struct test_comm *c)
{
	test_records__begin(r, PERF_RECORD_COMM, c->misc);
	test_records__put_u32(r, c->pid);
	test_records__put_u32(r, c->tid);
	put_name(r, c->comm);
	if (c->size) {
		size_t body = c->size - trailer_size(r->sample_type);

		if (c->size % 8 || c->size < trailer_size(r->sample_type) ||
		    body < r->len - r->start)
			abort();
		put_zeros(r, body - (r->len - r->start));
	}
	put_trailer(r, c->pid, c->tid, c->time, c->id, c->cpu);
	return test_records__end(r);
}

static void put_mmap_head(struct test_records *r, const struct test_mmap *m)
{
	test_records__put_u32(r, m->pid);
	test_records__put_u32(r, m->tid);
	test_records__put_u64(r, m->start);
	test_records__put_u64(r, m->len);
	test_records__put_u64(r, m->pgoff);
}

struct perf_event_header *test_records__mmap(struct test_records *r, const struct test_mmap *m)
{
	test_records__begin(r, PERF_RECORD_MMAP, m->misc);
	put_mmap_head(r, m);
	put_name(r, m->filename);
	put_trailer(r, m->pid, m->tid, m->time, m->id, m->cpu);
	return test_records__end(r);
}

struct perf_event_header *test_records__mmap2(struct test_records *r, const struct test_mmap *m)
{
	test_records__begin(r, PERF_RECORD_MMAP2, m->misc);
	put_mmap_head(r, m);
	if (m->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		uint8_t id[24] = { m->build_id_size };

		if (m->build_id_size > 20)
			abort();
		if (m->build_id_size)
			memcpy(id + 4, m->build_id, m->build_id_size);
		test_records__put(r, id, sizeof(id));
	} else {
		test_records__put_u32(r, m->maj);
		test_records__put_u32(r, m->min);
		test_records__put_u64(r, m->ino);
		test_records__put_u64(r, m->ino_generation);
	}
	test_records__put_u32(r, m->prot);
	test_records__put_u32(r, m->flags);
	put_name(r, m->filename);
	put_trailer(r, m->pid, m->tid, m->time, m->id, m->cpu);
	return test_records__end(r);
}

struct perf_event_header *test_records__task(struct test_records *r, const struct test_task *t)
{
	test_records__begin(r, t->type, t->misc);
	test_records__put_u32(r, t->pid);
	test_records__put_u32(r, t->ppid);
	test_records__put_u32(r, t->tid);
	test_records__put_u32(r, t->ptid);
	test_records__put_u64(r, t->time);
	put_trailer(r, t->pid, t->tid, t->time, t->id, t->cpu);
	return test_records__end(r);
}

struct perf_event_header *test_records__lost(struct test_records *r, const struct test_lost *l)
{
	test_records__begin(r, PERF_RECORD_LOST, l->misc);
	test_records__put_u64(r, l->id);
	test_records__put_u64(r, l->lost);
	put_trailer(r, 0, 0, l->time, l->id, l->cpu);
	return test_records__end(r);
}

/* splitmix64: a well-mixed word from any input. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

struct perf_event_header *test_records__pattern(struct test_records *r, uint16_t size,
						uint64_t seed, bool noise)
{
	if (size < 8 || size % 8)
		abort();
	test_records__begin(r, PERF_RECORD_SAMPLE, (uint16_t)seed);
	if (size >= 16)
		test_records__put_u64(r, seed);
	for (size_t off = 16; off < size; off += 8) {
		uint64_t w = mix(seed * 0x100000001b3ull + off);
		uint8_t b[8];

		for (size_t i = 0; i < 8; i++)
			b[i] = noise ? (uint8_t)(w >> (8 * i)) :
				       (uint8_t)(seed * 131 + (off + i) * 7 + (seed >> 8));
		test_records__put(r, b, 8);
	}
	return test_records__end(r);
}
