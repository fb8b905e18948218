// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for dump_schedule: coalescing, min_interval, max_per_hour,
 * and every waiter answered exactly once (by its dump, or by cancel when
 * the dumper goes away), with the time given by the test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dump.h"
#include "dump_schedule.h"

#define MS	    1000000ull
#define HOUR	    (3600ull * 1000 * MS)
#define MAX_WAITERS 16

struct answers {
	int calls[MAX_WAITERS];
	int error[MAX_WAITERS];
	unsigned long order[MAX_WAITERS]; /* answer number, from 1 */
	unsigned long next;
};

static struct answers ans;

static void answered(void *ctx, const struct dump_figures *rep)
{
	int i = (int)(intptr_t)ctx;

	ans.calls[i]++;
	ans.error[i] = rep->error;
	ans.order[i] = ++ans.next;
}

static int setup(void **state)
{
	(void)state;
	memset(&ans, 0, sizeof(ans));
	return 0;
}

static struct dump_schedule *new_schedule(uint64_t min_interval_ns, unsigned int max)
{
	struct dump_schedule_limits lim = { .min_interval_ns = min_interval_ns,
					    .max_per_hour = max };
	struct dump_schedule *s = NULL;

	assert_int_equal(dump_schedule__new(&lim, &s), 0);
	return s;
}

static int request(struct dump_schedule *s, uint64_t now, int waiter)
{
	uint64_t wait = 0;

	return dump_schedule__request(s, now, waiter < 0 ? NULL : answered,
				      (void *)(intptr_t)waiter, &wait);
}

static void test_idle_trigger_starts(void **state)
{
	struct dump_schedule *s = new_schedule(0, 0);
	struct dump_figures ok = { 0 };
	uint64_t wait;

	(void)state;
	assert_int_equal(dump_schedule__poll(s, 0, &wait), DUMP_SCHEDULE_IDLE);
	assert_int_equal(request(s, 10, 0), DUMP_SCHEDULE_START);
	assert_true(dump_schedule__pending(s));
	assert_int_equal(dump_schedule__begin(s, 10), 1);
	assert_true(dump_schedule__running(s));
	assert_false(dump_schedule__pending(s));
	assert_int_equal(ans.calls[0], 0);
	assert_false(dump_schedule__end(s, &ok));
	assert_int_equal(ans.calls[0], 1);
	assert_int_equal(ans.error[0], 0);
	assert_false(dump_schedule__running(s));
	dump_schedule__delete(s);
}

/* Triggers while a dump runs coalesce into one more dump, which answers them all. */
static void test_coalescing(void **state)
{
	struct dump_schedule *s = new_schedule(0, 0);
	struct dump_figures first = { .error = 0 }, second = { .error = -ENOSPC };
	uint64_t wait;

	(void)state;
	assert_int_equal(request(s, 0, 0), DUMP_SCHEDULE_START);
	dump_schedule__begin(s, 0);
	assert_int_equal(request(s, 1, 1), DUMP_SCHEDULE_FOLLOW);
	assert_int_equal(request(s, 2, 2), DUMP_SCHEDULE_COALESCED);
	assert_int_equal(request(s, 3, -1), DUMP_SCHEDULE_COALESCED);
	assert_int_equal(request(s, 4, 3), DUMP_SCHEDULE_COALESCED);
	/* The running dump answers only the trigger it started for. */
	assert_true(dump_schedule__end(s, &first));
	assert_int_equal(ans.calls[0], 1);
	assert_int_equal(ans.calls[1] + ans.calls[2] + ans.calls[3], 0);
	assert_int_equal(dump_schedule__poll(s, 5, &wait), DUMP_SCHEDULE_START);
	assert_int_equal(dump_schedule__begin(s, 5), 2);
	assert_false(dump_schedule__end(s, &second));
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(ans.calls[i], 1);
		assert_int_equal(ans.error[i], -ENOSPC);
	}
	/* In trigger order. */
	assert_true(ans.order[1] < ans.order[2] && ans.order[2] < ans.order[3]);
	assert_int_equal(dump_schedule__poll(s, 6, &wait), DUMP_SCHEDULE_IDLE);
	dump_schedule__delete(s);
}

