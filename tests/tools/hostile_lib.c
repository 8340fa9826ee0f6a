/* SPDX-License-Identifier: MIT */
/*
 * hostile_lib.c - libhcbtap.so.hostile: what hcbtrace sees of libhcbtap,
 * and nothing of its care.  A library whose name starts "libhcbtap.so"
 * (as hcbtrace recognises the runtime), exporting the registry symbol
 * (HCB_REGISTRY_SYMBOL, struct hcb_wire_registry) and firing the same USDT
 * probe, hcbtap:packet (struct hcb_wire_packet *, u64 inline bytes), with
 * its semaphore, as hcbtap/hcbtap.c does.  Unlike libhcbtap it checks
 * nothing: hostile_tap.c hands it whatever packet it crafted.  Test only,
 * never installed.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include <stdint.h>

#include "core/wire.h"

#define EXPORT __attribute__((visibility("default")))

__attribute__((section(".probes"), visibility("hidden")))
volatile unsigned short hcbtap_packet_semaphore;
EXPORT volatile unsigned short *const hostile_semaphore = &hcbtap_packet_semaphore;

EXPORT struct hcb_wire_registry hcbtap_registry = {
	.magic = HCB_REGISTRY_MAGIC,
	.version = HCB_REGISTRY_VERSION,
	.platform = "cpu",
};

/* Fire the probe with pkt as it is (the caller's memory, read by BPF). */
EXPORT void hostile_fire(const struct hcb_wire_packet *pkt, uint64_t inline_bytes)
{
	__asm__ __volatile__("" : : "r"(pkt) : "memory");
	STAP_PROBE2(hcbtap, packet, pkt, inline_bytes);
}
