// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustar_reader: one pass over the headers into a sorted index of names;
 * lookups resolve links component by component. See ustar_reader.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_read.h"
#include "ustar_reader.h"

#define BLOCK	  512
#define NAME_MAX_ 4096	    /* longest name or link target (PATH_MAX) */
#define PAX_MAX	  (1 << 16) /* an extended header's records: a few names */
#define MAX_HOPS  16

enum member_type { MEMBER_FILE, MEMBER_DIR, MEMBER_SYMLINK, MEMBER_HARDLINK };

struct member {
	char *name;
	char *target; /* links: as the header says */
	uint64_t offset, size;
	size_t seq; /* a later member of one name replaces an earlier one, as tar -x does */
	enum member_type type;
};

struct ustar_reader {
	struct member *v;
	size_t nr, cap;
};

/* What a pax or GNU header says of the member after it. */
struct pending {
	char *path, *linkpath;
	bool has_size;
	uint64_t size;
};

static void pending_clear(struct pending *p)
{
	free(p->path);
	free(p->linkpath);
	*p = (struct pending){ 0 };
}

static int read_at(int fd, uint64_t off, void *buf, size_t len)
{
	int r = file_read__at(fd, off, buf, len);

	return r == -ENODATA ? -EINVAL : r; /* a member past the end: damaged */
}

/* An octal field (leading spaces, ending at NUL or space), or GNU's base-256. */
static int parse_number(const unsigned char *f, size_t len, uint64_t *ret)
{
	uint64_t v = 0;
	size_t i = 0;

	if (f[0] & 0x80) {
		for (i = 1; i < len; i++) {
			if (v >> 55)
				return -EINVAL;
			v = v << 8 | f[i];
		}
		*ret = v;
		return 0;
	}
	while (i < len && f[i] == ' ')
		i++;
	for (; i < len && f[i] && f[i] != ' '; i++) {
		if (f[i] < '0' || f[i] > '7' || v >> 60)
			return -EINVAL;
		v = v << 3 | (uint64_t)(f[i] - '0');
	}
	*ret = v;
	return 0;
}

static bool checksum_ok(const unsigned char *h)
{
	uint64_t want;
	unsigned long sum = 0;
	long ssum = 0;

	if (parse_number(h + 148, 8, &want) < 0)
		return false;
	for (size_t i = 0; i < BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];

		sum += c;
		ssum += (signed char)c;
	}
	return want == sum || (int64_t)want == ssum;
}

static char *field(const unsigned char *f, size_t len)
{
	size_t n = strnlen((const char *)f, len);
	char *s = malloc(n + 1);

	if (s) {
		memcpy(s, f, n);
		s[n] = '\0';
	}
	return s;
}

/* Data of a pax or GNU header, NUL-terminated. */
static int read_data(int fd, uint64_t off, uint64_t size, uint64_t max, char **ret)
{
	char *buf;
	int r;

	if (size > max)
		return -EINVAL;
	buf = malloc(size + 1);
	if (!buf)
		return -ENOMEM;
	r = read_at(fd, off, buf, size);
	if (r < 0) {
		free(buf);
		return r;
	}
	buf[size] = '\0';
	*ret = buf;
	return 0;
}

/* "LEN KEY=VALUE\n" records: path, linkpath and size; others do not matter here. */
static int parse_pax(const char *buf, size_t size, struct pending *p)
{
	for (size_t at = 0; at < size;) {
		const char *rec = buf + at, *eq, *val;
		char *end;
		unsigned long len = strtoul(rec, &end, 10);
		size_t vlen;

		if (end == rec || *end != ' ' || len < 5 || len > size - at || rec[len - 1] != '\n')
			return -EINVAL;
		eq = memchr(end, '=', len - (size_t)(end - rec));
		if (!eq)
			return -EINVAL;
		val = eq + 1;
		vlen = (size_t)(rec + len - 1 - val);
		if (vlen > NAME_MAX_)
			return -EINVAL;
		if (!strncmp(end + 1, "path=", 5) || !strncmp(end + 1, "linkpath=", 9)) {
			char **dst = end[1] == 'p' ? &p->path : &p->linkpath;

			free(*dst);
			*dst = strndup(val, vlen);
			if (!*dst)
				return -ENOMEM;
		} else if (!strncmp(end + 1, "size=", 5)) {
			p->size = strtoull(val, NULL, 10);
			p->has_size = true;
		}
		at += len;
	}
	return 0;
}

