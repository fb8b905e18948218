// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbol_pack: the objects a snapshot hits (snapshot_objects), opened
 * through symbol_cache, the smallest first within the cap, and the
 * kernel's symbols, as a ustar archive in perf's build-id cache layout.
 * See symbol_pack.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "byte_buffer.h"
#include "cleanup.h"
#include "dump_figures.h"
#include "elf_buildid.h"
#include "elf_symtab.h"
#include "monotonic.h"
#include "snapshot_objects.h"
#include "symbol_cache.h"
#include "symbol_pack.h"
#include "ustar.h"

#define KERNEL_DSO "[kernel.kallsyms]"
#define HEX_MAX	   (2 * ELF_BUILDID_MAX + 1)

struct candidate {
	const struct snapshot_object *obj;
	int fd;
	struct elf_buildid id;
	uint64_t size;
	bool packed;
};

static int cmp_size(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	return x->size < y->size ? -1 : x->size > y->size;
}

/* The file and its .build-id link: "<dir>/<hex>/<file>" for a dir "usr/bin/x". */
static int add_entry(struct ustar *t, const char *dir, const struct elf_buildid *id,
		     const char *file, int fd, const void *data, uint64_t size)
{
	char hex[HEX_MAX], name[PATH_MAX + 64], link[64], target[PATH_MAX + 64];
	int r, w;

	elf_buildid__hex(id, hex);
	if (snprintf(name, sizeof(name), "%s/%s/%s", dir, hex, file) >= (int)sizeof(name) ||
	    snprintf(target, sizeof(target), "../../%s/%s", dir, hex) >= (int)sizeof(target))
		return -ENAMETOOLONG;
	snprintf(link, sizeof(link), ".build-id/%.2s/%s", hex, hex + 2);
	w = fd >= 0 ? ustar__add_fd(t, name, fd, size, 0644) :
		      ustar__add_data(t, name, data, (size_t)size, 0644);
	/* A short copy leaves a whole member: linked, but said. */
	r = ustar__add_symlink(t, link, target);
	return r < 0 ? r : w;
}

/* A write error of the archive fails the pack; an object's own error does not. */
static bool archive_error(int r)
{
	return r < 0 && r != -ENAMETOOLONG && r != -EIO && r != -EFBIG;
}

/* Opens each object, sorting out what cannot be packed. */
static int open_objects(const struct snapshot_objects *objs, const struct symbol_pack_params *p,
			struct candidate *v, size_t *nr, struct dump_symbol_figures *ret)
{
	*nr = 0;
	for (size_t i = 0; i < snapshot_objects__nr(objs); i++) {
		const struct snapshot_object *o = snapshot_objects__object(objs, i);
		struct symbol_cache_key key = {
			.has_ino = o->has_ino,
			.maj = o->maj,
			.min = o->min,
			.ino = o->ino,
			.path = o->path,
		};
		struct candidate c = { .obj = o, .fd = -1 };
		bool dup = false;
		int r;

		key.id.size = o->id_size;
		memcpy(key.id.data, o->id, o->id_size);
		r = symbol_cache__open(p->cache, &key, &c.fd, &c.id, &c.size);
		if (r == -ENOMEM)
			return r;
		if (r == -EACCES || r == -EPERM)
			ret->nr_unreadable++;
		else if (r == -ENODATA || r == -ENOEXEC)
			ret->nr_no_buildid++;
		else if (r < 0)
			ret->nr_missing++;
		if (r < 0)
			continue;
		/* One object under two names (paths, or inodes of copies): once. */
		for (size_t j = 0; j < *nr && !dup; j++)
			dup = v[j].id.size == c.id.size &&
			      !memcmp(v[j].id.data, c.id.data, c.id.size);
		if (dup) {
			close(c.fd);
			continue;
		}
		v[(*nr)++] = c;
	}
	return 0;
}

/* The objects over the cap, the largest first: the first few by name. */
static void list_over_cap(const struct candidate *v, size_t nr, struct dump_symbol_figures *ret)
{
	for (size_t i = nr; i-- > 0;) {
		size_t k;

		if (v[i].packed)
			continue;
		k = ret->nr_over_cap++;

		ret->over_cap_bytes += v[i].size;
		if (k < DUMP_SYMBOLS_LISTED) {
			snprintf(ret->over_cap[k].path, sizeof(ret->over_cap[k].path), "%s",
				 v[i].obj->path);
			ret->over_cap[k].bytes = v[i].size;
		}
	}
}

