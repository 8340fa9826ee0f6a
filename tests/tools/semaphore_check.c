/* SPDX-License-Identifier: MIT */
/*
 * semaphore_check - print the hcbtap:packet USDT semaphore of a running
 * process, found the way a tracer finds it: from the stapsdt ELF note of
 * the libhcbtap the process has mapped, not from libhcbtap's own symbols.
 *
 *   semaphore_check [-v] [-l LIB] [-w VALUE [-t SECONDS]] PID
 *
 * The note gives the semaphore's link-time address (corrected by
 * .stapsdt.base, as prelink may have moved the library); the load base of
 * the library's first mapping in /proc/PID/maps turns it into the runtime
 * address, which is read with process_vm_readv.  As a cross-check, the
 * pointer libhcbtap exports (hcbtap_semaphore) must point at that address.
 *
 * Prints the value (decimal) and exits 0; with -w, first waits until the
 * library is mapped and the value is VALUE ("nonzero" for any value but 0).  Exits 1 with a message
 * on stderr on failure, 2 on bad usage.  Independent of the project's own
 * code on purpose: it checks what libhcbtap and hcbtrace do.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PROVIDER "hcbtap"
#define PROBE "packet"
#define STAPSDT_NOTE_TYPE 3

static int verbose;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("semaphore_check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void info(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	fputs("semaphore_check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The library as the process maps it: its first (file offset 0) mapping. */
struct mapping {
	uint64_t start, end;
	unsigned long long inode;
	char path[PATH_MAX];
};

static int lib_matches(const char *path, const char *lib)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return strncmp(base, lib, strlen(lib)) == 0;
}

/* 0, or -ENOENT while the process has no such library mapped (yet). */
static int find_mapping(int pid, const char *lib, struct mapping *m)
{
	char maps[64], line[PATH_MAX + 256];
	int found = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "re");
	if (!f) {
		if (errno == ENOENT)
			fail("no process with pid %d", pid);
		fail("cannot read %s: %s", maps, strerror(errno));
	}
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, inode;
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %llu %n", &start, &end, &off, &inode, &n) < 4 ||
		    !n || off != 0 || line[n] != '/')
			continue;
		line[strcspn(line, "\n")] = 0;
		if (!lib_matches(line + n, lib))
			continue;
		m->start = start;
		m->end = end;
		m->inode = inode;
		snprintf(m->path, sizeof(m->path), "%s", line + n);
		found = 1;
	}
	if (ferror(f))
		fail("cannot read %s: %s", maps, strerror(errno));
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* Open the mapped file: by its path if that is the same file here, else
 * through the process's root or its map_files entry (e.g. a deleted file). */
static int open_mapped(int pid, const struct mapping *m)
{
	char alt[PATH_MAX + 64];
	const char *tries[3];
	struct stat st;

	snprintf(alt, sizeof(alt), "/proc/%d/root%s", pid, m->path);
	tries[0] = m->path;
	tries[1] = alt;
	tries[2] = NULL;
	for (int i = 0; tries[i]; i++) {
		int fd = open(tries[i], O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && (unsigned long long)st.st_ino == m->inode) {
			info("library: %s", tries[i]);
			return fd;
		}
		close(fd);
	}
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start, m->end);
	{
		int fd = open(alt, O_RDONLY | O_CLOEXEC);

		if (fd >= 0) {
			info("library: %s (%s)", alt, m->path);
			return fd;
		}
		fail("cannot open %s as process %d maps it (tried the path, /proc/%d/root and "
		     "%s): %s", m->path, pid, pid, alt, strerror(errno));
	}
}

struct elf_facts {
	int is64;
	uint64_t note_sem, note_base;   /* from the note */
	int have_note;
	uint64_t stapsdt_base;          /* .stapsdt.base's address, if any */
	int have_stapsdt_base;
	uint64_t first_load_vaddr, first_load_offset;
	int have_load;
	uint64_t ptr_sym;               /* hcbtap_semaphore, if exported */
	int have_ptr_sym;
};

static uint64_t addr_at(const unsigned char *p, int is64)
{
	if (is64) {
		uint64_t v;

		memcpy(&v, p, 8);
		return v;
	} else {
		uint32_t v;

		memcpy(&v, p, 4);
		return v;
	}
}

