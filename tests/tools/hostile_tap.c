/* SPDX-License-Identifier: MIT */
/*
 * hostile_tap - a traced program that lies: it fires the real hcbtap:packet
 * probe (through libhcbtap.so.hostile, hostile_lib.c, which mimics
 * libhcbtap's probe and registry symbol) with packets libhcbtap would never
 * send, so that hcbtrace's bounds are tested against the probe and the
 * kernel as they are, not against hand-made ring records.
 *
 *   hostile_tap devices      consumer x (u8[4]) on device 255, then on 256,
 *                            300, 1000, 4000000 and 0xffffffff (the long
 *                            way and inline), then on 255 again
 *   hostile_tap flood N      N consumers whose 1 MiB registrations end in an
 *                            unmapped page (their copies never finish), two
 *                            packets each on device 0, 10 ms apart
 *   hostile_tap seq          consumer x on device 0 with seqs that lie
 *
 * Each prints "ready" once set up and waits for SIGUSR1 (hcbtrace attached:
 * the probe's semaphore must be up by then, else it exits 1); fires; ends
 * with one packet of consumer "end" on device 0 (so that a reader can wait
 * for it), prints "fired N" (N: packets fired) and waits for SIGUSR1 again
 * to exit 0.  Test only.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/consumer.h"
#include "core/wire.h"

extern volatile unsigned short *const hostile_semaphore;
extern struct hcb_wire_registry hcbtap_registry;
void hostile_fire(const struct hcb_wire_packet *pkt, uint64_t inline_bytes);

struct site {
	uint32_t id;
	const void *blob;
	uint64_t len;
};

static unsigned long fired;
static uint64_t stray_seq;   /* devices out of range have no counter */

static const struct hcb_leaf_spec u8x4[] = { { HCB_DT_UINT8, 1, { 4 } } };

static struct site make_site(const char *name, uint32_t id)
{
	const struct hcb_consumer_spec spec = { .name = name, .nleaves = 1, .leaves = u8x4 };
	struct site s = { .id = id };
	void *blob;
	size_t len;

	if (hcb_reg_build(&spec, id, &blob, &len)) {
		fprintf(stderr, "hostile_tap: cannot build a registration\n");
		exit(1);
	}
	s.blob = blob;
	s.len = len;
	return s;
}

/* The next seq of dev, as libhcbtap takes it (issued first, then fired). */
static uint64_t next_seq(uint32_t dev)
{
	uint64_t seq;

	if (dev >= HCB_MAX_DEVICES)
		return stray_seq++;
	seq = hcbtap_registry.issued[dev];
	__atomic_store_n(&hcbtap_registry.issued[dev], seq + 1, __ATOMIC_SEQ_CST);
	return seq;
}

/* One packet of s on dev with seq: its 4 bytes inline or the long way. */
static void fire(const struct site *s, uint32_t dev, uint64_t seq, int inline_payload)
{
	static const unsigned char four[4] = { 1, 2, 3, 4 };
	struct {
		struct hcb_wire_packet pkt;
		struct hcb_wire_inline in;
		unsigned char payload[HCB_WIRE_INLINE_MAX];
	} w = { 0 };
	uint64_t addrs[1] = { (uintptr_t)four }, sizes[1] = { sizeof(four) };
	struct timespec ts;

	w.pkt = (struct hcb_wire_packet){
		.magic = HCB_OUTFEED_MAGIC, .consumer_id = s->id, .device = dev, .nleaves = 1,
		.seq = seq, .reg_addr = (uintptr_t)s->blob, .reg_len = s->len,
		.data_addrs = (uintptr_t)addrs, .leaf_bytes = (uintptr_t)sizes,
		.total_bytes = sizeof(four),
	};
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.in.ts_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	memcpy(w.payload, four, sizeof(four));
	hostile_fire(&w.pkt, inline_payload ? sizeof(four) : 0);
	fired++;
}

static void devices(void)
{
	static const uint32_t bad[] = { 256, 300, 1000, 4000000, 0xffffffffu };
	struct site x = make_site("x", 0x1001);

	fire(&x, 255, next_seq(255), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fire(&x, bad[i], next_seq(bad[i]), 0);
		fire(&x, bad[i], next_seq(bad[i]), 1);
	}
	fire(&x, 255, next_seq(255), 1);
}

/* n registrations of HCB_MAX_REG_BYTES whose last page is not mapped: the
 * probe copies all but the last chunk, every time. */
static void flood(unsigned long n)
{
	long page = sysconf(_SC_PAGESIZE);

	for (unsigned long i = 0; i < n; i++) {
		unsigned char *m = mmap(NULL, HCB_MAX_REG_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct site s = { .id = 0x20000u + (uint32_t)i, .blob = m, .len = HCB_MAX_REG_BYTES };
		struct hcb_wire_reg head = { .magic = HCB_REG_MAGIC, .version = HCB_REG_VERSION,
					     .total_len = HCB_MAX_REG_BYTES, .consumer_id = s.id };

		if (m == MAP_FAILED || munmap(m + HCB_MAX_REG_BYTES - page, (size_t)page)) {
			perror("hostile_tap: mmap");
			exit(1);
		}
		memcpy(m, &head, sizeof(head));
		for (int k = 0; k < 2; k++) {
			fire(&s, 0, next_seq(0), 0);
			/* a program tapping at 100 Hz: 2 MiB of ring a packet,
			 * so that many registrations reach the decoder rather
			 * than a full ring (hcbtrace reads a ring that is not
			 * woken every 100 ms) */
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		}
	}
}

/* Seqs that jump far ahead, go back, and wrap; the counter stays honest. */
static void seq_lies(void)
{
	static const uint64_t seqs[] = { 0, 1, 2, UINT64_C(1) << 60, 3, UINT64_MAX, 4 };
	struct site x = make_site("x", 0x1001);

	for (size_t i = 0; i < sizeof(seqs) / sizeof(seqs[0]); i++) {
		next_seq(0);
		fire(&x, 0, seqs[i], 0);
	}
}

static void wait_usr1(const sigset_t *set)
{
	int sig;

	while (sigwait(set, &sig) == 0 && sig != SIGUSR1)
		;
}

int main(int argc, char **argv)
{
	sigset_t set;
	struct site end;

	if (argc < 2 || (strcmp(argv[1], "flood") == 0 && argc < 3)) {
		fprintf(stderr, "usage: hostile_tap devices|flood N|seq\n");
		return 2;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	end = make_site("end", 0x1002);
	printf("ready\n");
	fflush(stdout);
	wait_usr1(&set);
	if (!*hostile_semaphore) {
		fprintf(stderr, "hostile_tap: no tracer attached\n");
		return 1;
	}
	if (!strcmp(argv[1], "devices"))
		devices();
	else if (!strcmp(argv[1], "flood"))
		flood(strtoul(argv[2], NULL, 0));
	else if (!strcmp(argv[1], "seq"))
		seq_lies();
	else
		return 2;
	fire(&end, 0, next_seq(0), 0);
	printf("fired %lu\n", fired);
	fflush(stdout);
	wait_usr1(&set);
	return 0;
}
