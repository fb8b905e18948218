// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfsnapd: a flight recorder for perf events. main() is the daemon's
 * life from top to bottom: options, configuration, capture, loop, exit.
 * It runs in the foreground; systemd supervises it.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sysexits.h>
#include <unistd.h>

#include <event2/event.h>
#include <perf/core.h>

#include "capture.h"
#include "config.h"
#include "control.h"
#include "daemon.h"
#include "dump.h"
#include "hotplug.h"
#include "ring_sizer.h"
#include "log.h"
#include "loop_sched.h"
#include "post_command.h"
#include "privilege.h"
#include "procinfo.h"
#include "service.h"
#include "sideband.h"
#include "upload.h"

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

/*
 * The signals perfsnapd answers. They are blocked from the first line of
 * main() to the end, in every thread, and read from a signalfd by the loop:
 * one that arrives while the rings open, while a reload reopens them or
 * while a callback runs waits in the kernel until the loop reads it, so no
 * moment exists where it is fatal or lost. (libevent's own signal events
 * install handlers that every thread could run, and there would be a
 * window between installing them and unblocking.)
 */
static const int daemon_signals[] = { SIGUSR2, SIGHUP, SIGTERM, SIGINT };

static void daemon_sigset(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(daemon_signals) / sizeof(daemon_signals[0]); i++)
		sigaddset(set, daemon_signals[i]);
}

static void on_signal(evutil_socket_t fd, short what, void *arg)
{
	struct signalfd_siginfo si;
	struct daemon *d = arg;
	ssize_t n;

	(void)what;
	while ((n = read(fd, &si, sizeof(si))) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGUSR2: {
			struct snapshot_origin o = { .kind = SNAPSHOT_ORIGIN_SIGNAL,
						     .pid = (int32_t)si.ssi_pid,
						     .uid = si.ssi_uid };

			dump__trigger(d->dump, "signal", &o, NULL, NULL);
			break;
		}
		case SIGHUP:
			daemon__reload(d, NULL);
			break;
		default:
			log_info("%s: stopping", strsignal((int)si.ssi_signo));
			event_base_loopbreak(d->base);
			return;
		}
	}
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		log__errno(-errno, "signalfd");
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: perfsnapd [--config FILE] [--check-config] [--upload-socket PATH] [--verbose]\n"
		"                 [--version] [--help]\n"
		"\n"
		"Records perf events into overwritable per-CPU rings; SIGUSR2 writes a snapshot.\n"
		"  -c, --config FILE   configuration (default " PERFSNAPD_DEFAULT_CONFIG ")\n"
		"  -n, --check-config  print the effective configuration and exit (78 if invalid)\n"
		"  -u, --upload-socket PATH\n"
		"                      reach the upload helper there (perfsnapd-upload.socket)\n"
		"                      instead of starting it\n"
		"  -v, --verbose       debug logging\n"
		"  -V, --version       print the version\n"
		"  -h, --help          this text\n");
}

static int run(struct daemon *d)
{
	struct config_diags diags = { 0 };
	struct event *sig_ev = NULL;
	sigset_t set;
	int sig_fd, sched_err, r = EX_OK;

	libperf_init(libperf_print);
	signal(SIGPIPE, SIG_IGN);
	/* Before any thread or child starts: they begin at the usual priority. */
	sched_err = loop_sched__raise();
	if (sched_err < 0)
		log_info("the event loop stays at its niceness (a higher one was refused: %s); a "
			 "trigger may then wait for a CPU before its dump starts",
			 strerror(-sched_err));
	daemon_sigset(&set);
	sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_fd < 0)
		return log__errno(-errno, "signalfd"), EX_OSERR;
	d->base = event_base_new();
	if (!d->base) {
		close(sig_fd);
		return log__errno(-ENOMEM, "event_base_new"), EX_OSERR;
	}
	/* Watched before the rings open; read only once the loop runs. */
	sig_ev = event_new(d->base, sig_fd, EV_READ | EV_PERSIST, on_signal, d);
	if (!sig_ev || event_add(sig_ev, NULL) < 0) {
		log_error("cannot watch signals");
		r = EX_OSERR;
		goto out;
	}
	/* A fact of the process, said once, not at each reopen of the rings. */
	if (procinfo__host_pid_ns() == 0)
		log_warning("perfsnapd runs in a PID namespace of its own: the kernel records "
			    "every task outside it as pid 0, shown as 'swapper'; run it in the "
			    "host's (docker run --pid=host, Kubernetes hostPID: true)");
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
	if (daemon__start_control(d) < 0 || service__start_watchdog(d->base) < 0) {
		r = EX_OSERR;
		goto out;
	}
	daemon__start_upload(d);
	daemon__log_recording(d);
	if (hotplug__new(d, &d->hotplug) < 0 || ring_sizer__new(d, &d->sizer) < 0) {
		r = EX_OSERR;
		goto out;
	}
	service__ready(d->status);
	if (event_base_dispatch(d->base) < 0) {
		log_error("event loop failed");
		r = EX_SOFTWARE;
	}
	service__stopping();
out:
	if (sig_ev)
		event_free(sig_ev);
	close(sig_fd);
	service__stop_watchdog();
	ring_sizer__delete(d->sizer);
	hotplug__delete(d->hotplug);
	daemon__stop_control(d);
	daemon__stop_triggers(d);
	daemon__stop_recording(d);
	daemon__stop_upload(d);
	post_command__reap_all();
	dump_figures__fini(&d->last);
	event_base_free(d->base);
	return r;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "upload-socket", required_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct config_diags diags = { 0 };
	struct daemon d = { .config_path = PERFSNAPD_DEFAULT_CONFIG };
	char err[5 * PATH_MAX];
	bool check_only = false;
	sigset_t set;
	int c, r;

	/* First of all: see daemon_signals. Threads and children inherit it. */
	daemon_sigset(&set);
	sigprocmask(SIG_BLOCK, &set, NULL);

	while ((c = getopt_long(argc, argv, "c:nu:vVh", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			d.config_path = optarg;
			break;
		case 'n':
			check_only = true;
			break;
		case 'u':
			d.upload_socket = optarg;
			break;
		case 'v':
			log__set_verbose(true);
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
	/* Before any thread starts, and before anything is read: privilege.h. */
	if (privilege__limit(err, sizeof(err)) < 0)
		log_warning("%s; it goes on with them", err);

	if (config__load(d.config_path, NULL, &d.cfg, &diags) < 0) {
		config_diags__print(&diags, stderr);
		config_diags__clear(&diags);
		return EX_CONFIG;
	}
	if (upload__check_helper(d.cfg, d.upload_socket, err, sizeof(err)) < 0) {
		fprintf(stderr, "perfsnapd: %s: %s\n", d.config_path, err);
		config__put(d.cfg);
		return EX_CONFIG;
	}
	if (check_only) {
		config__print(d.cfg, stdout);
		config__put(d.cfg);
		return EX_OK;
	}
	d.argc = argc;
	d.argv = (const char *const *)argv;
	r = run(&d);
	config__put(d.cfg);
	return r;
}
