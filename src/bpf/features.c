/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "features.h"

static const struct hcb_feature_info infos[HCB_FEAT_COUNT] = {
	[HCB_FEAT_BPF] = { "bpf", "3.18", 1 },
	/* a run's state is the thread's, found by its BTF task (state.bpf.h) */
	[HCB_FEAT_BTF] = { "btf", "5.4", 1 },
	[HCB_FEAT_RINGBUF] = { "ringbuf", "5.8", 1 },
	[HCB_FEAT_UPROBE] = { "uprobe", "4.17", 1 },
	/* without: pages not in memory are not faulted in (load.c) */
	[HCB_FEAT_SLEEPABLE] = { "sleepable_uprobe", "6.0", 0 },
	[HCB_FEAT_LOOP] = { "bpf_loop", "5.17", 1 },
	/* jax-callback's FFI probe tells its two handlers apart by it */
	[HCB_FEAT_COOKIE] = { "attach_cookie", "5.15", 1 },
	[HCB_FEAT_TASK_STORAGE] = { "task_storage", "5.11", 1 },
	[HCB_FEAT_COPY_FROM_USER] = { "copy_from_user", "5.10", 0 },
	[HCB_FEAT_UPROBE_MULTI] = { "uprobe_multi", "6.6", 0 },
	[HCB_FEAT_PRIV_STACK] = { "jit_private_stack", "6.13", 0 },
};

const struct hcb_feature_info *hcb_feature_info(enum hcb_feature f)
{
	return f < HCB_FEAT_COUNT ? &infos[f] : NULL;
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						.off = (o), .imm = (i) })
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* A uprobe program (a kprobe's type; libbpf's "uprobe" sections are) of
 * n instructions: its fd, or -errno. */
static int load_uprobe_prog(const struct bpf_insn *insns, size_t n, uint32_t flags,
			    enum bpf_attach_type expected)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .prog_flags = flags,
		    .expected_attach_type = expected);
	int fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, n, &opts);

	return fd < 0 ? -errno : fd;
}

/* 1 if it loads, 0 if this kernel refuses it. */
static int loads(const struct bpf_insn *insns, size_t n, uint32_t flags)
{
	int fd = load_uprobe_prog(insns, n, flags, BPF_PERF_EVENT);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

int hcb_feature_can_load(void)
{
	const struct bpf_insn insns[] = { MOV_IMM(0, 0), EXIT() };
	int fd = load_uprobe_prog(insns, 2, 0, BPF_PERF_EVENT);

	if (fd < 0)
		return fd;
	close(fd);
	return 1;
}

/* The bpf() system call at all: a command it must turn down, asked with
 * nothing, tells it is there (-EINVAL, -EPERM...) or not (-ENOSYS). */
static int probe_bpf(void)
{
	return syscall(__NR_bpf, BPF_PROG_LOAD, NULL, 0) < 0 && errno == ENOSYS ? 0 : 1;
}

/* The uprobe PMU's type number, or -errno. */
static int uprobe_pmu(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	int type = -ENOENT;

	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -EINVAL;
		fclose(f);
	}
	return type;
}

/* A program that may sleep and copies from user memory, as the payload
 * copies of the sleepable probes do: no sleepable uprobes, no copy. */
static int probe_copy_from_user(void)
{
	const struct bpf_insn insns[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0),   /* r1 = fp */
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -8),   /* r1 -= 8 */
		MOV_IMM(2, 8),
		MOV_IMM(3, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_copy_from_user),
		MOV_IMM(0, 0),
		EXIT(),
	};

	return loads(insns, sizeof(insns) / sizeof(insns[0]), BPF_F_SLEEPABLE);
}

/* A uprobe_multi link of prog on offset off of path for process pid (0:
 * every process): its fd, or -errno. */
