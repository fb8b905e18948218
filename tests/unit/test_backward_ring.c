// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for backward_ring: a simulated kernel writes records backwards
 * into a small ring exactly like perf_output_begin() does for write_backward
 * events, and copy + walk must give back the newest complete records, newest
 * first, with their exact bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "backward_ring.h"
#include "test_records.h"

#define RING_SIZE 4096
#define MAX_LOG	  200000

/* The kernel side: a data area, data_head and what was written, in order. */
struct sim_ring {
	uint64_t data[RING_SIZE / 8];
	uint64_t head;
	size_t nr;
	uint64_t seq[MAX_LOG];
	uint16_t size[MAX_LOG];
};

/*
 * Record number @seq: a test_records__pattern() record, whose bytes depend
 * on @seq and their place, so a misplaced byte shows.
 */
static const struct perf_event_header *make_record(uint64_t seq, uint16_t size)
{
	static struct test_records rec;

	test_records__reset(&rec);
	return test_records__pattern(&rec, size, seq, false);
}

/* As the kernel: head moves down first, the record goes at the new head, byte-wise wrapping. */
static void sim_write(struct sim_ring *r, uint64_t seq, uint16_t size)
{
	uint8_t *data = (uint8_t *)r->data;
	const uint8_t *rec;
	size_t off;

	assert_true(size >= 16 && size % 8 == 0 && size <= RING_SIZE);
	assert_true(r->nr < MAX_LOG);
	rec = (const uint8_t *)make_record(seq, size);
	r->head -= size;
	off = (size_t)(r->head & (RING_SIZE - 1));
	for (size_t i = 0; i < size; i++)
		data[(off + i) & (RING_SIZE - 1)] = rec[i];
	r->seq[r->nr] = seq;
	r->size[r->nr] = size;
	r->nr++;
}

/* Writes filler records until the next record would start at offset @target. */
static void sim_move_to(struct sim_ring *r, uint64_t *seq, size_t target)
{
	size_t dist = (size_t)((r->head - target) & (RING_SIZE - 1));

	if (dist < 16)
		dist += RING_SIZE;
	for (; dist > 32; dist -= 16)
		sim_write(r, (*seq)++, 16);
	sim_write(r, (*seq)++, (uint16_t)dist);
	assert_int_equal(r->head & (RING_SIZE - 1), target);
}

static struct sim_ring *sim_new(uint64_t head)
{
	struct sim_ring *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->head = head;
	return r;
}

/* What the reader may see: the newest records that lie wholly within @len bytes. */
static size_t expected_count(const struct sim_ring *r, size_t len)
{
	size_t used = 0, n = 0;

	while (n < r->nr && used + r->size[r->nr - 1 - n] <= len)
		used += r->size[r->nr - 1 - n++];
	return n;
}

struct check_result {
	size_t len;
	size_t records;
	int partial_oldest; /* bytes were left over after the last complete record */
};

/* Copies the ring, walks the copy and compares it with the writer's log. */
static struct check_result check_ring(const struct sim_ring *r, uint64_t written)
{
	static uint64_t copy[RING_SIZE / 8 + 8];
	const struct perf_event_header *h;
	struct check_result res = { 0 };
	size_t n, pos = 0, want_len;

	memset(copy, 0xee, sizeof(copy));
	res.len = backward_ring__copy(copy, r->data, RING_SIZE, r->head);
	want_len = written < RING_SIZE ? (size_t)written : RING_SIZE;
	assert_int_equal(res.len, want_len);
	/* Nothing past the copied part is touched. */
	for (size_t i = res.len; i < sizeof(copy); i++)
		assert_int_equal(((uint8_t *)copy)[i], 0xee);

