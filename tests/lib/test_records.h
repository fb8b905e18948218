/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_records: building perf records by hand in the tests: values laid
 * out at a cursor, and the sample_id_all trailer of the tests' usual
 * sample_type (TID | TIME | CPU | IDENTIFIER).
 */
#ifndef PERFSNAPD_TEST_RECORDS_H
#define PERFSNAPD_TEST_RECORDS_H

#include <stddef.h>
#include <stdint.h>

/* Copies @n bytes to *@p and moves it on. */
void rec_put(uint8_t **p, const void *v, size_t n);
void rec_put_u64(uint8_t **p, uint64_t v);
void rec_put_u32_pair(uint8_t **p, uint32_t a, uint32_t b);
/* pid and tid (both @tid), time, cpu and a reserved 0, the identifier. */
void rec_put_trailer(uint8_t **p, uint32_t tid, uint64_t time, uint32_t cpu, uint64_t id);

#endif
