/* SPDX-License-Identifier: MIT */
/*
 * elffuncs.h - the functions of an ELF file chosen by their names, with
 * where their code is: for the providers that place probes inside a
 * function (at an instruction) rather than at its entry, whose names are
 * known only in part (C++ lambdas and templates mangle differently from
 * one build to the next).
 */
#ifndef HCB_ELFFUNCS_H
#define HCB_ELFFUNCS_H

#include <stdint.h>

struct hcb_elf_func {
	const char *name;      /* mangled, as the symbol table has it */
	uint64_t off;          /* file offset of its first byte */
	uint64_t size;         /* bytes of code, as the symbol says */
	uint64_t addr;         /* its address (st_value): for a disassembler */
};

/*
 * fn(f, ctx) for every function (STT_FUNC, defined, size > 0) in the
 * .symtab and .dynsym of the ELF file at path whose name match(name, ctx)
 * takes; the same function may come twice (once per table).  fn's non-zero
 * value stops the walk and is returned.  0, -ENODATA (no .symtab:
 * stripped), -EBADMSG (no ELF file), or hcb_target_open_file's error (path
 * is a file a target names).
 */
int hcb_elf_each_func(const char *path, int (*match)(const char *name, void *ctx),
		      int (*fn)(const struct hcb_elf_func *f, void *ctx), void *ctx);

/* Read f's code (f->size bytes, at most cap) from path into buf: the bytes
 * read, or -errno. */
long hcb_elf_func_code(const char *path, const struct hcb_elf_func *f, void *buf, uint64_t cap);

#endif
