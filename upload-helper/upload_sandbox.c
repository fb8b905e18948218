// SPDX-License-Identifier: GPL-2.0-only
/*
 * upload_sandbox: the upload helper's privileges, given up in the order
 * that makes each step possible: the bounding set while CAP_SETPCAP is
 * still held, the user last of the credentials (leaving uid 0 clears the
 * permitted and effective sets), the filter after no_new_privs. Each step
 * is checked: a helper that could not give up what it holds does not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>
#include <seccomp.h>

#include "upload_sandbox.h"

#define NOBODY_ID 65534

/* Reach other processes, the kernel's state or privileges: killed. */
static const char *const killed[] = {
	"perf_event_open",
	"bpf",
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"kcmp",
	"pidfd_getfd",
	"mount",
	"umount2",
	"pivot_root",
	"chroot",
	"unshare",
	"setns",
	"open_by_handle_at",
	"name_to_handle_at",
	"fsopen",
	"fsmount",
	"fsconfig",
	"fspick",
	"move_mount",
	"open_tree",
	"mount_setattr",
	"kexec_load",
	"kexec_file_load",
	"init_module",
	"finit_module",
	"delete_module",
	"reboot",
	"swapon",
	"swapoff",
	"syslog",
	"acct",
	"settimeofday",
	"clock_settime",
	"clock_adjtime",
	"adjtimex",
	"iopl",
	"ioperm",
	"personality",
	"userfaultfd",
	"keyctl",
	"add_key",
	"request_key",
	"setuid",
	"setgid",
	"setreuid",
	"setregid",
	"setresuid",
	"setresgid",
	"setgroups",
	"setfsuid",
	"setfsgid",
	"capset",
	"fanotify_init",
	"quotactl",
	"execve",
	"execveat",
	"mknod",
	"mknodat",
	"io_uring_setup",
	"vhangup",
	"lookup_dcookie",
};

/* Change the file system: refused (EPERM), which libraries report. */
static const char *const refused[] = {
	"unlink",      "unlinkat",     "rename",       "renameat",  "renameat2", "mkdir",
	"mkdirat",     "rmdir",	       "link",	       "linkat",    "symlink",	 "symlinkat",
	"chmod",       "fchmod",       "fchmodat",     "chown",	    "fchown",	 "fchownat",
	"lchown",      "truncate",     "creat",	       "setxattr",  "lsetxattr", "fsetxattr",
	"removexattr", "lremovexattr", "fremovexattr", "utimensat", "utimes",	 "utime",
	"futimesat",
};

static int give_up_user(char *error, size_t size)
{
	struct passwd *pw;
	uid_t uid = NOBODY_ID;
	gid_t gid = NOBODY_ID;

	if (getuid() != 0 && geteuid() != 0)
		return 0;
	pw = getpwnam(UPLOAD_SANDBOX_USER);
	if (pw) {
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
	    setresuid(uid, uid, uid) < 0) {
		snprintf(error, size, "cannot become user %s (%u): %s", UPLOAD_SANDBOX_USER,
			 (unsigned int)uid, strerror(errno));
		return -errno;
	}
	return 0;
}

/* True (or unknown) while any capability is permitted, effective or inheritable. */
static bool holds_capabilities(struct __user_cap_header_struct *h, struct __user_cap_data_struct *d)
{
	if (syscall(SYS_capget, h, d) < 0)
		return true;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (d[i].permitted || d[i].effective || d[i].inheritable)
			return true;
	return false;
}

static int give_up_capabilities(char *error, size_t size)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	/* Where CAP_SETPCAP is not held (a unit's bounding set), it is empty enough. */
	for (int cap = 0;; cap++) {
		int held = prctl(PR_CAPBSET_READ, cap);

		if (held < 0)
			break;
		if (held)
			(void)prctl(PR_CAPBSET_DROP, cap);
	}
	if (give_up_user(error, size) < 0)
		return -EPERM;
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (!holds_capabilities(&h, d))
		return 0;
	/* A unit that refuses capset (~@privileged) has left nothing to drop. */
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d) < 0) {
		snprintf(error, size, "cannot drop its capabilities: %s", strerror(errno));
		return -errno;
	}
	if (holds_capabilities(&h, d)) {
		snprintf(error, size, "capabilities remain after dropping them");
		return -EPERM;
	}
	return 0;
}

static int add(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned int nr,
	       const struct scmp_arg_cmp *cmp)
{
	int sys = seccomp_syscall_resolve_name(name);

	/* A call this architecture lacks needs no rule. */
	if (sys == __NR_SCMP_ERROR)
		return 0;
	return seccomp_rule_add_array(ctx, action, sys, nr, cmp);
}

static int add_rules(scmp_filter_ctx ctx)
{
	static const int write_flags[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC };
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(killed) / sizeof(*killed); i++) {
#ifdef __SANITIZE_ADDRESS__
		/* LeakSanitizer's check at exit stops the process with ptrace. */
		if (!strcmp(killed[i], "ptrace"))
			continue;
#endif
		r = add(ctx, SCMP_ACT_KILL_PROCESS, killed[i], 0, NULL);
	}
	for (size_t i = 0; !r && i < sizeof(refused) / sizeof(*refused); i++)
		r = add(ctx, SCMP_ACT_ERRNO(EPERM), refused[i], 0, NULL);
	for (size_t i = 0; !r && i < sizeof(write_flags) / sizeof(*write_flags); i++) {
		struct scmp_arg_cmp open_cmp = SCMP_A1(SCMP_CMP_MASKED_EQ, write_flags[i],
						       write_flags[i]);
		struct scmp_arg_cmp openat_cmp = SCMP_A2(SCMP_CMP_MASKED_EQ, write_flags[i],
							 write_flags[i]);

		r = add(ctx, SCMP_ACT_ERRNO(EACCES), "open", 1, &open_cmp);
		if (!r)
			r = add(ctx, SCMP_ACT_ERRNO(EACCES), "openat", 1, &openat_cmp);
	}
	/* Its flags sit in a struct the filter cannot read. */
	if (!r)
		r = add(ctx, SCMP_ACT_ERRNO(ENOSYS), "openat2", 0, NULL);
	for (int family = 0; !r && family < AF_MAX; family++) {
		struct scmp_arg_cmp cmp = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)family);

		if (family == AF_UNIX || family == AF_INET || family == AF_INET6 ||
		    family == AF_NETLINK)
			continue;
		r = add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), "socket", 1, &cmp);
	}
	return r;
}

static int filter(char *error, size_t size)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx) {
		snprintf(error, size, "cannot make its seccomp filter");
		return -ENOMEM;
	}
	r = add_rules(ctx);
	if (!r)
		r = seccomp_load(ctx);
	if (r < 0)
		snprintf(error, size, "cannot load its seccomp filter: %s", strerror(-r));
	seccomp_release(ctx);
	return r;
}

/**
 * upload_sandbox__enter - give up everything the upload helper does not need
 * @error: why not, on failure
 * @size: its size
 */
int upload_sandbox__enter(char *error, size_t size)
{
	int r = give_up_capabilities(error, size);

	if (r < 0)
		return r;
	/* Not dumpable: a process of the same user cannot read the credentials it holds. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0) < 0) {
		snprintf(error, size, "cannot set no_new_privs: %s", strerror(errno));
		return -errno;
	}
	return filter(error, size);
}
