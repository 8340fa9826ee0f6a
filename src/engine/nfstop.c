/* SPDX-License-Identifier: MIT */
/*
 * nfstop.c - record --on-trigger stop with --until nonfinite:
 * hand the conditions to the probes that check taps themselves (each
 * provider's stop_nonfinite and stop_arm, provider.h), so that the target
 * stops from its own thread at the very tap that holds a NaN or an
 * infinity.
 */
#include <errno.h>

#include "capture_impl.h"

/* Which failure says most: one that is no "not here" of a provider. */
static int worse(int err, int best)
{
	if (best == 0 || best == -ENOENT || best == -EOPNOTSUPP)
		return err;
	return best;
}

int hcb_capture_stop_nonfinite(struct hcb_capture *c, const struct hcb_consumer *cons,
			       const uint64_t *device_mask)
{
	int best = -ENOENT, ok = 0;

	for (unsigned int i = 0; i < c->slots.n; i++) {
		const struct hcb_slot *s = &c->slots.at[i];
		int err;

		if (!s->prov->stop_nonfinite)
			continue;
		err = s->prov->stop_nonfinite(s->state, cons, device_mask);
		if (!err)
			ok = 1;
		else
			best = worse(err, best);
	}
	return ok ? 0 : best;
}

int hcb_capture_nfstop_arm(struct hcb_capture *c, int on)
{
	int best = -ENOENT, ok = 0;

	for (unsigned int i = 0; i < c->slots.n; i++) {
		const struct hcb_slot *s = &c->slots.at[i];
		int err;

		if (!s->prov->stop_arm)
			continue;
		err = s->prov->stop_arm(s->state, on);
		if (!err)
			ok = 1;
		else
			best = worse(err, best);
	}
	/* armed where any probe is */
	return ok ? 0 : best;
}
