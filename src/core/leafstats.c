/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "dtype.h"
#include "leafstats.h"

static const char *const stat_names[HCB_STATS] = { "mean", "min", "max", "norm" };

const char *hcb_stat_name(enum hcb_stat s)
{
	return (unsigned int)s < HCB_STATS ? stat_names[s] : NULL;
}

int hcb_stat_from_name(const char *name)
{
	for (int i = 0; i < (int)HCB_STATS; i++)
		if (!strcmp(stat_names[i], name))
			return i;
	return -EINVAL;
}

int hcb_elem_number(unsigned int dtype, const unsigned char *p, double *v, double *sq)
{
	double re = hcb_elem_to_double(dtype, p), im = 0;

	if (hcb_dtype_is_complex(dtype))
		im = hcb_elem_to_double(dtype == HCB_DT_COMPLEX64 ? HCB_DT_FLOAT32 : HCB_DT_FLOAT64,
					p + hcb_dtype_size(dtype) / 2);
	if (isnan(re) || isnan(im))
		return 0;
	*v = re;
	*sq = re * re + im * im;
	return 1;
}

void hcb_leaf_figures(const struct hcb_leaf_shape *l, const unsigned char *data,
		      struct hcb_leaf_figures *out)
{
	size_t size = hcb_dtype_size(l->dtype);
	double sum = 0, c = 0, sq = 0;   /* Kahan: long arrays of small values */
	uint64_t numbers = 0;

	*out = (struct hcb_leaf_figures){ .n = l->nelems, .v = { NAN, NAN, NAN, NAN } };
	if (!size || !data)
		return;
	for (uint64_t i = 0; i < l->nelems; i++) {
		double v, s, y, t;

		if (!hcb_elem_number(l->dtype, data + i * size, &v, &s)) {
			out->nan++;
			continue;
		}
		if (isinf(v))
			out->inf++;
		if (!numbers || v < out->v[HCB_STAT_MIN])
			out->v[HCB_STAT_MIN] = v;
		if (!numbers || v > out->v[HCB_STAT_MAX])
			out->v[HCB_STAT_MAX] = v;
		numbers++;
		sq += s;
		if (isinf(v) || isinf(sum)) {
			sum += v;
			continue;
		}
		y = v - c;
		t = sum + y;
		c = (t - sum) - y;
		sum = t;
	}
	if (!numbers)
		return;
	out->v[HCB_STAT_MEAN] = sum / (double)numbers;
	out->v[HCB_STAT_NORM] = sqrt(sq);
}

void hcb_tap_figures(const struct hcb_consumer *c, const unsigned char *payload,
		     struct hcb_leaf_figures *out)
{
	if (!c || !c->nleaves || !payload) {
		*out = (struct hcb_leaf_figures){ .v = { NAN, NAN, NAN, NAN } };
		return;
	}
	hcb_leaf_figures(&c->leaves[0], payload, out);
}

double hcb_leaf_value(const struct hcb_leaf_shape *l, const unsigned char *data, enum hcb_stat s)
{
	struct hcb_leaf_figures f;

	if (l->nelems == 1 && data && hcb_dtype_size(l->dtype))
		return hcb_elem_to_double(l->dtype, data);
	hcb_leaf_figures(l, data, &f);
	return (unsigned int)s < HCB_STATS ? f.v[s] : NAN;
}