static void scan_notes(Elf_Data *data, struct elf_facts *ef)
{
	size_t off = 0, next, name_off, desc_off;
	size_t asz = ef->is64 ? 8 : 4;
	GElf_Nhdr nh;

	while ((next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *desc = (const unsigned char *)data->d_buf + desc_off;
		const char *prov, *name, *end;

		off = next;
		if (nh.n_type != STAPSDT_NOTE_TYPE || nh.n_namesz != sizeof("stapsdt") ||
		    memcmp((const char *)data->d_buf + name_off, "stapsdt", sizeof("stapsdt")) ||
		    nh.n_descsz < 3 * asz + 2)
			continue;
		prov = (const char *)desc + 3 * asz;
		end = (const char *)desc + nh.n_descsz;
		name = memchr(prov, 0, (size_t)(end - prov));
		if (!name++ || name >= end || !memchr(name, 0, (size_t)(end - name)))
			continue;
		if (strcmp(prov, PROVIDER) || strcmp(name, PROBE))
			continue;
		/* every site of the probe shares the semaphore; take the first */
		if (!ef->have_note) {
			ef->note_base = addr_at(desc + asz, ef->is64);
			ef->note_sem = addr_at(desc + 2 * asz, ef->is64);
			ef->have_note = 1;
		}
	}
}

static void scan_dynsym(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct elf_facts *ef)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 0; data && i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym))
			break;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && !strcmp(name, "hcbtap_semaphore") && sym.st_shndx != SHN_UNDEF) {
			ef->ptr_sym = sym.st_value;
			ef->have_ptr_sym = 1;
			return;
		}
	}
}

static void read_elf(int fd, const char *what, struct elf_facts *ef)
{
	size_t shstrndx, nphdr;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		fail("libelf: %s", elf_errmsg(-1));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh))
		fail("%s is not an ELF file: %s", what, elf_errmsg(-1));
	ef->is64 = gelf_getclass(elf) == ELFCLASS64;
	if (elf_getshdrstrndx(elf, &shstrndx) || elf_getphdrnum(elf, &nphdr))
		fail("%s: %s", what, elf_errmsg(-1));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (sh.sh_type == SHT_NOTE && !strcmp(name, ".note.stapsdt")) {
			Elf_Data *data = elf_getdata(scn, NULL);

			if (data)
				scan_notes(data, ef);
		} else if (!strcmp(name, ".stapsdt.base")) {
			ef->stapsdt_base = sh.sh_addr;
			ef->have_stapsdt_base = 1;
		} else if (sh.sh_type == SHT_DYNSYM) {
			scan_dynsym(elf, scn, &sh, ef);
		}
	}
	for (size_t i = 0; i < nphdr; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			ef->first_load_vaddr = ph.p_vaddr;
			ef->first_load_offset = ph.p_offset;
			ef->have_load = 1;
			break;
		}
	}
	elf_end(elf);
}

static int read_remote(int pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EFAULT;
}

static unsigned int read_semaphore(int pid, uint64_t addr)
{
	unsigned short v;
	int err = read_remote(pid, addr, &v, sizeof(v));

	if (err == -ESRCH)
		fail("process %d exited", pid);
	if (err == -EPERM)
		fail("not allowed to read the memory of process %d (process_vm_readv: %s): run "
		     "as root or as its owner", pid, strerror(-err));
	if (err)
		fail("cannot read the semaphore at 0x%" PRIx64 " in process %d: %s", addr, pid,
		     strerror(-err));
	return v;
}

