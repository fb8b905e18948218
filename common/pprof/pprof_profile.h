/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pprof_profile: a profile in pprof's format (profile.proto of
 * github.com/google/pprof, gzipped), built up in memory and written once.
 * Everything that repeats is interned: strings, mappings, functions,
 * locations; samples with the same locations and labels are one Sample
 * whose values are summed. Memory is those tables, never one entry per
 * input sample.
 *
 * Ids and string indexes are what profile.proto calls them: mapping,
 * location and function ids count from 1 (0: none), string index 0 is "".
 * Errors are sticky: after the first, calls do nothing and
 * pprof_profile__write() returns it.
 */
#ifndef PERFSNAPD_PPROF_PROFILE_H
#define PERFSNAPD_PPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pprof_profile;

struct pprof_mapping {
	uint64_t start, limit, offset;
	const char *filename;
	const char *build_id; /* hex; NULL or "": none */
};

/* A label: a string one (str) or, with str NULL, a number. */
struct pprof_label {
	const char *key;
	const char *str;
	int64_t num;
};

struct pprof_profile *pprof_profile__new(void);
void pprof_profile__delete(struct pprof_profile *p);

/* The index of @s in the string table (0 for ""); 0 after an error too. */
uint64_t pprof_profile__string(struct pprof_profile *p, const char *s);

/*
 * A sample type: every one before the first sample. Returns its index in
 * Sample.value, or -errno.
 */
int pprof_profile__add_sample_type(struct pprof_profile *p, const char *type, const char *unit);

/* The mapping's id, the same for the same fields; 0 on error. */
uint64_t pprof_profile__mapping(struct pprof_profile *p, const struct pprof_mapping *m);
/*
 * The location of @address in mapping @mapping_id (0: unknown), in
 * function @function (NULL: unnamed); the same id for the same mapping and
 * address. 0 on error.
 */
uint64_t pprof_profile__location(struct pprof_profile *p, uint64_t mapping_id, uint64_t address,
				 const char *function);

/*
 * Adds @values (one per sample type) to the sample of these locations
 * (leaf first) and labels. Returns 0 or -errno.
 */
int pprof_profile__add_sample(struct pprof_profile *p, const uint64_t *locations, size_t nr,
			      const struct pprof_label *labels, size_t nr_labels,
			      const int64_t *values);

/* time_nanos (0: not set) and duration_nanos. */
void pprof_profile__set_time(struct pprof_profile *p, int64_t time_nanos, int64_t duration_nanos);
void pprof_profile__set_period(struct pprof_profile *p, const char *type, const char *unit,
			       int64_t period);
void pprof_profile__set_default_sample_type(struct pprof_profile *p, const char *type);
void pprof_profile__add_comment(struct pprof_profile *p, const char *comment);

/* Distinct samples, locations, functions and mappings so far. */
struct pprof_profile_stats {
	uint64_t nr_samples, nr_locations, nr_functions, nr_mappings;
};
void pprof_profile__stats(const struct pprof_profile *p, struct pprof_profile_stats *ret);

/*
 * Writes the profile, gzipped, to @fd from its current offset; *@ret_bytes
 * (may be NULL): the bytes written. Returns 0 or -errno.
 */
int pprof_profile__write(struct pprof_profile *p, int fd, uint64_t *ret_bytes);
/* The same, not compressed, into @buf (for tests): the Profile message. */
int pprof_profile__encode(struct pprof_profile *p, uint8_t **ret_buf, size_t *ret_len);

#endif
