// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfsnap-convert: turns a perf.data (file or pipe mode, e.g. from perf
 * record or perfsnapd) into a trace.dat that trace-cmd and KernelShark
 * read (its tracepoint samples), into a Perfetto trace for
 * ui.perfetto.dev (everything), which --open serves to the UI, or into a
 * pprof profile (its sampled stacks) for go tool pprof. The
 * output appears only when complete (file_publish): it is written as an
 * unnamed file in its directory, or under a hidden temporary name where
 * the file system lacks O_TMPFILE, and linked into place, never over an
 * existing file without --force, and never through a symbolic link.
 * Exit status: 0 on success, 1 on any error (one line on stderr).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "file_publish.h"
#include "perfdata_convert.h"
#include "trace_server.h"
#include "perfdata_reader.h"
#include "snapshot.h"
#include "snapshot_tracedat.h"
#include "symbol_store.h"
#include "ustar_reader.h"
#include "tracing_data.h"

#define PROG "perfsnap-convert"

#define DEFAULT_ORIGIN "https://ui.perfetto.dev"
/* Progress shows on a terminal once a conversion has taken this long (s). */
#define PROGRESS_AFTER 1.0
#define PROGRESS_EVERY 0.2

struct convert_options {
	const char *output;
	const char *input;
	bool force;
	bool perfetto; /* --to-perfetto */
	bool pprof;    /* --to-pprof; neither: --to-trace-dat */
	bool open;
	const char *origin;
	enum pftrace_compression compression;
	enum perfetto_sample_kind samples;
	uint64_t time_start, time_end;
	const char *symbols; /* --symbols; NULL: the pack beside the input, if any */
};

/* Progress on stderr when it is a terminal. */
struct progress {
	bool tty, shown;
	const char *phase;
	double start, last;
};

/* The hidden temporary output, if there is one: removed if a signal ends the conversion. */
static char tmp_path[PATH_MAX];
static volatile sig_atomic_t tmp_live;

static void usage(FILE *out)
{
	fprintf(out, "usage: " PROG " --to-trace-dat OUT [-i INPUT] [--compression none|zstd]\n"
		     "                        [--time START,END] [--force]\n"
		     "       " PROG " --to-perfetto OUT [-i INPUT] [--compression none|gzip|zstd]\n"
		     "                        [--samples perf_sample|stack_sample]\n"
		     "                        [--open [--origin URL]] [--symbols PACK_OR_DIR]\n"
		     "                        [--time START,END] [--force]\n"
		     "       " PROG " --to-pprof OUT [-i INPUT] [--symbols PACK_OR_DIR]\n"
		     "                        [--time START,END] [--force]\n"
		     "\n"
		     "Converts a perf.data file into a trace.dat for trace-cmd and KernelShark\n"
		     "(its tracepoint samples; others are skipped), or into a Perfetto trace\n"
		     "for ui.perfetto.dev (scheduling, syscalls, tracepoints, sampled stacks),\n"
		     "or into a gzipped pprof profile for go tool pprof (sampled stacks).\n"
		     "\n"
		     "  -o, --to-trace-dat OUT  the trace.dat to write\n"
		     "  -p, --to-perfetto OUT   the Perfetto trace to write (e.g. x.pftrace)\n"
		     "  -P, --to-pprof OUT      the pprof profile to write (e.g. x.pb.gz)\n"
		     "  -c, --compression C     none (default), gzip (Perfetto only) or zstd\n"
		     "                          (a zstd .pftrace opens only in Perfetto v58 on)\n"
		     "      --samples KIND      Perfetto: samples as perf_sample (default; every\n"
		     "                          Perfetto version reads them) or stack_sample\n"
		     "                          (StackSample, read from Perfetto v58 on)\n"
		     "      --open              serve OUT on 127.0.0.1:9001 to the Perfetto UI,\n"
		     "                          print the URL to open, exit once it is fetched\n"
		     "      --origin URL        the UI allowed to fetch it (default\n"
		     "                          " DEFAULT_ORIGIN ")\n"
		     "  -i, --input INPUT       perf.data to read (default perf.data; '-' reads a\n"
		     "                          pipe-mode stream from stdin: perf record -o -)\n"
		     "      --symbols PACK_OR_DIR  Perfetto and pprof: name the stacks' functions\n"
		     "                          from this symbol pack (a <stem>.symbols.tar) or\n"
		     "                          build-id cache directory (the pack extracted,\n"
		     "                          ~/.debug) by build-id, before the files on this\n"
		     "                          machine; default: INPUT's <stem>.symbols.tar\n"
		     "                          beside it, if there is one\n"
		     "      --time START,END    only samples in this range, in seconds as perf\n"
		     "                          script shows them; either side may be empty\n"
		     "  -f, --force             replace OUT if it is a regular file\n"
		     "  -h, --help              this text\n"
		     "\n"
		     "Exit status: 0 on success, 1 on an error.\n");
}