static void test_min_interval_defers(void **state)
{
	struct dump_schedule *s = new_schedule(500 * MS, 0);
	struct dump_figures ok = { 0 };
	uint64_t wait = 0;

	(void)state;
	/* The first dump is never deferred. */
	assert_int_equal(request(s, 1000 * MS, 0), DUMP_SCHEDULE_START);
	dump_schedule__begin(s, 1000 * MS);
	dump_schedule__end(s, &ok);
	assert_int_equal(dump_schedule__request(s, 1100 * MS, answered, (void *)1, &wait),
			 DUMP_SCHEDULE_DEFER);
	assert_int_equal(wait, 400 * MS);
	/* Another trigger while deferred joins it. */
	assert_int_equal(request(s, 1200 * MS, 2), DUMP_SCHEDULE_COALESCED);
	assert_int_equal(dump_schedule__poll(s, 1300 * MS, &wait), DUMP_SCHEDULE_DEFER);
	assert_int_equal(wait, 200 * MS);
	assert_int_equal(dump_schedule__poll(s, 1500 * MS, &wait), DUMP_SCHEDULE_START);
	dump_schedule__begin(s, 1500 * MS);
	dump_schedule__end(s, &ok);
	assert_int_equal(ans.calls[1], 1);
	assert_int_equal(ans.calls[2], 1);
	/* Long after: immediate again. */
	assert_int_equal(request(s, 5000 * MS, -1), DUMP_SCHEDULE_START);
	dump_schedule__delete(s);
}

static void test_max_per_hour(void **state)
{
	struct dump_schedule *s = new_schedule(0, 2);
	struct dump_figures ok = { 0 };
	uint64_t t = 0;

	(void)state;
	for (int i = 0; i < 2; i++, t += MS) {
		assert_int_equal(request(s, t, -1), DUMP_SCHEDULE_START);
		dump_schedule__begin(s, t);
		dump_schedule__end(s, &ok);
	}
	assert_int_equal(dump_schedule__starts_last_hour(s, t), 2);
	/* Refused: the waiter is not queued and never called. */
	assert_int_equal(request(s, t, 0), -EAGAIN);
	assert_false(dump_schedule__pending(s));
	assert_int_equal(ans.calls[0], 0);
	/* While a dump runs, a trigger that needs one more past the limit is refused too. */
	{
		struct dump_schedule *s2 = new_schedule(0, 1);

		assert_int_equal(request(s2, 0, -1), DUMP_SCHEDULE_START);
		dump_schedule__begin(s2, 0);
		assert_int_equal(request(s2, 1, 1), -EAGAIN);
		dump_schedule__end(s2, &ok);
		dump_schedule__delete(s2);
	}
	/* An hour after the first start, one more is allowed. */
	assert_int_equal(request(s, HOUR, 0), DUMP_SCHEDULE_START);
	assert_int_equal(dump_schedule__starts_last_hour(s, HOUR), 1);
	dump_schedule__delete(s);
}

/* Raising the limit by a reload applies at once. */
static void test_set_limits(void **state)
{
	struct dump_schedule_limits lim = { .max_per_hour = 0 };
	struct dump_schedule *s = new_schedule(0, 1);
	struct dump_figures ok = { 0 };

	(void)state;
	assert_int_equal(request(s, 0, -1), DUMP_SCHEDULE_START);
	dump_schedule__begin(s, 0);
	dump_schedule__end(s, &ok);
	assert_int_equal(request(s, 1, -1), -EAGAIN);
	dump_schedule__set_limits(s, &lim);
	assert_int_equal(request(s, 2, -1), DUMP_SCHEDULE_START);
	dump_schedule__delete(s);
}

