// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracing_meta: a TRACING_DATA blob and its parse, shared by reference.
 * See tracing_meta.h. No logging.
 */
#include <errno.h>
#include <stdlib.h>

#include "tracing_meta.h"

struct tracing_meta {
	int refs;
	void *blob;
	size_t size;
	struct tracing_data_info info; /* points into blob */
};

int tracing_meta__from_blob(void *data, size_t size, struct tracing_meta **ret, char *errbuf,
			    size_t errlen)
{
	struct tracing_meta *m = calloc(1, sizeof(*m));
	int r;

	if (!m) {
		free(data);
		return -ENOMEM;
	}
	m->refs = 1;
	m->blob = data;
	m->size = size;
	r = tracing_data__parse(data, size, &m->info, errbuf, errlen);
	if (r < 0) {
		tracing_meta__put(m);
		return r;
	}
	*ret = m;
	return 0;
}

/**
 * tracing_meta__read - the metadata of some tracepoints, from tracefs
 * @tracing_dir: tracefs mount point, or NULL for the system's
 * @events: tracepoint names, "system:event" (none: headers and printk only)
 * @nr_events: number of @events
 * @ret: the metadata, one reference
 *
 * Returns 0, -EINVAL for a malformed name, -ENOENT for an unknown event or
 * no tracefs, -EACCES, or -ENOMEM.
 */
int tracing_meta__read(const char *tracing_dir, const char *const *events, size_t nr_events,
		       struct tracing_meta **ret)
{
	void *blob = NULL;
	size_t size = 0;
	int r;

	r = tracing_data__build(tracing_dir, events, nr_events, &blob, &size);
	/* Our own blob parses, or the build is broken: -EPROTO says so. */
	return r < 0 ? r : tracing_meta__from_blob(blob, size, ret, NULL, 0);
}

struct tracing_meta *tracing_meta__get(struct tracing_meta *m)
{
	if (m)
		__atomic_add_fetch(&m->refs, 1, __ATOMIC_RELAXED);
	return m;
}

void tracing_meta__put(struct tracing_meta *m)
{
	if (!m || __atomic_sub_fetch(&m->refs, 1, __ATOMIC_ACQ_REL))
		return;
	tracing_data__release(&m->info);
	free(m->blob);
	free(m);
}

const void *tracing_meta__blob(const struct tracing_meta *m, size_t *ret_size)
{
	*ret_size = m->size;
	return m->blob;
}

const struct tracing_data_info *tracing_meta__info(const struct tracing_meta *m)
{
	return &m->info;
}
