// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_upload: the [upload] section. The url names the bucket and the
 * object key prefix, the endpoint and region where it lives, and the
 * credentials file the keys come from (the AWS shared-credentials format
 * every S3 tool reads, [default] profile). The file must be root's and
 * unreadable by anyone else; its secrets are kept in the configuration for
 * the uploader and never printed: no diagnostic quotes a value from it.
 * Part of common/: never logs.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config-internal.h"

#define DEFAULT_REGION "us-east-1"
#define URL_ACCEPTED   "s3://BUCKET/PREFIX, e.g. s3://snapshots/fleet/{host}/"
#define PREFIX_CHARS   "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-_."
#define ENDPOINT_ACCEPTED \
	"http:// or https:// and a host[:port] (port 1-65535), no path, e.g. https://s3.example.net"
#define REGION_ACCEPTED "lower-case letters, digits and '-', e.g. us-east-1"
#define CRED_ACCEPTED \
	"an absolute path to a root-owned file of mode 0600 in the AWS shared-credentials format"
#define CRED_KEYS_ACCEPTED \
	"[default] with aws_access_key_id = ... and aws_secret_access_key = ... (aws_session_token optional)"
#define MAX_CRED_LINE 4096
#define SPACES	      " \t\r\n\v\f"

static bool set_string(struct config_reader *p, char **field, const char *value)
{
	free(*field);
	*field = strdup(value);
	if (!*field)
		p->err = -ENOMEM;
	return *field;
}

