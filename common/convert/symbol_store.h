/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbol_store: objects by build-id for a converter's symbolizer (a
 * symbols_source), from a snapshot's symbol pack (<stem>.symbols.tar,
 * read in place) or a directory in perf's build-id cache layout (the pack
 * extracted, ~/.debug): .build-id/XX/REST/elf (kallsyms for the kernel),
 * .build-id/XX/REST as a file (older caches), or PATH/HEX/elf.
 */
#ifndef PERFSNAPD_SYMBOL_STORE_H
#define PERFSNAPD_SYMBOL_STORE_H

#include "symbols.h"

struct symbol_store;

/*
 * The store at @path: a directory, or a tar archive. Returns 0, -ENOENT,
 * -EINVAL (neither a directory nor a tar archive, or a damaged one),
 * -E2BIG (an archive of too many members), -ENOMEM or -errno.
 */
int symbol_store__open(const char *path, struct symbol_store **ret);
void symbol_store__delete(struct symbol_store *st);

/* The source that reads @st (valid while @st is). */
void symbol_store__source(struct symbol_store *st, struct symbols_source *ret);

/* Objects handed out so far (the kernel's symbols count as one). */
unsigned long symbol_store__nr_found(const struct symbol_store *st);

#endif
