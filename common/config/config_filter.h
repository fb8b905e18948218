/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config_filter: a paired trigger's filter, in the kernel's event filter
 * syntax, as the terms and the postfix program the BPF path evaluates:
 * comparisons of an integer field with a number (==, !=, <, <=, >, >=, &)
 * combined by &&, || and !, with parentheses. Anything else (strings,
 * globs, arrays) is left to the fallback, which hands the filter to the
 * kernel as it is.
 */
#ifndef PERFSNAPD_CONFIG_FILTER_H
#define PERFSNAPD_CONFIG_FILTER_H

#include "config.h"

/* @name as an integer field of the event into @f; 0, or -errno where it is not one. */
typedef int (*config_filter_field_fn)(void *ctx, const char *name, struct trigger_field *f);

/*
 * Compiles @filter into @s's terms and program (nr_terms, terms, nr_prog,
 * prog), each field resolved by @field. Returns 0, or -1 (nr_terms -1)
 * where the filter is more than the program evaluates or holds more than
 * TRIGGER_TERMS_MAX terms.
 */
int config_filter__compile(const char *filter, config_filter_field_fn field, void *ctx,
			   struct trigger_side *s);

#endif
