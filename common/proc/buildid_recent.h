/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buildid_recent: build-ids just read, by the identity a record gives its
 * mapping (device, inode and inode generation), trusted for a short while
 * without opening the file again. Each exec maps the same few objects, and
 * under a fork-heavy load checking each against its file cost more than
 * anything else the side-band does (docs/decisions.md, 2026-12-08).
 */
#ifndef PERFSNAPD_BUILDID_RECENT_H
#define PERFSNAPD_BUILDID_RECENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long an id read stands for its inode without a look at the file. */
#define BUILDID_RECENT_TRUST_NS 1000000000ull

struct buildid_recent;
struct elf_buildid;

/* NULL on ENOMEM. */
struct buildid_recent *buildid_recent__new(void);
void buildid_recent__delete(struct buildid_recent *r);
/* The heap it holds. */
size_t buildid_recent__bytes(void);

/*
 * @key: the MMAP2 record's 24 bytes of device, inode and generation.
 * find: 0 and the id read less than BUILDID_RECENT_TRUST_NS before @now
 * (CLOCK_MONOTONIC), else -ENOENT; @ret_refresh is set, once per read,
 * when the id is past half its trust: a read then, while the id still
 * answers, keeps an object mapped all the time from ever missing (and
 * every mapping of it until the read is back from being read again).
 * add: remembers @id as read at @now.
 */
int buildid_recent__find(struct buildid_recent *r, const uint8_t key[24], uint64_t now,
			 struct elf_buildid *ret, bool *ret_refresh);
void buildid_recent__add(struct buildid_recent *r, const uint8_t key[24], uint64_t now,
			 const struct elf_buildid *id);

#endif
