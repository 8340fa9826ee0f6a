/* SPDX-License-Identifier: MIT */
#include "lag.h"

/* Each busy pass weighs 1/16 less than the one after it: the rate follows
 * the last few MiB read (a JSONL tap's formatting comes in one pass, the
 * copies of its chunks in many cheap ones; sums, not an average of
 * rates, weigh them by their bytes). */
#define DECAY (15.0 / 16.0)

void hcb_lag_init(struct hcb_lag *l, uint64_t max_ns)
{
	*l = (struct hcb_lag){ .max_ns = max_ns };
}

uint64_t hcb_lag_pass(struct hcb_lag *l, uint64_t bytes, uint64_t ns, bool busy)
{
	double limit;

	if (!l->max_ns)
		return UINT64_MAX;
	if (busy && ns) {
		l->bytes = l->bytes * DECAY + (double)bytes;
		l->ns = l->ns * DECAY + (double)ns;
	}
	if (l->bytes < HCB_LAG_MEASURED_BYTES)
		return UINT64_MAX;
	limit = l->bytes / l->ns * (double)l->max_ns;
	if (limit < HCB_LAG_FLOOR_BYTES)
		return HCB_LAG_FLOOR_BYTES;
	return limit >= 0x1p63 ? UINT64_MAX : (uint64_t)limit;
}
