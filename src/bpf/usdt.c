/* SPDX-License-Identifier: MIT */
/*
 * usdt.c - a USDT probe's sites, read from the target's file as libbpf's
 * usdt.c reads them: the file is the traced program's, so every length in
 * it is checked before it is believed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <asm/ptrace.h>
#include <gelf.h>
#include <libelf.h>

#include "core/openfile.h"
#include "usdt.h"

#define NT_STAPSDT 3

#if defined(__x86_64__)
/* Each register's names, widest first, and its place in struct pt_regs. */
static const struct {
	const char *names[4];
	size_t off;
} regs[] = {
	{ { "rip", "eip", "", "" }, offsetof(struct pt_regs, rip) },
	{ { "rax", "eax", "ax", "al" }, offsetof(struct pt_regs, rax) },
	{ { "rbx", "ebx", "bx", "bl" }, offsetof(struct pt_regs, rbx) },
	{ { "rcx", "ecx", "cx", "cl" }, offsetof(struct pt_regs, rcx) },
	{ { "rdx", "edx", "dx", "dl" }, offsetof(struct pt_regs, rdx) },
	{ { "rsi", "esi", "si", "sil" }, offsetof(struct pt_regs, rsi) },
	{ { "rdi", "edi", "di", "dil" }, offsetof(struct pt_regs, rdi) },
	{ { "rbp", "ebp", "bp", "bpl" }, offsetof(struct pt_regs, rbp) },
	{ { "rsp", "esp", "sp", "spl" }, offsetof(struct pt_regs, rsp) },
	{ { "r8", "r8d", "r8w", "r8b" }, offsetof(struct pt_regs, r8) },
	{ { "r9", "r9d", "r9w", "r9b" }, offsetof(struct pt_regs, r9) },
	{ { "r10", "r10d", "r10w", "r10b" }, offsetof(struct pt_regs, r10) },
	{ { "r11", "r11d", "r11w", "r11b" }, offsetof(struct pt_regs, r11) },
	{ { "r12", "r12d", "r12w", "r12b" }, offsetof(struct pt_regs, r12) },
	{ { "r13", "r13d", "r13w", "r13b" }, offsetof(struct pt_regs, r13) },
	{ { "r14", "r14d", "r14w", "r14b" }, offsetof(struct pt_regs, r14) },
	{ { "r15", "r15d", "r15w", "r15b" }, offsetof(struct pt_regs, r15) },
};

static int reg_off(const char *name)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		for (size_t j = 0; j < 4; j++)
			if (regs[i].names[j][0] && !strcmp(name, regs[i].names[j]))
				return (int)regs[i].off;
	return -EINVAL;
}
#else
static int reg_off(const char *name)
{
	(void)name;
	return -EOPNOTSUPP;
}
#endif

/* One argument at s ("8@%rdi", "-4@-20(%rbp)", "8@(%rsp)", "4@$71"), in
 * GAS's AT&T syntax as sys/sdt.h writes it on x86: the characters it
 * took, or -EINVAL. */
static int parse_arg(const char *s, struct hcb_usdt_arg *a)
{
	char reg[16] = "";
	int size = 0, len = 0, off;
	long val = 0;

	memset(a, 0, sizeof(*a));
	if (sscanf(s, " %d @ %ld ( %%%15[^)] ) %n", &size, &val, reg, &len) == 3 && len) {
		a->arg_type = HCB_USDT_REG_DEREF;
	} else if (sscanf(s, " %d @ ( %%%15[^)] ) %n", &size, reg, &len) == 2 && len) {
		a->arg_type = HCB_USDT_REG_DEREF;
	} else if (sscanf(s, " %d @ %%%15s %n", &size, reg, &len) == 2 && len) {
		a->arg_type = HCB_USDT_REG;
	} else if (sscanf(s, " %d @ $%ld %n", &size, &val, &len) == 2 && len) {
		a->arg_type = HCB_USDT_CONST;
	} else {
		return -EINVAL;
	}
	a->val_off = (uint64_t)val;
	if (a->arg_type != HCB_USDT_CONST) {
		off = reg_off(reg);
		if (off < 0)
			return off;
		a->reg_off = (int16_t)off;
	}
	a->arg_signed = size < 0;
	size = size < 0 ? -size : size;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -EINVAL;
	a->arg_bitshift = (int8_t)(64 - size * 8);
	return len;
}

int hcb_usdt_parse_args(const char *args, struct hcb_usdt_spec *spec)
{
	const char *s = args;
	int n;

	memset(spec, 0, sizeof(*spec));
	while (*s == ' ')
		s++;
	while (*s) {
		if (spec->arg_cnt == HCB_USDT_MAX_ARGS)
			return -EINVAL;
		n = parse_arg(s, &spec->args[spec->arg_cnt]);
		if (n < 0)
			return n;
		spec->arg_cnt++;
		s += n;
	}
	return 0;
}

