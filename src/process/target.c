/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/openfile.h"
#include "core/consumer.h"
#include "core/grow.h"
#include "target.h"

/* "\\012" is how the kernel shows a newline in a path of the maps file */
static void unescape_path(char *p)
{
	char *w = p;

	for (; *p; p++) {
		if (p[0] == '\\' && !strncmp(p + 1, "012", 3)) {
			*w++ = '\n';
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
}

int hcb_maps_parse_line(const char *line, struct hcb_maps_line *m)
{
	unsigned int maj, min;
	int n = 0;

	memset(m, 0, sizeof(*m));
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %x:%x %" SCNu64 " %n", &m->start,
		   &m->end, &m->off, &maj, &min, &m->ino, &n) < 6 || !n || m->end < m->start)
		return -EINVAL;
	m->dev_major = maj;
	m->dev_minor = min;
	if (sscanf(line + n, "%4095[^\n]", m->path) != 1)
		m->path[0] = '\0';
	unescape_path(m->path);
	return 0;
}

/* path is, here, the regular file the mapping m maps (device and inode) */
static int same_file(const char *path, const struct hcb_maps_line *m)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == m->ino &&
	       major(st.st_dev) == m->dev_major && minor(st.st_dev) == m->dev_minor;
}

/*
 * A path to open the file of mapping m by: as the process names it, if that
 * is the same file here; through /proc/PID/root (another mount namespace);
 * else the kernel's own link to the mapped file, /proc/PID/map_files/
 * (a library deleted since, or replaced: whatever now has its name is not
 * the file, and may be a FIFO that would block an open).  -ESTALE if none.
 */
static int mapped_path(pid_t pid, const struct hcb_maps_line *m, char *path, size_t size)
{
	struct stat st;
	int n;

	if (same_file(m->path, m) && strlen(m->path) < size) {
		snprintf(path, size, "%s", m->path);
		return 0;
	}
	n = snprintf(path, size, "/proc/%d/root%s", (int)pid, m->path);
	if (n > 0 && (size_t)n < size && same_file(path, m))
		return 0;
	n = snprintf(path, size, "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start, m->end);
	if (n > 0 && (size_t)n < size && stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	return -ESTALE;
}

int hcb_target_find_mapping(pid_t pid, int (*is_it)(const char *path), char *path, size_t size,
			    uint64_t *base)
{
	char maps[64], line[4096 + 128];
	int err = -ENOENT;
	FILE *f;

	if (hcb_target_exists(pid))
		return -ESRCH;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f)) {
		struct hcb_maps_line m;

		if (hcb_maps_parse_line(line, &m) || m.path[0] != '/' || m.off != 0 || !is_it(m.path))
			continue;
		err = mapped_path(pid, &m, path, size);
		if (err)
			continue;   /* another mapping of it may do */
		*base = m.start;
		break;
	}
	if (ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

int hcb_target_maps_any(pid_t pid, int (*is_it)(const char *path))
{
	char maps[64], line[4096 + 128];
	int found = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (!found && fgets(line, sizeof(line), f)) {
		struct hcb_maps_line m;

		found = !hcb_maps_parse_line(line, &m) && m.path[0] == '/' && is_it(m.path);
	}
	if (!found && ferror(f))
		found = -EIO;
	fclose(f);
	return found;
}

int hcb_target_version_py(const char *lib_path, char *version, size_t vsize)
{
	char vpath[4200], line[256];
	const char *slash = strrchr(lib_path, '/');
	FILE *f;
	int fd;

	/* version.py beside it: _version = "0.4.31" */
	snprintf(version, vsize, "unknown");
	if (!slash)
		return -ENOENT;
	snprintf(vpath, sizeof(vpath), "%.*s/version.py", (int)(slash - lib_path), lib_path);
	fd = hcb_open_regular(vpath);
	if (fd < 0)
		return fd;
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	while (fgets(line, sizeof(line), f)) {
		char v[64];

		if (sscanf(line, "_version = \"%63[^\"]\"", v) == 1) {
			snprintf(version, vsize, "%s", v);
			fclose(f);
			return 0;
		}
	}
	fclose(f);
	return -ENOENT;
}

int hcb_target_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

int hcb_target_memory_readable(pid_t pid)
{
	char maps[64], line[4096 + 128];
	struct hcb_maps_line m;
	unsigned char b;
	int err;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	/* the kernel checks the right to read before the address: any
	 * mapping tells, the first will do */
	err = fgets(line, sizeof(line), f) ? hcb_maps_parse_line(line, &m) : -ENOENT;
	fclose(f);
	if (!err)
		err = hcb_target_read(pid, m.start, &b, 1);
	if (err == -EFAULT || err == -EIO)
		err = 0;   /* read, and found not there: access was granted */
	return err == -EACCES ? -EPERM : err;
}

int hcb_target_comm(pid_t pid, char *buf, size_t size)
{
	char p[64];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "/proc/%d/cmdline", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0' || !isprint((unsigned char)buf[i]))
			buf[i] = ' ';
	buf[n] = '\0';
	return 0;
}

int hcb_target_symbol_offset(const char *lib_path, const char *name, uint64_t *off)
{
	uint64_t first_vaddr = UINT64_MAX;
	Elf_Scn *scn = NULL;
	int fd, err = -ENOENT;
	size_t nphdr;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = hcb_open_regular(lib_path);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getphdrnum(elf, &nphdr)) {
		err = -EBADMSG;
		goto out;
	}
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && ph.p_vaddr < first_vaddr)
			first_vaddr = ph.p_vaddr & ~(uint64_t)(ph.p_align ? ph.p_align - 1 : 0);
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && strcmp(s, name) == 0 && first_vaddr != UINT64_MAX) {
				*off = sym.st_value - first_vaddr;
				err = 0;
				goto out;
			}
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}

