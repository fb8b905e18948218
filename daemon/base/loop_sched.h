/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * loop_sched: the event loop thread's scheduling. A trigger's record wakes
 * the loop, and the loop starts the dump whose copiers pause the rings:
 * each millisecond the loop waits for a CPU behind the machine's load is a
 * millisecond more from the trigger to the pause.
 */
#ifndef PERFSNAPD_LOOP_SCHED_H
#define PERFSNAPD_LOOP_SCHED_H

/*
 * On the loop thread, before it starts any thread or child: nice
 * LOOP_NICE (where permitted, else its niceness as it is), a short slice,
 * and reset-on-fork so that what it starts begins at nice 0 with the
 * usual slice. Returns 0, or -errno where the niceness was refused (the
 * slice is set all the same).
 */
int loop_sched__raise(void);

#endif
