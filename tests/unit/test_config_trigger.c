// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for [trigger NAME] sections: every key read into its
 * trigger_spec, defaults, --check-config output that loads back, and each
 * error at its line, including those only the kernel can judge (a filter,
 * a PSI threshold). Runs as root with tracefs mounted, like test_config.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "test_dir.h"

static char tmpdir[] = "/tmp/test_config_trigger.XXXXXX";

/* The first 6 lines of every file: triggers start at line 7. */
#define HEAD \
	"[capture]\nevents = sched:sched_switch\n[snapshot]\ndirectory = %s\n[control]\nsocket = %s/s.sock\n"

static char *conf_path(void)
{
	char *path;

	assert_true(asprintf(&path, "%s/t.conf", tmpdir) > 0);
	return path;
}

/* Writes HEAD and @body; returns config__load()'s result. */
static int load(const char *body, const struct perfsnapd_config **cfg, struct config_diags *d)
{
	char *path = conf_path();
	FILE *f = fopen(path, "w");
	int r;

	assert_non_null(f);
	fprintf(f, HEAD, tmpdir, tmpdir);
	fputs(body, f);
	assert_int_equal(fclose(f), 0);
	*cfg = NULL;
	r = config__load(path, NULL, cfg, d);
	free(path);
	return r;
}