static int __attribute__((format(printf, 1, 2))) error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* "SEC[.FRACTION]" to ns; an empty string is @empty. Returns 0 or -EINVAL. */
static int parse_seconds(const char *s, size_t len, uint64_t empty, uint64_t *ret)
{
	uint64_t sec = 0, ns = 0;
	size_t i = 0, digits = 0;

	if (!len) {
		*ret = empty;
		return 0;
	}
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
		if (sec > (UINT64_MAX / 1000000000 - 9) / 10)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < len && s[i] == '.') {
		uint64_t scale = 100000000;

		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
			if (!scale)
				return -EINVAL; /* finer than a nanosecond */
			ns += (uint64_t)(s[i] - '0') * scale;
			scale /= 10;
		}
	}
	if (i != len || !digits)
		return -EINVAL;
	*ret = sec * 1000000000 + ns;
	return 0;
}

/* --time START,END as perf takes it: seconds, either side may be empty. */
static int parse_time(const char *arg, struct convert_options *o)
{
	const char *comma = strchr(arg, ',');

	if (!comma || strchr(comma + 1, ',') ||
	    parse_seconds(arg, (size_t)(comma - arg), 0, &o->time_start) ||
	    parse_seconds(comma + 1, strlen(comma + 1), UINT64_MAX, &o->time_end))
		return error("bad --time '%s': want START,END in seconds (e.g. 1234.5,1240)", arg);
	if (o->time_end < o->time_start)
		return error("bad --time '%s': END is before START", arg);
	return 0;
}

