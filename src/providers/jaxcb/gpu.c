/* SPDX-License-Identifier: MIT */
/*
 * gpu.c - finding JAX's CUDA callback handler and its probe sites in the
 * jax CUDA plugin, proven on the file (gpu.h says what is proven).  A
 * probe is only ever placed at an instruction decoded so (capstone, linear
 * from the symbol's first byte, as legacy.c does).
 */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "process/target.h"
#include "gpu.h"

#define HANDLER "kXlaFfiPythonGpuCallback"
/* jax::cuda::XlaFfiPythonGpuCallback(CUstream_st*, xla::FfiLoadedHostCallbacks*,
 * jax::cuda::GpuTransposePlanCache*, unsigned long, xla::ffi::RemainingArgs,
 * xla::ffi::RemainingRets) */
#define BODY "_ZN3jax4cuda23XlaFfiPythonGpuCallbackEP11CUstream_stPN3xla22FfiLoadedHost" \
	"CallbacksEPNS0_21GpuTransposePlanCacheEmNS3_3ffi13RemainingArgsENS8_13RemainingRetsE"
/* the plugin's own lazy cudart stubs (local symbols) */
#define MEMCPY "cudaMemcpyAsync"
#define SYNC "cudaStreamSynchronize"
/* static XLA_FFI_Error *xla::ffi::XLA_FFI_DeviceOrdinal_Get(XLA_FFI_DeviceOrdinal_Get_Args *) */
#define ORDINAL_GET "_ZN3xla3ffiL25XLA_FFI_DeviceOrdinal_GetEP30XLA_FFI_DeviceOrdinal_Get_Args"
/* more code than either function has (the body: 16 kB in 0.11.2) */
#define MAX_CODE (256u << 10)

static int ends_with(const char *path, const char *tail)
{
	size_t n = strlen(path), t = strlen(tail);

	return n >= t && strcmp(path + n - t, tail) == 0;
}

int hcb_jaxgpu_is_library(const char *path)
{
	return ends_with(path, "/jax_cuda13_plugin/cuda_plugin_extension.so") ||
	       ends_with(path, "/jax_cuda12_plugin/cuda_plugin_extension.so");
}

int hcb_jaxgpu_is_pjrt(const char *path)
{
	return ends_with(path, "/xla_cuda13/xla_cuda_plugin.so") ||
	       ends_with(path, "/xla_cuda12/xla_cuda_plugin.so");
}

/* the CUDA driver library: loaded when jax's PJRT plugin starts CUDA */
static int is_libcuda(const char *path)
{
	const char *base = strrchr(path, '/');

	return base && !strncmp(base, "/libcuda.so", 11);
}

static int say(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	return -ENOEXEC;
}

/* A function's code, disassembled (with operand details): the count, or
 * -errno; *insn to cs_free. */
struct code {
	const char *path;
	const char *name;       /* the function wanted */
	uint64_t off;           /* its file offset, 0 until found */
	uint64_t addr;
	csh cs;
	cs_insn *insn;
	size_t count;
	int err;
};

static int is_wanted(const char *name, void *ctx)
{
	return !strcmp(name, ((struct code *)ctx)->name);
}

static int disasm(const struct hcb_elf_func *f, void *ctx)
{
	struct code *c = ctx;
	unsigned char *buf = malloc(MAX_CODE);
	long n = buf ? hcb_target_func_code(c->path, f, buf, MAX_CODE) : -ENOMEM;

	if (n <= 0) {
		free(buf);
		c->err = n ? (int)n : -ENOEXEC;
		return 1;
	}
	c->off = f->off;
	c->addr = f->addr;
	c->count = cs_disasm(c->cs, buf, (size_t)n, f->addr, 0, &c->insn);
	free(buf);
	return 1;   /* the first table's copy will do */
}

static int load(struct code *c, const char *path, const char *name)
{
	int err;

	memset(c, 0, sizeof(*c));
	c->path = path;
	c->name = name;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &c->cs) != CS_ERR_OK)
		return -ENOSYS;
	cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
	err = hcb_target_elf_each_func(path, is_wanted, disasm, c);
	if (err < 0)
		return err;
	if (c->err)
		return c->err;
	return c->off ? 0 : -ENOENT;
}

static void unload(struct code *c)
{
	if (c->count)
		cs_free(c->insn, c->count);
	cs_close(&c->cs);
}