/* The dumper goes away: the pending dump's waiters get -ECANCELED now, the running one's at its end. */
static void test_cancel_answers_once(void **state)
{
	struct dump_schedule *s = new_schedule(0, 0);
	struct dump_figures cancelled = { .error = -ECANCELED }, ok = { 0 };

	(void)state;
	request(s, 0, 0);
	dump_schedule__begin(s, 0);
	request(s, 1, 1);
	request(s, 2, 2);
	dump_schedule__cancel(s, &cancelled);
	assert_int_equal(ans.calls[0], 0);
	assert_int_equal(ans.calls[1], 1);
	assert_int_equal(ans.calls[2], 1);
	assert_int_equal(ans.error[1], -ECANCELED);
	assert_false(dump_schedule__pending(s));
	assert_false(dump_schedule__end(s, &ok));
	assert_int_equal(ans.calls[0], 1);
	assert_int_equal(ans.error[0], 0);
	/* Nothing is answered twice. */
	dump_schedule__cancel(s, &cancelled);
	dump_schedule__end(s, &ok);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ans.calls[i], 1);
	dump_schedule__delete(s);
}

/* Cancel while idle with a deferred dump: its waiters are answered. */
static void test_cancel_deferred(void **state)
{
	struct dump_schedule *s = new_schedule(1000 * MS, 0);
	struct dump_figures cancelled = { .error = -ECANCELED }, ok = { 0 };

	(void)state;
	request(s, 0, -1);
	dump_schedule__begin(s, 0);
	dump_schedule__end(s, &ok);
	assert_int_equal(request(s, 1, 4), DUMP_SCHEDULE_DEFER);
	dump_schedule__cancel(s, &cancelled);
	assert_int_equal(ans.calls[4], 1);
	assert_int_equal(ans.error[4], -ECANCELED);
	dump_schedule__delete(s);
}

static struct dump_schedule *reentrant_s;

/* A waiter that triggers again from its answer: queued for the next dump. */
static void answered_and_retrigger(void *ctx, const struct dump_figures *rep)
{
	uint64_t wait;

	answered(ctx, rep);
	if ((intptr_t)ctx == 5)
		assert_int_equal(
			dump_schedule__request(reentrant_s, 10, answered, (void *)6, &wait),
			DUMP_SCHEDULE_START);
}

static void test_reentrant_waiter(void **state)
{
	struct dump_schedule *s = new_schedule(0, 0);
	struct dump_figures ok = { 0 };
	uint64_t wait;

	(void)state;
	reentrant_s = s;
	assert_int_equal(dump_schedule__request(s, 0, answered_and_retrigger, (void *)5, &wait),
			 DUMP_SCHEDULE_START);
	dump_schedule__begin(s, 0);
	assert_true(dump_schedule__end(s, &ok));
	assert_int_equal(ans.calls[5], 1);
	assert_int_equal(ans.calls[6], 0);
	dump_schedule__begin(s, 11);
	dump_schedule__end(s, &ok);
	assert_int_equal(ans.calls[6], 1);
	assert_int_equal(ans.calls[5], 1);
	dump_schedule__delete(s);
}

/* Many waiters (the list grows) are each answered once. */
static void test_many_waiters(void **state)
{
	struct dump_schedule *s = new_schedule(0, 0);
	struct dump_figures ok = { 0 };
	int calls = 0;

	(void)state;
	for (int i = 0; i < 1000; i++)
		request(s, (uint64_t)i, i % MAX_WAITERS);
	dump_schedule__begin(s, 1000);
	dump_schedule__end(s, &ok);
	for (int i = 0; i < MAX_WAITERS; i++)
		calls += ans.calls[i];
	assert_int_equal(calls, 1000);
	dump_schedule__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_idle_trigger_starts, setup),
		cmocka_unit_test_setup(test_coalescing, setup),
		cmocka_unit_test_setup(test_min_interval_defers, setup),
		cmocka_unit_test_setup(test_max_per_hour, setup),
		cmocka_unit_test_setup(test_set_limits, setup),
		cmocka_unit_test_setup(test_cancel_answers_once, setup),
		cmocka_unit_test_setup(test_cancel_deferred, setup),
		cmocka_unit_test_setup(test_reentrant_waiter, setup),
		cmocka_unit_test_setup(test_many_waiters, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
