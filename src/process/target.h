/* SPDX-License-Identifier: MIT */
/* target.h - a traced process seen from outside: /proc, its memory, its libhcbtap. */
#ifndef HCB_TARGET_H
#define HCB_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/registry.h"
#include "core/wire.h"

/* 0 if pid exists, -ESRCH if not, -EINVAL for pid <= 0. */
int hcb_target_exists(pid_t pid);
/* 1 while pid runs, 0 once it has exited: a zombie, once none of its
 * threads runs on (its leader may end before them). */
int hcb_target_alive(pid_t pid);
/* pid's state letter from /proc/PID/stat ('R', 'S', 'T': stopped, 'Z', ...);
 * '?' where the line cannot be read as one, 0 where pid is gone. */
char hcb_target_state(pid_t pid);
/* pid's parent, from /proc/PID/stat; 0 where pid is gone or unreadable. */
pid_t hcb_target_parent(pid_t pid);
/* One line of /proc/PID/maps: what the target says it maps. */
struct hcb_maps_line {
	uint64_t start, end, off, ino;
	unsigned int dev_major, dev_minor;
	char path[4096];     /* "" for an anonymous mapping; may end in " (deleted)" */
};
/* Parse one line of a maps file (a newline in a path comes back as one).
 * -EINVAL for a line that is not one. */
int hcb_maps_parse_line(const char *line, struct hcb_maps_line *m);


/*
 * The first mapping (at file offset 0) of a file is_it() accepts: its path
 * and its load base.  The path is one that names the very file mapped (its
 * device and inode, a regular file): as the process names it, else through
 * /proc/PID/root, else /proc/PID/map_files/ (a library deleted or replaced
 * since).  -ENOENT: none mapped; -ESTALE: mapped, but no path here leads to
 * it; -ESRCH: no such process; -EACCES: its maps are not readable.
 */
int hcb_target_find_mapping(pid_t pid, int (*is_it)(const char *path), char *path, size_t size,
			    uint64_t *base);
/* 1 if any mapping of pid (a device file's too) has a path is_it() takes,
 * 0 if none, -errno if its maps cannot be read. */
int hcb_target_maps_any(pid_t pid, int (*is_it)(const char *path));
/* The version a Python package's version.py beside lib_path gives
 * (jaxlib's: _version = "0.4.31"); "unknown" and -ENOENT if none. */
int hcb_target_version_py(const char *lib_path, char *version, size_t vsize);
/* Where symbol name (.dynsym or .symtab) is, relative to the library's
 * load base.  -ENOENT: no such symbol; -EBADMSG: not an ELF file. */
int hcb_target_symbol_offset(const char *lib_path, const char *name, uint64_t *off);
/*
 * The file offsets (where a uprobe goes) of the functions names[0..n) in
 * the ELF file at path, from its .symtab and .dynsym: offs[i] = 0 for one
 * not found.  0 if the file has a .symtab (local symbols are there only),
 * -ENODATA if it has none (stripped), -EBADMSG if it is no ELF file.
 */
int hcb_target_elf_funcs(const char *path, const char *const *names, unsigned int n,
			 uint64_t *offs);
/* A function of an ELF file, as its symbol table gives it. */
struct hcb_elf_func {
	const char *name;      /* mangled, as the symbol table has it */
	uint64_t off;          /* file offset of its first byte */
	uint64_t size;         /* bytes of code, as the symbol says (0: not said) */
	uint64_t addr;         /* its address (st_value): for a disassembler */
};
/*
 * fn(f, ctx) for every function (STT_FUNC, defined, its code in the file)
 * in the .symtab and .dynsym of the ELF file at path whose name match(name,
 * ctx) takes: for the probes placed inside a function, whose names are
 * known only in part (C++ lambdas and templates).  The same function may
 * come twice (once per table).  fn's non-zero value stops the walk and is
 * returned.  Otherwise as hcb_target_elf_funcs.
 */
int hcb_target_elf_each_func(const char *path, int (*match)(const char *name, void *ctx),
			     int (*fn)(const struct hcb_elf_func *f, void *ctx), void *ctx);
/* Read f's code (f->size bytes, at most cap) from path into buf: the bytes
 * read, or -errno. */
long hcb_target_func_code(const char *path, const struct hcb_elf_func *f, void *buf, uint64_t cap);
/* Read len bytes at addr of pid's memory; -EFAULT if not all could be read. */
int hcb_target_read(pid_t pid, uint64_t addr, void *buf, size_t len);
/*
 * Whether this process may read pid's memory at all (hcb_target_read): a
 * byte of its first mapping read.  The kernel lets CAP_PERFMON
 * read another user's /proc/PID/maps, and BPF probe it, but its memory
 * only with CAP_SYS_PTRACE.  0 (a page not in memory counts as readable),
 * -EPERM, -ESRCH, or -errno of the maps.
 */
int hcb_target_memory_readable(pid_t pid);
/* The process's command line, spaces for NULs, cut to size. */
int hcb_target_comm(pid_t pid, char *buf, size_t size);

/*
 * Read the registry libhcbtap publishes (its exported hcbtap_registry):
 * the root into *root, and each consumer into consumers (may be NULL).
 * -EBADMSG for a registry that does not validate, -ENOENT if the symbol
 * is missing from the library.
 */
int hcb_target_read_registry(pid_t pid, const char *lib_path, uint64_t base,
			     struct hcb_wire_registry *root, struct hcb_registry *consumers);

/* Where libhcbtap's registry is in the process (base: the library's load base). */
int hcb_target_registry_addr(const char *lib_path, uint64_t base, uint64_t *addr);
/* The registry's per-device issued counters (HCB_MAX_DEVICES of them):
 * -ESRCH/-EFAULT once the process is gone, -EBADMSG if it does not validate. */
int hcb_target_read_issued(pid_t pid, uint64_t reg_addr, uint64_t *issued);

/* Processes (other than this one) for which has(pid, ctx) is true,
 * ascending; *pids is malloc'ed. */
int hcb_target_list_matching(int (*has)(pid_t pid, void *ctx), void *ctx, pid_t **pids, size_t *n);

#endif
