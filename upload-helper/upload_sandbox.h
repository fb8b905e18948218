/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * upload_sandbox: what the upload helper gives up before it reads a byte
 * from perfsnapd or the network. Started by root (perfsnapd's child), it
 * becomes "nobody"; every capability goes (bounding set, ambient,
 * permitted, effective), no_new_privs is set, it is not dumpable, and a
 * seccomp filter (libseccomp) kills it on a call that reaches other
 * processes, the kernel's state or privileges (perf_event_open, bpf,
 * ptrace, mount, setuid, execve, ...), refuses an open for writing and
 * every change to the file system, and every socket family but unix,
 * IPv4, IPv6 and netlink (the resolver's).
 */
#ifndef PERFSNAPD_UPLOAD_SANDBOX_H
#define PERFSNAPD_UPLOAD_SANDBOX_H

#include <stddef.h>

/* The user a helper started as root becomes. */
#define UPLOAD_SANDBOX_USER "nobody"

/* Returns 0, or -errno with @error saying what could not be given up. */
int upload_sandbox__enter(char *error, size_t size);

#endif
