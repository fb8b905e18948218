// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config's [upload] section: good keys, and every refusal
 * as a row of bad_uploads[], a cmocka test of its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <tracefs.h>
#include "config.h"
#include "snapshot.h"
#include "snapshot_name.h"
#include "snapshot_tracedat.h"
#include "test_dir.h"
#include "config_test.h"

/* A credentials file in tmpdir with @text and @mode; returns its path. */
static char *write_credentials(const char *name, const char *text, mode_t mode)
{
	char *path = write_conf(name, text, "", "");

	assert_int_equal(chmod(path, mode), 0);
	return path;
}

#define UPLOAD_HEAD "[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = @DIR@\n[upload]\n"

/* [upload]: the keys, defaults, the credentials file, and that no secret is printed. */
static void test_upload_good(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *path, *cred, *text, *printed = NULL;
	size_t size = 0;
	FILE *out;

	(void)state;
	cred = write_credentials("up.cred",
				 "# comment\n[other]\naws_access_key_id = NOTME\n[default]\n"
				 "aws_access_key_id = AKIDEXAMPLE\n"
				 "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n"
				 "aws_session_token = TOKEN123\nregion = eu-west-1\n",
				 0600);
	assert_true(asprintf(&text,
			     UPLOAD_HEAD "url = s3://snap-bucket/fleet/{host}/{date}/\n"
					 "endpoint = http://127.0.0.1:9000/\npath_style = yes\n"
					 "credentials = %s\nkeep_local = no\nretry_min = 100ms\n",
			     cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), 0);
	assert_string_equal(cfg->upload_bucket, "snap-bucket");
	assert_string_equal(cfg->upload_prefix, "fleet/{host}/{date}/");
	assert_string_equal(cfg->upload_endpoint, "http://127.0.0.1:9000");
	assert_string_equal(cfg->upload_region, "us-east-1");
	assert_true(cfg->upload_path_style);
	assert_false(cfg->upload_keep_local);
	assert_string_equal(cfg->upload_key_id, "AKIDEXAMPLE");
	assert_string_equal(cfg->upload_secret, "wJalrXUtnFEMI/K7MDENG");
	assert_string_equal(cfg->upload_token, "TOKEN123");
	assert_int_equal(cfg->upload_retry_min_ms, 100);
	assert_int_equal(cfg->upload_retry_max_ms, 5 * 60 * 1000);
	out = open_memstream(&printed, &size);
	config__print(cfg, out);
	fclose(out);
	assert_non_null(strstr(printed, "credentials = "));
	assert_null(strstr(printed, "AKIDEXAMPLE"));
	assert_null(strstr(printed, "wJalrXUtnFEMI"));
	assert_null(strstr(printed, "TOKEN123"));
	free(printed);
	config__put(cfg);
	free(path);
	free(text);

	/* Defaults: AWS's endpoint of the region, virtual-host style, keep_local. */
	assert_true(asprintf(&text,
			     UPLOAD_HEAD "url = s3://b12\nregion = eu-west-3\ncredentials = %s\n",
			     cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), 0);
	assert_string_equal(cfg->upload_prefix, "");
	assert_string_equal(cfg->upload_endpoint, "https://s3.eu-west-3.amazonaws.com");
	assert_false(cfg->upload_path_style);
	assert_true(cfg->upload_keep_local);
	config__put(cfg);
	free(path);
	free(text);
	free(cred);

	/* An IPv6 endpoint with a port. */
	cred = write_credentials(
		"v6.cred", "[default]\naws_access_key_id = A\naws_secret_access_key = S\n", 0600);
	assert_true(asprintf(&text,
			     UPLOAD_HEAD "url = s3://b12\nendpoint = http://[::1]:9000\n"
					 "path_style = yes\ncredentials = %s\n",
			     cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), 0);
	assert_string_equal(cfg->upload_endpoint, "http://[::1]:9000");
	config__put(cfg);
	free(path);
	free(text);
	free(cred);

	/* Without [upload] url nothing is uploaded. */
	assert_int_equal(load_text(UPLOAD_HEAD, &path, &cfg, &d), 0);
	assert_null(cfg->upload_url);
	config__put(cfg);
	free(path);
}

/* The credentials file a bad_upload row loads with. */
enum bad_cred {
	CRED_NONE,
	CRED_OPEN,	/* readable by others (0644) */
	CRED_NOT_ROOTS, /* 0600, owned by uid 65534 */
	CRED_NO_SECRET, /* 0600, without aws_secret_access_key and with a broken line */
	CRED_GOOD,	/* 0600, root's, both keys */
};

/* An [upload] section config__load() must refuse, and how. */
struct bad_upload {
	const char *name; /* of the row, in cmocka's output */
	const char *text; /* after UPLOAD_HEAD; @CRED@ is the credentials file's path */
	enum bad_cred cred;
	size_t nr; /* diagnostics in all; 0: not counted */
	struct {
		bool in_cred; /* at a line of the credentials file, not of the configuration */
		int line;
		const char *text[4];
	} diags[5];
};

