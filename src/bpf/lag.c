/* SPDX-License-Identifier: MIT */
#include "lag.h"

/* Each busy pass weighs 1/16 less than the one after it: the rate follows
 * the last few MiB read (a JSONL tap's formatting comes in one pass, the
 * copies of its chunks in many cheap ones; sums, not an average of
 * rates, weigh them by their bytes). */
#define DECAY (15.0 / 16.0)

void hcb_lag_init(struct hcb_lag *l, uint64_t max_ns)
{
	*l = (struct hcb_lag){ .max_ns = max_ns, .start = UINT64_MAX };
}

/* The backlog the reader takes max_ns to read, at the rate measured. */
static uint64_t rate_limit(const struct hcb_lag *l)
{
	double limit = l->bytes / l->ns * (double)l->max_ns;

	if (limit < HCB_LAG_FLOOR_BYTES)
		return HCB_LAG_FLOOR_BYTES;
	return limit >= 0x1p63 ? UINT64_MAX : (uint64_t)limit;
}

uint64_t hcb_lag_pass(struct hcb_lag *l, const struct hcb_lag_pass *pass)
{
	uint64_t limit, down = pass->bytes / 2;

	if (!l->max_ns)
		return UINT64_MAX;
	/* the rate is measured all along, so the limit is right at once */
	if (pass->busy && pass->ns) {
		l->bytes = l->bytes * DECAY + (double)pass->bytes;
		l->ns = l->ns * DECAY + (double)pass->ns;
	}
	if (l->bytes < HCB_LAG_MEASURED_BYTES || pass->since_refusal_ns > HCB_LAG_HOLD_NS) {
		l->start = UINT64_MAX;
		return UINT64_MAX;
	}
	if (l->start == UINT64_MAX)
		l->start = pass->backlog;   /* coming on */
	else   /* half of what was read is given back to new taps */
		l->start = l->start > down ? l->start - down : 0;
	limit = rate_limit(l);
	return limit > l->start ? limit : l->start;
}
