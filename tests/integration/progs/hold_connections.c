// SPDX-License-Identifier: GPL-2.0-only
/*
 * hold_connections: opens N connections to a Unix socket and sends nothing,
 * as a client that locks others out would. After half a second it prints
 * "held H refused R", then each distinct line the refused ones received,
 * then "ready", and keeps the held ones open until stdin reaches EOF.
 *
 * usage: hold_connections N SOCKET
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CONN 256

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char lines[MAX_CONN][256];
	int fd[MAX_CONN], n, held = 0, nr_lines = 0;
	char buf[256];

	if (argc != 3 || (n = atoi(argv[1])) <= 0 || n > MAX_CONN) {
		fprintf(stderr, "usage: hold_connections N SOCKET\n");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[2]);
	for (int i = 0; i < n; i++) {
		fd[i] = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd[i] < 0 || connect(fd[i], (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			fprintf(stderr, "hold_connections: connect: %s\n", strerror(errno));
			return 1;
		}
	}
	usleep(500000);
	for (int i = 0; i < n; i++) {
		ssize_t r = recv(fd[i], buf, sizeof(buf) - 1, MSG_DONTWAIT);
		bool seen = false;

		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			held++;
			continue;
		}
		buf[r > 0 ? r : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		for (int j = 0; j < nr_lines; j++)
			seen = seen || !strcmp(lines[j], buf);
		if (!seen)
			snprintf(lines[nr_lines++], sizeof(lines[0]), "%s", buf);
	}
	printf("held %d refused %d\n", held, n - held);
	for (int j = 0; j < nr_lines; j++)
		printf("%s\n", lines[j]);
	printf("ready\n");
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	return 0;
}