/*
 * @c as a copy with only its symbol tables (elf_symtab), made in memory,
 * if that takes at most @room bytes. Returns 0 (packed), -EFBIG (no copy,
 * or one that does not fit: it stays over the cap), or an error of the
 * archive (or of the object's own member, as add_entry).
 */
static int pack_symbols_only(struct ustar *t, struct candidate *c, uint64_t room, uint64_t *total)
{
	_cleanup_close_ int mfd = memfd_create("perfsnapd-symbols", MFD_CLOEXEC);
	uint64_t size = 0;
	int r;

	if (mfd < 0 || elf_symtab__copy(c->fd, mfd, room, &size) < 0 || size > room)
		return -EFBIG;
	r = add_entry(t, c->obj->path + 1, &c->id, "elf", mfd, NULL, size);
	c->packed = r == 0;
	if (!archive_error(r))
		*total += size;
	return r;
}

static int pack_objects(struct ustar *t, struct candidate *v, size_t nr,
			const struct symbol_pack_params *p, struct dump_symbol_figures *ret)
{
	uint64_t max = p->max_bytes ? p->max_bytes : SYMBOL_PACK_MAX_BYTES, total = 0;
	size_t i;
	int r;

	qsort(v, nr, sizeof(*v), cmp_size);
	for (i = 0; i < nr && total + v[i].size <= max; i++) {
		total += v[i].size;
		/* Relative: the archive extracts under DIR. */
		r = add_entry(t, v[i].obj->path + 1, &v[i].id, "elf", v[i].fd, NULL, v[i].size);
		if (archive_error(r))
			return r;
		v[i].packed = true;
		if (r < 0)
			ret->nr_missing++;
		else
			ret->nr_packed++;
	}
	/* Too big whole: their symbol tables, while they fit. */
	for (; i < nr; i++) {
		r = pack_symbols_only(t, &v[i], max - total, &total);
		if (archive_error(r))
			return r;
		if (r == 0)
			ret->nr_symbols_only++;
	}
	list_over_cap(v, nr, ret);
	return 0;
}

/* The GNU build-id note among the kernel's notes (a bare note list). */
static int kernel_build_id(const char *path, struct elf_buildid *id)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t buf[4096];
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	size_t off = 0;

	if (fd < 0 || n < 0)
		return -errno;
	while (off + 12 <= (size_t)n) {
		uint32_t h[3]; /* namesz, descsz, type */
		size_t name, desc;

		memcpy(h, buf + off, sizeof(h));
		name = off + 12;
		desc = name + ((h[0] + 3u) & ~3u);
		if (desc + h[1] > (size_t)n)
			break;
		if (h[2] == 3 && h[0] == 4 && !memcmp(buf + name, "GNU", 4) && h[1] &&
		    h[1] <= ELF_BUILDID_MAX) {
			id->size = (uint8_t)h[1];
			memcpy(id->data, buf + desc, h[1]);
			return 0;
		}
		off = desc + ((h[1] + 3u) & ~3u);
	}
	return -ENODATA;
}

struct ksym {
	uint64_t addr;
	size_t line, len; /* in the kallsyms text */
	bool keep;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int read_all(const char *path, struct byte_buffer *b)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t n;
	int r;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if ((r = byte_buffer__put(b, buf, (size_t)n)) < 0)
			return r;
	return n < 0 ? -errno : 0;
}

/* Whether a line is one perf needs to place the kernel map ("_text", "_stext"). */
static bool is_anchor(const char *line, size_t len)
{
	const char *name = memchr(line, ' ', len);

	name = name ? memchr(name + 1, ' ', len - (size_t)(name + 1 - line)) : NULL;
	if (!name)
		return false;
	name++;
	len -= (size_t)(name - line);
	return (len == 5 && !memcmp(name, "_text", 5)) || (len == 6 && !memcmp(name, "_stext", 6));
}

/*
 * The kallsyms lines of the symbols the addresses fall in, each with the
 * next symbol up (perf ends a symbol where the next begins), in @out.
 * Returns the number of lines, or -errno.
 */
static int64_t kallsyms_lines(const char *text, size_t size, const uint64_t *ips, size_t nr_ips,
			      struct byte_buffer *out)
{
	_cleanup_free_ struct ksym *v = NULL;
	size_t nr = 0, cap = 0, pos = 0;
	int64_t kept = 0;
	bool any_addr = false;

