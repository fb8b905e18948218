// SPDX-License-Identifier: GPL-2.0-only
/*
 * paired_bpf: loads the embedded skeleton, fills its read-only data from
 * the trigger's spec, attaches it to the two tracepoints and reads its
 * outlier ring from the loop. See paired_bpf.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <event2/event.h>
#include <linux/perf_event.h>
#include <perf/cpumap.h>

#include "config.h"
#include "log.h"
#include "paired_bpf.h"
#include "paired_prog.skel.h"
#include "text.h"

#define VERIFIER_LOG_SIZE (64u << 10)
#define WHY_LINES	  3

struct paired_bpf {
	struct paired_prog *skel;
	struct bpf_link *links[2];
	struct ring_buffer *rb;
	struct event *rb_ev;
	paired_outlier_fn fn;
	void *arg;
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char line[512];

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_debug("libbpf: %s", line);
	return 0;
}

static void to_field(const struct trigger_field *f, struct paired_field *out)
{
	memset(out, 0, sizeof(*out));
	/* The kernel puts the regs pointer over the record's first 8 bytes. */
	out->offset = f->offset < 8 ? PAIRED_FIELD_PID : f->offset;
	out->size = f->size;
	out->is_signed = f->is_signed;
	out->kind = (__u32)f->kind;
}

_Static_assert((int)TRIGGER_FIELD_INT == (int)PAIRED_FIELD_INT &&
		       (int)TRIGGER_FIELD_CHARS == (int)PAIRED_FIELD_CHARS &&
		       (int)TRIGGER_FIELD_DYNAMIC == (int)PAIRED_FIELD_DYNAMIC,
	       "one field kind encoding");

/* Whether the program can evaluate this side; else why not, into @why. */
static bool side_fits(const struct trigger_spec *sp, const struct trigger_side *s, char *why,
		      size_t size)
{
	const char *name = s == &sp->start ? "start" : "end";

	if (s->key.offset < 8 && strcmp(s->key.name, "common_pid")) {
		snprintf(why, size,
			 "the %s key %s lies in the record's first 8 bytes, which BPF programs "
			 "do not see",
			 name, s->key.name);
		return false;
	}
	if (s->nr_terms < 0) {
		snprintf(why, size,
			 "%s_filter '%s' is more than the BPF program evaluates: at most %d "
			 "terms, FIELD OP NUMBER or a string FIELD ==, != or ~ a string of "
			 "at most %d bytes ('*' only at its ends), combined by &&, || and ! "
			 "with parentheses",
			 name, s->filter, PAIRED_TERMS_MAX, PAIRED_STR_MAX);
		return false;
	}
	return true;
}

/* config_filter's program runs in the kernel as it is. */
_Static_assert(TRIGGER_TERMS_MAX == PAIRED_TERMS_MAX && TRIGGER_PROG_MAX == PAIRED_PROG_MAX,
	       "one filter program size");
_Static_assert((int)TRIGGER_PROG_AND == (int)PAIRED_PROG_AND &&
		       (int)TRIGGER_PROG_OR == (int)PAIRED_PROG_OR &&
		       (int)TRIGGER_PROG_NOT == (int)PAIRED_PROG_NOT,
	       "one filter program encoding");
_Static_assert((int)TRIGGER_OP_EQ == (int)PAIRED_EQ && (int)TRIGGER_OP_AND == (int)PAIRED_AND &&
		       (int)TRIGGER_OP_PREFIX == (int)PAIRED_PREFIX &&
		       (int)TRIGGER_OP_SUBSTR == (int)PAIRED_SUBSTR,
	       "one term encoding");
_Static_assert(TRIGGER_STR_MAX == PAIRED_STR_MAX && TRIGGER_STR_READ == PAIRED_STR_READ,
	       "one string size");

static void to_side(const struct trigger_side *s, struct paired_side *out)
{
	memset(out, 0, sizeof(*out));
	to_field(&s->key, &out->key);
	out->nr_terms = (__u32)(s->nr_terms > 0 ? s->nr_terms : 0);
	for (int i = 0; i < s->nr_terms; i++) {
		to_field(&s->terms[i].field, &out->terms[i].field);
		out->terms[i].op = (__u32)s->terms[i].op;
		out->terms[i].value = s->terms[i].value;
		out->terms[i].str_len = (__u32)strlen(s->terms[i].str);
		memcpy(out->terms[i].str, s->terms[i].str, out->terms[i].str_len);
	}
	out->nr_prog = (__u32)(s->nr_terms > 0 ? s->nr_prog : 0);
	for (int i = 0; i < (int)out->nr_prog; i++)
		out->prog[i] = s->prog[i];
}

static int on_outlier(void *ctx, void *data, size_t size)
{
	struct paired_bpf *pb = ctx;

	if (size >= sizeof(struct paired_outlier))
		pb->fn(pb->arg, data);
	return 0;
}

static void on_ring(evutil_socket_t fd, short what, void *arg)
{
	struct paired_bpf *pb = arg;

	(void)fd;
	(void)what;
	ring_buffer__consume(pb->rb);
}

/* One perf event on the tracepoint to hang the program on; it never samples. */
static int attach(struct bpf_program *prog, const struct event_spec *ev, int cpu,
		  struct bpf_link **ret)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = ev->attr.config,
		.sample_period = 1ull << 62,
		.disabled = 1,
	};
	struct bpf_link *link;
	int fd, r;

	fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	link = bpf_program__attach_perf_event(prog, fd);
	r = libbpf_get_error(link);
	if (r) {
		close(fd);
		return r;
	}
	*ret = link;
	return 0;
}

