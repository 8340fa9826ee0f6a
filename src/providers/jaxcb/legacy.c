/* SPDX-License-Identifier: MIT */
#include <capstone/capstone.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "process/target.h"
#include "ffi.h"
#include "layout.h"
#include "legacy.h"

/* void xla::XlaPythonCpuCallback(void *, void **, XlaCustomCallStatus *) */
#define LEGACY_CALLBACK "_ZN3xla20XlaPythonCpuCallbackEPvPS0_P20XlaCustomCallStatus_"
/* xla::ffi::XLA_FFI_INTERNAL_DeviceOrdinal_Get: reads the device ordinal
 * where CustomCallThunk's parameters keep it (they are copied whole into
 * the FFI's execution context) */
#define DEVICE_ORDINAL_GET "_ZN3xla3ffiL34XLA_FFI_INTERNAL_DeviceOrdinal_GetEP24XLA_FFI_ExecutionContext"
/* int xla::ExecutableRunOptions::device_ordinal() const */
#define RUN_DEVICE_ORDINAL "_ZNK3xla20ExecutableRunOptions14device_ordinalEv"
/* the functions that call the compiled code: ExecuteHelper, its closures */
#define EXECUTE_HELPER "TfrtCpuExecutable13ExecuteHelper"
/* more code than any of them has (24 kB in 0.5.3) */
#define MAX_CODE (1u << 20)

int hcb_jaxlegacy_is_library(const char *path)
{
	size_t n = strlen(path);

	return n >= 24 && strcmp(path + n - 24, "/jaxlib/xla_extension.so") == 0;
}

struct sites {
	const char *path;
	uint64_t *offs;
	unsigned int cap, n;   /* n may pass cap: all are counted */
	csh cs;
};

static int calls_compiled_code(const char *name, void *ctx)
{
	(void)ctx;
	return strstr(name, EXECUTE_HELPER) != NULL;
}

static bool insn_is(const cs_insn *i, const char *mnemonic, const char *ops, bool prefix)
{
	return !strcmp(i->mnemonic, mnemonic) &&
	       (prefix ? !strncmp(i->op_str, ops, strlen(ops)) : !strcmp(i->op_str, ops));
}

/* 1 if insn[k] is an indirect call set up as the call of compiled code:
 * lea rsi (&run_options), lea r8 (&status), xor edx (no prof counters),
 * xor r9d (no temporaries), in the few instructions before. */
static bool compute_call(const cs_insn *insn, size_t k)
{
	bool rsi = false, r8 = false, edx = false, r9 = false;

	if (strcmp(insn[k].mnemonic, "call") || !strncmp(insn[k].op_str, "0x", 2))
		return false;
	for (size_t back = 1; back <= 8 && back <= k; back++) {
		const cs_insn *i = &insn[k - back];

		if (insn_is(i, "call", "", true) || insn_is(i, "jmp", "", true) ||
		    insn_is(i, "ret", "", true))
			break;
		r9 |= back <= 2 && insn_is(i, "xor", "r9d, r9d", false);
		edx |= insn_is(i, "xor", "edx, edx", false);
		r8 |= insn_is(i, "lea", "r8, ", true);
		rsi |= insn_is(i, "lea", "rsi, ", true);
	}
	return rsi && r8 && edx && r9;
}

static void add_site(struct sites *s, uint64_t off)
{
	for (unsigned int i = 0; i < s->n && i < s->cap; i++)
		if (s->offs[i] == off)
			return;
	if (s->n < s->cap)
		s->offs[s->n] = off;
	s->n++;
}

/* The run sites in function f. */
static int scan_function(const struct hcb_elf_func *f, void *ctx)
{
	struct sites *s = ctx;
	unsigned char *code = malloc(MAX_CODE);
	long n = code ? hcb_target_func_code(s->path, f, code, MAX_CODE) : -ENOMEM;
	cs_insn *insn = NULL;
	size_t count;

	if (n <= 0) {
		free(code);
		return n == -ENOMEM ? -ENOMEM : 0;
	}
	/* linear, from the symbol's first byte: these functions hold no data,
	 * and a probe is never placed but at an instruction decoded so */
	count = cs_disasm(s->cs, code, (size_t)n, f->addr, 0, &insn);
	for (size_t k = 0; k < count; k++)
		if (compute_call(insn, k))
			add_site(s, f->off + (insn[k].address - f->addr));
	if (count)
		cs_free(insn, count);
	free(code);
	return 0;
}

int hcb_jaxlegacy_run_sites(const char *path, uint64_t *offs, unsigned int cap)
{
	struct sites s = { .path = path, .offs = offs, .cap = cap };
	int err;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &s.cs) != CS_ERR_OK)
		return -ENOSYS;
	err = hcb_target_elf_each_func(path, calls_compiled_code, scan_function, &s);
	cs_close(&s.cs);
	return err ? err : (int)s.n;
}

int hcb_jaxlegacy_find(pid_t pid, struct hcb_jaxffi_target *t)
{
	const char *names[] = { LEGACY_CALLBACK, hcb_jaxffi_layout()->thunk_execute,
				DEVICE_ORDINAL_GET, RUN_DEVICE_ORDINAL };
	uint64_t offs[4], base;
	int err, n;

	memset(t, 0, sizeof(*t));
	t->legacy = 1;
	err = hcb_target_find_mapping(pid, hcb_jaxlegacy_is_library, t->lib, sizeof(t->lib), &base);
	if (err)
		return err;
	hcb_target_version_py(t->lib, t->version, sizeof(t->version));
	err = hcb_target_elf_funcs(t->lib, names, 4, offs);
	if (err)
		return err;
	if (!offs[0])
		return -ENOEXEC;
	t->handler_off = offs[0];
	t->thunk_off = offs[1];     /* none before 0.4.31: the classic runtime only */
	t->ctx_device_off = offs[2] ? hcb_jaxffi_code_ordinal(t->lib, offs[2]) : -1;
	t->run_device_off = offs[3] ? hcb_jaxffi_code_ordinal(t->lib, offs[3]) : -1;
	n = t->run_device_off >= 0 ?
		hcb_jaxlegacy_run_sites(t->lib, t->run_off, HCB_JAXLEGACY_RUN_SITES) : 0;
	/* a run site more or less than the code is known to have is a build
	 * not understood: its classic runs' devices stay unknown, never guessed */
	t->nrun = n > 0 && n <= (int)HCB_JAXLEGACY_RUN_SITES ? (unsigned int)n : 0;
	return 0;
}
