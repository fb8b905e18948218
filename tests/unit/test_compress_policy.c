// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for compress_policy (compression = auto): zstd until
 * measured (uncompressed where the writers have fewer CPUs than files),
 * zstd tried when uncompressed writing got dear, the cheaper mode once
 * both are measured, however old their figures, and a stale figure
 * measured anew only in a series of dumps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "compress_policy.h"

#define MS  1000000ull
#define MIB (1024ull * 1024)

/* Two data files, a CPU each, as the busy benchmark writes them. */
static bool choose(const struct compress_policy *p, uint64_t now, char *why)
{
	return compress_policy__choose(p, now, 2, 2, why, 192);
}

static void test_first_dump_zstd(void **state)
{
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	assert_true(choose(&p, 1000 * MS, why));
	assert_non_null(strstr(
		why, "nothing measured yet: zstd costs CPU time only, usually 1.30 ns a byte"));
	/* One file on one CPU, or CPUs unknown: zstd too. */
	assert_true(compress_policy__choose(&p, 1000 * MS, 1, 1, why, sizeof(why)));
	assert_true(compress_policy__choose(&p, 1000 * MS, 3, 0, why, sizeof(why)));
	assert_true(compress_policy__choose(&p, 1000 * MS, 3, 4, why, sizeof(why)));
}

/*
 * Fewer CPUs than files: the files take turns, so zstd's CPU time adds up
 * and the first dump is uncompressed; once measured, the figures decide.
 */
static void test_first_dump_fewer_cpus(void **state)
{
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	assert_false(compress_policy__choose(&p, 1000 * MS, 2, 1, why, sizeof(why)));
	assert_string_equal(why, "nothing measured yet: 2 data files share 1 CPU, so their "
				 "compression times would add up");
	assert_false(compress_policy__choose(&p, 1000 * MS, 3, 2, why, sizeof(why)));
	assert_non_null(strstr(why, "3 data files share 2 CPUs"));
	/* Uncompressed measured dearer than zstd usually is: zstd next. */
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, 1000 * MS);
	assert_true(compress_policy__choose(&p, 1001 * MS, 2, 1, why, sizeof(why)));
	/* Only zstd measured: zstd, however few the CPUs. */
	p = (struct compress_policy){ 0 };
	compress_policy__record(&p, true, 90 * MS, 64 * MIB, 1000 * MS);
	assert_true(compress_policy__choose(&p, 1000 * MS + 2 * COMPRESS_POLICY_VALID_NS, 2, 1, why,
					    sizeof(why)));
}

static void test_dear_writing_tries_zstd(void **state)
{
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	/* 64 MiB of records in 60 ms uncompressed: cheaper than zstd usually is. */
	compress_policy__record(&p, false, 60 * MS, 64 * MIB, 1000 * MS);
	assert_false(choose(&p, 1000 * MS + 2 * COMPRESS_POLICY_VALID_NS, why));
	assert_string_equal(why, "uncompressed writes 0.89 ns a byte, 600 s ago, less than zstd "
				 "usually costs (1.30 ns)");
	/* In 200 ms: dearer than zstd usually is, so zstd is tried. */
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, 2000 * MS);
	assert_true(choose(&p, 2000 * MS + 2 * COMPRESS_POLICY_VALID_NS, why));
}

static void test_cheaper_mode_wins(void **state)
{
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, 1000 * MS);
	compress_policy__record(&p, true, 90 * MS, 64 * MIB, 2000 * MS);
	assert_true(choose(&p, 2001 * MS, why));
	assert_string_equal(why, "zstd writes faster (uncompressed 2.98 ns a byte, 1 s ago; zstd "
				 "1.34 ns a byte, 0 s ago)");
	/* The disk got quick again: the next uncompressed dump says so. */
	compress_policy__record(&p, false, 40 * MS, 64 * MIB, 3000 * MS);
	assert_false(choose(&p, 3001 * MS, why));
	/* zstd measured dearer than uncompressed: stays off. */
	compress_policy__record(&p, true, 150 * MS, 64 * MIB, 4000 * MS);
	compress_policy__record(&p, false, 100 * MS, 64 * MIB, 4100 * MS);
	assert_false(choose(&p, 4101 * MS, why));
}