static int first_online_cpu(void)
{
	struct perf_cpu_map *m = perf_cpu_map__new_online_cpus();
	int cpu = m ? perf_cpu_map__cpu(m, 0).cpu : 0;

	perf_cpu_map__put(m);
	return cpu < 0 ? 0 : cpu;
}

int paired_bpf__new(const struct trigger_spec *sp, struct event_base *base, paired_outlier_fn fn,
		    void *arg, char *why, size_t why_size, struct paired_bpf **ret)
{
	char *log = NULL;
	struct paired_bpf *pb;
	int r, cpu;

	if (!side_fits(sp, &sp->start, why, why_size) || !side_fits(sp, &sp->end, why, why_size))
		return -EOPNOTSUPP;
	pb = calloc(1, sizeof(*pb));
	log = calloc(1, VERIFIER_LOG_SIZE);
	if (!pb || !log) {
		free(pb);
		free(log);
		return -ENOMEM;
	}
	pb->fn = fn;
	pb->arg = arg;
	libbpf_set_print(libbpf_print);
	{
		/*
		 * Level 0: libbpf asks for the verifier's log only when a load
		 * fails, and loads again; a log asked for always can fill its
		 * buffer, and a full log fails a load the verifier accepted.
		 */
		LIBBPF_OPTS(bpf_object_open_opts, opts, .kernel_log_buf = log,
			    .kernel_log_size = VERIFIER_LOG_SIZE, .kernel_log_level = 0);

		pb->skel = paired_prog__open_opts(&opts);
	}
	if (!pb->skel) {
		r = -errno;
		snprintf(why, why_size, "cannot open the BPF object: %s", strerror(-r));
		goto fail;
	}
	to_side(&sp->start, (struct paired_side *)&pb->skel->rodata->start_side);
	to_side(&sp->end, (struct paired_side *)&pb->skel->rodata->end_side);
	pb->skel->rodata->threshold_ns = sp->threshold_ns;
	r = paired_prog__load(pb->skel);
	if (r) {
		if ((r == -EACCES || r == -EINVAL || r == -ENOSPC) && log[0]) {
			/*
			 * Its last lines say which instruction it refused and
			 * why; the count of instructions processed after them
			 * says nothing to the operator.
			 */
			char *stats = strstr(log, "\nprocessed ");

			if (stats)
				*stats = '\0';
			text__last_lines(log, WHY_LINES, why, why_size);
			r = -EINVAL;
		} else {
			snprintf(why, why_size, "the kernel refused to load it: %s%s", strerror(-r),
				 r == -EPERM ? " (needs CAP_BPF and CAP_PERFMON)" : "");
			if (r == -EINVAL)
				r = -EOPNOTSUPP;
		}
		goto fail;
	}
	cpu = first_online_cpu();
	r = attach(pb->skel->progs.on_start, &sp->start.event, cpu, &pb->links[0]);
	if (r == 0)
		r = attach(pb->skel->progs.on_end, &sp->end.event, cpu, &pb->links[1]);
	if (r < 0) {
		snprintf(why, why_size, "cannot attach it to %s and %s: %s", sp->start.event.name,
			 sp->end.event.name, strerror(-r));
		r = r == -EINVAL ? -EOPNOTSUPP : r;
		goto fail;
	}
	pb->rb = ring_buffer__new(bpf_map__fd(pb->skel->maps.outliers), on_outlier, pb, NULL);
	if (!pb->rb) {
		r = -errno;
		snprintf(why, why_size, "cannot map its ring: %s", strerror(-r));
		goto fail;
	}
	pb->rb_ev = event_new(base, ring_buffer__epoll_fd(pb->rb), EV_READ | EV_PERSIST, on_ring,
			      pb);
	if (!pb->rb_ev || event_add(pb->rb_ev, NULL) < 0) {
		r = -ENOMEM;
		snprintf(why, why_size, "out of memory");
		goto fail;
	}
	free(log);
	*ret = pb;
	return 0;
fail:
	free(log);
	paired_bpf__delete(pb);
	return r;
}

void paired_bpf__delete(struct paired_bpf *pb)
{
	if (!pb)
		return;
	if (pb->rb_ev)
		event_free(pb->rb_ev);
	ring_buffer__free(pb->rb);
	bpf_link__destroy(pb->links[0]);
	bpf_link__destroy(pb->links[1]);
	paired_prog__destroy(pb->skel);
	free(pb);
}

int paired_bpf__stats(struct paired_bpf *pb, struct paired_stats *ret)
{
	int nr = libbpf_num_possible_cpus();
	struct paired_stats *per;
	__u32 zero = 0;
	int r;

	if (nr <= 0)
		return nr ? nr : -EINVAL;
	per = calloc((size_t)nr, sizeof(*per));
	if (!per)
		return -ENOMEM;
	r = bpf_map__lookup_elem(pb->skel->maps.stats, &zero, sizeof(zero), per,
				 (size_t)nr * sizeof(*per), 0);
	memset(ret, 0, sizeof(*ret));
	for (int c = 0; r == 0 && c < nr; c++) {
		ret->pairs += per[c].pairs;
		ret->outliers += per[c].outliers;
		if (per[c].max_ns > ret->max_ns)
			ret->max_ns = per[c].max_ns;
		for (int b = 0; b < PAIRED_BUCKETS; b++)
			ret->hist[b] += per[c].hist[b];
	}
	free(per);
	return r;
}
