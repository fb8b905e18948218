// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for config's [upload] section: good keys and every refusal. */
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
	struct perfsnapd_config *cfg;
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

	/* Without [upload] url nothing is uploaded. */
	assert_int_equal(load_text(UPLOAD_HEAD, &path, &cfg, &d), 0);
	assert_null(cfg->upload_url);
	config__put(cfg);
	free(path);
}

static void test_upload_bad(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path, *open_cred, *nokey, *text;

	(void)state;
	open_cred = write_credentials(
		"open.cred",
		"[default]\naws_access_key_id = A\naws_secret_access_key = SECRETVALUE\n", 0644);
	nokey = write_credentials("nokey.cred",
				  "\n[default]\naws_access_key_id = A\nbroken SECRETVALUE\n", 0600);
	assert_true(asprintf(&text,
			     UPLOAD_HEAD "url = http://bucket/x\nurl = s3://B/x\n"
					 "credentials = %s\n[upload]\n",
			     open_cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 6, "[upload] url: 'http://bucket/x' is not an s3:// URL");
	expect_diag(&d, path, 7, "[upload] url: set again");
	config_diags__clear(&d);
	free(path);
	free(text);

	assert_true(asprintf(&text, UPLOAD_HEAD "url = s3://bucket/a b%%/\ncredentials = %s\n",
			     open_cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 6, "[upload] url: key prefix 'a b%/' has ' '");
	config_diags__clear(&d);
	free(path);
	free(text);

	/* Readable by others: refused at the credentials line, with the fix. */
	assert_true(asprintf(&text, UPLOAD_HEAD "url = s3://bucket/x/\ncredentials = %s\n",
			     open_cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, path, 7, "[upload] credentials:", "has mode 0644", "chmod 600");
	config_diags__clear(&d);
	free(path);
	free(text);

	/* Not root's: refused, with the fix. */
	assert_int_equal(chmod(open_cred, 0600), 0);
	assert_int_equal(chown(open_cred, 65534, 65534), 0);
	assert_true(asprintf(&text, UPLOAD_HEAD "url = s3://bucket/x/\ncredentials = %s\n",
			     open_cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, path, 7, "[upload] credentials:", "is owned by uid 65534, not root",
		    "chown root:root");
	config_diags__clear(&d);
	free(path);
	free(text);

	/* A missing key is reported at the [default] line of the credentials file, no value quoted. */
	assert_true(asprintf(&text, UPLOAD_HEAD "url = s3://bucket/x/\ncredentials = %s\n", nokey) >
		    0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, nokey, 2, "[default]: no aws_secret_access_key");
	expect_diag(&d, nokey, 4, "[default]: a line that is not 'key = value'");
	for (size_t i = 0; i < d.nr; i++)
		assert_null(strstr(d.items[i].message, "SECRETVALUE"));
	config_diags__clear(&d);
	free(path);
	free(text);

	/* An IP endpoint needs path_style; retry_max under retry_min; no credentials key. */
	assert_int_equal(load_text(UPLOAD_HEAD
				   "url = s3://bucket/x/\nendpoint = http://10.0.0.1:9000\n"
				   "retry_min = 10s\nretry_max = 1s\nregion = US\n",
				   &path, &cfg, &d),
			 -EINVAL);
	expect_diag(&d, path, 6, "[upload] url: set without credentials");
	expect_diag(&d, path, 7, "[upload] endpoint:", "is an IP address", "path_style = yes");
	expect_diag(&d, path, 9, "[upload] retry_max: shorter than retry_min");
	expect_diag(&d, path, 10, "[upload] region: bad region 'US'");
	config_diags__clear(&d);
	free(path);

	/* Keys without url. */
	assert_int_equal(load_text(UPLOAD_HEAD "keep_local = no\n", &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 6, "[upload] keep_local: set without [upload] url");
	config_diags__clear(&d);
	free(path);
	free(open_cred);
	free(nokey);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upload_good),
		cmocka_unit_test(test_upload_bad),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