/*
 * Figures within COMPRESS_POLICY_SAME_PCT keep the mode of the last dump: a
 * series of busy dumps whose figures drift by a few percent must not switch
 * at every dump; a mode measured further behind is left at once.
 */
static void test_close_figures_keep_mode(void **state)
{
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	compress_policy__record(&p, false, 100 * MS, 64 * MIB, 1000 * MS);
	compress_policy__record(&p, true, 80 * MS, 64 * MIB, 2000 * MS);
	assert_true(choose(&p, 2001 * MS, why));
	/* zstd 4% behind now: kept, and the reason says why. */
	compress_policy__record(&p, true, 104 * MS, 64 * MIB, 3000 * MS);
	assert_true(choose(&p, 3001 * MS, why));
	assert_string_equal(why, "zstd as before: the two write within 10% (uncompressed 1.49 ns a "
				 "byte, 2 s ago; zstd 1.54 ns a byte, 0 s ago)");
	/* 15% behind: left at the next dump. */
	compress_policy__record(&p, true, 115 * MS, 64 * MIB, 4000 * MS);
	assert_false(choose(&p, 4001 * MS, why));
	assert_non_null(strstr(why, "uncompressed writes faster"));
	/* Now uncompressed drifts 5% behind zstd's figure: kept too. */
	compress_policy__record(&p, false, 120 * MS, 64 * MIB, 5000 * MS);
	assert_false(choose(&p, 5001 * MS, why));
	assert_non_null(strstr(why, "uncompressed as before"));
}

/*
 * Over a long series with noisy figures (each dump of a mode within +-20%
 * of that mode's true cost, the two 5% apart): never the slower mode twice
 * running (slower: its figure more than COMPRESS_POLICY_SAME_PCT behind),
 * and far fewer switches than dumps.
 */
static void test_noisy_series(void **state)
{
	static const uint64_t truth[2] = { 100 * MS, 105 * MS };
	struct compress_policy p = { 0 };
	unsigned int seed = 12345, switches = 0;
	bool prev = false, prev_slower = false;
	uint64_t t = 1000 * MS;
	char why[192];

	(void)state;
	for (int i = 0; i < 1000; i++, t += 1000 * MS) {
		bool z = choose(&p, t, why);
		uint64_t ns;

		if (i > 0 && z == prev && prev_slower)
			fail_msg("dump %d: %s chosen again, measured slower: %s", i,
				 z ? "zstd" : "uncompressed", why);
		switches += i > 0 && z != prev;
		seed = seed * 1103515245u + 12345u;
		ns = truth[z] * (80 + (seed >> 16) % 41) / 100;
		compress_policy__record(&p, z, ns, 64 * MIB, t + 500 * MS);
		prev = z;
		prev_slower = p.mode[!z].measured &&
			      p.mode[z].ps_per_byte * 100 >
				      p.mode[!z].ps_per_byte * (100 + COMPRESS_POLICY_SAME_PCT);
	}
	print_message("%u switches in 1000 dumps\n", switches);
	assert_true(switches < 250);
}

/*
 * Busy CPUs (under 25% idle since the last look): nothing measured, the
 * first dump is uncompressed; zstd's guess grows with the share taken, and
 * a series measures zstd only where that guess could beat uncompressed.
 */