static int parse_options(int argc, char **argv, struct convert_options *o)
{
	static const struct option options[] = {
		{ "to-trace-dat", required_argument, NULL, 'o' },
		{ "to-perfetto", required_argument, NULL, 'p' },
		{ "to-pprof", required_argument, NULL, 'P' },
		{ "compression", required_argument, NULL, 'c' },
		{ "samples", required_argument, NULL, 'S' },
		{ "open", no_argument, NULL, 'O' },
		{ "origin", required_argument, NULL, 'R' },
		{ "input", required_argument, NULL, 'i' },
		{ "time", required_argument, NULL, 't' },
		{ "symbols", required_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct convert_options){ .input = "perf.data",
				       .time_end = UINT64_MAX,
				       .origin = DEFAULT_ORIGIN };
	opterr = 0; /* one line of our own instead */
	while ((c = getopt_long(argc, argv, ":o:p:P:c:i:fh", options, NULL)) != -1) {
		switch (c) {
		case 'o':
		case 'p':
		case 'P':
			if (o->output)
				return error("give one output: --to-trace-dat, --to-perfetto or "
					     "--to-pprof");
			o->output = optarg;
			o->perfetto = c == 'p';
			o->pprof = c == 'P';
			break;
		case 'c':
			if (!strcmp(optarg, "none"))
				o->compression = PFTRACE_COMPRESS_NONE;
			else if (!strcmp(optarg, "gzip"))
				o->compression = PFTRACE_COMPRESS_GZIP;
			else if (!strcmp(optarg, "zstd"))
				o->compression = PFTRACE_COMPRESS_ZSTD;
			else
				return error("bad --compression '%s': want none, gzip or zstd",
					     optarg);
			break;
		case 'S':
			if (!strcmp(optarg, "perf_sample"))
				o->samples = PERFETTO_SAMPLE_PERF;
			else if (!strcmp(optarg, "stack_sample"))
				o->samples = PERFETTO_SAMPLE_STACK;
			else
				return error("bad --samples '%s': want perf_sample or stack_sample",
					     optarg);
			break;
		case 'O':
			o->open = true;
			break;
		case 'R':
			o->origin = optarg;
			break;
		case 'i':
			o->input = optarg;
			break;
		case 't':
			if (parse_time(optarg, o))
				return 1;
			break;
		case 'f':
			o->force = true;
			break;
		case 's':
			o->symbols = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			return error("option '%s' needs an argument; see --help", argv[optind - 1]);
		default:
			return error("unknown option '%s'; see --help", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return error("unexpected argument '%s'; see --help", argv[optind]);
	if (!o->output || !o->output[0])
		return error(
			"no output: give --to-trace-dat OUT, --to-perfetto OUT or --to-pprof OUT; "
			"see --help");
	if (o->pprof && (o->compression != PFTRACE_COMPRESS_NONE || o->samples))
		return error("--compression and --samples are not for --to-pprof (a pprof profile "
			     "is always gzipped)");
	if (!o->perfetto && o->compression == PFTRACE_COMPRESS_GZIP)
		return error("trace.dat has no gzip compression: use --compression zstd or none");
	if (!o->perfetto && !o->pprof && o->symbols)
		return error("--symbols names sampled stacks: use it with --to-perfetto or "
			     "--to-pprof");
	if (!o->perfetto && o->open)
		return error("--open serves a Perfetto trace: use it with --to-perfetto");
	if (strncmp(o->origin, "http://", 7) && strncmp(o->origin, "https://", 8))
		return error("bad --origin '%s': want http://HOST or https://HOST", o->origin);
	if (o->origin[strlen(o->origin) - 1] == '/')
		return error("bad --origin '%s': no trailing '/' (an origin has no path)",
			     o->origin);
	return 0;
}

/* Refuses a symbolic link or non-file at OUT always, and a file without --force. */
static int check_output(const struct convert_options *o)
{
	struct stat st;

	if (lstat(o->output, &st)) {
		if (errno == ENOENT)
			return 0;
		return error("cannot check '%s': %s", o->output, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return error("'%s' is a symbolic link; not writing through it", o->output);
	if (!S_ISREG(st.st_mode))
		return error("'%s' exists and is not a regular file", o->output);
	if (!o->force)
		return error("'%s' exists; use --force to replace it", o->output);
	return 0;
}

static void on_signal(int sig)
{
	if (tmp_live)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * OUT, unnamed in its directory until published; where O_TMPFILE is
 * missing, a new hidden file beside it (O_EXCL and O_NOFOLLOW: nothing
 * existing is touched). Returns 0 with *ret_set or 1 (said).
 */
static int open_output(const char *output, struct file_publish **ret_set)
{
	char dir_copy[PATH_MAX], base_copy[PATH_MAX], temp[NAME_MAX + 1];
	struct file_publish *set = NULL;
	const char *dir, *base;
	int i, r;

	if (strlen(output) >= sizeof(dir_copy))
		return error("'%s': path too long", output);
	if (output[strlen(output) - 1] == '/')
		return error("'%s' names a directory: give the file to write", output);
	strcpy(dir_copy, output);
	strcpy(base_copy, output);
	dir = dirname(dir_copy);
	base = basename(base_copy);
	r = file_publish__new(dir, &set);
	if (r < 0)
		return error("cannot open the directory of '%s': %s", output, strerror(-r));
	i = -EEXIST;
	for (unsigned int n = 0; i == -EEXIST && n < 100; n++) {
		if ((size_t)snprintf(temp, sizeof(temp), ".%s.%ld.%u.tmp", base, (long)getpid(),
				     n) >= sizeof(temp)) {
			i = -ENAMETOOLONG;
			break;
		}
		i = file_publish__add(set, base, temp, 0644);
	}
	if (i < 0) {
		file_publish__delete(set);
		if (i == -EEXIST)
			return error("cannot create a temporary file beside '%s'", output);
		return error("cannot create '%s': %s", output, strerror(-i));
	}
	if (file_publish__is_named(set, i) &&
	    (size_t)snprintf(tmp_path, sizeof(tmp_path), "%s/%s", dir, temp) < sizeof(tmp_path))
		tmp_live = 1;
	*ret_set = set;
	return 0;
}

/* Drops the output unpublished (its temporary too, if it has one). */
static void discard_output(struct file_publish *set)
{
	tmp_live = 0;
	file_publish__delete(set);
}

/*
 * Gives the finished file its name OUT, which must not exist by then
 * (unless --force): synced, closed, linked, its directory synced.
 */
static int publish(const struct convert_options *o, struct file_publish *set)
{
	struct stat st;
	int err, failed;

	if (o->force && !lstat(o->output, &st)) {
		if (!S_ISREG(st.st_mode)) {
			discard_output(set);
			return error("'%s' is no longer a regular file; not replacing it",
				     o->output);
		}
		if (unlink(o->output) && errno != ENOENT) {
			err = errno;
			discard_output(set);
			return error("cannot remove '%s': %s", o->output, strerror(err));
		}
	}
	/* Neither replaces nor follows anything at OUT. */
	err = file_publish__commit(set, &failed);
	discard_output(set);
	if (err == -EEXIST)
		return error("'%s' appeared while converting; not replacing it", o->output);
	if (err && failed < 0)
		return error("cannot sync the directory of '%s' (it was not kept): %s", o->output,
			     strerror(-err));
	if (err)
		return error("cannot write '%s': %s", o->output, strerror(-err));
	return 0;
}

static int open_input(const char *path, int *ret_fd)
{
	int fd;

	if (!strcmp(path, "-")) {
		*ret_fd = STDIN_FILENO;
		return 0;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return error("cannot open '%s': %s", path, strerror(errno));
	*ret_fd = fd;
	return 0;
}

/* Reads the input into a sealed snapshot. */
static int read_input(const struct convert_options *o, struct snapshot *s,
		      struct perfdata_reader *r)
{
	const char *name = strcmp(o->input, "-") ? o->input : "stdin";
	const struct tracing_data_info *t;
	int err;

	err = perfdata_reader__set_time_range(r, o->time_start, o->time_end);
	if (!err)
		err = perfdata_reader__read(r, s);
	if (err)
		return error("'%s': %s", name,
			     perfdata_reader__error(r)[0] ? perfdata_reader__error(r) :
							    strerror(-err));
	err = snapshot__seal(s);
	if (err)
		return error("'%s': cannot sort the records: %s", name, strerror(-err));
	t = perfdata_reader__tracing_data(r);
	if (o->perfetto || o->pprof)
		return 0; /* samples of any kind; tracepoints need no more than their formats */
	if (!t)
		return error("'%s' has no tracing data: it holds no tracepoint events", name);
	/* Formats come from the input only, never from this machine's tracefs. */
	if (!t->nr_events && !t->nr_ftrace)
		return error("'%s' has tracing data without event formats", name);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "reading 40% (27/67 MiB)", rewritten in place, for conversions that take a while. */
static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double t = now();

	if (!p->tty || t - p->start < PROGRESS_AFTER || t - p->last < PROGRESS_EVERY)
		return;
	p->last = t;
	p->shown = true;
	if (!strcmp(p->phase, "reading") && total)
		fprintf(stderr, "\r" PROG ": reading %3u%% (%" PRIu64 "/%" PRIu64 " MiB)\033[K",
			(unsigned int)(done * 100 / total), done >> 20, total >> 20);
	else if (!strcmp(p->phase, "reading"))
		fprintf(stderr, "\r" PROG ": reading %" PRIu64 " MiB\033[K", done >> 20);
	else
		fprintf(stderr, "\r" PROG ": writing %3u%% (%" PRIu64 "/%" PRIu64 " records)\033[K",
			total ? (unsigned int)(done * 100 / total) : 100, done, total);
}

static void progress_end(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

struct results {
	struct tracedat_result tracedat;
	struct perfetto_result perfetto;
	struct pprof_result pprof;
};

/*
 * The objects' symbols: --symbols, else the pack a snapshot has beside its
 * perf.data ("<stem>.symbols.tar"). Returns 0 (*ret NULL: none) or 1 (said).
 */
static int open_symbols(const struct convert_options *o, struct symbol_store **ret, char *path,
			size_t size)
{
	static const char suffix[] = ".perf.data";
	size_t len = strlen(o->input), slen = sizeof(suffix) - 1;
	int r;

	*ret = NULL;
	if (!o->perfetto && !o->pprof)
		return 0;
	if (o->symbols) {
		snprintf(path, size, "%s", o->symbols);
		r = symbol_store__open(o->symbols, ret);
		if (r == -EINVAL)
			return error("--symbols '%s': neither a directory nor a tar archive (a "
				     "snapshot's <stem>.symbols.tar, or one extracted)",
				     o->symbols);
		if (r == -E2BIG)
			return error("--symbols '%s': an archive of more than %d members",
				     o->symbols, USTAR_READER_MAX_MEMBERS);
		return r < 0 ? error("--symbols '%s': %s", o->symbols, strerror(-r)) : 0;
	}
	if (!strcmp(o->input, "-") || len < slen || strcmp(o->input + len - slen, suffix) ||
	    (size_t)snprintf(path, size, "%.*s.symbols.tar", (int)(len - slen), o->input) >= size)
		return 0;
	r = symbol_store__open(path, ret);
	if (r < 0 && r != -ENOENT)
		fprintf(stderr, PROG ": warning: not using the symbol pack '%s': %s\n", path,
			r == -EINVAL ? "not a tar archive, or a damaged one" : strerror(-r));
	return 0;
}

static int write_output(const struct convert_options *o, const struct snapshot *s,
			const struct perfdata_reader *r, const struct symbols_source *symbols,
			struct progress *p, struct results *res)
{
	struct perfdata_convert_opts opts = {
		.compression = o->compression,
		.samples = o->samples,
		.symbols = symbols,
		.progress = on_progress,
		.progress_ctx = p,
	};
	struct file_publish *set = NULL;
	int fd, err;

	if (open_output(o->output, &set))
		return 1;
	fd = file_publish__fd(set, 0);
	p->phase = "writing";
	if (o->perfetto)
		err = perfdata_convert__write_perfetto(s, r, fd, &opts, &res->perfetto);
	else if (o->pprof)
		err = perfdata_convert__write_pprof(s, r, fd, &opts, &res->pprof);
	else
		err = perfdata_convert__write_tracedat(s, r, fd, &opts, &res->tracedat);
	progress_end(p);
	if (err) {
		discard_output(set);
		/* The writer refuses only what it is given: the input's data. */
		if (err == -EINVAL || err == -EPROTO)
			return error("'%s': its tracing data cannot be written as trace.dat: %s",
				     strcmp(o->input, "-") ? o->input : "stdin", strerror(-err));
		return error("cannot write '%s': %s", o->output, strerror(-err));
	}
	/*
	 * An empty profile is no answer to asking for one: a snapshot of
	 * tracepoints alone has nothing to profile unless they carry stacks.
	 */
	if (o->pprof && !res->pprof.nr_samples) {
		discard_output(set);
		return error("'%s': no samples: it has no sampling event (such as cpu-clock or "
			     "cycles) and no tracepoint with a callchain (call-graph=fp)",
			     strcmp(o->input, "-") ? o->input : "stdin");
	}
	return publish(o, set);
}

static int convert(const struct convert_options *o, int in_fd)
{
	struct progress prog = { .tty = isatty(STDERR_FILENO), .phase = "reading" };
	struct results res = { 0 };
	const char *in_name = strcmp(o->input, "-") ? o->input : "stdin";
	const struct perfdata_reader_stats *st;
	char dir_copy[PATH_MAX], sym_path[PATH_MAX];
	struct perfdata_reader *r = NULL;
	struct snapshot *s = snapshot__new();
	struct symbol_store *syms = NULL;
	struct symbols_source src;
	int err;

	snprintf(dir_copy, sizeof(dir_copy), "%s", o->output);
	r = perfdata_reader__new(in_fd);
	if (!s || !r) {
		err = error("out of memory");
		goto out;
	}
	/* Records wait in an unlinked file beside the output, not in memory. */
	err = snapshot__open_spill(s, dirname(dir_copy));
	if (err) {
		err = error("cannot write in the directory of '%s': %s", o->output, strerror(-err));
		goto out;
	}
	err = open_symbols(o, &syms, sym_path, sizeof(sym_path));
	if (err)
		goto out;
	if (syms)
		symbol_store__source(syms, &src);
	prog.start = now();
	perfdata_reader__set_progress(r, on_progress, &prog);
	err = read_input(o, s, r);
	progress_end(&prog);
	if (!err)
		err = write_output(o, s, r, syms ? &src : NULL, &prog, &res);
	if (err)
		goto out;
	st = perfdata_reader__stats(r);
	if (syms)
		printf(PROG ": symbols of %lu objects from '%s'\n", symbol_store__nr_found(syms),
		       sym_path);
	if (o->pprof) {
		printf(PROG ": converted %" PRIu64 " samples from '%s' into '%s' (%" PRIu64
			    " distinct stacks, %" PRIu64 " functions, %" PRIu64 " mappings)\n",
		       res.pprof.nr_samples, in_name, o->output, res.pprof.nr_profile_samples,
		       res.pprof.nr_functions, res.pprof.nr_mappings);
		if (res.pprof.nr_tracepoint_samples || res.pprof.nr_skipped)
			printf(PROG ": %" PRIu64 " of them tracepoint hits with their stacks; "
				    "left out %" PRIu64 " tracepoint hits without a callchain\n",
			       res.pprof.nr_tracepoint_samples, res.pprof.nr_skipped);
		printf(PROG ": %" PRIu64 " samples outside --time\n", st->nr_out_of_range);
		if (snapshot__stats(s)->nr_dropped || res.pprof.nr_invalid)
			printf(PROG ": also left out %" PRIu64 " records without a time stamp and "
				    "%" PRIu64 " samples that could not be decoded\n",
			       snapshot__stats(s)->nr_dropped, res.pprof.nr_invalid);
		goto out;
	}
	if (o->perfetto) {
		printf(PROG ": converted %" PRIu64 " tracepoint events and %" PRIu64
			    " samples from '%s' into '%s'\n",
		       res.perfetto.nr_ftrace, res.perfetto.nr_samples, in_name, o->output);
		if (res.perfetto.nr_tracepoint_stacks)
			printf(PROG ": %" PRIu64 " of the tracepoint events have their callstacks "
				    "as samples too\n",
			       res.perfetto.nr_tracepoint_stacks);
		printf(PROG ": named %" PRIu64 " threads; %" PRIu64 " samples outside --time\n",
		       res.perfetto.nr_tasks, st->nr_out_of_range);
		if (res.perfetto.lost_events || res.perfetto.nr_lost_marks)
			printf(PROG ": %" PRIu64 " events were lost while recording; %" PRIu64
				    " CPU bundles are marked lost_events\n",
			       res.perfetto.lost_events, res.perfetto.nr_lost_marks);
		if (res.perfetto.nr_cpu_skipped)
			printf(PROG ": left out %" PRIu64 " tracepoint events of CPUs 1024 and up "
				    "(trace processor refuses the whole trace at such a CPU)\n",
			       res.perfetto.nr_cpu_skipped);
		if (snapshot__stats(s)->nr_dropped || res.perfetto.nr_invalid)
			printf(PROG ": also left out %" PRIu64 " records without a time stamp and "
				    "%" PRIu64 " samples that could not be decoded\n",
			       snapshot__stats(s)->nr_dropped, res.perfetto.nr_invalid);
		goto out;
	}
	printf(PROG ": converted %" PRIu64 " events from '%s' into '%s'\n", res.tracedat.nr_events,
	       in_name, o->output);
	printf(PROG ": skipped %" PRIu64 " non-tracepoint samples, %" PRIu64
		    " samples outside --time\n",
	       res.tracedat.nr_skipped, st->nr_out_of_range);
	/* Records the output cannot place: no time stamp, no raw data, too large. */
	if (snapshot__stats(s)->nr_dropped || res.tracedat.nr_invalid)
		printf(PROG ": also left out %" PRIu64 " records without a time stamp and %" PRIu64
			    " tracepoint samples without usable raw data\n",
		       snapshot__stats(s)->nr_dropped, res.tracedat.nr_invalid);
out:
	symbol_store__delete(syms);
	perfdata_reader__delete(r);
	snapshot__delete(s);
	return err;
}

int main(int argc, char **argv)
{
	struct convert_options o;
	struct sigaction sa = { .sa_handler = on_signal };
	int in_fd = -1, err;

	err = parse_options(argc, argv, &o);
	if (err)
		return err;
	err = check_output(&o);
	if (!err)
		err = open_input(o.input, &in_fd);
	if (err)
		return err;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	err = convert(&o, in_fd);
	if (in_fd != STDIN_FILENO)
		close(in_fd);
	if (!err && o.open) {
		fflush(stdout);
		err = trace_server__run(o.output, o.origin);
	}
	return err ? 1 : 0;
}
