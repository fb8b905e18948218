// SPDX-License-Identifier: GPL-2.0-only
/*
 * paired_floor: loads paired_floor.bpf.o, attaches its two empty programs
 * to the start and end tracepoints, prints "attached" and waits for a
 * signal. usage: paired_floor OBJECT START END (as "sched:sched_waking").
 */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int attach(struct bpf_object *obj, const char *prog, const char *event)
{
	char category[128];
	const char *colon = strchr(event, ':');
	struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);

	if (!p || !colon || (size_t)(colon - event) >= sizeof(category))
		return -1;
	snprintf(category, sizeof(category), "%.*s", (int)(colon - event), event);
	return libbpf_get_error(bpf_program__attach_tracepoint(p, category, colon + 1)) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;

	if (argc != 4) {
		fprintf(stderr, "usage: paired_floor OBJECT START END\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (libbpf_get_error(obj) || bpf_object__load(obj)) {
		fprintf(stderr, "paired_floor: cannot load %s\n", argv[1]);
		return 1;
	}
	if (attach(obj, "floor_start", argv[2]) || attach(obj, "floor_end", argv[3])) {
		fprintf(stderr, "paired_floor: cannot attach to %s and %s\n", argv[2], argv[3]);
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	pause();
	return 0;
}