/* The file offset of symbol sym (what a uprobe is placed at, where its
 * code is), 0 if its section does not hold it. */
static uint64_t sym_file_offset(Elf *elf, const GElf_Sym *sym)
{
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
	    sym->st_value < sh.sh_addr || sym->st_value - sh.sh_addr >= sh.sh_size)
		return 0;
	return sym->st_value - sh.sh_addr + sh.sh_offset;
}

/* One pass over a symbol table: fn for each function match takes. */
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
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		f.name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!f.name || !match(f.name, ctx))
			continue;
		f.off = sym_file_offset(elf, &sym);
		f.size = sym.st_size;
		f.addr = sym.st_value;
		if (f.off && (r = fn(&f, ctx)))
			return r;
	}
	return 0;
}

int hcb_target_elf_each_func(const char *path, int (*match)(const char *name, void *ctx),
			     int (*fn)(const struct hcb_elf_func *f, void *ctx), void *ctx)
{
	int fd, err = -ENODATA, r = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = hcb_open_regular(path);
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

long hcb_target_func_code(const char *path, const struct hcb_elf_func *f, void *buf, uint64_t cap)
{
	int fd = hcb_open_regular(path);
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

/* hcb_target_elf_funcs's names, and where each was found (0: not yet) */
struct wanted {
	const char *const *names;
	unsigned int n;
	uint64_t *offs;
};

static int is_wanted(const char *name, void *ctx)
{
	const struct wanted *w = ctx;

	for (unsigned int k = 0; k < w->n; k++)
		if (!w->offs[k] && strcmp(name, w->names[k]) == 0)
			return 1;
	return 0;
}

static int note_wanted(const struct hcb_elf_func *f, void *ctx)
{
	struct wanted *w = ctx;

	for (unsigned int k = 0; k < w->n; k++)
		if (!w->offs[k] && strcmp(f->name, w->names[k]) == 0)
			w->offs[k] = f->off;
	return 0;
}

int hcb_target_elf_funcs(const char *path, const char *const *names, unsigned int n,
			 uint64_t *offs)
{
	struct wanted w = { names, n, offs };

	memset(offs, 0, n * sizeof(*offs));
	return hcb_target_elf_each_func(path, is_wanted, note_wanted, &w);
}

int hcb_target_registry_addr(const char *lib_path, uint64_t base, uint64_t *addr)
{
	uint64_t off;
	int err = hcb_target_symbol_offset(lib_path, HCB_REGISTRY_SYMBOL, &off);

	if (!err)
		*addr = base + off;
	return err;
}

int hcb_target_read_issued(pid_t pid, uint64_t reg_addr, uint64_t *issued)
{
	struct hcb_wire_registry root;
	int err = hcb_target_read(pid, reg_addr, &root, sizeof(root));

	if (err)
		return err;
	if (root.magic != HCB_REGISTRY_MAGIC || root.version != HCB_REGISTRY_VERSION)
		return -EBADMSG;
	memcpy(issued, root.issued, sizeof(root.issued));
	return 0;
}

/* Walks at most this many nodes: a corrupt list must not loop forever. */
#define MAX_NODES 65536u

int hcb_target_read_registry(pid_t pid, const char *lib_path, uint64_t base,
			     struct hcb_wire_registry *root, struct hcb_registry *consumers)
{
	uint64_t off = 0, node_addr;
	unsigned int walked = 0;
	int err;

	err = hcb_target_symbol_offset(lib_path, HCB_REGISTRY_SYMBOL, &off);
	if (err)
		return err;
	err = hcb_target_read(pid, base + off, root, sizeof(*root));
	if (err)
		return err;
	if (root->magic != HCB_REGISTRY_MAGIC || root->version != HCB_REGISTRY_VERSION)
		return -EBADMSG;
	root->platform[sizeof(root->platform) - 1] = '\0';
	if (!consumers)
		return 0;
	for (node_addr = root->head; node_addr; walked++) {
		struct hcb_wire_node node;
		struct hcb_consumer *c;
		void *blob;

		if (walked >= MAX_NODES)
			return -EBADMSG;
		err = hcb_target_read(pid, node_addr, &node, sizeof(node));
		if (err)
			return err;
		if (node.reg_len == 0 || node.reg_len > HCB_MAX_REG_BYTES)
			return -EBADMSG;
		blob = malloc(node.reg_len);
		if (!blob)
			return -ENOMEM;
		err = hcb_target_read(pid, node.reg_addr, blob, node.reg_len);
		if (!err)
			err = hcb_consumer_from_reg(blob, node.reg_len, &c);
		free(blob);
		if (err)
			return err;
		err = hcb_registry_add(consumers, c);
		if (err && err != -EEXIST)
			return err;
		node_addr = node.next;
	}
	return 0;
}

static int pid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

int hcb_target_list_matching(int (*has)(pid_t pid, void *ctx), void *ctx, pid_t **pids, size_t *n)
{
	size_t count = 0, cap = 0;
	pid_t *out = NULL;
	struct dirent *de;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		if (!has((pid_t)pid, ctx))
			continue;
		if (hcb_grow(&out, &cap, count + 1, sizeof(*out))) {
			free(out);
			closedir(d);
			return -ENOMEM;
		}
		out[count++] = (pid_t)pid;
	}
	closedir(d);
	if (count)
		qsort(out, count, sizeof(*out), pid_cmp);
	*pids = out;
	*n = count;
	return 0;
}
