// SPDX-License-Identifier: GPL-2.0-only
/* intern: see intern.h. Open addressing, linear probing, FNV-1a hashes. */
#include <stdlib.h>
#include <string.h>

#include "intern.h"

struct intern_slot {
	uint64_t hash;
	uint64_t iid; /* 0: free */
	size_t key_off, key_len;
};

static uint64_t hash_of(const uint8_t *p, size_t len)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

void intern_table__fini(struct intern_table *t)
{
	free(t->slots);
	free(t->keys);
	*t = (struct intern_table){ 0 };
}

static struct intern_slot *find(const struct intern_table *t, uint64_t h, const void *key,
				size_t len)
{
	size_t i = h & (t->cap - 1);

	for (;; i = (i + 1) & (t->cap - 1)) {
		struct intern_slot *s = &t->slots[i];

		if (!s->iid ||
		    (s->hash == h && s->key_len == len && !memcmp(t->keys + s->key_off, key, len)))
			return s;
	}
}

static int grow(struct intern_table *t)
{
	struct intern_table n = *t;

	n.cap = t->cap ? t->cap * 2 : 256;
	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		struct intern_slot *s = &t->slots[i];
		size_t j = s->hash & (n.cap - 1);

		if (!s->iid)
			continue;
		while (n.slots[j].iid)
			j = (j + 1) & (n.cap - 1);
		n.slots[j] = *s;
	}
	free(t->slots);
	*t = n;
	return 0;
}

uint64_t intern_table__get(struct intern_table *t, const void *key, size_t len, bool *is_new)
{
	uint64_t h = hash_of(key, len);
	struct intern_slot *s;

	*is_new = false;
	if ((t->nr + 1) * 4 > t->cap * 3 && grow(t))
		return 0;
	s = find(t, h, key, len);
	if (s->iid)
		return s->iid;
	if (t->keys_len + len > t->keys_cap) {
		size_t cap = t->keys_cap ? t->keys_cap : 4096;
		uint8_t *p;

		while (cap < t->keys_len + len)
			cap *= 2;
		p = realloc(t->keys, cap);
		if (!p)
			return 0;
		t->keys = p;
		t->keys_cap = cap;
	}
	if (len) /* the empty key ("" in pprof's string table) has no bytes, maybe no buffer */
		memcpy(t->keys + t->keys_len, key, len);
	*s = (struct intern_slot){
		.hash = h, .iid = ++t->nr, .key_off = t->keys_len, .key_len = len
	};
	t->keys_len += len;
	*is_new = true;
	return s->iid;
}