static int multi_link(int prog, const char *path, uint64_t off, pid_t pid)
{
	struct hcb_uprobe_multi_attr um = {
		.prog_fd = (uint32_t)prog, .attach_type = HCB_UPROBE_MULTI_ATTACH,
		.path = (uint64_t)(uintptr_t)path, .offsets = (uint64_t)(uintptr_t)&off,
		.cnt = 1, .pid = (uint32_t)pid,
	};
	union bpf_attr attr;
	int link;

	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, &um, sizeof(um) < sizeof(attr) ? sizeof(um) : sizeof(attr));
	link = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	return link < 0 ? -errno : link;
}

/* As libbpf's own probe does: a uprobe_multi link on "/", which a kernel
 * that has them turns down for not being a file (-EBADF), and one that
 * has not for the attach type. */
static int probe_uprobe_multi(void)
{
	const struct bpf_insn insns[] = { MOV_IMM(0, 0), EXIT() };
	int fd, link;

	fd = load_uprobe_prog(insns, 2, 0, (enum bpf_attach_type)HCB_UPROBE_MULTI_ATTACH);
	if (fd < 0)
		return 0;
	link = multi_link(fd, "/", 0, 0);
	if (link >= 0)
		close(link);
	close(fd);
	return link == -EBADF;
}

/* The x86-64 JIT's code of a program whose stack is over 64 bytes: on a
 * kernel with private stacks its prologue points r9 at this CPU's stack
 * (add r9, gs:[this_cpu_off]), else it moves rsp down by the stack's
 * size (sub rsp, 128). */
static int probe_priv_stack(void)
{
#if defined(__x86_64__)
	static const uint8_t per_cpu_r9[] = { 0x65, 0x4c, 0x03, 0x0c, 0x25 };
	static const uint8_t sub_rsp[] = { 0x48, 0x81, 0xec, 0x80, 0, 0, 0 };
	const struct bpf_insn insns[] = {
		INSN(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -128, 0),   /* *(u64 *)(fp - 128) = 0 */
		MOV_IMM(0, 0),
		EXIT(),
	};
	struct bpf_prog_info info = { 0 };
	uint32_t len = sizeof(info), n;
	uint8_t *code = NULL;
	int fd = load_uprobe_prog(insns, 3, 0, BPF_PERF_EVENT), ret = -ENODATA;

	if (fd < 0)
		return fd;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && (n = info.jited_prog_len) &&
	    (code = malloc(n))) {
		memset(&info, 0, sizeof(info));
		info.jited_prog_len = n;
		info.jited_prog_insns = (uint64_t)(uintptr_t)code;
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.jited_prog_len >= n)
			ret = memmem(code, n, per_cpu_r9, sizeof(per_cpu_r9)) ? 1 :
			      memmem(code, n, sub_rsp, sizeof(sub_rsp)) ? 0 : -ENODATA;
	}
	free(code);
	close(fd);
	return ret;
#else
	return -EOPNOTSUPP;
#endif
}

/* The features a program is loaded to find out, tried once this process
 * may load one at all: without the privilege, the kernel says no to all
 * alike and libbpf's helper probes would read that as a yes. */
static int probe_by_loading(enum hcb_feature f)
{
	const struct bpf_insn insns[] = { MOV_IMM(0, 0), EXIT() };
	int ok = hcb_feature_can_load();

	if (ok < 0)
		return ok;
	switch (f) {
	case HCB_FEAT_RINGBUF:
		return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL);
	case HCB_FEAT_SLEEPABLE:
		return loads(insns, 2, BPF_F_SLEEPABLE);
	case HCB_FEAT_LOOP:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop, NULL);
	case HCB_FEAT_COOKIE:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, NULL);
	case HCB_FEAT_TASK_STORAGE:
		ok = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL);
		return ok == 1 ? libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
							 BPF_FUNC_task_storage_get, NULL) : ok;
	case HCB_FEAT_COPY_FROM_USER:
		return probe_copy_from_user();
	case HCB_FEAT_UPROBE_MULTI:
		return probe_uprobe_multi();
	case HCB_FEAT_PRIV_STACK:
		return probe_priv_stack();
	default:
		return -EINVAL;
	}
}

