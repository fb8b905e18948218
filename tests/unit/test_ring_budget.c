// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for ring_budget: the per-CPU ring sizes of [capture] window
 * and memory, from byte rates and the sizes the rings have now.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "ring_budget.h"

#define PAGE 4096u
#define MIB  (1u << 20)

static struct ring_budget budget(uint64_t window_ms, uint64_t bytes)
{
	return (struct ring_budget){
		.window_ms = window_ms,
		.budget_pages = bytes / PAGE,
		.page_size = PAGE,
		.floor_pages = 16,
		.max_pages = 1u << 18,
	};
}

static uint64_t pages_total(const unsigned int *want, size_t nr)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < nr; i++)
		sum += want[i] + 1ull;
	return sum;
}

/* One busy CPU, one idle: the busy one gets the window with headroom, the idle one the floor. */
static void test_skewed_fits(void **state)
{
	struct ring_budget b = budget(5000, 64 * MIB);
	struct ring_budget_cpu cpus[2] = { { .rate = 2 * MIB }, { .rate = 1000 } };
	unsigned int want[2];
	bool sh[2];

	(void)state;
	assert_int_equal(ring_budget__plan(&b, cpus, 2, want, sh), 0);
	/* 10 MiB for 5 s, 12.5 with headroom: the next power of two is 16 MiB. */
	assert_int_equal(want[0], 16 * MIB / PAGE);
	assert_int_equal(want[1], 16);
	assert_false(sh[0]);
	assert_false(sh[1]);
	assert_true(pages_total(want, 2) <= b.budget_pages);
}

/* Each ring holds the window at its own rate: the quiet CPU's reach is not the busy one's. */
static void test_every_cpu_holds_window(void **state)
{
	struct ring_budget b = budget(10000, 256 * MIB);
	struct ring_budget_cpu cpus[4] = {
		{ .rate = 7 * MIB }, { .rate = 300000 }, { .rate = 0 }, { .rate = 3 * MIB + 5 }
	};
	unsigned int want[4];

	(void)state;
	assert_int_equal(ring_budget__plan(&b, cpus, 4, want, NULL), 0);
	for (size_t i = 0; i < 4; i++) {
		assert_true(ring_budget__reach_ns(want[i], PAGE, cpus[i].rate) >= 10000000000ull);
		assert_int_equal(want[i] & (want[i] - 1), 0);
	}
	assert_true(want[0] > want[3] && want[3] > want[1] && want[1] > want[2]);
	assert_true(pages_total(want, 4) <= b.budget_pages);
}

/* A ring that holds the window is left alone while the rate wobbles; far too big, it shrinks. */
static void test_hysteresis(void **state)
{
	struct ring_budget b = budget(5000, 64 * MIB);
	struct ring_budget_cpu cpus[1] = { { .rate = 2 * MIB, .pages = 16 * MIB / PAGE } };
	unsigned int want[1];

	(void)state;
	/* 2 MiB/s wants 16 MiB; at 1.2 MiB/s 8 MiB would do, but 16 MiB is kept. */
	cpus[0].rate = 1200 * 1024;
	assert_int_equal(ring_budget__plan(&b, cpus, 1, want, NULL), 0);
	assert_int_equal(want[0], 16 * MIB / PAGE);
	/* 16 MiB at 2.9 MiB/s: 5.5 s, a tenth over the window: kept, not grown. */
	cpus[0].rate = 2900 * 1024;
	assert_int_equal(ring_budget__plan(&b, cpus, 1, want, NULL), 0);
	assert_int_equal(want[0], 16 * MIB / PAGE);
	/* Below a tenth over the window: grown. */
	cpus[0].rate = 3000 * 1024;
	assert_int_equal(ring_budget__plan(&b, cpus, 1, want, NULL), 0);
	assert_int_equal(want[0], 32 * MIB / PAGE);
	/* Four times what it needs: shrunk to the need. */
	cpus[0].rate = 300 * 1024;
	assert_int_equal(ring_budget__plan(&b, cpus, 1, want, NULL), 0);
	assert_int_equal(want[0], 2 * MIB / PAGE);
}

/* Too small a budget: shared by rate, the shortfall said, never over the budget. */
static void test_short_shares_by_rate(void **state)
{
	struct ring_budget b = budget(10000, 8 * MIB);
	struct ring_budget_cpu cpus[2] = { { .rate = 4 * MIB }, { .rate = 100 * 1024 } };
	unsigned int want[2];
	bool sh[2];

	(void)state;
	assert_int_equal(ring_budget__plan(&b, cpus, 2, want, sh), 1);
	assert_true(sh[0]);
	assert_false(sh[1]);
	assert_true(pages_total(want, 2) <= b.budget_pages);
	/* The quiet CPU gets what holds its window (1 MiB with headroom is 2 MiB), the rest goes to the busy one. */
	assert_int_equal(want[1], 2 * MIB / PAGE);
	assert_int_equal(want[0], 4 * MIB / PAGE);
}

/* Short, with rings that do nearly as well as the plan: they stay. */
static void test_short_hysteresis(void **state)
{
	struct ring_budget b = budget(10000, 8 * MIB);
	struct ring_budget_cpu cpus[2] = { { .rate = 4 * MIB, .pages = 4 * MIB / PAGE },
					   { .rate = 90 * 1024, .pages = 1 * MIB / PAGE } };
	unsigned int want[2];

	(void)state;
	/* The plan gives the quiet CPU 2 MiB; 1 MiB holds its window and the busy one's reach is the same. */
	assert_int_equal(ring_budget__plan(&b, cpus, 2, want, NULL), 1);
	assert_int_equal(want[0], 4 * MIB / PAGE);
	assert_int_equal(want[1], 1 * MIB / PAGE);
	/* Without rings yet, the plan itself. */
	cpus[0].pages = cpus[1].pages = 0;
	assert_int_equal(ring_budget__plan(&b, cpus, 2, want, NULL), 1);
	assert_int_equal(want[1], 2 * MIB / PAGE);
}

/* Not even the floor on every CPU. */
static void test_floor_does_not_fit(void **state)
{
	struct ring_budget b = budget(5000, 16 * 17 * PAGE - 1);
	struct ring_budget_cpu cpus[16] = { { 0 } };
	unsigned int want[16];

	(void)state;
	assert_int_equal(ring_budget__plan(&b, cpus, 16, want, NULL), -EINVAL);
	b.budget_pages++;
	assert_int_equal(ring_budget__plan(&b, cpus, 16, want, NULL), 0);
	assert_int_equal(want[15], 16);
}

static void test_reach(void **state)
{
	(void)state;
	assert_int_equal(ring_budget__reach_ns(256, PAGE, MIB), 1000000000ull);
	assert_int_equal(ring_budget__reach_ns(1u << 20, PAGE, 1000), 4294967296000000ull);
	assert_true(ring_budget__reach_ns(16, PAGE, 0) == UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skewed_fits),
		cmocka_unit_test(test_every_cpu_holds_window),
		cmocka_unit_test(test_hysteresis),
		cmocka_unit_test(test_short_shares_by_rate),
		cmocka_unit_test(test_short_hysteresis),
		cmocka_unit_test(test_floor_does_not_fit),
		cmocka_unit_test(test_reach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
