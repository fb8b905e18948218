// SPDX-License-Identifier: GPL-2.0-only
/* member_budget: see member_budget.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "member_budget.h"

#define HOUR_NS (3600ull * 1000000000ull)

struct member {
	uid_t uid;
	unsigned int nr;
	uint64_t at[MEMBER_BUDGET_MAX]; /* its dumps within the hour, oldest first */
};

struct member_budget {
	struct member v[MEMBER_BUDGET_UIDS];
};

struct member_budget *member_budget__new(void)
{
	return calloc(1, sizeof(struct member_budget));
}

void member_budget__delete(struct member_budget *b)
{
	free(b);
}

static void expire(struct member *m, uint64_t now)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < m->nr; i++)
		if (now - m->at[i] < HOUR_NS)
			m->at[n++] = m->at[i];
	m->nr = n;
}

/* @uid's entry, or a free one (no dump within the hour) for it; NULL: none free. */
static struct member *find(struct member_budget *b, uid_t uid, uint64_t now)
{
	struct member *free_slot = NULL;

	for (size_t i = 0; i < MEMBER_BUDGET_UIDS; i++) {
		struct member *m = &b->v[i];

		expire(m, now);
		if (m->nr && m->uid == uid)
			return m;
		if (!m->nr && !free_slot)
			free_slot = m;
	}
	if (free_slot)
		free_slot->uid = uid;
	return free_slot;
}

int member_budget__check(struct member_budget *b, uid_t uid, unsigned int max, uint64_t now,
			 uint64_t *ret_wait_ns)
{
	struct member *m;

	if (!max)
		return 0;
	m = find(b, uid, now);
	if (!m)
		return -EUSERS;
	if (m->nr < max && m->nr < MEMBER_BUDGET_MAX)
		return 0;
	*ret_wait_ns = HOUR_NS - (now - m->at[0]);
	return -EDQUOT;
}

void member_budget__charge(struct member_budget *b, uid_t uid, uint64_t now)
{
	struct member *m = find(b, uid, now);

	if (!m)
		return;
	if (m->nr == MEMBER_BUDGET_MAX) {
		for (unsigned int i = 1; i < m->nr; i++)
			m->at[i - 1] = m->at[i];
		m->nr--;
	}
	m->at[m->nr++] = now;
}