static bool valid_bucket(const char *b, size_t len)
{
	if (len < 3 || len > 63 || !isalnum((unsigned char)b[0]) ||
	    !isalnum((unsigned char)b[len - 1]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!islower((unsigned char)b[i]) && !isdigit((unsigned char)b[i]) && b[i] != '-' &&
		    b[i] != '.')
			return false;
	return true;
}

/*
 * The prefix: characters that are the same URL-encoded or not (so the
 * signed path is the path S3 checks), and {host}, {date}. Returns the bad
 * part or NULL.
 */
static const char *bad_prefix_part(const char *s)
{
	while (*s) {
		if (!strncmp(s, "{host}", 6) || !strncmp(s, "{date}", 6))
			s += 6;
		else if (strchr(PREFIX_CHARS, *s))
			s++;
		else
			return s;
	}
	return NULL;
}

void config_upload__parse_url(struct config_reader *p, char *value)
{
	const char *rest, *slash, *bad;
	size_t len;

	if (!set_string(p, &p->cfg->upload_url, value))
		return;
	p->key_failed[KEY_UPLOAD_URL] = true;
	if (strncmp(value, "s3://", 5)) {
		config_reader__diag(
			p, p->line,
			"[upload] url: '%s' is not an s3:// URL: accepted: " URL_ACCEPTED, value);
		return;
	}
	rest = value + 5;
	slash = strchr(rest, '/');
	len = slash ? (size_t)(slash - rest) : strlen(rest);
	if (!valid_bucket(rest, len)) {
		config_reader__diag(
			p, p->line,
			"[upload] url: bad bucket name '%.*s' in '%s': accepted: 3 to 63 lower-case letters, digits, '.' and '-', e.g. " URL_ACCEPTED,
			(int)len, rest, value);
		return;
	}
	rest = slash ? slash + 1 : "";
	bad = bad_prefix_part(rest);
	if (bad) {
		config_reader__diag(
			p, p->line,
			"[upload] url: key prefix '%s' has '%c': accepted: letters, digits, / - _ . (characters that need no URL encoding), {host} and {date}",
			rest, *bad);
		return;
	}
	free(p->cfg->upload_bucket);
	p->cfg->upload_bucket = strndup(value + 5, len);
	if (!p->cfg->upload_bucket || !set_string(p, &p->cfg->upload_prefix, rest)) {
		p->err = -ENOMEM;
		return;
	}
	p->key_failed[KEY_UPLOAD_URL] = false;
}

/* Whether @host ("name", "name:port", "[v6]" or "[v6]:port") names a host and a port in range. */
static bool host_port_ok(const char *host)
{
	const char *colon, *port;
	size_t digits;
	long number;

	if (*host == '[') {
		const char *end = strchr(host, ']');

		if (!end || end == host + 1 || (end[1] && end[1] != ':'))
			return false;
		colon = end[1] ? end + 1 : NULL;
	} else {
		colon = strchr(host, ':');
		if (colon == host)
			return false;
	}
	if (!colon)
		return true;
	port = colon + 1;
	digits = strspn(port, "0123456789");
	if (digits == 0 || digits > 5 || port[digits])
		return false;
	number = strtol(port, NULL, 10);
	return number >= 1 && number <= 65535;
}

void config_upload__parse_endpoint(struct config_reader *p, char *value)
{
	size_t len = strlen(value);
	const char *host;

	while (len > 8 && value[len - 1] == '/')
		value[--len] = '\0';
	if (!set_string(p, &p->cfg->upload_endpoint, value))
		return;
	host = !strncmp(value, "https://", 8) ? value + 8 :
	       !strncmp(value, "http://", 7)  ? value + 7 :
						NULL;
	if (host && *host && !strpbrk(host, "/?#@ \t") && host_port_ok(host))
		return;
	p->key_failed[KEY_UPLOAD_ENDPOINT] = true;
	config_reader__diag(p, p->line,
			    "[upload] endpoint: bad endpoint '%s': accepted: " ENDPOINT_ACCEPTED,
			    value);
}

void config_upload__parse_region(struct config_reader *p, char *value)
{
	size_t len = strlen(value);

	if (!set_string(p, &p->cfg->upload_region, value))
		return;
	if (len && len <= 32 && strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789-") == len)
		return;
	p->key_failed[KEY_UPLOAD_REGION] = true;
	config_reader__diag(p, p->line,
			    "[upload] region: bad region '%s': accepted: " REGION_ACCEPTED, value);
}

void config_upload__parse_credentials(struct config_reader *p, char *value)
{
	if (!set_string(p, &p->cfg->upload_credentials, value))
		return;
	if (value[0] == '/')
		return;
	p->key_failed[KEY_UPLOAD_CREDENTIALS] = true;
	config_reader__diag(
		p, p->line,
		"[upload] credentials: '%s' is not an absolute path: accepted: " CRED_ACCEPTED,
		value);
}

/* A diagnostic about the credentials file itself, at its own line. */
static void cred_diag(struct config_reader *p, const char *path, int line, const char *msg,
		      const char *what)
{
	if (p->err)
		return;
	p->err = config_diags__add(p->diags, path, line, "%s%s: accepted: " CRED_KEYS_ACCEPTED, msg,
				   what);
}

static char *strip(char *s)
{
	char *end;

	s += strspn(s, SPACES);
	end = s + strlen(s);
	while (end > s && strchr(SPACES, end[-1]))
		*--end = '\0';
	return s;
}

/*
 * Reads the [default] profile of the open file @f. Values are never put
 * in a diagnostic: a malformed line may hold a secret.
 */
static void read_credentials(struct config_reader *p, const char *path, FILE *f)
{
	struct perfsnapd_config *cfg = p->cfg;
	int line = 0, profile_line = 0;
	bool in_default = false;
	char buf[MAX_CRED_LINE];

	while (fgets(buf, sizeof(buf), f)) {
		char *s = strip(buf), *eq, *key, *val, **field = NULL;

		line++;
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			in_default = !strcmp(s, "[default]");
			if (in_default)
				profile_line = line;
			continue;
		}
		if (!in_default)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			cred_diag(p, path, line, "[default]: a line that is not 'key = value'", "");
			continue;
		}
		*eq = '\0';
		key = strip(s);
		val = strip(eq + 1);
		if (!strcmp(key, "aws_access_key_id"))
			field = &cfg->upload_key_id;
		else if (!strcmp(key, "aws_secret_access_key"))
			field = &cfg->upload_secret;
		else if (!strcmp(key, "aws_session_token"))
			field = &cfg->upload_token;
		if (field && !*val)
			cred_diag(p, path, line, "[default]: empty ", key);
		else if (field && !set_string(p, field, val))
			break;
	}
	explicit_bzero(buf, sizeof(buf));
	if (ferror(f))
		cred_diag(p, path, 0, "cannot read the file", "");
	else if (!profile_line)
		cred_diag(p, path, 0, "no [default] profile", "");
	else if (!cfg->upload_key_id)
		cred_diag(p, path, profile_line, "[default]: no ", "aws_access_key_id");
	else if (!cfg->upload_secret)
		cred_diag(p, path, profile_line, "[default]: no ", "aws_secret_access_key");
}

