/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * privilege: the capabilities perfsnapd keeps, whoever starts it. Under
 * its unit the bounding set is already the table's; started by hand as
 * root it would otherwise hold all of them, for as long as it records.
 * The table is in docs/design.md ("Privileges"): each capability, who
 * uses it, and why it is still needed after the events are open (a
 * reload and a CPU coming back open them again).
 */
#ifndef PERFSNAPD_PRIVILEGE_H
#define PERFSNAPD_PRIVILEGE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The table as masks of capability numbers: @own, what perfsnapd may use
 * itself; @bound, what its children may get (@own and what the upload
 * helper it starts needs to give up root: CAP_SETUID, CAP_SETGID,
 * CAP_SETPCAP).
 */
void privilege__table(uint64_t *own, uint64_t *bound);

/*
 * Gives up every capability outside the table, in the calling thread: so
 * before any other thread starts (capabilities are per thread). The
 * bounding set where CAP_SETPCAP allows, then the permitted, effective,
 * inheritable and ambient sets. Returns 0, or -errno with what could not
 * be given up in @error (perfsnapd goes on with it, and says so).
 */
int privilege__limit(char *error, size_t size);

#endif