/* The direct call's target, or 0. */
static uint64_t call_target(const cs_insn *i)
{
	const cs_x86 *x = &i->detail->x86;

	if (i->id != X86_INS_CALL || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return 0;
	return (uint64_t)x->operands[0].imm;
}

/* 1 if i is lea REG, [rip + disp] of address want. */
static bool lea_of(const cs_insn *i, uint64_t want)
{
	const cs_x86 *x = &i->detail->x86;

	return i->id == X86_INS_LEA && x->op_count == 2 && x->operands[1].type == X86_OP_MEM &&
	       x->operands[1].mem.base == X86_REG_RIP && x->operands[1].mem.index == X86_REG_INVALID &&
	       i->address + i->size + (uint64_t)x->operands[1].mem.disp == want;
}

/* The copy and synchronisation sites in the body (code c), as file offsets;
 * memcpy_at and sync_at the stubs' file offsets. */
static int body_sites(const struct code *c, uint64_t memcpy_at, uint64_t sync_at,
		      struct hcb_jaxgpu_sites *s, char *why, size_t cap)
{
	size_t copies = 0, k;
	uint64_t copy = 0;

	for (k = 0; k < c->count; k++) {
		uint64_t t = call_target(&c->insn[k]);

		if (t)
			t = c->off + (t - c->addr);
		if (t == sync_at)
			break;
		if (t == memcpy_at && !copies++)
			copy = c->insn[k].address;
	}
	if (k == c->count)
		return say(why, cap, "%s calls no %s", BODY, SYNC);
	if (copies != 1)
		return say(why, cap, "%s calls %s %zu times before %s, not once", BODY, MEMCPY,
			   copies, SYNC);
	if (k + 1 >= c->count)
		return say(why, cap, "no instruction decoded after %s's call of %s", BODY, SYNC);
	s->copy_off = c->off + (copy - c->addr);
	s->sync_off = c->off + (c->insn[k + 1].address - c->addr);
	return 0;
}

int hcb_jaxgpu_find_sites(const char *path, struct hcb_jaxgpu_sites *s, char *why, size_t cap)
{
	const char *names[] = { HANDLER, BODY, MEMCPY, SYNC };
	uint64_t offs[4], addr[4];
	struct code handler, body;
	bool takes = false;
	int err;

	memset(s, 0, sizeof(*s));
	why[0] = '\0';
	err = hcb_target_elf_funcs(path, names, 4, offs);
	if (err)
		return err;
	for (unsigned int i = 0; i < 4; i++)
		if (!offs[i])
			return say(why, cap, "no function %s in its symbol table", names[i]);
	/* the stubs are trampolines of no size: compared as file offsets (a
	 * call's target taken to the body's segment, which holds all of .text) */
	addr[2] = offs[2];
	addr[3] = offs[3];
	err = load(&handler, path, HANDLER);
	if (!err)
		err = load(&body, path, BODY);
	else
		memset(&body, 0, sizeof(body));
	if (!err) {
		for (size_t k = 0; k < handler.count && !takes; k++)
			takes = lea_of(&handler.insn[k], handler.addr + (body.off - handler.off));
		err = takes ? body_sites(&body, addr[2], addr[3], s, why, cap) :
			say(why, cap, "%s does not take the address of %s", HANDLER, BODY);
	}
	s->handler_off = err ? 0 : handler.off;
	unload(&handler);
	if (body.path)
		unload(&body);
	return err == -ENOENT ? say(why, cap, "%s or its body unreadable", HANDLER) : err;
}

/* 1 if op is [base + disp] with no index. */
static bool mem_at(const cs_x86_op *op, x86_reg base, int64_t disp)
{
	return op->type == X86_OP_MEM && op->mem.base == base && op->mem.index == X86_REG_INVALID &&
	       op->mem.disp == disp;
}

int hcb_jaxgpu_code_ordinal(const char *path)
{
	struct code c;
	int found = -1;

	if (load(&c, path, ORDINAL_GET)) {
		unload(&c);
		return -1;
	}
	/* mov CTX, [ARGS + 16]; mov E, dword [CTX + D]; mov dword [ARGS + 24], E */
	for (size_t k = 0; k + 2 < c.count && found < 0; k++) {
		const cs_x86 *a = &c.insn[k].detail->x86, *b = &c.insn[k + 1].detail->x86,
			     *d = &c.insn[k + 2].detail->x86;
		x86_reg args, ctx;

		if (c.insn[k].id != X86_INS_MOV || a->op_count != 2 || a->operands[0].type != X86_OP_REG ||
		    a->operands[1].type != X86_OP_MEM || a->operands[1].size != 8)
			continue;
		args = a->operands[1].mem.base;
		ctx = a->operands[0].reg;
		if (!mem_at(&a->operands[1], args, 16) || c.insn[k + 1].id != X86_INS_MOV ||
		    b->op_count != 2 || b->operands[0].type != X86_OP_REG || b->operands[1].size != 4 ||
		    b->operands[1].type != X86_OP_MEM || b->operands[1].mem.base != ctx ||
		    b->operands[1].mem.index != X86_REG_INVALID || b->operands[1].mem.disp < 0 ||
		    b->operands[1].mem.disp > 4096 || c.insn[k + 2].id != X86_INS_MOV ||
		    d->op_count != 2 || !mem_at(&d->operands[0], args, 24) ||
		    d->operands[1].type != X86_OP_REG || d->operands[1].reg != b->operands[0].reg)
			continue;
		found = (int)b->operands[1].mem.disp;
	}
	unload(&c);
	return found;
}

int hcb_jaxgpu_find(pid_t pid, struct hcb_jaxgpu_target *t)
{
	uint64_t base;
	int err;

	memset(t, 0, sizeof(*t));
	t->ctx_device_off = -1;
	err = hcb_target_find_mapping(pid, hcb_jaxgpu_is_library, t->lib, sizeof(t->lib), &base);
	if (err)
		return err;
	/* jax loads its CUDA plugin on a machine with no usable CUDA too, and
	 * then runs on CPU: the CUDA driver must be loaded as well */
	err = hcb_target_maps_any(pid, is_libcuda);
	if (err <= 0)
		return err ? err : -ENOENT;
	hcb_target_version_py(t->lib, t->version, sizeof(t->version));
	err = hcb_jaxgpu_find_sites(t->lib, &t->s, t->why, sizeof(t->why));
	if (err)
		return err;
	if (hcb_target_find_mapping(pid, hcb_jaxgpu_is_pjrt, t->pjrt, sizeof(t->pjrt), &base) == 0)
		t->ctx_device_off = hcb_jaxgpu_code_ordinal(t->pjrt);
	else
		t->pjrt[0] = '\0';
	return 0;
}
