/* SPDX-License-Identifier: MIT */
/*
 * fault_tapper.c - a traced program whose taps' payloads are in pages the
 * probe must fault in, tapped from several threads at once: the case the
 * sleepable hcbtap probe exists for, and the one where a probe that sleeps
 * can meet another thread's run of itself on its CPU (tests/bats/sleepable.bats).
 *
 *   fault_tapper [-n THREADS] [-s STEPS] [-f FIELD] [-u | -e DIR] [-r RATE]
 *
 * Thread d taps device d, STEPS times, one leaf int64[FIELD] ("values")
 * whose element i at step s is (d << 48) | (s << 20) | i, so that every
 * value says where it belongs.  Each step writes the values into a memfd
 * with pwrite (the page cache, not this process's page tables), maps them
 * afresh, taps and unmaps: the probe finds the pages not in and must fault
 * them in (a minor fault, which rarely sleeps).
 * -u: the pages come from a userfaultfd instead, filled by a thread of
 * this program when the probe faults on them, so that every fault of the
 * probe sleeps until that thread has run: the probe's worst case, made
 * the common one.
 * -e DIR: the pages come from a file of its own in DIR (on a disk, not a
 * tmpfs), written, synced and evicted from the page cache before each
 * tap, so that the probe takes a major fault that waits for the disk.
 * -r RATE: each thread taps at most RATE times a second (a steady rate
 * the machine keeps up with, not flat out).
 * Prints the taps issued per device on stdout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hcbtap.h"

#define MAX_THREADS 16

static unsigned int nthreads = 4;
static uint64_t steps = 2000, field = 2048;
static uint32_t values_id;
static int uffd = -1;     /* -u: the userfaultfd that serves the taps' pages */
static const char *evict_dir;   /* -e: where the evicted files are */
static uint64_t rate;           /* -r: taps a second a thread, 0: flat out */
static size_t page;

struct worker {
	pthread_t thread;
	unsigned int device;
	int fd;
	int64_t issued;
	int failed;        /* errno of the first system call that failed */
	uintptr_t base;    /* -u: the step's mapping (0: none), for serve() */
	uint64_t step;     /* -u: the step it holds */
};

static struct worker workers[MAX_THREADS];

/* Elements first.. of device d's values at step s, n of them, into v. */
static void fill(int64_t *v, uint64_t n, unsigned int d, uint64_t s, uint64_t first)
{
	for (uint64_t i = 0; i < n; i++)
		v[i] = (int64_t)(((uint64_t)d << 48) | (s << 20) | (first + i));
}

/* -u: one missing page, at addr, filled with what belongs there. */
static void serve_page(uintptr_t addr, int64_t *buf)
{
	for (unsigned int d = 0; d < nthreads; d++) {
		uintptr_t base = __atomic_load_n(&workers[d].base, __ATOMIC_ACQUIRE);
		struct uffdio_copy copy = { .dst = addr, .src = (uintptr_t)buf, .len = page };

		if (!base || addr < base || addr >= base + field * sizeof(int64_t))
			continue;
		fill(buf, page / sizeof(int64_t), d, workers[d].step,
		     (addr - base) / sizeof(int64_t));
		ioctl(uffd, UFFDIO_COPY, &copy);
		return;
	}
}

