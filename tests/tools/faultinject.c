/* SPDX-License-Identifier: MIT */
/*
 * faultinject.so - an LD_PRELOAD shim that makes chosen calls fail, so the
 * tests can show how hcbtrace behaves on a full disk, a closed pipe or an
 * exhausted heap:
 *
 *   HCB_FAULT_WRITE=ENOSPC|EPIPE|EIO   the errno write(2)/writev(2) fail with
 *   HCB_FAULT_WRITE_AFTER=N            after N bytes went through (default 0)
 *   HCB_FAULT_MALLOC_AFTER=N           the N+1-th and later malloc, calloc and
 *                                      realloc calls return NULL (ENOMEM)
 *
 *   LD_PRELOAD=build/tests/tools/faultinject.so HCB_FAULT_WRITE=ENOSPC \
 *       HCB_FAULT_WRITE_AFTER=10000 hcbtrace convert in.jsonl -o out.jsonl
 *
 * Writes: only writes to regular files and pipes count, and never to fd 2, so
 * error messages still appear.  The write that crosses N is cut short at N (as
 * a filling disk does), every later one fails.  stdio's own flushes go through
 * glibc-internal calls this shim does not see; hcbtrace writes its output with
 * write(2), which it does.  No SIGPIPE is raised for EPIPE.
 *
 * Allocations: counting starts when main() is entered (the shim wraps
 * __libc_start_main), so N does not depend on what the dynamic loader and the
 * libraries' constructors allocate, and small N hit the program itself.
 * Allocations made while the shim looks up the real functions (dlsym may call
 * calloc) are served from a static buffer and never freed.
 *
 * With none of the variables set the shim only forwards.  Children inherit
 * LD_PRELOAD and the variables, and start counting afresh.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_writev)(int, const struct iovec *, int);
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);

static int write_errno;                 /* 0: writes are not faulted */
static unsigned long long write_left;   /* bytes still allowed through */
static long long malloc_left = -1;      /* -1: allocations are not faulted */
static int counting;                    /* set once main() is entered */
static int initialized;

/* The bootstrap heap for allocations made while dlsym runs. */
static _Alignas(max_align_t) char boot_heap[4096];
static size_t boot_used;
static int in_init;

static int is_boot(const void *p)
{
	return (const char *)p >= boot_heap && (const char *)p < boot_heap + sizeof(boot_heap);
}

static void *boot_alloc(size_t n)
{
	size_t a = _Alignof(max_align_t);
	size_t start = (boot_used + a - 1) / a * a;

	if (n > sizeof(boot_heap) - start)
		return NULL;
	boot_used = start + n;
	return boot_heap + start;
}

static unsigned long long env_number(const char *name, unsigned long long dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 10);
	return errno || *end ? dflt : v;
}

static void init(void)
{
	const char *w;

	if (initialized || in_init)
		return;
	in_init = 1;
	real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_writev = (ssize_t (*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
	real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");

	w = getenv("HCB_FAULT_WRITE");
	if (w && !strcmp(w, "ENOSPC"))
		write_errno = ENOSPC;
	else if (w && !strcmp(w, "EPIPE"))
		write_errno = EPIPE;
	else if (w && !strcmp(w, "EIO"))
		write_errno = EIO;
	write_left = env_number("HCB_FAULT_WRITE_AFTER", 0);
	if (getenv("HCB_FAULT_MALLOC_AFTER"))
		malloc_left = (long long)env_number("HCB_FAULT_MALLOC_AFTER", (unsigned long long)-1 >> 1);
	in_init = 0;
	initialized = 1;
}

__attribute__((constructor)) static void faultinject_init(void)
{
	init();
}

/* --- counting from main() --- */

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int counting_main(int argc, char **argv, char **envp)
{
	__atomic_store_n(&counting, 1, __ATOMIC_SEQ_CST);
	return real_main(argc, argv, envp);
}

int __libc_start_main(main_fn main, int argc, char **argv, void (*init_fn)(void),
		      void (*fini)(void), void (*rtld_fini)(void), void *stack_end)
{
	int (*real)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

	real = (int (*)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void),
			void *))dlsym(RTLD_NEXT, "__libc_start_main");
	real_main = main;
	return real(counting_main, argc, argv, init_fn, fini, rtld_fini, stack_end);
}

/* --- write(2), writev(2) --- */

/* How many of n bytes to fd may go through; -1 with errno set: none. */
static ssize_t write_allowance(int fd, size_t n)
{
	struct stat st;
	unsigned long long left, take;

	if (!write_errno || fd == STDERR_FILENO || n == 0)
		return (ssize_t)n;
	if (fstat(fd, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)))
		return (ssize_t)n;
	left = __atomic_load_n(&write_left, __ATOMIC_SEQ_CST);
	do {
		if (left == 0) {
			errno = write_errno;
			return -1;
		}
		take = n < left ? n : left;
	} while (!__atomic_compare_exchange_n(&write_left, &left, left - take, 0,
					      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	return (ssize_t)take;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t ok;

	init();
	ok = write_allowance(fd, n);
	if (ok < 0)
		return -1;
	return real_write(fd, buf, (size_t)ok);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	struct iovec cut[64];
	size_t total = 0;
	ssize_t ok;
	int i;

	init();
	for (i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	ok = write_allowance(fd, total);
	if (ok < 0)
		return -1;
	if ((size_t)ok == total)
		return real_writev(fd, iov, iovcnt);
	/* a short write: pass the first ok bytes only (at most 64 buffers) */
	for (i = 0; i < iovcnt && i < 64 && ok > 0; i++) {
		cut[i] = iov[i];
		if (cut[i].iov_len > (size_t)ok)
			cut[i].iov_len = (size_t)ok;
		ok -= (ssize_t)cut[i].iov_len;
	}
	return real_writev(fd, cut, i);
}

/* --- malloc, calloc, realloc, free --- */

/* Whether this allocation must fail. */
static int malloc_fails(void)
{
	if (malloc_left < 0 || !__atomic_load_n(&counting, __ATOMIC_SEQ_CST))
		return 0;
	if (__atomic_load_n(&malloc_left, __ATOMIC_SEQ_CST) > 0 &&
	    __atomic_sub_fetch(&malloc_left, 1, __ATOMIC_SEQ_CST) >= 0)
		return 0;
	__atomic_store_n(&malloc_left, 0, __ATOMIC_SEQ_CST);
	errno = ENOMEM;
	return 1;
}

void *malloc(size_t n)
{
	if (!real_malloc) {
		init();
		if (!real_malloc)
			return boot_alloc(n);
	}
	return malloc_fails() ? NULL : real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
	if (!real_calloc) {
		init();
		if (!real_calloc) {
			if (n && k > SIZE_MAX / n)
				return NULL;
			return boot_alloc(k * n); /* static: already zero */
		}
	}
	return malloc_fails() ? NULL : real_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
	void *q;

	if (!real_realloc) {
		init();
		if (!real_realloc) {
			q = boot_alloc(n);
			if (q && p)
				memcpy(q, p, n); /* p is in boot_heap too, which has room */
			return q;
		}
	}
	if (is_boot(p)) {
		if (malloc_fails())
			return NULL;
		q = real_malloc(n);
		if (q)
			memcpy(q, p, (size_t)(boot_heap + sizeof(boot_heap) - (char *)p) < n
					     ? (size_t)(boot_heap + sizeof(boot_heap) - (char *)p) : n);
		return q;
	}
	return malloc_fails() ? NULL : real_realloc(p, n);
}

void free(void *p)
{
	if (!p || is_boot(p))
		return;
	if (!real_free)
		init();
	if (real_free)
		real_free(p);
}
