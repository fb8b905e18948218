// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the /proc parsers (issue 53): each input is lines
 * that local users shape, as /proc/PID/maps lines (the names they give
 * the files they map) and /proc/PID/stat lines (the comm they choose,
 * spaces and parentheses included). Each line is its own allocation, so
 * that a read past it is caught; a mapping parsed must name itself within
 * its line, a comm must end within its 16 bytes. Built with clang under
 * PERFSNAPD_FUZZ; replay_main.c drives it over tests/fuzz/proc_corpus in
 * every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "procinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *line_copy(const uint8_t *from, size_t len)
{
	char *l = malloc(len + 1);

	if (!l)
		abort();
	memcpy(l, from, len);
	l[len] = '\0';
	return l;
}

static void one_line(const uint8_t *from, size_t len)
{
	struct procinfo_stat st;
	struct procinfo_map m;
	char *l = line_copy(from, len);

	if (procinfo__parse_maps_line(l, &m) == 0) {
		size_t n = strlen(l);

		if (strcmp(m.name, "//anon") && (m.name < l || m.name > l + n))
			abort();
		if ((m.prot & ~(uint32_t)(PROT_READ | PROT_WRITE | PROT_EXEC)) ||
		    (m.flags != MAP_SHARED && m.flags != MAP_PRIVATE))
			abort();
	}
	free(l);
	l = line_copy(from, len);
	if (procinfo__parse_stat(l, &st) == 0 &&
	    strnlen(st.comm, sizeof(st.comm)) == sizeof(st.comm))
		abort();
	free(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t start = 0;

	for (size_t i = 0; i <= size; i++) {
		if (i < size && data[i] != '\n')
			continue;
		one_line(data + start, i - start);
		start = i + 1;
	}
	return 0;
}
