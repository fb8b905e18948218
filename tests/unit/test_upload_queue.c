// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the upload queue's order (upload_item__next_due): oldest
 * first, a snapshot never tried before a retry that has come, and every
 * snapshot tried in turn when every attempt fails slowly (an endpoint that
 * never answers), where only the two oldest used to be.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "upload-internal.h"

#define SEC 1000000000ull

static struct upload_item items[5];

/* @n pending items, oldest first, never tried. */
static struct upload_item *queue(size_t n)
{
	memset(items, 0, sizeof(items));
	for (size_t i = 0; i < n; i++) {
		items[i].state = UPLOAD_PENDING;
		items[i].next = i + 1 < n ? &items[i + 1] : NULL;
	}
	return &items[0];
}

static void test_order(void **state)
{
	struct upload_item *q = queue(3);
	uint64_t wait;

	(void)state;
	assert_ptr_equal(upload_item__next_due(q, 10 * SEC, &wait), &items[0]);
	/* The oldest failed and waits: the next one, never tried, goes first. */
	items[0].state = UPLOAD_FAILING;
	items[0].next_try_ns = 5 * SEC;
	assert_ptr_equal(upload_item__next_due(q, 10 * SEC, &wait), &items[1]);
	/* Not due yet: how long until it is. */
	items[1].state = items[2].state = UPLOAD_UPLOADED;
	assert_null(upload_item__next_due(q, 2 * SEC, &wait));
	assert_int_equal(wait, 3 * SEC);
	assert_ptr_equal(upload_item__next_due(q, 5 * SEC, &wait), &items[0]);
	/* Nothing left to try. */
	items[0].state = UPLOAD_FAILED;
	assert_null(upload_item__next_due(q, 5 * SEC, &wait));
	assert_int_equal(wait, UINT64_MAX);
}

/*
 * Every attempt takes 10 s (a connect timeout) and is retried 1 s after it
 * ended: all five snapshots are tried within their first round.
 */
static void test_black_hole(void **state)
{
	struct upload_item *q = queue(5);
	unsigned int tried = 0;
	uint64_t now = 0, wait;

	(void)state;
	for (int attempt = 0; attempt < 10; attempt++) {
		struct upload_item *it = upload_item__next_due(q, now, &wait);

		assert_non_null(it);
		if (!it->attempts)
			tried++;
		now += 10 * SEC;
		it->attempts++;
		it->state = UPLOAD_FAILING;
		it->next_try_ns = now + 1 * SEC;
		if (attempt == 4)
			assert_int_equal(tried, 5);
	}
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(items[i].attempts, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_black_hole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