/* For tests: HCBTRACE_TEST_MISSING=KEY (a feature's key, "bpf_loop") makes
 * this kernel seem to lack it, as an older one does. */
static int missing_for_test(enum hcb_feature f)
{
	const char *want = getenv("HCBTRACE_TEST_MISSING");

	return want && f < HCB_FEAT_COUNT && !strcmp(want, infos[f].key);
}

int hcb_feature_probe(enum hcb_feature f)
{
	if (missing_for_test(f))
		return 0;
	switch (f) {
	case HCB_FEAT_BPF:
		return probe_bpf();
	case HCB_FEAT_BTF:
		return access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	case HCB_FEAT_UPROBE:
		return uprobe_pmu() >= 0;
	default:
		return f < HCB_FEAT_COUNT ? probe_by_loading(f) : -EINVAL;
	}
}

/* Without the privilege to load the probe's program, the kernel's BTF
 * tells: the link's own type is there where the link is. */
static int uprobe_multi_in_btf(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	int found;

	if (!btf)
		return -ENOENT;
	found = btf__find_by_name_kind(btf, "bpf_uprobe_multi_link", BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return found;
}

int hcb_feature_uprobe_multi_usable(void)
{
#if defined(__x86_64__)
	int has = hcb_feature_probe(HCB_FEAT_UPROBE_MULTI);

	return has < 0 ? uprobe_multi_in_btf() : has;
#else
	return 0;
#endif
}

int hcb_feature_caps(uint64_t *effective)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	*effective = data[0].effective | (uint64_t)data[1].effective << 32;
	return 0;
}

/* Where the attach test's uprobe goes: a function of ours never called. */
__attribute__((noinline, used)) static void never_called(void)
{
	__asm__ volatile("");
}

/* The file and offset of code address addr in this process's maps. */
static int file_offset(uintptr_t addr, char *path, size_t cap, uint64_t *off)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4608];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (err && fgets(line, sizeof(line), f)) {
		uintptr_t start, end;
		uint64_t pgoff;
		int at = 0;

		if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %*s %" SCNx64 " %*s %*s %n", &start,
			   &end, &pgoff, &at) < 3 || !at || addr < start || addr >= end ||
		    line[at] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		snprintf(path, cap, "%s", line + at);
		*off = addr - start + pgoff;
		err = 0;
	}
	fclose(f);
	return err;
}

/* The attach test by a uprobe_multi link, as sessions attach here. */
static int can_attach_multi(const char *path, uint64_t off)
{
	const struct bpf_insn insns[] = { MOV_IMM(0, 0), EXIT() };
	int prog = load_uprobe_prog(insns, 2, 0, (enum bpf_attach_type)HCB_UPROBE_MULTI_ATTACH);
	int link;

	if (prog < 0)
		return prog;
	link = multi_link(prog, path, off, getpid());
	if (link >= 0)
		close(link);
	close(prog);
	return link < 0 ? link : 1;
}

int hcb_feature_can_attach(void)
{
	const struct bpf_insn insns[] = { MOV_IMM(0, 0), EXIT() };
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char path[4096];
	uint64_t off = 0;
	int type = uprobe_pmu(), prog, ev, err;

	if (type < 0)
		return type;
	err = file_offset((uintptr_t)never_called, path, sizeof(path), &off);
	if (err)
		return err;
	if (hcb_feature_uprobe_multi_usable() == 1)
		return can_attach_multi(path, off);
	prog = load_uprobe_prog(insns, 2, 0, BPF_PERF_EVENT);
	if (prog < 0)
		return prog;
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)path;   /* uprobe_path */
	attr.config2 = off;                          /* probe_offset */
	ev = (int)syscall(SYS_perf_event_open, &attr, getpid(), -1, -1, PERF_FLAG_FD_CLOEXEC);
	err = ev < 0 ? -errno : ioctl(ev, PERF_EVENT_IOC_SET_BPF, prog) ? -errno : 1;
	if (ev >= 0)
		close(ev);
	close(prog);
	return err;
}