/* -u: the fault server, until the program exits. */
static void *serve(void *arg)
{
	int64_t *buf = aligned_alloc(page, page);
	struct uffd_msg msg;

	(void)arg;
	if (!buf)
		abort();
	for (;;) {
		if (read(uffd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			continue;   /* EINTR; EAGAIN cannot happen (blocking fd) */
		if (msg.event == UFFD_EVENT_PAGEFAULT)
			serve_page((uintptr_t)msg.arg.pagefault.address & ~(uintptr_t)(page - 1), buf);
	}
	return NULL;
}

/* -u: one step's mapping, empty, its pages served by serve(). */
static void *map_served(struct worker *w, uint64_t s, size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register reg = { .range = { (uintptr_t)m, len },
				       .mode = UFFDIO_REGISTER_MODE_MISSING };

	if (m == MAP_FAILED)
		return NULL;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		munmap(m, len);
		return NULL;
	}
	w->step = s;
	__atomic_store_n(&w->base, (uintptr_t)m, __ATOMIC_RELEASE);
	return m;
}

/* One step: the values into the memfd, mapped afresh, tapped, unmapped. */
static int step(struct worker *w, uint64_t s, int64_t *buf)
{
	size_t len = field * sizeof(int64_t), maplen = (len + page - 1) & ~(page - 1);
	const void *leaves[1];
	void *m;

	if (uffd >= 0) {
		m = map_served(w, s, maplen);
		if (!m)
			return errno;
	} else {
		fill(buf, field, w->device, s, 0);
		if (pwrite(w->fd, buf, len, 0) != (ssize_t)len)
			return errno ? errno : EIO;
		/* -e: on the disk, and out of the page cache */
		if (evict_dir && (fdatasync(w->fd) ||
				  posix_fadvise(w->fd, 0, (off_t)len, POSIX_FADV_DONTNEED)))
			return errno ? errno : EIO;
		m = mmap(NULL, len, PROT_READ, MAP_SHARED, w->fd, 0);
		if (m == MAP_FAILED)
			return errno;
	}
	leaves[0] = m;
	if (hcbtap_emit(values_id, w->device, leaves) >= 0)
		w->issued++;
	__atomic_store_n(&w->base, 0, __ATOMIC_RELEASE);
	munmap(m, maplen);
	return 0;
}

/* -r: sleep until the next step is due, by a fixed grid from the start
 * (a late step does not shift the later ones). */
static void pace(struct timespec *next)
{
	uint64_t ns = (uint64_t)next->tv_nsec + 1000000000ull / rate;

	next->tv_sec += (time_t)(ns / 1000000000ull);
	next->tv_nsec = (long)(ns % 1000000000ull);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
		;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	int64_t *buf = malloc(field * sizeof(int64_t));
	struct timespec next;

	if (!buf) {
		w->failed = ENOMEM;
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (uint64_t s = 0; s < steps && !w->failed; s++) {
		w->failed = step(w, s, buf);
		if (rate)
			pace(&next);
	}
	free(buf);
	return NULL;
}

static int parse(int argc, char **argv)
{
	int c;

	while ((c = getopt(argc, argv, "n:s:f:ue:r:")) != -1) {
		switch (c) {
		case 'n': nthreads = (unsigned int)atoi(optarg); break;
		case 's': steps = strtoull(optarg, NULL, 10); break;
		case 'f': field = strtoull(optarg, NULL, 10); break;
		case 'u': uffd = 0; break;
		case 'e': evict_dir = optarg; break;
		case 'r': rate = strtoull(optarg, NULL, 10); break;
		default: return -1;
		}
	}
	return nthreads >= 1 && nthreads <= MAX_THREADS && steps < (1u << 27) &&
	       field >= 1 && field < (1u << 20) && !(evict_dir && uffd == 0) ? 0 : -1;
}

/* Where device d's pages come from: a memfd, or under -e a file of its
 * own in the directory, unlinked at once (it lives while it is open). */
static int open_backing(unsigned int d)
{
	char path[4096];
	int fd;

	if (!evict_dir)
		return memfd_create("fault_tapper", 0);
	snprintf(path, sizeof(path), "%s/fault_tapper.%d.%u", evict_dir, (int)getpid(), d);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0)
		unlink(path);
	else
		fprintf(stderr, "fault_tapper: %s: %s\n", path, strerror(errno));
	return fd;
}

int main(int argc, char **argv)
{
	struct worker *w = workers;
	struct hcbtap_leaf vec = { HCBTAP_INT64, 1, { 0 } };
	struct uffdio_api api = { .api = UFFD_API };
	pthread_t server;
	int bad = 0;

	if (parse(argc, argv)) {
		fprintf(stderr, "usage: fault_tapper [-n THREADS (1..16)] [-s STEPS] [-f FIELD] "
			"[-u | -e DIR] [-r RATE]\n");
		return 2;
	}
	vec.dims[0] = field;
	page = (size_t)sysconf(_SC_PAGESIZE);
	if (uffd == 0) {
		uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);
		if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) ||
		    pthread_create(&server, NULL, serve, NULL)) {
			fprintf(stderr, "fault_tapper: userfaultfd: %s\n", strerror(errno));
			return 1;
		}
	}
	if (hcbtap_register("values", NULL, "*", &vec, 1, &values_id))
		return 1;
	for (unsigned int d = 0; d < nthreads; d++) {
		w[d].device = d;
		w[d].fd = open_backing(d);
		if (w[d].fd < 0 || pthread_create(&w[d].thread, NULL, run, &w[d]))
			return 1;
	}
	for (unsigned int d = 0; d < nthreads; d++) {
		pthread_join(w[d].thread, NULL);
		close(w[d].fd);
		if (w[d].failed) {
			fprintf(stderr, "fault_tapper: device %u: %s\n", d, strerror(w[d].failed));
			bad = 1;
		}
		printf("issued %u %lld\n", d, (long long)w[d].issued);
	}
	return bad;
}
