/* SPDX-License-Identifier: MIT */
#include <math.h>

#include "sparkline.h"

static const char *const glyphs_utf8[8] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
static const char glyphs_ascii[8] = { '_', '.', '-', ':', '=', '+', '*', '#' };

int tui_spark_bin(const double *v, int n, int width, double *out)
{
	if (n <= 0 || width <= 0)
		return 0;
	if (n <= width) {
		for (int i = 0; i < n; i++)
			out[i] = v[i];
		return n;
	}
	for (int b = 0; b < width; b++) {
		/* column b holds values [n*b/width, n*(b+1)/width): the last ends at n */
		long lo = (long)n * b / width, hi = (long)n * (b + 1) / width;
		double sum = 0;
		long cnt = 0;

		for (long i = lo; i < hi; i++) {
			if (isnan(v[i]))
				continue;
			sum += v[i];
			cnt++;
		}
		out[b] = cnt ? sum / (double)cnt : NAN;
	}
	return width;
}

void tui_spark_range(const double *v, int n, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (int i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		if (isnan(*lo) || v[i] < *lo)
			*lo = v[i];
		if (isnan(*hi) || v[i] > *hi)
			*hi = v[i];
	}
}

int tui_spark_render(struct hcb_buf *out, const double *v, int n, double lo, double hi, int utf8)
{
	int err = 0;

	for (int i = 0; i < n && !err; i++) {
		int level;

		if (isnan(v[i])) {
			err = hcb_buf_putc(out, ' ');
			continue;
		}
		if (!(hi > lo) || !isfinite(hi - lo))
			level = isinf(v[i]) ? (v[i] > 0 ? 7 : 0) : 3;
		else if (v[i] <= lo)
			level = 0;
		else if (v[i] >= hi)
			level = 7;
		else
			level = (int)((v[i] - lo) / (hi - lo) * 8);
		if (level > 7)
			level = 7;
		err = utf8 ? hcb_buf_puts(out, glyphs_utf8[level]) : hcb_buf_putc(out, glyphs_ascii[level]);
	}
	if (!err && !out->data)
		err = hcb_buf_puts(out, "");
	return err;
}