static void test_busy_cpus(void **state)
{
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	compress_policy__look(&p, 0, 0);
	/* One look: nothing to compare with yet. */
	assert_true(choose(&p, 1000 * MS, why));
	compress_policy__look(&p, 1, 30);
	/* 30 ticks: too short a span to say; it goes on from the first look. */
	assert_true(choose(&p, 1000 * MS, why));
	compress_policy__look(&p, 5, 100);
	assert_false(choose(&p, 1000 * MS, why));
	assert_string_equal(why,
			    "nothing measured yet: the CPUs were 95% busy since the last look, "
			    "where zstd's CPU time would wait for them");
	/* A dump right after: too few ticks again, and the CPUs are still said busy. */
	compress_policy__look(&p, 5, 120);
	assert_false(choose(&p, 1000 * MS, why));
	assert_non_null(strstr(why, "95% busy"));
	/* Uncompressed at 3 ns: zstd, 26 ns with the CPUs so busy, is not tried. */
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, 1100 * MS);
	assert_false(choose(&p, 1200 * MS, why));
	assert_string_equal(why,
			    "uncompressed writes 2.98 ns a byte, 0 s ago, less than zstd would "
			    "cost with the CPUs 95% busy (26.00 ns)");
	/*
	 * Starved dumps' figures drift around the guess: one a little over it
	 * keeps the last dump's uncompressed (22.9, then 26.9 ns against 26 ns
	 * made a series switch to zstd and back).
	 */
	compress_policy__record(&p, false, 1807 * MS, 64 * MIB, 1250 * MS);
	assert_false(choose(&p, 1260 * MS, why));
	assert_string_equal(why, "uncompressed as before: it writes 26.92 ns a byte, 0 s ago, "
				 "within 10% of what zstd would cost with the CPUs 95% busy "
				 "(26.00 ns)");
	/* A disk slower than that: zstd is tried. */
	compress_policy__record(&p, false, 2000 * MS, 64 * MIB, 1300 * MS);
	assert_true(choose(&p, 1400 * MS, why));
	assert_non_null(strstr(why, "more than zstd would cost with the CPUs 95% busy (26.00 ns)"));
	/* zstd measured and stale, uncompressed cheaper than the busy guess: not measured again. */
	compress_policy__record(&p, true, 1000 * MS, 64 * MIB, 1500 * MS);
	compress_policy__record(&p, false, 200 * MS, 64 * MIB,
				1600 * MS + COMPRESS_POLICY_VALID_NS);
	assert_false(choose(&p, 1700 * MS + COMPRESS_POLICY_VALID_NS, why));
	assert_non_null(strstr(why, "uncompressed writes faster"));
	/* Idle CPUs again: zstd first, as on a quiet machine. */
	p = (struct compress_policy){ 0 };
	compress_policy__look(&p, 0, 0);
	compress_policy__look(&p, 80, 100);
	assert_true(choose(&p, 1000 * MS, why));
	assert_non_null(strstr(why, "zstd costs CPU time only"));
}

/*
 * The first dump after a quiet spell takes the mode that measured cheaper,
 * however old its figure; the other mode is measured again only in a
 * series of dumps, once its figure is old, and then only once.
 */
static void test_stale_figures(void **state)
{
	const uint64_t valid = COMPRESS_POLICY_VALID_NS;
	struct compress_policy p = { 0 };
	uint64_t t = 1000 * MS;
	char why[192];

	(void)state;
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, t);
	compress_policy__record(&p, true, 90 * MS, 64 * MIB, t + 10 * MS);
	/* An hour later: zstd, the cheaper, with no dump spent on measuring. */
	t += 3600 * 1000 * MS;
	assert_true(choose(&p, t, why));
	assert_non_null(strstr(why, "(uncompressed 2.98 ns a byte, 3600 s ago; zstd 1.34 ns a "
				    "byte, 3599 s ago)"));
	compress_policy__record(&p, true, 95 * MS, 64 * MIB, t + 100 * MS);
	/* The next dump of that series measures uncompressed again... */
	assert_false(choose(&p, t + 1000 * MS, why));
	assert_non_null(strstr(why, "measuring uncompressed again: its figure is over 5 minutes "
				    "old, and dumps come in a series"));
	compress_policy__record(&p, false, 180 * MS, 64 * MIB, t + 1200 * MS);
	/* ...once: then the figures, both current, decide. */
	assert_true(choose(&p, t + 2000 * MS, why));
	assert_non_null(strstr(why, "zstd writes faster (uncompressed 2.68 ns a byte, 0 s ago;"));
	/* Uncompressed cheaper: zstd is measured again in a series, after a while. */
	compress_policy__record(&p, false, 40 * MS, 64 * MIB, t + 3000 * MS);
	assert_false(choose(&p, t + 3100 * MS, why));
	compress_policy__record(&p, false, 40 * MS, 64 * MIB, t + valid);
	assert_true(choose(&p, t + valid + 200 * MS, why));
	assert_non_null(strstr(why, "measuring zstd again: its figure is over 5 minutes old"));
	/* A dump long after the series is not part of it: the cheaper mode. */
	assert_false(choose(&p, t + 3 * valid, why));
}

