/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * member_budget: the dumps each member of the control group (a uid
 * other than root) asked for in the last hour, so that one member
 * looping "perfsnapctl dump" cannot spend the hour's dumps, or the disk,
 * that triggers and root need. A fixed table: at most
 * MEMBER_BUDGET_UIDS members dumping in one hour, each counted up to
 * MEMBER_BUDGET_MAX dumps.
 */
#ifndef PERFSNAPD_MEMBER_BUDGET_H
#define PERFSNAPD_MEMBER_BUDGET_H

#include <stdint.h>
#include <sys/types.h>

#define MEMBER_BUDGET_UIDS 64
#define MEMBER_BUDGET_MAX  64 /* [control] member_max_per_hour's limit */

struct member_budget;

struct member_budget *member_budget__new(void);
void member_budget__delete(struct member_budget *b);

/*
 * Whether @uid may ask for one more dump at @now (CLOCK_MONOTONIC ns),
 * @max per hour (0: unlimited). Returns 0, -EDQUOT with *@ret_wait_ns
 * until its oldest dump of the hour expires, or -EUSERS when the table
 * is full of members who dumped this hour.
 */
int member_budget__check(struct member_budget *b, uid_t uid, unsigned int max, uint64_t now,
			 uint64_t *ret_wait_ns);
/* Counts a dump @uid asked for (after member_budget__check() allowed it). */
void member_budget__charge(struct member_budget *b, uid_t uid, uint64_t now);

#endif
