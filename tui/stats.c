/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "dtype.h"
#include "stats.h"

void tui_leaf_stats(const struct hcb_leaf_shape *l, const unsigned char *data,
		    struct tui_stats *s)
{
	size_t size = hcb_dtype_size(l->dtype);
	uint64_t numbers = 0;
	double sum = 0, c = 0;   /* Kahan: long arrays of small values */

	*s = (struct tui_stats){ .n = l->nelems, .min = NAN, .max = NAN, .mean = NAN };
	if (!size)
		return;
	for (uint64_t i = 0; i < l->nelems; i++) {
		double v = hcb_elem_to_double(l->dtype, data + i * size);
		double y, t;

		if (isnan(v)) {
			s->nan++;
			continue;
		}
		if (isinf(v))
			s->inf++;
		if (!numbers || v < s->min)
			s->min = v;
		if (!numbers || v > s->max)
			s->max = v;
		numbers++;
		if (isinf(v) || isinf(sum)) {
			sum += v;
			continue;
		}
		y = v - c;
		t = sum + y;
		c = (t - sum) - y;
		sum = t;
	}
	if (numbers)
		s->mean = sum / (double)numbers;
}

void tui_tap_stats(const struct hcb_consumer *c, const unsigned char *payload, struct tui_stats *s)
{
	if (!c || !c->nleaves || !payload) {
		*s = (struct tui_stats){ .min = NAN, .max = NAN, .mean = NAN };
		return;
	}
	tui_leaf_stats(&c->leaves[0], payload, s);
}

double tui_tap_value(const struct hcb_consumer *c, const unsigned char *payload)
{
	struct tui_stats s;

	if (!c || !c->nleaves || !payload)
		return NAN;
	tui_leaf_stats(&c->leaves[0], payload, &s);
	return s.mean;
}