static void test_tiny_dumps_ignored(void **state)
{
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	/* Slow per byte, but 64 KiB says nothing about a full dump. */
	compress_policy__record(&p, false, 50 * MS, 64 * 1024, 1000 * MS);
	assert_true(choose(&p, 1001 * MS, why));
	assert_non_null(strstr(why, "nothing measured yet"));
}

static void test_dump_cost(void **state)
{
	const uint64_t cost[] = { 74 * MS, 40 * MS }, run[] = { 50 * MS, 30 * MS };
	struct compress_policy p = { 0 };
	char why[192];

	(void)state;
	/* A CPU per file: the one synced last held the dump up. */
	assert_int_equal(compress_policy__dump_cost(cost, run, 2, 0, 2), 74 * MS);
	assert_int_equal(compress_policy__dump_cost(cost, run, 2, 1, 8), 40 * MS);
	/* One CPU: they took turns on it, the stage lasted both their runs. */
	assert_int_equal(compress_policy__dump_cost(cost, run, 2, 0, 1), 80 * MS);
	assert_int_equal(compress_policy__dump_cost(cost, run, 2, 1, 1), 80 * MS);
	/* ...but their waits for the disk overlapped: not summed. */
	assert_int_equal(
		compress_policy__dump_cost(cost, (const uint64_t[]){ 20 * MS, 15 * MS }, 2, 0, 1),
		74 * MS);
	/* Unknown CPUs (0) and one file: the slowest alone. */
	assert_int_equal(compress_policy__dump_cost(cost, run, 2, 0, 0), 74 * MS);
	assert_int_equal(compress_policy__dump_cost(cost, run, 1, 0, 1), 74 * MS);
	/* Three files on two CPUs: at least half their summed runs. */
	assert_int_equal(compress_policy__dump_cost((const uint64_t[]){ 10 * MS, 50 * MS, 60 * MS },
						    (const uint64_t[]){ 10 * MS, 50 * MS, 60 * MS },
						    3, 0, 2),
			 60 * MS);
	/*
	 * The quiet benchmark's case, two files on one CPU, 64 MiB of records.
	 * Uncompressed, each file ran about 30 ms and both waited for the
	 * disk together; zstd, each ran about 70. Summing their waits made
	 * the two read alike, where the zstd dump took far longer.
	 */
	compress_policy__record(&p, false,
				compress_policy__dump_cost((const uint64_t[]){ 80 * MS, 75 * MS },
							   (const uint64_t[]){ 35 * MS, 30 * MS },
							   2, 0, 1),
				64 * MIB, 1000 * MS);
	/* 1192 ps: under what zstd usually costs, so no zstd outside a series. */
	assert_false(compress_policy__choose(&p, 1000 * MS + 2 * COMPRESS_POLICY_VALID_NS, 2, 1,
					     why, sizeof(why)));
	assert_non_null(strstr(why, "less than zstd usually costs (2.60 ns)"));
	compress_policy__record(&p, true,
				compress_policy__dump_cost((const uint64_t[]){ 140 * MS, 135 * MS },
							   (const uint64_t[]){ 75 * MS, 70 * MS },
							   2, 1, 1),
				64 * MIB, 2000 * MS);
	assert_false(compress_policy__choose(&p, 2001 * MS, 2, 1, why, sizeof(why)));
	assert_non_null(strstr(
		why, "(uncompressed 1.19 ns a byte, 1 s ago; zstd 2.16 ns a byte, 0 s ago)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_dump_zstd),
		cmocka_unit_test(test_first_dump_fewer_cpus),
		cmocka_unit_test(test_dear_writing_tries_zstd),
		cmocka_unit_test(test_cheaper_mode_wins),
		cmocka_unit_test(test_stale_figures),
		cmocka_unit_test(test_tiny_dumps_ignored),
		cmocka_unit_test(test_dump_cost),
		cmocka_unit_test(test_close_figures_keep_mode),
		cmocka_unit_test(test_noisy_series),
		cmocka_unit_test(test_busy_cpus),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
