// SPDX-License-Identifier: GPL-2.0-only
/*
 * ctl_latency: how fast perfsnapd's loop answers, without the cost of
 * starting a client. Sends "status" over the control socket again and
 * again for DURATION_MS and prints, for the answers that said "state:
 * dumping", their count and the slowest in microseconds, then the same
 * for all answers. "polling" on stderr after the first answer tells a
 * script that what it does next is measured.
 *
 * usage: ctl_latency SOCKET DURATION_MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ll + ts.tv_nsec / 1000;
}

/* One request; returns its latency in us, -1 on error; *dumping set from the reply. */
static long long status_once(const char *path, int *dumping)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 16];
	size_t len = 0;
	long long t0;
	ssize_t n;
	int fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	t0 = now_us();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || write(fd, "status\n", 7) != 7) {
		close(fd);
		return -1;
	}
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\nok\n") || !strncmp(buf, "ok\n", 3) || strstr(buf, "error"))
			break;
	}
	t0 = now_us() - t0;
	close(fd);
	buf[len] = '\0';
	*dumping = strstr(buf, "state: dumping") != NULL;
	return strstr(buf, "ok\n") ? t0 : -1;
}

int main(int argc, char **argv)
{
	long long end, max_dump = 0, max_all = 0, t;
	long nr_dump = 0, nr_all = 0;
	int dumping;

	if (argc != 3) {
		fprintf(stderr, "usage: ctl_latency SOCKET DURATION_MS\n");
		return 2;
	}
	end = now_us() + atoll(argv[2]) * 1000;
	while (now_us() < end) {
		t = status_once(argv[1], &dumping);
		if (t < 0) {
			fprintf(stderr, "ctl_latency: status failed\n");
			return 1;
		}
		if (nr_all++ == 0)
			fputs("polling\n", stderr);
		if (t > max_all)
			max_all = t;
		if (dumping) {
			nr_dump++;
			if (t > max_dump)
				max_dump = t;
		}
		usleep(2000);
	}
	printf("%ld %lld %ld %lld\n", nr_dump, max_dump, nr_all, max_all);
	return 0;
}
