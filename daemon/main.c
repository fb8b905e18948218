// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfsnapd: a flight recorder for perf events. main() is the daemon's
 * life from top to bottom: options, configuration, capture, loop, exit.
 * It runs in the foreground; systemd supervises it.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <event2/event.h>
#include <perf/core.h>
#include <systemd/sd-daemon.h>

#include "capture.h"
#include "config.h"
#include "dump.h"
#include "log.h"

struct daemon_state {
	struct event_base *base;
	struct capture *cap;
	struct dump *dump;
	const struct perfsnapd_config *cfg;
	unsigned long snapshots, failures;
};

static int libperf_print(enum libperf_print_level level, const char *fmt, va_list ap)
{
	char line[1024];

	if (level > LIBPERF_INFO)
		return 0;
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	log_debug("libperf: %s", line);
	return 0;
}

static void on_dump_done(void *ctx, const struct dump_report *rep)
{
	struct daemon_state *st = ctx;

	if (rep->error) {
		st->failures++;
		log_errno(rep->error, "snapshot failed (no file written; recording continues)");
		return;
	}
	st->snapshots++;
	log_notice("snapshot %s: %llu events, %llu bytes, blind window %llu us "
		   "(longest ring pause; %llu us over all rings), dump %llu ms",
		   rep->path, (unsigned long long)rep->nr_records, (unsigned long long)rep->bytes,
		   (unsigned long long)rep->blind_max_ns / 1000,
		   (unsigned long long)rep->blind_total_ns / 1000,
		   (unsigned long long)rep->dump_ns / 1000000);
	sd_notifyf(0, "STATUS=recording %zu events on %d CPUs; last snapshot %s",
		   capture__nr_events(st->cap), capture__nr_cpus(st->cap), rep->path);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon_state *st = arg;

	(void)what;
	switch (sig) {
	case SIGUSR2:
		dump__trigger(st->dump, "signal");
		break;
	case SIGHUP:
		log_warning("SIGHUP: configuration reload is not supported yet, ignoring");
		break;
	default:
		log_info("%s: stopping", strsignal((int)sig));
		event_base_loopbreak(st->base);
		break;
	}
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: perfsnapd [--config FILE] [--check-config] [--verbose] [--version] [--help]\n"
		"\n"
		"Records perf events into overwritable per-CPU rings; SIGUSR2 writes a snapshot.\n"
		"  -c, --config FILE   configuration (default " PERFSNAPD_DEFAULT_CONFIG ")\n"
		"  -n, --check-config  print the effective configuration and exit (78 if invalid)\n"
		"  -v, --verbose       debug logging\n"
		"  -V, --version       print the version\n"
		"  -h, --help          this text\n");
}

static int run(struct daemon_state *st, int argc, const char *const *argv)
{
	static const int signals[] = { SIGUSR2, SIGHUP, SIGTERM, SIGINT };
	struct event *sig_ev[sizeof(signals) / sizeof(signals[0])] = { NULL };
	const struct perfsnapd_config *cfg = st->cfg;
	int r = EX_OK;

	libperf_init(libperf_print);
	signal(SIGPIPE, SIG_IGN);
	st->base = event_base_new();
	if (!st->base)
		return log_errno(-ENOMEM, "event_base_new"), EX_OSERR;
	if (capture__open(cfg, &st->cap) < 0) {
		r = EX_UNAVAILABLE;
		goto out;
	}
	if (dump__new(st->cap, cfg, st->base, argc, argv, on_dump_done, st, &st->dump) < 0) {
		r = EX_OSERR;
		goto out;
	}
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		sig_ev[i] = evsignal_new(st->base, signals[i], on_signal, st);
		if (!sig_ev[i] || event_add(sig_ev[i], NULL) < 0) {
			log_error("cannot watch signal %d", signals[i]);
			r = EX_OSERR;
			goto out;
		}
	}
	log_notice("recording %zu events on %d CPUs into %d overwrite rings of %llu KiB "
		   "(%u pages) each; copy buffer %llu KiB; snapshots go to %s",
		   capture__nr_events(st->cap), capture__nr_cpus(st->cap),
		   capture__nr_rings(st->cap, true),
		   (unsigned long long)cfg->buffer_pages * (unsigned long long)sysconf(_SC_PAGESIZE) /
			   1024, cfg->buffer_pages,
		   (unsigned long long)dump__copy_buffer_size(st->dump) / 1024, cfg->directory);
	sd_notifyf(0, "READY=1\nSTATUS=recording %zu events on %d CPUs",
		   capture__nr_events(st->cap), capture__nr_cpus(st->cap));
	if (event_base_dispatch(st->base) < 0) {
		log_error("event loop failed");
		r = EX_SOFTWARE;
	}
	sd_notify(0, "STOPPING=1");
out:
	for (size_t i = 0; i < sizeof(sig_ev) / sizeof(sig_ev[0]); i++)
		if (sig_ev[i])
			event_free(sig_ev[i]);
	dump__delete(st->dump);
	capture__close(st->cap);
	event_base_free(st->base);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config_path = PERFSNAPD_DEFAULT_CONFIG;
	struct config_diags diags = { 0 };
	struct perfsnapd_config *cfg = NULL;
	struct daemon_state st = { 0 };
	bool check_only = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:nvVh", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			config_path = optarg;
			break;
		case 'n':
			check_only = true;
			break;
		case 'v':
			log_set_verbose(true);
			break;
		case 'V':
			printf("perfsnapd %s\n", PERFSNAPD_VERSION);
			return EX_OK;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfsnapd: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return EX_USAGE;
	}

	if (config__load(config_path, NULL, &cfg, &diags) < 0) {
		config_diags__print(&diags, stderr);
		config_diags__clear(&diags);
		return EX_CONFIG;
	}
	if (check_only) {
		config__print(cfg, stdout);
		config__delete(cfg);
		return EX_OK;
	}
	st.cfg = cfg;
	r = run(&st, argc, (const char *const *)argv);
	config__delete(cfg);
	return r;
}