	while (pos < size) {
		const char *nl = memchr(text + pos, '\n', size - pos);
		size_t len = nl ? (size_t)(nl - text - pos) : size - pos;
		char *end;
		uint64_t addr = strtoull(text + pos, &end, 16);

		if (end != text + pos && *end == ' ') {
			if (nr == cap) {
				struct ksym *m = realloc(v, (cap = cap ? cap * 2 : 65536) *
								    sizeof(*v));

				if (!m)
					return -ENOMEM;
				v = m;
			}
			v[nr++] = (struct ksym){ .addr = addr, .line = pos, .len = len };
			any_addr |= addr != 0;
		}
		pos += len + 1;
	}
	/* kptr_restrict: every address reads 0. */
	if (!any_addr)
		return -EACCES;
	qsort(v, nr, sizeof(*v), cmp_ksym);
	for (size_t i = 0, k = 0; i < nr_ips; i++) {
		/* The last symbol at or below the address (the addresses ascend too). */
		while (k + 1 < nr && v[k + 1].addr <= ips[i])
			k++;
		if (v[k].addr > ips[i])
			continue;
		v[k].keep = true;
		for (size_t j = k + 1; j < nr; j++)
			if (v[j].addr > v[k].addr) {
				v[j].keep = true;
				break;
			}
	}
	for (size_t i = 0; i < nr; i++) {
		int r;

		if (!v[i].keep && !is_anchor(text + v[i].line, v[i].len))
			continue;
		r = byte_buffer__put(out, text + v[i].line, v[i].len);
		if (r == 0)
			r = byte_buffer__put(out, "\n", 1);
		if (r < 0)
			return r;
		kept++;
	}
	return kept;
}

static int pack_kernel(struct ustar *t, const struct snapshot_objects *objs,
		       const struct symbol_pack_params *p, struct dump_symbol_figures *ret)
{
	struct byte_buffer text = { 0 }, lines = { 0 };
	struct elf_buildid id = { 0 };
	size_t nr_ips;
	const uint64_t *ips = snapshot_objects__kernel_ips(objs, &nr_ips);
	int64_t n;
	int r;

	r = kernel_build_id(p->kernel_notes ? p->kernel_notes : "/sys/kernel/notes", &id);
	if (r == 0)
		r = read_all(p->kallsyms ? p->kallsyms : "/proc/kallsyms", &text);
	n = r < 0 ? r : kallsyms_lines((const char *)text.data, text.len, ips, nr_ips, &lines);
	byte_buffer__fini(&text);
	if (n < 0) {
		byte_buffer__fini(&lines);
		ret->kernel_error = (int)n;
		return n == -ENOMEM ? -ENOMEM : 0;
	}
	r = add_entry(t, KERNEL_DSO, &id, "kallsyms", -1, lines.data, lines.len);
	byte_buffer__fini(&lines);
	if (r == 0)
		ret->nr_kernel_symbols = (uint64_t)n;
	else
		ret->kernel_error = r;
	return archive_error(r) ? r : 0;
}

int symbol_pack__write(const struct snapshot *s, const struct symbol_pack_params *p, int fd,
		       struct dump_symbol_figures *ret)
{
	struct snapshot_objects *objs = snapshot_objects__new();
	_cleanup_free_ struct candidate *v = NULL;
	struct ustar *t = NULL;
	uint64_t t0 = monotonic_ns();
	size_t nr = 0, nr_ips = 0;
	int r;

	memset(ret, 0, sizeof(*ret));
	r = objs ? snapshot_objects__find(objs, s) : -ENOMEM;
	if (r < 0) {
		snapshot_objects__delete(objs);
		return r;
	}
	ret->nr_objects = snapshot_objects__nr(objs);
	snapshot_objects__kernel_ips(objs, &nr_ips);
	v = calloc(ret->nr_objects ? ret->nr_objects : 1, sizeof(*v));
	r = v ? ustar__new(fd, 0, &t) : -ENOMEM;
	if (r == 0)
		r = open_objects(objs, p, v, &nr, ret);
	if (r == 0)
		r = pack_objects(t, v, nr, p, ret);
	if (r == 0 && nr_ips)
		r = pack_kernel(t, objs, p, ret);
	if (r == 0)
		r = ustar__finish(t);
	for (size_t i = 0; i < nr; i++)
		close(v[i].fd);
	ustar__delete(t);
	snapshot_objects__delete(objs);
	ret->pack_ns = monotonic_ns() - t0;
	return r;
}
