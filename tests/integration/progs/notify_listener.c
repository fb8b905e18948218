// SPDX-License-Identifier: GPL-2.0-only
/*
 * notify_listener: stands in for systemd's notification socket. Binds a
 * datagram socket at PATH and prints every message it receives, one line
 * per assignment, prefixed with a CLOCK_MONOTONIC time in microseconds, so
 * tests can check what perfsnapd reported and when.
 *
 * usage: notify_listener PATH
 */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	int fd;

	if (argc != 2 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify_listener PATH\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unlink(argv[1]);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("notify_listener");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		struct timespec ts;
		char *line, *save = NULL;

		if (n < 0)
			return 1;
		buf[n] = '\0';
		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			printf("%lld %s\n", (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000,
			       line);
		fflush(stdout);
	}
}
