// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_refuse: an LD_PRELOAD library under which the kernel's verifier
 * refuses every tracepoint program of more than a few instructions, so a
 * test sees perfsnapd's answer to a real refusal with the verifier's own
 * words. libbpf loads programs through syscall(__NR_bpf); this one hands
 * the kernel, for those, a program that reads above its stack frame. The
 * small programs libbpf loads to probe the kernel's features pass through.
 */
#include <dlfcn.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*syscall_fn)(long number, ...);

/* r0 = *(u64 *)(r10 + 8); exit: above the frame, "invalid read from stack". */
static const struct bpf_insn refused[] = {
	{ .code = BPF_LDX | BPF_MEM | BPF_DW,
	  .dst_reg = BPF_REG_0,
	  .src_reg = BPF_REG_10,
	  .off = 8 },
	{ .code = BPF_JMP | BPF_EXIT },
};

long syscall(long number, ...)
{
	static syscall_fn real;
	long a[6];
	va_list ap;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	if (number == __NR_bpf && a[0] == BPF_PROG_LOAD) {
		union bpf_attr *attr = (union bpf_attr *)a[1];

		if (attr->prog_type == BPF_PROG_TYPE_TRACEPOINT && attr->insn_cnt > 16) {
			attr->insns = (unsigned long)refused;
			attr->insn_cnt = sizeof(refused) / sizeof(refused[0]);
			/* Their BTF describes the instructions replaced. */
			attr->func_info_cnt = 0;
			attr->func_info = 0;
			attr->line_info_cnt = 0;
			attr->line_info = 0;
		}
	}
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
