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
#include <unistd.h>

#include <event2/event.h>
#include <perf/core.h>

#include "capture.h"
#include "config.h"
#include "control.h"
#include "daemon.h"
#include "dump.h"
#include "log.h"
#include "post_command.h"
#include "service.h"
#include "sideband.h"

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

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	(void)what;
	switch (sig) {
	case SIGUSR2:
		dump__trigger(d->dump, "signal", NULL, NULL);
		break;
	case SIGHUP:
		daemon__reload(d, NULL);
		break;
	default:
		log_info("%s: stopping", strsignal((int)sig));
		event_base_loopbreak(d->base);
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

static int run(struct daemon *d)
{
	static const int signals[] = { SIGUSR2, SIGHUP, SIGTERM, SIGINT };
	struct event *sig_ev[sizeof(signals) / sizeof(signals[0])] = { NULL };
	struct config_diags diags = { 0 };
	int r = EX_OK;

	libperf_init(libperf_print);
	signal(SIGPIPE, SIG_IGN);
	d->base = event_base_new();
	if (!d->base)
		return log_errno(-ENOMEM, "event_base_new"), EX_OSERR;
	daemon__remove_temporaries(d);
	if (daemon__start_recording(d) < 0) {
		r = EX_UNAVAILABLE;
		goto out;
	}
	r = daemon__start_triggers(d, &diags);
	if (r < 0) {
		config_diags__print(&diags, stderr);
		config_diags__clear(&diags);
		r = r == -EINVAL ? EX_CONFIG : EX_UNAVAILABLE;
		goto out;
	}
	for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
		sig_ev[i] = evsignal_new(d->base, signals[i], on_signal, d);
		if (!sig_ev[i] || event_add(sig_ev[i], NULL) < 0) {
			log_error("cannot watch signal %d", signals[i]);
			r = EX_OSERR;
			goto out;
		}
	}
	if (daemon__start_control(d) < 0 || service__start_watchdog(d->base) < 0) {
		r = EX_OSERR;
		goto out;
	}
	daemon__start_upload(d);
	daemon__log_recording(d);
	service__ready(d->status);
	if (event_base_dispatch(d->base) < 0) {
		log_error("event loop failed");
		r = EX_SOFTWARE;
	}
	service__stopping();
out:
	for (size_t i = 0; i < sizeof(sig_ev) / sizeof(sig_ev[0]); i++)
		if (sig_ev[i])
			event_free(sig_ev[i]);
	service__stop_watchdog();
	daemon__stop_control(d);
	daemon__stop_triggers(d);
	daemon__stop_recording(d);
	daemon__stop_upload(d);
	post_command__reap_all();
	event_base_free(d->base);
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
	struct config_diags diags = { 0 };
	struct daemon d = { .config_path = PERFSNAPD_DEFAULT_CONFIG };
	bool check_only = false;
	int c, r;

	while ((c = getopt_long(argc, argv, "c:nvVh", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.config_path = optarg;
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

	if (config__load(d.config_path, NULL, &d.cfg, &diags) < 0) {
		config_diags__print(&diags, stderr);
		config_diags__clear(&diags);
		return EX_CONFIG;
	}
	if (check_only) {
		config__print(d.cfg, stdout);
		config__delete(d.cfg);
		return EX_OK;
	}
	d.argc = argc;
	d.argv = (const char *const *)argv;
	r = run(&d);
	config__delete(d.cfg);
	return r;
}
