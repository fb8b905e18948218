// SPDX-License-Identifier: GPL-2.0-only
/* privilege: see privilege.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "privilege.h"

#define BIT(cap) (1ull << (cap))

void privilege__table(uint64_t *own, uint64_t *bound)
{
	*own = BIT(CAP_PERFMON) | BIT(CAP_BPF) | BIT(CAP_SYS_PTRACE) | BIT(CAP_CHECKPOINT_RESTORE) |
	       BIT(CAP_SYSLOG) | BIT(CAP_IPC_LOCK) | BIT(CAP_SYS_NICE) | BIT(CAP_CHOWN) |
	       BIT(CAP_KILL);
	/* A kernel older than CAP_PERFMON and CAP_BPF (5.8) wants CAP_SYS_ADMIN. */
	if (prctl(PR_CAPBSET_READ, CAP_CHECKPOINT_RESTORE) < 0)
		*own |= BIT(CAP_SYS_ADMIN);
	*bound = *own | BIT(CAP_SETUID) | BIT(CAP_SETGID) | BIT(CAP_SETPCAP);
}

static int get_caps(struct __user_cap_header_struct *h, uint64_t *eff, uint64_t *perm,
		    uint64_t *inh)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	*h = (struct __user_cap_header_struct){ .version = _LINUX_CAPABILITY_VERSION_3 };
	if (syscall(SYS_capget, h, d) < 0)
		return -errno;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*perm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static int set_caps(struct __user_cap_header_struct *h, uint64_t eff, uint64_t perm, uint64_t inh)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {
		{ (uint32_t)eff, (uint32_t)perm, (uint32_t)inh },
		{ (uint32_t)(eff >> 32), (uint32_t)(perm >> 32), (uint32_t)(inh >> 32) },
	};

	return syscall(SYS_capset, h, d) < 0 ? -errno : 0;
}

/* Outside @bound: dropped while CAP_SETPCAP is still effective. */
static int limit_bounding_set(uint64_t bound, int *failed_cap)
{
	int r = 0;

	for (int cap = 0; cap < 64; cap++) {
		int held = prctl(PR_CAPBSET_READ, cap);

		if (held < 0)
			break; /* past the kernel's last */
		if (!held || (bound & BIT(cap)))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap) < 0 && r == 0) {
			r = -errno;
			*failed_cap = cap;
		}
	}
	return r;
}

int privilege__limit(char *error, size_t size)
{
	struct __user_cap_header_struct h;
	uint64_t own, bound, eff = 0, perm = 0, inh = 0;
	int failed_cap = -1, r;

	privilege__table(&own, &bound);
	r = get_caps(&h, &eff, &perm, &inh);
	if (r < 0) {
		snprintf(error, size, "cannot read its capabilities: %s", strerror(-r));
		return r;
	}
	/* Without CAP_SETPCAP (a unit's bounding set) the set is the unit's. */
	if (eff & BIT(CAP_SETPCAP))
		r = limit_bounding_set(bound, &failed_cap);
	if (r < 0)
		snprintf(error, size, "cannot drop capability %d from its bounding set: %s",
			 failed_cap, strerror(-r));
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if ((perm & ~own) || inh) {
		int s = set_caps(&h, eff & own, perm & own, 0);

		if (s < 0 && r == 0) {
			snprintf(error, size, "cannot give up its capabilities: %s", strerror(-s));
			r = s;
		}
	}
	return r;
}