/* Reads the credentials file if it is root's and nobody else may read it. */
static void load_credentials(struct config_reader *p)
{
	const char *path = p->cfg->upload_credentials;
	int line = p->key_line[KEY_UPLOAD_CREDENTIALS];
	struct stat st;
	FILE *f;
	int fd;

	/* Symlinks are followed: Kubernetes mounts secrets as links into ..data/. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		config_reader__diag(p, line,
				    "[upload] credentials: '%s': %s: accepted: " CRED_ACCEPTED,
				    path, strerror(errno));
		return;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		config_reader__diag(
			p, line,
			"[upload] credentials: '%s' is not a regular file: accepted: " CRED_ACCEPTED,
			path);
	} else if (st.st_uid != 0) {
		config_reader__diag(
			p, line,
			"[upload] credentials: '%s' is owned by uid %u, not root: accepted: " CRED_ACCEPTED
			" (chown root:root '%s')",
			path, (unsigned int)st.st_uid, path);
	} else if (st.st_mode & 077) {
		config_reader__diag(
			p, line,
			"[upload] credentials: '%s' has mode %04o: group or others may read it: accepted: " CRED_ACCEPTED
			" (chmod 600 '%s')",
			path, (unsigned int)(st.st_mode & 07777), path);
	} else {
		f = fdopen(fd, "re");
		if (!f) {
			p->err = -errno;
		} else {
			read_credentials(p, path, f);
			fclose(f);
			return;
		}
	}
	close(fd);
}

/* True if @endpoint's host is an IPv4 or IPv6 address. */
static bool endpoint_is_ip(const char *endpoint)
{
	const char *host = strstr(endpoint, "://") + 3;
	unsigned char addr[16];
	char buf[64];
	size_t len;

	if (*host == '[')
		return true;
	len = strcspn(host, ":");
	if (len >= sizeof(buf))
		return false;
	memcpy(buf, host, len);
	buf[len] = '\0';
	return inet_pton(AF_INET, buf, addr) == 1;
}

static const int other_keys[] = {
	KEY_UPLOAD_ENDPOINT,   KEY_UPLOAD_REGION,    KEY_UPLOAD_PATH_STYLE, KEY_UPLOAD_CREDENTIALS,
	KEY_UPLOAD_KEEP_LOCAL, KEY_UPLOAD_RETRY_MIN, KEY_UPLOAD_RETRY_MAX,
};

/**
 * config_upload__finish - [upload] checks that need the whole file
 * @p: the parser, after the last line
 *
 * Without url, no other [upload] key may be set. With it, credentials are
 * required and read; region defaults to us-east-1 and the endpoint to that
 * region's AWS one.
 */
void config_upload__finish(struct config_reader *p)
{
	struct perfsnapd_config *cfg = p->cfg;

	if (!p->key_line[KEY_UPLOAD_URL]) {
		for (size_t i = 0; i < sizeof(other_keys) / sizeof(other_keys[0]); i++)
			if (p->key_line[other_keys[i]])
				config_reader__diag(
					p, p->key_line[other_keys[i]],
					"[upload] %s: set without [upload] url: accepted: an url = s3://BUCKET/PREFIX line too, or no [upload] keys",
					config_keys[other_keys[i]].name);
		return;
	}
	if (p->key_failed[KEY_UPLOAD_URL])
		return;
	if (!cfg->upload_region && !set_string(p, &cfg->upload_region, DEFAULT_REGION))
		return;
	if (!cfg->upload_endpoint && asprintf(&cfg->upload_endpoint, "https://s3.%s.amazonaws.com",
					      cfg->upload_region) < 0) {
		cfg->upload_endpoint = NULL;
		p->err = -ENOMEM;
		return;
	}
	if (!p->key_failed[KEY_UPLOAD_ENDPOINT] && !cfg->upload_path_style &&
	    endpoint_is_ip(cfg->upload_endpoint))
		config_reader__diag(
			p, p->key_line[KEY_UPLOAD_ENDPOINT],
			"[upload] endpoint: '%s' is an IP address, which cannot carry the bucket in its host name: accepted: path_style = yes with it, or a DNS name",
			cfg->upload_endpoint);
	if (cfg->upload_retry_max_ms < cfg->upload_retry_min_ms)
		config_reader__diag(
			p, p->key_line[KEY_UPLOAD_RETRY_MAX],
			"[upload] retry_max: shorter than retry_min: accepted: a duration of at least retry_min");
	if (!p->key_line[KEY_UPLOAD_CREDENTIALS])
		config_reader__diag(
			p, p->key_line[KEY_UPLOAD_URL],
			"[upload] url: set without credentials: accepted: a credentials = /etc/perfsnapd/upload.credentials line (" CRED_ACCEPTED
			")");
	else if (!p->key_failed[KEY_UPLOAD_CREDENTIALS])
		load_credentials(p);
}

static void free_secret(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

/* Frees the [upload] fields of @cfg, wiping the secrets. */
void config_upload__free(struct perfsnapd_config *cfg)
{
	free(cfg->upload_url);
	free(cfg->upload_bucket);
	free(cfg->upload_prefix);
	free(cfg->upload_endpoint);
	free(cfg->upload_region);
	free(cfg->upload_credentials);
	free_secret(cfg->upload_key_id);
	free_secret(cfg->upload_secret);
	free_secret(cfg->upload_token);
}