static uint64_t clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void usage(FILE *f)
{
	fputs("Usage: semaphore_check [OPTION]... PID\n"
	      "\n"
	      "Print the hcbtap:packet USDT semaphore of process PID (0: no tracer attached),\n"
	      "located through the stapsdt note of the libhcbtap it has mapped.\n"
	      "\n"
	      "  -l, --lib NAME       the library's file name starts with NAME\n"
	      "                       (default libhcbtap.so)\n"
	      "  -w, --wait VALUE     first wait until the library is mapped and the\n"
	      "                       semaphore is VALUE (any value but 0 for 'nonzero');\n"
	      "                       fail after the timeout\n"
	      "  -t, --timeout SECS   for --wait (default 5)\n"
	      "  -v, --verbose        how the address was found, on stderr\n"
	      "  -h, --help           this help\n", f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lib", required_argument, NULL, 'l' },
		{ "wait", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *lib = "libhcbtap.so";
	struct elf_facts ef = { 0 };
	long wait_value = -1;        /* -1: no wait; -2: nonzero */
	double timeout = 5;
	struct mapping m;
	struct timespec tick = { 0, 10000000 };
	uint64_t bias, sem, addr, deadline;
	unsigned int value;
	char *end;
	long pid;
	int c, fd;

	while ((c = getopt_long(argc, argv, "l:w:t:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'l':
			lib = optarg;
			break;
		case 'w':
			if (!strcmp(optarg, "nonzero")) {
				wait_value = -2;
				break;
			}
			errno = 0;
			wait_value = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || wait_value < 0 || wait_value > 65535) {
				fprintf(stderr, "semaphore_check: invalid --wait '%s': expected 0 to "
					"65535 or 'nonzero'\n", optarg);
				return 2;
			}
			break;
		case 't':
			errno = 0;
			timeout = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(timeout >= 0) || timeout > 3600) {
				fprintf(stderr, "semaphore_check: invalid --timeout '%s': expected "
					"seconds\n", optarg);
				return 2;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "semaphore_check: %s\n", optind < argc ? "too many arguments" :
			"missing PID");
		usage(stderr);
		return 2;
	}
	errno = 0;
	pid = strtol(argv[optind], &end, 10);
	if (errno || end == argv[optind] || *end || pid <= 0 || pid > INT32_MAX) {
		fprintf(stderr, "semaphore_check: invalid pid '%s'\n", argv[optind]);
		return 2;
	}

	/* with --wait, a program just started may not have mapped it yet */
	deadline = clock_ms() + (uint64_t)(timeout * 1000);
	while (find_mapping((int)pid, lib, &m)) {
		if (wait_value == -1 || clock_ms() >= deadline)
			fail("process %ld has no %s* mapped (is it linked with libhcbtap, and has "
			     "it started?)", pid, lib);
		nanosleep(&tick, NULL);
	}
	info("%s mapped at 0x%" PRIx64 " in process %ld", m.path, m.start, pid);
	fd = open_mapped((int)pid, &m);
	read_elf(fd, m.path, &ef);
	close(fd);
	if (!ef.have_note)
		fail("%s has no stapsdt note for %s:%s", m.path, PROVIDER, PROBE);
	if (!ef.note_sem)
		fail("the %s:%s probe of %s has no semaphore (built without "
		     "_SDT_HAS_SEMAPHORES?)", PROVIDER, PROBE, m.path);
	if (!ef.have_load)
		fail("%s has no loadable segment", m.path);
	sem = ef.note_sem;
	if (ef.have_stapsdt_base && ef.stapsdt_base != ef.note_base) {
		/* prelinked: the note still has the link-time addresses */
		sem += ef.stapsdt_base - ef.note_base;
		info("note base 0x%" PRIx64 ", .stapsdt.base 0x%" PRIx64 ": semaphore moved to "
		     "0x%" PRIx64, ef.note_base, ef.stapsdt_base, sem);
	}
	if (ef.first_load_offset != 0)
		fail("%s: the first PT_LOAD segment does not start the file (offset 0x%" PRIx64
		     "): cannot find the load base", m.path, ef.first_load_offset);
	bias = m.start - (ef.first_load_vaddr & ~(uint64_t)(sysconf(_SC_PAGESIZE) - 1));
	addr = bias + sem;
	info("semaphore: 0x%" PRIx64 " in the file, 0x%" PRIx64 " in process %ld", sem, addr, pid);

	if (ef.have_ptr_sym) {
		uint64_t ptr = 0;
		int err;

		if (ef.is64) {
			err = read_remote((int)pid, bias + ef.ptr_sym, &ptr, 8);
		} else {
			uint32_t p32 = 0;

			err = read_remote((int)pid, bias + ef.ptr_sym, &p32, 4);
			ptr = p32;
		}
		if (err)
			fail("cannot read hcbtap_semaphore in process %ld: %s", pid, strerror(-err));
		if (ptr != addr)
			fail("the stapsdt note puts the semaphore at 0x%" PRIx64 " but libhcbtap's "
			     "hcbtap_semaphore points at 0x%" PRIx64 ": taps would test the wrong "
			     "variable", addr, ptr);
		info("hcbtap_semaphore points at the same address");
	}

	value = read_semaphore((int)pid, addr);
	if (wait_value != -1) {
		while (wait_value == -2 ? value == 0 : value != (unsigned long)wait_value) {
			if (clock_ms() >= deadline) {
				if (wait_value == -2)
					fail("the semaphore of process %ld is still 0 after %g s",
					     pid, timeout);
				fail("the semaphore of process %ld is %u, not %ld, after %g s",
				     pid, value, wait_value, timeout);
			}
			nanosleep(&tick, NULL);
			value = read_semaphore((int)pid, addr);
		}
	}
	printf("%u\n", value);
	if (fflush(stdout) || ferror(stdout))
		fail("writing to standard output: %s", strerror(errno));
	return 0;
}
