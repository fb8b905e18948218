// SPDX-License-Identifier: GPL-2.0-only
/*
 * upload_state: the ".<stem>.upload" file beside a snapshot's files, which
 * says what of it is in the bucket. It is a few text lines,
 *
 *	perfsnapd-upload 1
 *	state failing
 *	key fleet/host1/
 *	attempts 2
 *	error HTTP 503 SlowDown: Please reduce your request rate.
 *	file host1-20261201-101500.123-4.perf.data 1
 *	file host1-20261201-101500.123-4.json 0
 *
 * written to ".<stem>.upload.tmp" and renamed over the old one
 * (file_publish__write_file()), so a crash leaves the old state or the
 * new, never a mix. A hidden name keeps it out of retention's and
 * perfsnapctl list's way. No secret is ever in it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "file_publish.h"
#include "snapshot_name.h"
#include "upload-internal.h"

#define MAGIC "perfsnapd-upload 1"

static const char *const state_names[] = {
	[UPLOAD_NONE] = "none",	    [UPLOAD_PENDING] = "pending",   [UPLOAD_FAILING] = "failing",
	[UPLOAD_FAILED] = "failed", [UPLOAD_UPLOADED] = "uploaded",
};

static int state_path(const struct upload_item *it, char *buf, size_t size)
{
	if ((size_t)snprintf(buf, size, "%s/.%s" UPLOAD_STATE_SUFFIX, it->dir, it->stem) >= size)
		return -ENAMETOOLONG;
	return 0;
}

/* One line of text: no newline may reach the file from an error message. */
static void put_text(FILE *f, const char *name, const char *text)
{
	fprintf(f, "%s ", name);
	for (; *text; text++)
		fputc(*text == '\n' || *text == '\r' ? ' ' : *text, f);
	fputc('\n', f);
}

/**
 * upload_state__write - replace an item's state file
 * @it: the item
 * @sync: fsync the file and the directory (a state change that must
 *	survive a power loss); without it a crash of perfsnapd alone keeps it
 *
 * Returns 0 or -errno; on failure the old state file stays (unless the
 * directory's sync failed, after the new one replaced it).
 */
int upload_state__write(const struct upload_item *it, bool sync)
{
	char name[NAME_MAX + 1], temp[NAME_MAX + 1];
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if ((size_t)snprintf(name, sizeof(name), ".%s" UPLOAD_STATE_SUFFIX, it->stem) >=
		    sizeof(name) ||
	    (size_t)snprintf(temp, sizeof(temp), "%s.tmp", name) >= sizeof(temp))
		return -ENAMETOOLONG;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, MAGIC "\nstate %s\n", state_names[it->state]);
	put_text(f, "key", it->key);
	fprintf(f, "attempts %u\nrefusals %u\n", it->attempts, it->refusals);
	if (it->error[0])
		put_text(f, "error", it->error);
	for (int i = 0; i < it->nr_files; i++)
		fprintf(f, "file %s %d\n", it->files[i], it->done[i]);
	r = ferror(f) ? -ENOMEM : 0;
	if (fclose(f) && r == 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	return file_publish__write_file(it->dir, name, temp, 0640,
					FILE_PUBLISH_REPLACE | (sync ? 0 : FILE_PUBLISH_NO_SYNC),
					text, len);
}

static int parse_line(struct upload_item *it, char *line)
{
	char *value = strchr(line, ' ');
	struct snapshot_name n;
	unsigned int k;

	if (!value)
		return -EINVAL;
	*value++ = '\0';
	if (!strcmp(line, "state")) {
		for (k = UPLOAD_PENDING; k <= UPLOAD_UPLOADED; k++)
			if (!strcmp(value, state_names[k]))
				break;
		if (k > UPLOAD_UPLOADED)
			return -EINVAL;
		it->state = k;
	} else if (!strcmp(line, "key")) {
		snprintf(it->key, sizeof(it->key), "%s", value);
	} else if (!strcmp(line, "attempts")) {
		it->attempts = strtoul(value, NULL, 10);
	} else if (!strcmp(line, "refusals")) {
		it->refusals = strtoul(value, NULL, 10);
	} else if (!strcmp(line, "error")) {
		snprintf(it->error, sizeof(it->error), "%s", value);
	} else if (!strcmp(line, "file")) {
		char *flag = strrchr(value, ' ');

		if (!flag || it->nr_files >= UPLOAD_MAX_FILES || strchr(value, '/'))
			return -EINVAL;
		*flag++ = '\0';
		/* Only a file of this very snapshot (snapshot_name's shapes). */
		if (strlen(value) > NAME_MAX || snapshot_name__parse(value, &n) < 0 ||
		    n.stem_len != strlen(it->stem) || strncmp(value, it->stem, n.stem_len))
			return -EINVAL;
		strcpy(it->files[it->nr_files], value);
		it->done[it->nr_files++] = !strcmp(flag, "1");
	}
	/* Unknown lines are a newer perfsnapd's: ignored. */
	return 0;
}

/**
 * upload_state__read - load a state file
 * @dir: the snapshot directory
 * @name: ".<stem>.upload"
 * @it: filled in (dir, stem and what the file says)
 *
 * Returns 0, -EINVAL for a file that is not a state file, or -errno.
 */
int upload_state__read(const char *dir, const char *name, struct upload_item *it)
{
	size_t len = strlen(name), suffix = strlen(UPLOAD_STATE_SUFFIX);
	char path[PATH_MAX], *line = NULL;
	struct snapshot_name parsed;
	size_t size = 0;
	ssize_t n;
	int fd, r = 0;
	FILE *f;

	memset(it, 0, sizeof(*it));
	if (name[0] != '.' || len <= suffix + 1 || len - suffix - 1 > NAME_MAX ||
	    strcmp(name + len - suffix, UPLOAD_STATE_SUFFIX))
		return -EINVAL;
	snprintf(it->dir, sizeof(it->dir), "%s", dir);
	memcpy(it->stem, name + 1, len - suffix - 1);
	if (snapshot_name__parse_stem(it->stem, strlen(it->stem), &parsed) < 0)
		return -EINVAL;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		r = -errno;
		close(fd);
		return r;
	}
	n = getline(&line, &size, f);
	if (n <= 0 || strncmp(line, MAGIC "\n", n))
		r = -EINVAL;
	while (r == 0 && (n = getline(&line, &size, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		r = parse_line(it, line);
	}
	if (r == 0 && (!it->state || !it->nr_files))
		r = -EINVAL;
	free(line);
	fclose(f);
	return r;
}

/* Unlinks the item's state file; a missing one is fine. */
int upload_state__remove(const struct upload_item *it)
{
	char path[PATH_MAX];
	int r = state_path(it, path, sizeof(path));

	if (r == 0 && unlink(path) < 0 && errno != ENOENT)
		r = -errno;
	return r;
}

/**
 * upload_state__name - the word for a state, as status and list show it
 * @s: the state
 */
const char *upload_state__name(enum upload_state s)
{
	return s == UPLOAD_NONE ? "-" : state_names[s];
}
