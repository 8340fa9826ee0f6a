/* SPDX-License-Identifier: MIT */
/*
 * deny-syscall - run a command with one system call failing, as on a kernel
 * built without it:  deny-syscall bpf ENOSYS -- hcbtrace attach 1234
 * A seccomp filter returns the errno for that call; everything else runs.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct { const char *name; int nr; } calls[] = {
	{ "bpf", SYS_bpf },
	{ "perf_event_open", SYS_perf_event_open },
	{ "process_vm_readv", SYS_process_vm_readv },
};

static const struct { const char *name; int value; } errnos[] = {
	{ "ENOSYS", ENOSYS }, { "EPERM", EPERM }, { "EACCES", EACCES },
	{ "ENOENT", ENOENT }, { "EOPNOTSUPP", EOPNOTSUPP },
};

int main(int argc, char **argv)
{
	int nr = -1, err = -1;

	if (argc < 5 || strcmp(argv[3], "--")) {
		fprintf(stderr, "usage: deny-syscall SYSCALL ERRNO -- CMD [ARGS...]\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(argv[1], calls[i].name))
			nr = calls[i].nr;
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (!strcmp(argv[2], errnos[i].name))
			err = errnos[i].value;
	if (nr < 0 || err < 0) {
		fprintf(stderr, "deny-syscall: unknown system call '%s' or errno '%s'\n", argv[1], argv[2]);
		return 2;
	}
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned int)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("deny-syscall: seccomp");
		return 1;
	}
	execvp(argv[4], argv + 4);
	fprintf(stderr, "deny-syscall: cannot run '%s': %s\n", argv[4], strerror(errno));
	return 127;
}