	n = expected_count(r, res.len);
	for (size_t i = 0; i < n; i++) {
		size_t idx = r->nr - 1 - i;

		h = backward_ring__next(copy, res.len, &pos);
		assert_non_null(h);
		assert_int_equal(h->size, r->size[idx]);
		assert_memory_equal(h, make_record(r->seq[idx], r->size[idx]), h->size);
	}
	res.records = n;
	res.partial_oldest = pos != res.len;
	assert_null(backward_ring__next(copy, res.len, &pos));
	/* And it stays at the end. */
	assert_null(backward_ring__next(copy, res.len, &pos));
	return res;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_empty(void **state)
{
	uint64_t copy[4] = { 0 };
	uint8_t data[RING_SIZE] = { 0 };
	size_t pos = 0;

	(void)state;
	assert_int_equal(backward_ring__copy(copy, data, sizeof(data), 0), 0);
	assert_null(backward_ring__next(copy, 0, &pos));
	assert_int_equal(pos, 0);
}

static void test_few_records(void **state)
{
	struct sim_ring *r = sim_new(0);
	struct check_result res;

	(void)state;
	sim_write(r, 1, 24);
	/* Head went below zero: the first record sits at the top of the area. */
	assert_true(r->head == (uint64_t)0 - 24);
	res = check_ring(r, 24);
	assert_int_equal(res.records, 1);

	sim_write(r, 2, 48);
	sim_write(r, 3, 16);
	res = check_ring(r, 88);
	assert_int_equal(res.len, 88);
	assert_int_equal(res.records, 3);
	assert_false(res.partial_oldest);
	free(r);
}

static void test_exactly_full(void **state)
{
	struct sim_ring *r = sim_new(0);
	struct check_result res;

	(void)state;
	for (uint64_t i = 0; i < RING_SIZE / 64; i++)
		sim_write(r, i, 64);
	assert_true(r->head == (uint64_t)0 - RING_SIZE);
	res = check_ring(r, RING_SIZE);
	assert_int_equal(res.records, RING_SIZE / 64);
	assert_false(res.partial_oldest);
	free(r);
}

static void test_record_spans_wrap(void **state)
{
	struct sim_ring *r = sim_new(0);
	struct check_result res;
	uint64_t seq = 0;
	size_t off;

	(void)state;
	/* Fill all but 16 bytes, then write 48: 32 bytes at the top, 16 at the bottom. */
	for (; seq < (RING_SIZE - 16) / 80; seq++)
		sim_write(r, seq, 80);
	while (((uint64_t)0 - r->head) < RING_SIZE - 16)
		sim_write(r, seq++, 16);
	assert_int_equal(r->head & (RING_SIZE - 1), 16);
	sim_write(r, seq++, 48);
	off = (size_t)(r->head & (RING_SIZE - 1));
	assert_int_equal(off, RING_SIZE - 32);
	res = check_ring(r, RING_SIZE + 32);
	/* The 48-byte record came back whole; only the very first one is cut. */
	assert_int_equal(res.records, r->nr - 1);
	assert_true(res.partial_oldest);

	/* Header at the top of the area, payload 8 bytes then wrapping. */
	sim_move_to(r, &seq, 8);
	sim_write(r, seq++, 24);
	assert_int_equal(r->head & (RING_SIZE - 1), RING_SIZE - 16);
	check_ring(r, (uint64_t)0 - r->head);

	/* Header in the last 8 bytes of the area, all of its payload at the start. */
	sim_move_to(r, &seq, 16);
	sim_write(r, seq++, 24);
	assert_int_equal(r->head & (RING_SIZE - 1), RING_SIZE - 8);
	check_ring(r, (uint64_t)0 - r->head);
	free(r);
}

/*
 * Random sizes through many wraps, checked after every write: this covers
 * rings that are partly written, exactly full, and full with a partially
 * overwritten oldest record.
 */
static void run_random(uint64_t start_head, size_t writes, uint16_t max_size)
{
	struct sim_ring *r = sim_new(start_head);
	struct check_result res;
	size_t partial = 0, exact = 0;

	for (size_t i = 0; i < writes; i++) {
		uint16_t size = (uint16_t)(16 + 8 * (rng() % ((max_size - 16) / 8 + 1)));

		/* Once in a while a big one, up to the whole ring. */
		if (rng() % 64 == 0)
			size = (uint16_t)(RING_SIZE / 2 + 8 * (rng() % (RING_SIZE / 16 + 1)));
		sim_write(r, i + 1, size);
		res = check_ring(r, (uint64_t)0 - r->head);
		assert_true(res.records >= 1);
		if (res.partial_oldest)
			partial++;
		else if (res.len == RING_SIZE)
			exact++;
	}
	/* The run did exercise both ways a full ring can end. */
	assert_true(partial > writes / 2);
	assert_true(exact > 0);
	free(r);
}

static void test_many_wraps(void **state)
{
	(void)state;
	run_random(0, 20000, 256);
	run_random(0, 5000, 1024);
}

/*
 * data_head values that cross u64 boundaries. A ring starts at 0; starting
 * the simulation lower stands for a ring that has been written for a long
 * time (its earlier content here being zeroes, where the walk must stop),
 * and head & mask and 0 - head must be taken on the full u64.
 */
static void test_head_wraps_u64(void **state)
{
	struct sim_ring *r;
	struct check_result res;

	(void)state;
	/* From 0: the first write takes head just below 2^64. */
	r = sim_new(0);
	sim_write(r, 1, 32);
	assert_true(r->head > (UINT64_C(1) << 63));
	res = check_ring(r, 32);
	assert_int_equal(res.records, 1);
	free(r);

	/* Crossing 2^32 downwards: a 32-bit head would land somewhere else. */
	r = sim_new((UINT64_C(1) << 32) + 40);
	sim_write(r, 1, 24);
	sim_write(r, 2, 64);
	assert_true(r->head < (UINT64_C(1) << 32));
	res = check_ring(r, UINT64_MAX);
	assert_int_equal(res.len, RING_SIZE);
	assert_int_equal(res.records, 2);
	assert_true(res.partial_oldest);
	free(r);

	/* Bytes written crossing 2^32 and 2^63. */
	run_random((uint64_t)0 - (UINT64_C(1) << 32) + 64, 3000, 512);
	run_random((UINT64_C(1) << 63) + 64, 3000, 512);
}

/*
 * The copy of a dump: the oldest 512 bytes while paused, then the rest in
 * pieces of 1024 bytes, oldest first, the kernel writing @after[k] bytes of
 * 64-byte records before the copy of piece k ends. The trusted length must
 * be @expect, and what it keeps the ring exactly as it was at the pause.
 */
#define PAUSED_PART 512
#define PIECE	    1024

static void piecewise(const unsigned int after[4], size_t expect)
{
	static uint64_t copy[RING_SIZE / 8 + 8];
	struct sim_ring *r = sim_new(0);
	uint64_t seq = 1, head;
	size_t len, nr_at_pause, pos = 0, used = 0, n = 0, trusted, k = 0;
	const struct perf_event_header *h;

	for (int i = 0; i < 500; i++)
		sim_write(r, seq++, (uint16_t)(16 + 8 * (rng() % 30)));
	head = r->head;
	nr_at_pause = r->nr;
	len = backward_ring__len(RING_SIZE, head);
	assert_int_equal(len, RING_SIZE);
	backward_ring__copy_range(copy, r->data, RING_SIZE, head, len - PAUSED_PART, len);
	trusted = backward_ring__intact(len, RING_SIZE, len, 0);
	for (size_t to = len - PAUSED_PART, from; to > 0; to = from, k++) {
		from = to > PIECE ? to - PIECE : 0;
		for (uint64_t w = 0; w < after[k]; w += 64)
			sim_write(r, seq++, 64);
		backward_ring__copy_range(copy, r->data, RING_SIZE, head, from, to);
		trusted = backward_ring__intact(trusted, RING_SIZE, to, head - r->head);
	}
	assert_int_equal(k, 4);
	assert_int_equal(trusted, expect);
	/* Newest first, the records of the pause, each byte as written. */
	while ((h = backward_ring__next(copy, trusted, &pos))) {
		size_t idx = nr_at_pause - 1 - n++;

		assert_int_equal(h->size, r->size[idx]);
		assert_memory_equal(h, make_record(r->seq[idx], r->size[idx]), h->size);
		used += h->size;
	}
	/* All the whole ones that fit: the next older one would not. */
	assert_true(n == nr_at_pause || used + r->size[nr_at_pause - 1 - n] > trusted);
	free(r);
}

static void test_piecewise_copy(void **state)
{
	(void)state;
	piecewise((const unsigned int[]){ 0, 0, 0, 0 }, RING_SIZE);
	/* Within the paused part by the end of the first piece. */
	piecewise((const unsigned int[]){ 256, 0, 0, 0 }, RING_SIZE);
	piecewise((const unsigned int[]){ 512, 0, 0, 0 }, RING_SIZE);
	/* Into the first piece as it was copied: cut to what the kernel left. */
	piecewise((const unsigned int[]){ 576, 0, 0, 0 }, RING_SIZE - 576);
	piecewise((const unsigned int[]){ 1024, 0, 0, 0 }, RING_SIZE - 1024);
	/*
	 * Slower than the copy, however far it writes in all: 1024 bytes,
	 * twice the paused part, that a copy of the rest in one step
	 * (newest first) would have lost.
	 */
	piecewise((const unsigned int[]){ 256, 256, 256, 256 }, RING_SIZE);
	/* Faster: each piece cut further, down to nothing; or only one. */
	piecewise((const unsigned int[]){ 1152, 1152, 1152, 1152 }, 0);
	piecewise((const unsigned int[]){ 0, 0, 2048, 0 }, RING_SIZE);
	piecewise((const unsigned int[]){ 0, 0, 2624, 0 }, RING_SIZE - 2624);
	/* Round the whole ring before the first piece: nothing left. */
	piecewise((const unsigned int[]){ RING_SIZE, 0, 0, 0 }, 0);
}

/*
 * The copy written to a file, in the two steps of a dump, holds the same
 * bytes as the one copied to memory, at every wrap point of the ring.
 */
static void test_write_range(void **state)
{
	static uint8_t want[RING_SIZE], got[RING_SIZE];
	(void)state;

	for (uint64_t start = 0; start < 3 * RING_SIZE; start += RING_SIZE / 8 + 40) {
		struct sim_ring *r = sim_new(start);
		int fd = memfd_create("test_write_range", MFD_CLOEXEC);
		size_t len, part;
		uint64_t seq = 1;

		assert_true(fd >= 0);
		for (int i = 0; i < 300; i++)
			sim_write(r, seq++, (uint16_t)(16 + 8 * (rng() % 30)));
		len = backward_ring__len(RING_SIZE, r->head);
		part = len / 8;
		backward_ring__copy_range(want, r->data, RING_SIZE, r->head, 0, len);
		assert_int_equal(backward_ring__write_range(fd, r->data, RING_SIZE, r->head,
							    len - part, len),
				 0);
		assert_int_equal(
			backward_ring__write_range(fd, r->data, RING_SIZE, r->head, 0, len - part),
			0);
		assert_int_equal(pread(fd, got, len, 0), (ssize_t)len);
		assert_memory_equal(got, want, len);
		close(fd);
		free(r);
	}
	/* A file that cannot be written says so. */
	{
		struct sim_ring *r = sim_new(0);

		sim_write(r, 1, 64);
		assert_int_equal(backward_ring__write_range(-1, r->data, RING_SIZE, r->head, 0, 64),
				 -EBADF);
		free(r);
	}
}

/* A part copied apart (a copier's staging) is that part of the whole copy, wrapped or not. */
static void test_copy_out(void **state)
{
	static uint8_t want[RING_SIZE], got[RING_SIZE];
	(void)state;

	for (uint64_t start = 0; start < 3 * RING_SIZE; start += RING_SIZE / 8 + 40) {
		struct sim_ring *r = sim_new(start);
		size_t len, part;
		uint64_t seq = 1;

		for (int i = 0; i < 300; i++)
			sim_write(r, seq++, (uint16_t)(16 + 8 * (rng() % 30)));
		len = backward_ring__len(RING_SIZE, r->head);
		backward_ring__copy_range(want, r->data, RING_SIZE, r->head, 0, len);
		for (part = 1; part <= len; part = part * 3 + 7) {
			memset(got, 0xa5, sizeof(got));
			backward_ring__copy_out(got, r->data, RING_SIZE, r->head, len - part, len);
			assert_memory_equal(got, want + len - part, part);
			if (part < sizeof(got))
				assert_int_equal(got[part], 0xa5);
		}
		free(r);
	}
}

static void test_intact_while_paused(void **state)
{
	(void)state;
	/* A record landing during the pause is cut off wherever it fell. */
	assert_int_equal(backward_ring__intact(4096, 4096, 4096, 64), 4096 - 64);
	assert_int_equal(backward_ring__intact(4096, 4096, 4096, 0), 4096);
	/* Not wrapped: free space takes the kernel's bytes first. */
	assert_int_equal(backward_ring__intact(1000, 4096, 875, 3000), 1000);
	assert_int_equal(backward_ring__intact(1000, 4096, 875, 3221), 1000);
	assert_int_equal(backward_ring__intact(1000, 4096, 875, 3300), 4096 - 3300);
	/* A piece the kernel did not reach keeps an earlier cut. */
	assert_int_equal(backward_ring__intact(700, 4096, 512, 3000), 700);
	assert_int_equal(backward_ring__intact(4096, 4096, 3584, 5000), 0);
}

static void test_next_rejects_bad_headers(void **state)
{
	uint64_t buf[8] = { 0 };
	struct perf_event_header *h = (void *)buf;
	size_t pos;

	(void)state;
	/* Zero header: never written. */
	pos = 0;
	assert_null(backward_ring__next(buf, sizeof(buf), &pos));
	/* Smaller than a header. */
	h->size = 4;
	pos = 0;
	assert_null(backward_ring__next(buf, sizeof(buf), &pos));
	/* Not a multiple of 8. */
	h->size = 20;
	pos = 0;
	assert_null(backward_ring__next(buf, sizeof(buf), &pos));
	/* Running past the copy: the overwritten oldest record. */
	h->size = sizeof(buf) + 8;
	pos = 0;
	assert_null(backward_ring__next(buf, sizeof(buf), &pos));
	assert_int_equal(pos, 0);
	/* Exactly fitting is fine; then nothing is left. */
	h->size = sizeof(buf);
	pos = 0;
	assert_ptr_equal(backward_ring__next(buf, sizeof(buf), &pos), h);
	assert_int_equal(pos, sizeof(buf));
	assert_null(backward_ring__next(buf, sizeof(buf), &pos));
	/* Fewer than 8 bytes left. */
	h->size = 8;
	pos = 0;
	assert_null(backward_ring__next(buf, 4, &pos));
	/* A cursor past the end. */
	pos = sizeof(buf) + 8;
	assert_null(backward_ring__next(buf, sizeof(buf), &pos));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_few_records),
		cmocka_unit_test(test_exactly_full),
		cmocka_unit_test(test_record_spans_wrap),
		cmocka_unit_test(test_many_wraps),
		cmocka_unit_test(test_head_wraps_u64),
		cmocka_unit_test(test_next_rejects_bad_headers),
		cmocka_unit_test(test_piecewise_copy),
		cmocka_unit_test(test_write_range),
		cmocka_unit_test(test_copy_out),
		cmocka_unit_test(test_intact_while_paused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
