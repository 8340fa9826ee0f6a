/* SPDX-License-Identifier: MIT */
/*
 * publish.h - a live session made known through the session files
 * (session/session.h): `hcbtrace list` sees it, `hcbtrace barrier` asks
 * it for barriers (barriers.h serves them), and both read the figures of
 * the slot that speaks for the target (hcb_slots_main), kept current
 * here as its packets are accounted for.
 */
#ifndef HCB_ENGINE_PUBLISH_H
#define HCB_ENGINE_PUBLISH_H

#include <stdint.h>

struct hcb_out;
struct hcb_sess;
struct hcb_slot;
struct hcb_slots;

struct hcb_pub {
	struct hcb_sess *sess;           /* the session files; NULL: unpublished */
	const struct hcb_slots *slots;   /* whose main slot's figures they show */
};

/* Nothing published yet; the figures shown will be slots's. */
void hcb_pub_init(struct hcb_pub *p, const struct hcb_slots *slots);
/* Publish the session: what it runs and where it writes (NULL: "hcbtrace",
 * ""), how much a flight recorder holds back (0: none).  If it cannot be,
 * out's warner hears why and the session goes on unpublished. */
void hcb_pub_open(struct hcb_pub *p, const char *what, const char *output, uint64_t flight_ring,
		  const struct hcb_out *out);
/* Device d of slot s: its figures now, if s is the slot they show. */
void hcb_pub_dev(struct hcb_pub *p, const struct hcb_slot *s, uint32_t d);
/* A tap of device d of slot s was written: its count, likewise. */
void hcb_pub_written(struct hcb_pub *p, const struct hcb_slot *s, uint32_t d);
/* The flight recorder has written n firings. */
void hcb_pub_firings(struct hcb_pub *p, uint64_t n);
/* The final figures, then the session withdrawn. */
void hcb_pub_close(struct hcb_pub *p);
/* Withdrawn as it is (a session never ended). */
void hcb_pub_free(struct hcb_pub *p);

#endif
