// SPDX-License-Identifier: GPL-2.0-only
/*
 * kshark_entries FILE: loads a trace.dat the way KernelShark does (its own
 * library, libkshark) and prints every entry it shows as one line,
 * "CPU TIME_NS PID SYSTEM/EVENT", in KernelShark's order. The test compares
 * these lines with trace-cmd report's, so a record KernelShark drops, adds
 * or files under another CPU, time or task is caught event for event.
 * Exit 1 if the file does not open or loads no entry.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <libkshark.h>

int main(int argc, char **argv)
{
	struct kshark_context *ctx = NULL;
	struct kshark_entry **rows = NULL;
	ssize_t n;
	int sd, ret = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.trace.dat\n", argv[0]);
		return 2;
	}
	if (!kshark_instance(&ctx)) {
		fprintf(stderr, "kshark_entries: no KernelShark context\n");
		return 1;
	}
	sd = kshark_open(ctx, argv[1]);
	if (sd < 0) {
		fprintf(stderr, "kshark_entries: KernelShark cannot open %s (%d)\n", argv[1], sd);
		goto out;
	}
	n = kshark_load_entries(ctx, sd, &rows);
	if (n <= 0) {
		fprintf(stderr, "kshark_entries: KernelShark loads no entry from %s (%zd)\n",
			argv[1], n);
		goto out;
	}
	for (ssize_t i = 0; i < n; i++) {
		char *name = kshark_get_event_name(rows[i]);

		printf("%d %" PRId64 " %d %s\n", rows[i]->cpu, rows[i]->ts, rows[i]->pid,
		       name ? name : "?");
		free(name);
		free(rows[i]);
	}
	free(rows);
	ret = 0;
out:
	kshark_close_all(ctx);
	kshark_free(ctx);
	return ret;
}
