/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <unistd.h>

#include "elffuncs.h"
#include "target.h"

/* Where sym's code is in the file, 0 if its section cannot say. */
static uint64_t code_offset(Elf *elf, const GElf_Sym *sym)
{
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
	    sym->st_value < sh.sh_addr || sym->st_value - sh.sh_addr >= sh.sh_size)
		return 0;
	return sym->st_value - sh.sh_addr + sh.sh_offset;
}

static int each_in_table(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			 int (*match)(const char *name, void *ctx),
			 int (*fn)(const struct hcb_elf_func *f, void *ctx), void *ctx)
{
	Elf_Data *data = elf_getdata(scn, NULL);

	if (!data || !sh->sh_entsize)
		return 0;
	for (size_t i = 0; i < sh->sh_size / sh->sh_entsize; i++) {
		struct hcb_elf_func f;
		GElf_Sym sym;
		int r;

		if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size)
			continue;
		f.name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!f.name || !match(f.name, ctx))
			continue;
		f.off = code_offset(elf, &sym);
		f.size = sym.st_size;
		f.addr = sym.st_value;
		if (f.off && (r = fn(&f, ctx)))
			return r;
	}
	return 0;
}

int hcb_elf_each_func(const char *path, int (*match)(const char *name, void *ctx),
		      int (*fn)(const struct hcb_elf_func *f, void *ctx), void *ctx)
{
	int fd, err = -ENODATA, r = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = hcb_target_open_file(path);
	if (fd < 0)
		return fd;
	/* mmap'ed: jaxlib's libraries are hundreds of megabytes */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -EBADMSG;
		goto out;
	}
	while (!r && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			err = 0;
		r = each_in_table(elf, scn, &sh, match, fn, ctx);
	}
	if (r)
		err = r;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

long hcb_elf_func_code(const char *path, const struct hcb_elf_func *f, void *buf, uint64_t cap)
{
	int fd = hcb_target_open_file(path);
	uint64_t n = f->size < cap ? f->size : cap;
	ssize_t got;

	if (fd < 0)
		return fd;
	got = pread(fd, buf, n, (off_t)f->off);
	close(fd);
	if (got < 0)
		return -errno;
	return got == (ssize_t)n ? (long)got : -EIO;
}
