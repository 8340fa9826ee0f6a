/* SPDX-License-Identifier: MIT */
/* target.h - a traced process seen from outside: /proc, its memory, its libhcbtap. */
#ifndef HCB_TARGET_H
#define HCB_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hcb_wire.h"
#include "registry.h"

/* 0 if pid exists, -ESRCH if not, -EINVAL for pid <= 0. */
int hcb_target_exists(pid_t pid);
/* 1 while pid runs, 0 once it has exited (a zombie counts as exited). */
int hcb_target_alive(pid_t pid);
/*
 * The path of the libhcbtap the process has mapped (through /proc/PID/root
 * when it is not visible from here) and its load base.  -ENOENT: none
 * mapped; -ESRCH: no such process; -EACCES: its maps are not readable.
 */
int hcb_target_find_lib(pid_t pid, char *path, size_t size, uint64_t *base);
/*
 * Legacy JAX (DESIGN 4.2): the path of jaxlib's xla_extension.so the process
 * has mapped, and the jaxlib version from the version.py beside it
 * ("unknown" if unreadable).  -ENOENT: none mapped; -ESRCH: no process.
 */
int hcb_target_find_xla(pid_t pid, char *path, size_t size, char *version, size_t vsize);
/*
 * jaxlib >= 0.6 (the jaxffi provider): the path of jaxlib's
 * libjax_common.so the process has mapped, and the jaxlib version from the
 * version.py beside it, as hcb_target_find_xla.
 */
int hcb_target_find_jax_common(pid_t pid, char *path, size_t size, char *version, size_t vsize);
/*
 * The file offsets (where a uprobe goes) of the functions names[0..n) in
 * the ELF file at path, from its .symtab and .dynsym: offs[i] = 0 for one
 * not found.  0 if the file has a .symtab (local symbols are there only),
 * -ENODATA if it has none (stripped), -EBADMSG if it is no ELF file.
 */
int hcb_target_elf_funcs(const char *path, const char *const *names, unsigned int n,
			 uint64_t *offs);
/* Read len bytes at addr of pid's memory; -EFAULT if not all could be read. */
int hcb_target_read(pid_t pid, uint64_t addr, void *buf, size_t len);
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

/* Processes that have libhcbtap mapped, ascending; *pids is malloc'ed. */
int hcb_target_list(pid_t **pids, size_t *n);
/* Processes that have jaxlib's xla_extension.so mapped, the same way. */
int hcb_target_list_xla(pid_t **pids, size_t *n);

#endif