/* The file offset of vaddr in the file's loaded segments (code alone, if
 * exec), or 0: not in one.  An offset 0 is the ELF header, never a
 * probe's nor a semaphore's. */
static uint64_t file_off(Elf *elf, size_t nphdr, uint64_t vaddr, int exec)
{
	GElf_Phdr ph;

	for (size_t i = 0; i < nphdr; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    (exec && !(ph.p_flags & PF_X)))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz)
			return vaddr - ph.p_vaddr + ph.p_offset;
	}
	return 0;
}

/* The notes' section and the address of .stapsdt.base (0: none), which
 * the notes' addresses are relative to in a prelinked file. */
static Elf_Scn *notes_of(Elf *elf, uint64_t *base)
{
	Elf_Scn *scn = NULL, *notes = NULL;
	GElf_Shdr sh;
	size_t strndx;
	const char *name;

	*base = 0;
	if (elf_getshdrstrndx(elf, &strndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, strndx, sh.sh_name)))
			continue;
		if (sh.sh_type == SHT_NOTE && !strcmp(name, ".note.stapsdt"))
			notes = scn;
		else if (!strcmp(name, ".stapsdt.base"))
			*base = sh.sh_addr;
	}
	return notes;
}

/* The strings after a note's three addresses: provider, name, arguments,
 * each ended within the note; 0, or -EINVAL. */
static int note_strings(const char *desc, size_t len, const char *out[3])
{
	size_t at = 24;

	for (int i = 0; i < 3; i++) {
		const char *end = at < len ? memchr(desc + at, 0, len - at) : NULL;

		if (!end)
			return -EINVAL;
		out[i] = desc + at;
		at = (size_t)(end - desc) + 1;
	}
	return 0;
}

/* One note, if it is provider:name's: 1 with its site, 0 if another's. */
static int one_note(Elf *elf, size_t nphdr, uint64_t base, const char *desc, size_t len,
		    const char *provider, const char *name, struct hcb_usdt_site *site)
{
	uint64_t addr[3];
	const char *str[3];
	int err;

	if (len < sizeof(addr) || note_strings(desc, len, str))
		return -EINVAL;
	if (strcmp(str[0], provider) || strcmp(str[1], name))
		return 0;
	memcpy(addr, desc, sizeof(addr));
	if (base && addr[1])
		addr[0] += base - addr[1];
	site->off = file_off(elf, nphdr, addr[0], 1);
	site->sema_off = addr[2] ? file_off(elf, nphdr, addr[2], 0) : 0;
	if (!site->off || (addr[2] && !site->sema_off))
		return -EINVAL;
	err = hcb_usdt_parse_args(str[2], &site->spec);
	return err ? err : 1;
}

static int sites_of(Elf *elf, const char *provider, const char *name,
		    struct hcb_usdt_site *sites, unsigned int max)
{
	GElf_Ehdr eh;
	GElf_Nhdr nh;
	Elf_Data *data;
	Elf_Scn *scn;
	size_t nphdr, off = 0, name_off, desc_off;
	uint64_t base;
	unsigned int n = 0;
	int got;

	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || elf_getphdrnum(elf, &nphdr))
		return -EOPNOTSUPP;
	scn = notes_of(elf, &base);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!data)
		return 0;
	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp((const char *)data->d_buf + name_off, "stapsdt", 8))
			continue;
		if (n == max)
			return -E2BIG;
		got = one_note(elf, nphdr, base, (const char *)data->d_buf + desc_off, nh.n_descsz,
			       provider, name, &sites[n]);
		if (got < 0)
			return got;
		n += (unsigned int)got;
	}
	return (int)n;
}

int hcb_elf_file_offset(const char *path, uint64_t vaddr, uint64_t *off)
{
	Elf *elf;
	size_t nphdr;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = hcb_open_regular(path);   /* the target names it: no FIFO hangs us */
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	*off = elf && !elf_getphdrnum(elf, &nphdr) ? file_off(elf, nphdr, vaddr, 1) : 0;
	elf_end(elf);
	close(fd);
	return *off ? 0 : -ENOENT;
}

int hcb_usdt_sites(const char *path, const char *provider, const char *name,
		   struct hcb_usdt_site *sites, unsigned int max)
{
	Elf *elf;
	int fd, n;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = hcb_open_regular(path);   /* the target names it: no FIFO hangs us */
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf ? sites_of(elf, provider, name, sites, max) : -EINVAL;
	elf_end(elf);
	close(fd);
	return n;
}
