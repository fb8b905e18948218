/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hotplug: a CPU taken offline loses its perf events for good, so the
 * daemon watches the online CPUs (a timer of the loop reading sysfs) and
 * has the capture keep the offline CPU's history and reopen its events
 * when it is back; it logs both, and the capture keeps the offline spans
 * every snapshot's sidecar states. CPUs offline at start get their rings
 * when they come online.
 */
#ifndef PERFSNAPD_HOTPLUG_H
#define PERFSNAPD_HOTPLUG_H

struct daemon;
struct hotplug;

/* Watches d->cap's CPUs, whichever capture it holds. Returns 0 or -errno (logged). */
int hotplug__new(struct daemon *d, struct hotplug **ret);
void hotplug__delete(struct hotplug *h);

#endif
