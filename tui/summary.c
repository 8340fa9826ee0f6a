/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>

#include "core/dtype.h"
#include "core/leafstats.h"
#include "summary.h"

void tui_format_num(char *out, size_t cap, double v)
{
	if (isnan(v))
		snprintf(out, cap, "nan");
	else if (isinf(v))
		snprintf(out, cap, v > 0 ? "inf" : "-inf");
	else
		snprintf(out, cap, "%.8g", v);
}

int tui_shape_text(struct hcb_buf *out, const struct hcb_leaf_shape *l)
{
	const char *name = hcb_dtype_name(l->dtype);
	int err = hcb_buf_printf(out, "%s[", name ? name : "?");

	for (unsigned int d = 0; !err && d < l->ndim; d++)
		err = hcb_buf_printf(out, "%s%llu", d ? "," : "", (unsigned long long)l->dims[d]);
	return err ? err : hcb_buf_putc(out, ']');
}

int tui_tap_summary(struct hcb_buf *out, const struct hcb_consumer *c, const unsigned char *payload)
{
	const unsigned char *p = payload;
	char num[32];
	int scalars = c->nleaves > 0 && c->nleaves <= 4, err = 0;

	for (unsigned int i = 0; i < c->nleaves; i++)
		if (c->leaves[i].nelems != 1 || c->leaves[i].ndim)
			scalars = 0;
	if (scalars && payload) {
		for (unsigned int i = 0; !err && i < c->nleaves; i++) {
			unsigned int dt = c->leaves[i].dtype;

			if (dt == HCB_DT_BOOL)
				snprintf(num, sizeof(num), "%s", *p ? "True" : "False");
			else
				tui_format_num(num, sizeof(num), hcb_elem_to_double(dt, p));
			err = hcb_buf_printf(out, "%s%s", i ? " " : "", num);
			p += c->leaves[i].nbytes;
		}
		return err;
	}
	for (unsigned int i = 0; !err && i < c->nleaves && i < 4; i++) {
		err = i ? hcb_buf_putc(out, ' ') : 0;
		if (!err)
			err = tui_shape_text(out, &c->leaves[i]);
	}
	if (!err && c->nleaves > 4)
		err = hcb_buf_puts(out, " ...");
	if (!err && c->nleaves && payload) {
		struct hcb_leaf_figures f;

		hcb_tap_figures(c, payload, &f);
		tui_format_num(num, sizeof(num), f.v[HCB_STAT_MEAN]);
		err = hcb_buf_printf(out, " mean=%s", num);
	}
	return err;
}