static void test_all_keys(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	const struct trigger_spec *t;

	(void)state;
	assert_int_equal(load("[trigger segv]\n"
			      "event = signal:signal_generate\n"
			      "filter = sig == 11 || sig == 6   ; a comment\n"
			      "after = 100ms\nbefore = 2s\ncount = 3\nwindow = 2s\n"
			      "max_per_hour = 6\nmin_interval = 10s\n"
			      "[trigger mem]\npsi = memory full 150ms 2s\n"
			      "[trigger  by-hand]\n",
			      &cfg, &d),
			 0);
	assert_int_equal(cfg->nr_triggers, 3);
	t = config__trigger(cfg, "segv");
	assert_non_null(t);
	assert_int_equal(t->line, 7);
	assert_int_equal(t->kind, TRIGGER_KIND_EVENT);
	assert_string_equal(t->event.name, "signal:signal_generate");
	assert_int_equal(t->event.attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(t->event.attr.write_backward, 0);
	assert_false(t->event.overwrite);
	assert_true(t->event.attr.sample_type & PERF_SAMPLE_RAW);
	assert_int_equal(t->event.attr.sample_period, 1);
	assert_string_equal(t->filter, "sig == 11 || sig == 6");
	assert_int_equal(t->filter_line, 9);
	assert_int_equal(t->after_ms, 100);
	assert_int_equal(t->before_ms, 2000);
	assert_int_equal(t->count, 3);
	assert_int_equal(t->window_ms, 2000);
	assert_int_equal(t->max_per_hour, 6);
	assert_int_equal(t->min_interval_ms, 10000);

	t = config__trigger(cfg, "mem");
	assert_int_equal(t->kind, TRIGGER_KIND_PSI);
	assert_string_equal(t->psi_resource, "memory");
	assert_true(t->psi_full);
	assert_int_equal(t->psi_stall_us, 150000);
	assert_int_equal(t->psi_window_us, 2000000);
	assert_string_equal(t->psi_file, "/proc/pressure/memory");
	assert_string_equal(config__trigger_kind_name(t->kind), "psi");

	/* Defaults, and blanks around the header's words. */
	t = config__trigger(cfg, "by-hand");
	assert_non_null(t);
	assert_int_equal(t->kind, TRIGGER_KIND_MANUAL);
	assert_int_equal(t->count, 1);
	assert_int_equal(t->window_ms, 1000);
	assert_int_equal(t->after_ms, 0);
	assert_int_equal(t->before_ms, 0);
	assert_int_equal(t->max_per_hour, 0);
	assert_null(config__trigger(cfg, "nope"));
	config__put(cfg);
}

/* A paired trigger: both sides, the key fields from the formats, the filter's terms. */
static void test_paired_keys(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	const struct trigger_spec *t;
	bool waking = false, enter = false;

	(void)state;
	assert_int_equal(
		load("[trigger w]\nstart = sched:sched_waking\nstart_key = pid\n"
		     "end = sched:sched_switch\nend_key = next_pid\nthreshold = 2ms\n"
		     "count = 20\nwindow = 60s\n"
		     "[trigger r]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
		     "key = common_pid\nstart_filter = id == 0 && args > 0x10\n"
		     "end_filter = ret >= 0 || ret == -4\nthreshold = 500us\n",
		     &cfg, &d),
		0);
	t = config__trigger(cfg, "w");
	assert_int_equal(t->kind, TRIGGER_KIND_PAIRED);
	assert_string_equal(t->start.event.name, "sched:sched_waking");
	assert_string_equal(t->end.event.name, "sched:sched_switch");
	assert_string_equal(t->start.key.name, "pid");
	assert_int_equal(t->start.key.size, 4);
	assert_true(t->start.key.is_signed);
	assert_string_equal(t->end.key.name, "next_pid");
	assert_true(t->end.key.offset >= 8);
	assert_int_equal(t->threshold_ns, 2000000);
	assert_int_equal(t->count, 20);
	assert_int_equal(t->window_ms, 60000);
	assert_int_equal(t->start.nr_terms, 0);
	t = config__trigger(cfg, "r");
	assert_int_equal(t->kind, TRIGGER_KIND_PAIRED);
	assert_string_equal(t->start.key.name, "common_pid");
	assert_int_equal(t->start.key.offset, 4);
	assert_string_equal(t->end.key.name, "common_pid");
	assert_int_equal(t->threshold_ns, 500000);
	/* "args > 0x10": args is an array, not a term the BPF program runs. */
	assert_int_equal(t->start.nr_terms, -1);
	/* || runs in the program too (config_filter.c). */
	assert_int_equal(t->end.nr_terms, 2);
	assert_int_equal(t->end.nr_prog, 3);
	assert_int_equal(t->end.prog[2], TRIGGER_PROG_OR);
	/* The two sides are recorded, so that the pair that fires is in the snapshot. */
	for (size_t i = 0; i < cfg->nr_events; i++) {
		waking |= !strcmp(cfg->events[i].name, "sched:sched_waking") &&
			  cfg->events[i].overwrite;
		enter |= !strcmp(cfg->events[i].name, "raw_syscalls:sys_enter");
	}
	assert_true(waking);
	assert_true(enter);
	config__put(cfg);
	assert_int_equal(
		load("[trigger r]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
		     "key = common_pid\nstart_filter = id == 0 && common_pid != -0x2\n"
		     "end_filter = ret<0\nthreshold = 50ms\n",
		     &cfg, &d),
		0);
	t = config__trigger(cfg, "r");
	assert_int_equal(t->start.nr_terms, 2);
	assert_int_equal(t->start.terms[0].op, TRIGGER_OP_EQ);
	assert_int_equal(t->start.terms[0].value, 0);
	assert_int_equal(t->start.terms[0].field.size, 8);
	assert_int_equal(t->start.terms[1].op, TRIGGER_OP_NE);
	assert_int_equal(t->start.terms[1].value, -2);
	assert_int_equal(t->start.terms[1].field.offset, 4);
	assert_int_equal(t->end.nr_terms, 1);
	assert_int_equal(t->end.terms[0].op, TRIGGER_OP_LT);
	config__put(cfg);
}

/* --check-config prints triggers so that they load back the same. */
static void test_print_round_trip(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg, *again;
	char *text = NULL, *path, *body;
	size_t size = 0;
	FILE *out;

	(void)state;
	assert_int_equal(
		load("[trigger a]\nevent = signal:signal_generate\nfilter = sig == 9\n"
		     "count = 2\nwindow = 500ms\nafter = 1s\nbefore = 1500ms\n"
		     "[trigger b]\npsi = io some 100ms 2s\nmax_per_hour = 2\n[trigger c]\n"
		     "[trigger d]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
		     "key = common_pid\nstart_filter = id == 0\nthreshold = 1500us\n",
		     &cfg, &d),
		0);
	out = open_memstream(&text, &size);
	config__print(cfg, out);
	fclose(out);
	path = conf_path();
	out = fopen(path, "w");
	fputs(text, out);
	fclose(out);
	assert_int_equal(config__load(path, NULL, &again, &d), 0);
	assert_int_equal(again->nr_triggers, 4);
	assert_int_equal(again->triggers[3].threshold_ns, 1500000);
	assert_string_equal(again->triggers[3].start.filter, "id == 0");
	assert_string_equal(again->triggers[3].end.key.name, "common_pid");
	for (size_t i = 0; i < 4; i++) {
		const struct trigger_spec *x = &cfg->triggers[i], *y = &again->triggers[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->kind, y->kind);
		assert_int_equal(x->count, y->count);
		assert_int_equal(x->window_ms, y->window_ms);
		assert_int_equal(x->after_ms, y->after_ms);
		assert_int_equal(x->before_ms, y->before_ms);
		assert_int_equal(x->max_per_hour, y->max_per_hour);
		assert_int_equal(x->psi_stall_us, y->psi_stall_us);
		assert_true(!x->filter || !strcmp(x->filter, y->filter));
		assert_true(!x->psi_file || !strcmp(x->psi_file, y->psi_file));
	}
	body = strstr(text, "[trigger a]");
	assert_non_null(body);
	assert_non_null(strstr(body, "filter = sig == 9\n"));
	free(text);
	free(path);
	config__put(cfg);
	config__put(again);
}

/*
 * A trigger config refused, with a diagnostic at @line holding @problem
 * and @fix; only where @needs is writable when set.
 */
struct bad_trigger {
	const char *name; /* of the row, in cmocka's output and failures */
	const char *body; /* after HEAD: triggers start at line 7 */
	int line;
	const char *problem, *fix;
	const char *needs;
};

static const struct bad_trigger bad_triggers[] = {
	{ "unknown key", "[trigger x]\nfoo = 1\n", 8, "[trigger x] foo: unknown key",
	  "accepted in [trigger NAME]: event, filter, before, after, count, window, max_per_hour, "
	  "min_interval, psi, psi_file",
	  NULL },
	{ "key set again", "[trigger x]\nafter = 1s\nafter = 2s\n", 9,
	  "set again (first on line 8)", "accepted: once per trigger", NULL },
	{ "section set again", "[trigger x]\n[trigger x]\n", 8,
	  "[trigger x]: set again (first on line 7)", "accepted: one section per trigger name",
	  NULL },
	{ "no name", "[trigger]\n", 7, "no trigger name", "accepted: letters, digits", NULL },
	{ "bad name", "[trigger a/b]\n", 7, "bad trigger name 'a/b'", "accepted: letters, digits",
	  NULL },
	{ "no such event", "[trigger x]\nevent = nosuch:event\n", 8, "not found",
	  "see `perf list tracepoint`", NULL },
	{ "not a tracefs event", "[trigger x]\nevent = cpu-clock\n", 8, "is not a tracefs event",
	  "accepted: one tracefs event", NULL },
	{ "event glob", "[trigger x]\nevent = signal:*\n", 8, "matches more than one event",
	  "accepted: one tracefs event", NULL },
	{ "event terms", "[trigger x]\nevent = signal:signal_generate/period=2/\n", 8,
	  "event: 'signal:signal_generate/period=2/'", "without terms", NULL },
	{ "filter without event", "[trigger x]\nfilter = sig == 11\n", 8, "filter: without event",
	  "accepted: filter with an event key", NULL },
	{ "psi with event", "[trigger x]\nevent = signal:signal_generate\npsi = cpu some 1s 2s\n",
	  9, "psi: given with event (line 8)", "accepted: event or psi", NULL },
	{ "count without event", "[trigger x]\ncount = 2\n", 8, "count: without event",
	  "accepted: count with an event key", NULL },
	{ "psi incomplete", "[trigger x]\npsi = memory some\n", 8, "psi: bad value",
	  "accepted: RESOURCE some|full STALL WINDOW", NULL },
	{ "psi resource", "[trigger x]\npsi = disk some 1s 2s\n", 8, "unknown resource 'disk'",
	  "accepted: cpu, memory, io, irq", NULL },
	{ "psi some or full", "[trigger x]\npsi = memory most 1s 2s\n", 8,
	  "'most': accepted: some or full", "(as in /proc/pressure/memory)", NULL },
	{ "psi durations", "[trigger x]\npsi = memory some 1x 2s\n", 8, "bad stall or window",
	  "accepted: durations in ms or s", NULL },
	{ "psi_file relative", "[trigger x]\npsi_file = rel/memory.pressure\n", 8,
	  "not an absolute path", "accepted: a pressure file", NULL },
	{ "psi_file without psi", "[trigger x]\npsi_file = /proc/pressure/memory\n", 8,
	  "psi_file: without psi", "accepted: psi_file with a psi key", NULL },
	{ "after out of range", "[trigger x]\nafter = 2m\n", 8, "after: duration '2m' out of range",
	  "accepted: 0 to 1m", NULL },
	{ "before out of range", "[trigger x]\nbefore = 2h\n", 8,
	  "before: duration '2h' out of range", "accepted: 0 (all the rings hold) or 1ms to 1h",
	  NULL },
	{ "before negative", "[trigger x]\nbefore = -2s\n", 8, "before: duration '-2s' is bad",
	  "e.g. 2s", NULL },
	{ "count out of range", "[trigger x]\ncount = 0\n", 8, "count: number '0' out of range",
	  "accepted: a number from 1 to 1000000", NULL },
	{ "max_per_hour bad", "[trigger x]\nmax_per_hour = lots\n", 8,
	  "max_per_hour: number 'lots' is bad", "accepted: 0 (unlimited)", NULL },
	{ "filter syntax",
	  "[trigger x]\nevent = signal:signal_generate\nfilter = sig = = 1\n"
	  "[trigger y]\nevent = signal:signal_generate\nfilter = nosuch == 1\n",
	  9, "the kernel refused 'sig = = 1'", "sig, errno, code", NULL },
	{ "filter field", "[trigger x]\nevent = signal:signal_generate\nfilter = nosuch == 1\n", 9,
	  "[trigger x] filter: the kernel refused 'nosuch == 1' for signal:signal_generate",
	  "accepted: the kernel's event filter syntax", NULL },
	/* A stall longer than the window: every kernel refuses it. */
	{ "psi refused by the kernel", "[trigger x]\npsi = memory some 3s 2s\n", 8,
	  "psi: the kernel refused 'memory some 3s 2s'", "500ms to 10s", "/proc/pressure/memory" },
	{ "psi_file missing",
	  "[trigger x]\npsi = memory some 1s 2s\npsi_file = /nonexistent/memory.pressure\n", 9,
	  "psi_file: cannot open /nonexistent/memory.pressure", "accepted: /proc/pressure/memory",
	  NULL },
	{ "paired unknown key", "[trigger x]\nstart = sched:sched_waking\nstart_keyy = pid\n", 9,
	  "[trigger x] start_keyy: unknown key", "start, end, key, start_key, end_key", NULL },
	{ "paired end missing",
	  "[trigger x]\nstart = sched:sched_waking\nkey = pid\nthreshold = 2ms\n", 8,
	  "start without end", "accepted: both start and end events", NULL },
	{ "paired start missing",
	  "[trigger x]\nend = sched:sched_switch\nend_key = next_pid\nthreshold = 2ms\n", 8,
	  "end without start", "accepted: both start and end events", NULL },
	{ "paired key not integer",
	  "[trigger x]\nstart = sched:sched_waking\nstart_key = comm\nend = sched:sched_switch\n"
	  "end_key = next_pid\nthreshold = 2ms\n",
	  9, "start key: 'comm' is not an integer field of sched:sched_waking",
	  "accepted: an integer field of it (pid, prio", NULL },
	{ "paired key no field",
	  "[trigger x]\nstart = sched:sched_waking\nstart_key = pid\nend = sched:sched_switch\n"
	  "end_key = nope\nthreshold = 2ms\n",
	  11, "end key: 'nope' is not a field of sched:sched_switch", "next_pid", NULL },
	{ "paired no key",
	  "[trigger x]\nstart = sched:sched_waking\nend = sched:sched_switch\nthreshold = 2ms\n", 7,
	  "no key", "accepted: key (both sides), or start_key and end_key", NULL },
	{ "paired key and start_key",
	  "[trigger x]\nstart = sched:sched_waking\nkey = pid\nstart_key = pid\n"
	  "end = sched:sched_switch\nthreshold = 2ms\n",
	  10, "start_key: given with key (line 9)", "accepted: key for both sides", NULL },
	{ "paired threshold 0",
	  "[trigger x]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
	  "key = common_pid\nthreshold = 0ms\n",
	  11, "threshold: '0ms' is 0", "accepted: a duration over 0", NULL },
	{ "paired threshold negative",
	  "[trigger x]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
	  "key = common_pid\nthreshold = -5ms\n",
	  11, "threshold: '-5ms' is negative", "accepted: a duration over 0", NULL },
	{ "paired threshold unit",
	  "[trigger x]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
	  "key = common_pid\nthreshold = 5\n",
	  11, "threshold: '5' is bad", "with unit ns, us, ms or s", NULL },
	{ "paired no threshold",
	  "[trigger x]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
	  "key = common_pid\n",
	  7, "[trigger x] no threshold", "accepted: a duration over 0", NULL },
	{ "paired filter refused",
	  "[trigger x]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n"
	  "key = common_pid\nstart_filter = id === 0\nthreshold = 5ms\n",
	  11, "start_filter: the kernel refused 'id === 0' for raw_syscalls:sys_enter",
	  "accepted: the kernel's event filter syntax", NULL },
	{ "paired with event",
	  "[trigger x]\nevent = signal:signal_generate\nstart = raw_syscalls:sys_enter\n"
	  "end = raw_syscalls:sys_exit\nkey = common_pid\nthreshold = 5ms\n",
	  8, "event: given with the paired keys (line 9)", "one kind per trigger", NULL },
	{ "paired start glob", "[trigger x]\nstart = sched:sched_wak*\n", 8,
	  "start: 'sched:sched_wak*'", "without terms or globs", NULL },
};

#define NR_BAD_TRIGGERS (sizeof(bad_triggers) / sizeof(bad_triggers[0]))

/* The row in *@state is refused with its diagnostic at its line. */
static void test_bad_trigger(void **state)
{
	const struct bad_trigger *row = *state;
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	int r;

	if (row->needs && access(row->needs, W_OK)) {
		print_message("%s: skipped, %s is not writable\n", row->name, row->needs);
		return;
	}
	r = load(row->body, &cfg, &d);
	if (r != -EINVAL || cfg) {
		config_diags__print(&d, stderr);
		fail_msg("%s: config__load() returned %d%s, expected -EINVAL", row->name, r,
			 cfg ? " and a config" : "");
	}
	for (size_t i = 0; i < d.nr; i++)
		if (d.items[i].line == row->line && strstr(d.items[i].message, row->problem) &&
		    strstr(d.items[i].message, row->fix)) {
			config_diags__clear(&d);
			return;
		}
	config_diags__print(&d, stderr);
	fail_msg("%s: no diagnostic at line %d holding '%s' and '%s'", row->name, row->line,
		 row->problem, row->fix);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return test_dir__remove(tmpdir);
}

int main(void)
{
	struct CMUnitTest tests[3 + NR_BAD_TRIGGERS] = {
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_print_round_trip),
		cmocka_unit_test(test_paired_keys),
	};

	for (size_t i = 0; i < NR_BAD_TRIGGERS; i++)
		tests[3 + i] = (struct CMUnitTest){
			.name = bad_triggers[i].name,
			.test_func = test_bad_trigger,
			.initial_state = (void *)&bad_triggers[i],
		};
	return cmocka_run_group_tests(tests, setup, teardown);
}