/* "./a/b/" as "a/b": names as lookups spell them. */
static void trim_name(char *s)
{
	size_t len, skip = 0;

	while (s[skip] == '/' || (s[skip] == '.' && s[skip + 1] == '/'))
		skip += s[skip] == '/' ? 1 : 2;
	memmove(s, s + skip, strlen(s + skip) + 1);
	len = strlen(s);
	while (len && s[len - 1] == '/')
		s[--len] = '\0';
}

static int add_member(struct ustar_reader *t, struct member *m)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct member *v;

		if (t->nr >= USTAR_READER_MAX_MEMBERS)
			return -E2BIG;
		v = realloc(t->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	m->seq = t->nr;
	t->v[t->nr++] = *m;
	return 0;
}

/* The member whose header is @h at @off; @p is what headers before it said. */
static int take_member(struct ustar_reader *t, const unsigned char *h, uint64_t off, uint64_t size,
		       struct pending *p)
{
	struct member m = { .offset = off + BLOCK, .size = size };
	char type = (char)h[156];
	int r;

	if (type == '0' || type == '\0' || type == '7')
		m.type = MEMBER_FILE;
	else if (type == '5')
		m.type = MEMBER_DIR;
	else if (type == '2' || type == '1')
		m.type = type == '2' ? MEMBER_SYMLINK : MEMBER_HARDLINK;
	else
		return 0; /* devices, FIFOs: nothing to find */
	if (p->path) {
		m.name = p->path;
		p->path = NULL;
	} else if (h[345]) {
		char *prefix = field(h + 345, 155), *name = field(h, 100);

		m.name = prefix && name ? malloc(strlen(prefix) + strlen(name) + 2) : NULL;
		if (m.name)
			strcat(strcat(strcpy(m.name, prefix), "/"), name);
		free(prefix);
		free(name);
	} else {
		m.name = field(h, 100);
	}
	if (m.name && m.type >= MEMBER_SYMLINK) {
		m.target = p->linkpath ? p->linkpath : field(h + 157, 100);
		p->linkpath = NULL;
	}
	if (!m.name || (m.type >= MEMBER_SYMLINK && !m.target)) {
		free(m.name);
		free(m.target);
		return -ENOMEM;
	}
	trim_name(m.name);
	r = m.name[0] ? add_member(t, &m) : 0;
	if (r < 0 || !m.name[0]) {
		free(m.name);
		free(m.target);
	}
	return r;
}

static bool zero_block(const unsigned char *h)
{
	for (size_t i = 0; i < BLOCK; i++)
		if (h[i])
			return false;
	return true;
}

static int index_headers(struct ustar_reader *t, int fd, uint64_t file_size)
{
	struct pending p = { 0 };
	unsigned char h[BLOCK];
	uint64_t off = 0, size;
	int r = 0;

	while (r == 0 && off + BLOCK <= file_size) {
		char *data = NULL;

		r = read_at(fd, off, h, BLOCK);
		if (r < 0 || zero_block(h))
			break;
		if (memcmp(h + 257, "ustar", 5) || !checksum_ok(h) ||
		    parse_number(h + 124, 12, &size) < 0) {
			r = -EINVAL;
			break;
		}
		if (p.has_size)
			size = p.size;
		if (size > file_size - off - BLOCK) {
			r = -EINVAL;
			break;
		}
		switch (h[156]) {
		case 'x':
			r = read_data(fd, off + BLOCK, size, PAX_MAX, &data);
			if (r == 0)
				r = parse_pax(data, size, &p);
			break;
		case 'g':
			break;
		case 'L':
		case 'K':
			r = read_data(fd, off + BLOCK, size, NAME_MAX_ + 1, &data);
			if (r == 0) {
				char **dst = h[156] == 'L' ? &p.path : &p.linkpath;

				free(*dst);
				*dst = data;
				data = NULL;
			}
			break;
		default:
			r = take_member(t, h, off, size, &p);
			pending_clear(&p);
		}
		free(data);
		off += BLOCK + (size + BLOCK - 1) / BLOCK * BLOCK;
	}
	pending_clear(&p);
	/* Cut short in a header. */
	if (r == 0 && off < file_size && off + BLOCK > file_size)
		r = -EINVAL;
	return r;
}

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

