/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/dtype.h"
#include "core/leafstats.h"
#include "text/idprint.h"
#include "detail.h"

void tui_format_time(char *out, size_t cap, uint64_t wall_ns)
{
	time_t sec = (time_t)(wall_ns / 1000000000u);
	struct tm tm;

	if (!localtime_r(&sec, &tm)) {
		snprintf(out, cap, "?");
		return;
	}
	snprintf(out, cap, "%02d:%02d:%02d.%03u", tm.tm_hour, tm.tm_min, tm.tm_sec,
		 (unsigned int)(wall_ns / 1000000u % 1000u));
}

int tui_detail_head(struct hcb_buf *out, const struct hcb_consumer *c, const struct tui_tap *t)
{
	char when[32];

	tui_format_time(when, sizeof(when), t->wall_ns);
	/* the name is the target's: shown, never acted on */
	return hcb_buf_printf(out, "tap #%llu  seq %llu  %s  consumer ", (unsigned long long)t->index,
			      (unsigned long long)t->seq, when) ?:
	       hcb_buf_put_visible(out, c->name, strlen(c->name)) ?:
	       hcb_buf_printf(out, " (%u)\n", c->id);
}

/* ns as microseconds, exactly: "1234.567 us" */
static int add_us(struct hcb_buf *out, uint64_t ns)
{
	return hcb_buf_printf(out, "%llu.%03u us", (unsigned long long)(ns / 1000u),
			      (unsigned int)(ns % 1000u));
}

int tui_detail_copy(struct hcb_buf *out, const struct tui_tap *t)
{
	int err;

	if (!tui_tap_has_copy(t))
		return 0;
	/* µ would be mojibake on a terminal that is not UTF-8: "us" */
	err = hcb_buf_puts(out, "device copy  ");
	if (!err)
		err = add_us(out, t->copy_end_ns - t->copy_start_ns);
	/* where it was, from the tap's own time above */
	if (!err && t->wall_ns) {
		int before = t->copy_start_ns < t->wall_ns;

		err = hcb_buf_puts(out, ", starting ");
		if (!err)
			err = add_us(out, before ? t->wall_ns - t->copy_start_ns :
					  t->copy_start_ns - t->wall_ns);
		if (!err)
			err = hcb_buf_puts(out, before ? " before the tap" : " after the tap");
	}
	return err ? err : hcb_buf_putc(out, '\n');
}

int tui_detail_leaf(struct hcb_buf *out, const struct hcb_consumer *c, unsigned int i,
		    const unsigned char *payload)
{
	const unsigned char *p = payload;
	struct hcb_leaf_figures s;
	char a[32], b[32], m[32];
	int err;

	for (unsigned int k = 0; k < i; k++)
		p += c->leaves[k].nbytes;
	hcb_leaf_figures(&c->leaves[i], p, &s);
	tui_format_num(a, sizeof(a), s.v[HCB_STAT_MIN]);
	tui_format_num(b, sizeof(b), s.v[HCB_STAT_MAX]);
	tui_format_num(m, sizeof(m), s.v[HCB_STAT_MEAN]);
	err = hcb_buf_printf(out, "[%u] ", i);
	if (!err)
		err = tui_shape_text(out, &c->leaves[i]);
	if (!err)
		err = hcb_buf_printf(out, "  min %s  max %s  mean %s  nan %llu  inf %llu\n",
				     a, b, m, (unsigned long long)s.nan, (unsigned long long)s.inf);
	return err;
}

int tui_detail_text(struct hcb_buf *out, const struct tui_consumer *tc, const char *platform,
		    const struct tui_tap *t)
{
	static const struct hcb_print_opts opts = HCB_PRINT_OPTS_IDPRINT;
	const struct hcb_consumer *c = tc->c;
	int err = 0;

	/* one of several processes: which, before anything of the tap */
	if (tc->who) {
		err = hcb_buf_puts(out, "process: ");
		err = err ? err : hcb_buf_puts(out, tc->who);
		err = err ? err : hcb_buf_putc(out, '\n');
	}
	err = err ? err : tui_detail_head(out, c, t);
	if (!err)
		err = tui_detail_copy(out, t);
	/* a jax.debug.print's tap: the line it wrote, as id_print's would be */
	if (!err && t->text)
		err = hcb_idprint_text(out, c, platform, t->device, t->text, t->text_len);
	else if (!err && t->payload)
		err = hcb_idprint(out, c, platform, t->device, t->payload, &opts);
	if (!err && c->nleaves)
		err = hcb_buf_puts(out, "\n");
	for (unsigned int i = 0; !err && t->payload && i < c->nleaves; i++)
		err = tui_detail_leaf(out, c, i, t->payload);
	return err;
}
