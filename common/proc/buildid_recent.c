// SPDX-License-Identifier: GPL-2.0-only
/*
 * buildid_recent: build-ids by their record's inode, for a second. See
 * buildid_recent.h.
 *
 * A second because an object rewritten in place while mapped (the one
 * change that keeps its inode and generation) is rare and the id taken
 * at a drain is already up to a drain late; a hit costs no system call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buildid_recent.h"
#include "elf_buildid.h"

/*
 * Four ways to a set: a build maps some hundred objects, and two of them
 * sharing one slot (libz and liblber under cmake, say) would evict each
 * other at every mapping.
 */
#define SETS 128
#define WAYS 4

struct slot {
	uint8_t key[24];
	uint64_t at; /* 0: empty */
	struct elf_buildid id;
	bool refresh_asked;
};

struct buildid_recent {
	struct slot slots[SETS][WAYS];
};

struct buildid_recent *buildid_recent__new(void)
{
	return calloc(1, sizeof(struct buildid_recent));
}

void buildid_recent__delete(struct buildid_recent *r)
{
	free(r);
}

size_t buildid_recent__bytes(void)
{
	return sizeof(struct buildid_recent);
}

/* The set of @key: the product's top bits, the best mixed. */
static struct slot *set_of(struct buildid_recent *r, const uint8_t key[24])
{
	uint64_t ino, dev;

	memcpy(&dev, key, 8);
	memcpy(&ino, key + 8, 8);
	return r->slots[((ino ^ dev * 31) * 0x9E3779B97F4A7C15ull) >> (64 - 7)];
}

_Static_assert(SETS == 1 << 7, "set_of() takes 7 bits");

static struct slot *find(struct slot *set, const uint8_t key[24])
{
	for (int i = 0; i < WAYS; i++)
		if (set[i].at && !memcmp(set[i].key, key, sizeof(set[i].key)))
			return &set[i];
	return NULL;
}

int buildid_recent__find(struct buildid_recent *r, const uint8_t key[24], uint64_t now,
			 struct elf_buildid *ret, bool *ret_refresh)
{
	struct slot *s = find(set_of(r, key), key);

	*ret_refresh = false;
	if (!s || now < s->at || now - s->at >= BUILDID_RECENT_TRUST_NS)
		return -ENOENT;
	if (!s->refresh_asked && now - s->at >= BUILDID_RECENT_TRUST_NS / 2)
		*ret_refresh = s->refresh_asked = true;
	*ret = s->id;
	return 0;
}

void buildid_recent__add(struct buildid_recent *r, const uint8_t key[24], uint64_t now,
			 const struct elf_buildid *id)
{
	struct slot *set = set_of(r, key), *s = find(set, key);

	if (!s) {
		/* The way read longest ago; an empty one (at 0) first. */
		s = &set[0];
		for (int i = 1; i < WAYS; i++)
			if (set[i].at < s->at)
				s = &set[i];
	}
	memcpy(s->key, key, sizeof(s->key));
	s->at = now ? now : 1;
	s->id = *id;
	s->refresh_asked = false;
}