int ustar_reader__open(int fd, struct ustar_reader **ret)
{
	struct ustar_reader *t;
	struct stat st;
	int r;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < BLOCK)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	r = index_headers(t, fd, (uint64_t)st.st_size);
	if (r == 0 && !t->nr)
		r = -EINVAL;
	if (r < 0) {
		ustar_reader__delete(t);
		return r;
	}
	qsort(t->v, t->nr, sizeof(*t->v), cmp_member);
	*ret = t;
	return 0;
}

void ustar_reader__delete(struct ustar_reader *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nr; i++) {
		free(t->v[i].name);
		free(t->v[i].target);
	}
	free(t->v);
	free(t);
}

uint64_t ustar_reader__nr_members(const struct ustar_reader *t)
{
	return t->nr;
}

/* The last member named the @len bytes at @name. */
static const struct member *lookup(const struct ustar_reader *t, const char *name, size_t len)
{
	size_t lo = 0, hi = t->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(t->v[mid].name, name, len);

		if (c == 0 && t->v[mid].name[len])
			c = 1;
		if (c <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return !strncmp(t->v[lo - 1].name, name, len) && !t->v[lo - 1].name[len] ? &t->v[lo - 1] :
										   NULL;
}

/* "a/./b/../c" as "a/c" into @out; -EINVAL where ".." leaves the archive. */
static int normalize(const char *in, char *out, size_t size)
{
	size_t len = 0;

	while (*in) {
		size_t n = strcspn(in, "/");

		if (n == 2 && in[0] == '.' && in[1] == '.') {
			if (!len)
				return -EINVAL;
			while (len && out[len - 1] != '/')
				len--;
			if (len)
				len--;
		} else if (n && !(n == 1 && in[0] == '.')) {
			if (len + !!len + n + 1 > size)
				return -EINVAL;
			if (len)
				out[len++] = '/';
			memcpy(out + len, in, n);
			len += n;
		}
		in += n;
		while (*in == '/')
			in++;
	}
	out[len] = '\0';
	return 0;
}

/* @path with its first symbolic link replaced by its target; 1 if there was one. */
static int follow_one(const struct ustar_reader *t, char *path, size_t size)
{
	char joined[2 * NAME_MAX_ + 2];

	for (size_t end = 0;; end++) {
		const struct member *m;
		const char *slash;

		if (path[end] && path[end] != '/')
			continue;
		m = lookup(t, path, end);
		if (m && m->type == MEMBER_SYMLINK) {
			if (m->target[0] == '/')
				return -EINVAL;
			slash = memrchr(path, '/', end);
			snprintf(joined, sizeof(joined), "%.*s%s%s%s",
				 slash ? (int)(slash - path) : 0, path, slash ? "/" : "", m->target,
				 path + end);
			return normalize(joined, path, size) < 0 ? -EINVAL : 1;
		}
		if (!path[end])
			return 0;
	}
}

int ustar_reader__find(const struct ustar_reader *t, const char *name, uint64_t *ret_offset,
		       uint64_t *ret_size)
{
	char path[NAME_MAX_ + 1];
	const struct member *m;
	int r = 0, hops = 0;

	if (normalize(name, path, sizeof(path)) < 0 || !path[0])
		return -EINVAL;
	for (;;) {
		while ((r = follow_one(t, path, sizeof(path))) == 1)
			if (++hops > MAX_HOPS)
				return -ELOOP;
		if (r < 0)
			return r;
		m = lookup(t, path, strlen(path));
		if (!m || m->type != MEMBER_HARDLINK)
			break;
		/* A hard link names another member by its archive name. */
		if (++hops > MAX_HOPS || normalize(m->target, path, sizeof(path)) < 0)
			return hops > MAX_HOPS ? -ELOOP : -EINVAL;
	}
	if (!m || m->type != MEMBER_FILE)
		return -ENOENT;
	*ret_offset = m->offset;
	*ret_size = m->size;
	return 0;
}
