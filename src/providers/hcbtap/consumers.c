/* SPDX-License-Identifier: MIT */
/*
 * consumers.c - the consumers the hcbtap decoder knows, the bottom of its
 * stack: a registration blob, reassembled (registration.c) or read from the
 * target when its chunks were lost, made a consumer and kept in the
 * registry.  Both paths end here so that one count bounds them: the
 * registry holds HCB_BOUNDS_CONSUMERS consumers of HCB_BOUNDS_CONSUMER_BYTES
 * at most (providers/bounds.h), whoever brought them.
 */
#include <errno.h>
#include <stdlib.h>

#include "decode_impl.h"

int hcb_hcbtap_consumer_add(struct hcb_hcbtap *d, uint32_t dev, uint32_t cid, const void *blob,
			    size_t len)
{
	struct hcb_consumer *c;
	int err;

	if (hcb_registry_get(d->reg, cid))
		return 0;
	if (d->b.consumers >= HCB_BOUNDS_CONSUMERS ||
	    d->b.consumer_bytes + len > HCB_BOUNDS_CONSUMER_BYTES) {
		hcb_bounds_note(&d->b, HCB_BOUND_CONSUMERS, dev, cid,
				"consumer %u not kept: %u consumers of %llu bytes are the most kept",
				cid, d->b.consumers, (unsigned long long)d->b.consumer_bytes);
		return 0;
	}
	err = hcb_consumer_from_reg(blob, len, &c);
	if (err == -ENOMEM)
		return err;
	if (err || c->id != cid) {
		if (!err)
			hcb_consumer_free(c);
		hcb_bounds_problem(&d->b, HCB_BAD_REGISTRATION, dev, cid,
				   "registration of consumer %u is malformed", cid);
		return 0;
	}
	err = hcb_registry_add(d->reg, c);
	if (err == 0) {
		d->b.consumers++;
		d->b.consumer_bytes += len;
	}
	return err == -EEXIST ? 0 : err;
}

const struct hcb_consumer *hcb_hcbtap_consumer_read(struct hcb_hcbtap *d, uint32_t dev,
						     uint32_t cid, uint64_t addr, uint64_t len)
{
	void *blob;

	if (!d->ops->read_target || len == 0 || len > HCB_MAX_REG_BYTES)
		return hcb_registry_get(d->reg, cid);
	blob = malloc(len);
	if (!blob)
		return NULL;
	if (d->ops->read_target(d->ctx, addr, blob, len) == 0)
		hcb_hcbtap_consumer_add(d, dev, cid, blob, len);
	free(blob);
	return hcb_registry_get(d->reg, cid);
}
