/* SPDX-License-Identifier: MIT */
/* nfstop.c - the probes' own NaN stop, in every slot (nfstop.h). */
#include <errno.h>

#include "capture_impl.h"
#include "nfstop.h"

/* Which failure says most: one that is no "not here" of a provider. */
static int worse(int err, int best)
{
	if (best == 0 || best == -ENOENT || best == -EOPNOTSUPP)
		return err;
	return best;
}

int hcb_nfstop_set(const struct hcb_slots *slots, const struct hcb_consumer *cons,
		   const struct hcb_devset *devices)
{
	int best = -ENOENT, ok = 0;

	for (unsigned int i = 0; i < slots->n; i++) {
		const struct hcb_slot *s = &slots->at[i];
		int err;

		if (!s->prov->stop_nonfinite)
			continue;
		err = s->prov->stop_nonfinite(s->state, cons, devices);
		if (!err)
			ok = 1;
		else
			best = worse(err, best);
	}
	return ok ? 0 : best;
}

int hcb_nfstop_arm(const struct hcb_slots *slots, int on)
{
	int best = -ENOENT, ok = 0;

	for (unsigned int i = 0; i < slots->n; i++) {
		const struct hcb_slot *s = &slots->at[i];
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
