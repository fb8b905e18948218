// SPDX-License-Identifier: GPL-2.0-only
/* test_records: see test_records.h. */
#include <string.h>

#include "test_records.h"

void rec_put(uint8_t **p, const void *v, size_t n)
{
	memcpy(*p, v, n);
	*p += n;
}

void rec_put_u64(uint8_t **p, uint64_t v)
{
	rec_put(p, &v, 8);
}

void rec_put_u32_pair(uint8_t **p, uint32_t a, uint32_t b)
{
	rec_put(p, &a, 4);
	rec_put(p, &b, 4);
}

void rec_put_trailer(uint8_t **p, uint32_t tid, uint64_t time, uint32_t cpu, uint64_t id)
{
	rec_put_u32_pair(p, tid, tid);
	rec_put_u64(p, time);
	rec_put_u32_pair(p, cpu, 0);
	rec_put_u64(p, id);
}
