// SPDX-License-Identifier: GPL-2.0-only
/* fake_control: see fake_control.h. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "fake_control.h"

#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* the tests' own list_format */

static int fake_status(void *ctx, struct control_reply *reply)
{
	struct fake_control *fc = ctx;

	fc->status_calls++;
	for (size_t i = 0; fc->status_lines && fc->status_lines[i]; i++)
		control_reply__add(reply, "%s", fc->status_lines[i]);
	return 0;
}

static int fake_list(void *ctx, struct control_reply *reply)
{
	struct fake_control *fc = ctx;
	int r = 0;

	fc->list_calls++;
	for (size_t i = 0; i < fc->list_lines && fc->list_format && r == 0; i++)
		r = control_reply__add(reply, fc->list_format, i + 1);
	return 0;
}

static void fake_reload(void *ctx, struct control_client *client)
{
	struct fake_control *fc = ctx;

	fc->reload_calls++;
	for (size_t i = 0; fc->reload_lines && fc->reload_lines[i]; i++)
		control_client__add_line(client, "%s", fc->reload_lines[i]);
	control_client__done(client, -EINVAL, "%s", fc->reload_error);
}

static void fake_dump(void *ctx, const char *reason, struct control_client *client)
{
	struct fake_control *fc = ctx;

	if (fc->sync_dump_error) {
		control_client__done(client, fc->sync_dump_error, "refused: %s", reason);
		return;
	}
	assert_true(fc->nr_pending < FAKE_CONTROL_MAX_PENDING);
	snprintf(fc->reasons[fc->nr_pending], CONTROL_MAX_LINE, "%s", reason);
	fc->pending[fc->nr_pending++] = client;
	if (fc->on_dump)
		fc->on_dump(fc);
}

const struct control_ops fake_control_ops = {
	.status = fake_status,
	.list = fake_list,
	.reload = fake_reload,
	.dump = fake_dump,
};

void fake_control__cancel(struct fake_control *fc)
{
	for (int i = 0; i < fc->nr_pending; i++)
		if (fc->pending[i])
			control_client__done(fc->pending[i], -ECANCELED, NULL);
	fc->nr_pending = 0;
}