static const struct bad_upload bad_uploads[] = {
	{
		.name = "url not s3://, and set again",
		.text = "url = http://bucket/x\nurl = s3://B/x\ncredentials = @CRED@\n[upload]\n",
		.cred = CRED_OPEN,
		.diags = { { false, 6, { "[upload] url: 'http://bucket/x' is not an s3:// URL" } },
			   { false, 7, { "[upload] url: set again" } } },
	},
	{
		.name = "key prefix with a space",
		.text = "url = s3://bucket/a b%/\ncredentials = @CRED@\n",
		.cred = CRED_OPEN,
		.diags = { { false, 6, { "[upload] url: key prefix 'a b%/' has ' '" } } },
	},
	{
		/* Refused at the credentials line, with the fix. */
		.name = "credentials readable by others",
		.text = "url = s3://bucket/x/\ncredentials = @CRED@\n",
		.cred = CRED_OPEN,
		.nr = 1,
		.diags = { { false,
			     7,
			     { "[upload] credentials:", "has mode 0644", "chmod 600" } } },
	},
	{
		.name = "credentials not root's",
		.text = "url = s3://bucket/x/\ncredentials = @CRED@\n",
		.cred = CRED_NOT_ROOTS,
		.nr = 1,
		.diags = { { false,
			     7,
			     { "[upload] credentials:", "is owned by uid 65534, not root",
			       "chown root:root" } } },
	},
	{
		/* At the [default] line of the credentials file, no value quoted. */
		.name = "credentials without a secret",
		.text = "url = s3://bucket/x/\ncredentials = @CRED@\n",
		.cred = CRED_NO_SECRET,
		.diags = { { true, 2, { "[default]: no aws_secret_access_key" } },
			   { true, 4, { "[default]: a line that is not 'key = value'" } } },
	},
	{
		.name = "IP endpoint without path_style, retry_max under retry_min, no credentials",
		.text = "url = s3://bucket/x/\nendpoint = http://10.0.0.1:9000\n"
			"retry_min = 10s\nretry_max = 1s\nregion = US\n",
		.diags = { { false, 6, { "[upload] url: set without credentials" } },
			   { false,
			     7,
			     { "[upload] endpoint:", "is an IP address", "path_style = yes" } },
			   { false, 9, { "[upload] retry_max: shorter than retry_min" } },
			   { false, 10, { "[upload] region: bad region 'US'" } } },
	},
#define BAD_PORT(endpoint)                                                                        \
	{                                                                                         \
		.name = "endpoint " endpoint,                                                     \
		.text = "url = s3://bucket/x/\nendpoint = " endpoint "\npath_style = yes\n"       \
			"credentials = @CRED@\n",                                                 \
		.cred = CRED_GOOD, .nr = 1,                                                       \
		.diags = { { false, 7, { "[upload] endpoint: bad endpoint", "port 1-65535" } } }, \
	}
	BAD_PORT("http://127.0.0.1:99999"),
	BAD_PORT("http://127.0.0.1:0"),
	BAD_PORT("http://s3.example.net:abc"),
	BAD_PORT("http://s3.example.net:"),
	BAD_PORT("http://:9000"),
	BAD_PORT("http://[::1:9000"),
	BAD_PORT("http://[::1]9000"),
	{
		.name = "keys without url",
		.text = "keep_local = no\n",
		.diags = { { false, 6, { "[upload] keep_local: set without [upload] url" } } },
	},
};

#define NR_BAD_UPLOADS (sizeof(bad_uploads) / sizeof(bad_uploads[0]))

/* The credentials file of @cred for row @i, or NULL. */
static char *bad_credentials(enum bad_cred cred, size_t i)
{
	char name[32];
	char *path;

	snprintf(name, sizeof(name), "bad%zu.cred", i);
	switch (cred) {
	case CRED_NONE:
		return NULL;
	case CRED_OPEN:
	case CRED_NOT_ROOTS:
	case CRED_GOOD:
		path = write_credentials(
			name,
			"[default]\naws_access_key_id = A\naws_secret_access_key = SECRETVALUE\n",
			cred == CRED_OPEN ? 0644 : 0600);
		if (cred == CRED_NOT_ROOTS)
			assert_int_equal(chown(path, 65534, 65534), 0);
		return path;
	case CRED_NO_SECRET:
		return write_credentials(
			name, "\n[default]\naws_access_key_id = A\nbroken SECRETVALUE\n", 0600);
	default:
		fail_msg("credentials kind %d", (int)cred);
		return NULL;
	}
}

/* Loads the row in *@state: refused, with each diagnostic it wants and no secret quoted. */
static void test_bad_upload(void **state)
{
	const struct bad_upload *row = *state;
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *cred = bad_credentials(row->cred, (size_t)(row - bad_uploads));
	const char *at = strstr(row->text, "@CRED@");
	char *path, *text;
	int r;

	if (at)
		assert_true(asprintf(&text, UPLOAD_HEAD "%.*s%s%s", (int)(at - row->text),
				     row->text, cred, at + strlen("@CRED@")) > 0);
	else
		assert_true(asprintf(&text, UPLOAD_HEAD "%s", row->text) > 0);
	r = load_text(text, &path, &cfg, &d);
	if (r != -EINVAL || cfg || (row->nr && d.nr != row->nr)) {
		dump_diags(&d);
		fail_msg("%s: config__load() returned %d with %zu diagnostics", row->name, r, d.nr);
	}
	for (size_t i = 0; i < sizeof(row->diags) / sizeof(row->diags[0]) && row->diags[i].line;
	     i++) {
		const char *const *want = row->diags[i].text;

		if (!has_diag(&d, row->diags[i].in_cred ? cred : path, row->diags[i].line, want)) {
			dump_diags(&d);
			fail_msg("%s: no diagnostic at line %d holding '%s'", row->name,
				 row->diags[i].line, want[0]);
		}
	}
	for (size_t i = 0; i < d.nr; i++)
		assert_null(strstr(d.items[i].message, "SECRETVALUE"));
	config_diags__clear(&d);
	free(path);
	free(text);
	free(cred);
}

int main(void)
{
	struct CMUnitTest tests[NR_BAD_UPLOADS + 1];
	size_t n = 0;

	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_upload_good);
	for (size_t i = 0; i < NR_BAD_UPLOADS; i++)
		tests[n++] = (struct CMUnitTest){
			.name = bad_uploads[i].name,
			.test_func = test_bad_upload,
			.initial_state = (void *)&bad_uploads[i],
		};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
