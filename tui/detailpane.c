/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/grow.h"
#include "text/leafpath.h"
#include "detail.h"
#include "detailpane.h"

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* "plot: [1] w float32[4]" */
static void caption(struct tui_detail_pane *d, const struct hcb_consumer *c)
{
	struct hcb_buf shape = HCB_BUF_INIT, path = HCB_BUF_INIT;
	char **paths = NULL;

	/* the pytree's keys are the target's words: shown, never acted on */
	if (!hcb_leaf_paths(c->tree, c->nleaves, &paths))
		hcb_buf_put_visible(&path, paths[d->leaf], strlen(paths[d->leaf]));
	tui_shape_text(&shape, &c->leaves[d->leaf]);
	snprintf(d->caption, sizeof(d->caption), "plot: [%u]%s%s %s", d->leaf, path.len ? " " : "",
		 hcb_buf_str(&path), hcb_buf_str(&shape));
	hcb_buf_free(&shape);
	hcb_buf_free(&path);
	if (paths)
		hcb_leaf_paths_free(paths, c->nleaves);
}

/* The plotted leaf's elements as doubles, into d->vals. */
static int leaf_values(struct tui_detail_pane *d, const struct hcb_consumer *c,
		       const unsigned char *payload)
{
	const struct hcb_leaf_shape *l = &c->leaves[d->leaf];
	size_t size = hcb_dtype_size(l->dtype);
	const unsigned char *p = payload;

	for (unsigned int k = 0; k < d->leaf; k++)
		p += c->leaves[k].nbytes;
	if (hcb_grow(&d->vals, &d->vcap, (size_t)l->nelems, sizeof(*d->vals)))
		return -ENOMEM;
	for (uint64_t i = 0; i < l->nelems; i++)
		d->vals[i] = hcb_elem_to_double(l->dtype, p + i * size);
	return 0;
}

/* The plot of tap t's leaf in rows x cols, unless it is drawn already. */
static int draw(struct tui_detail_pane *d, const struct hcb_consumer *c, const struct tui_tap *t,
		int rows, int cols, const struct tui_plot_style *st)
{
	uint64_t r = 0, k = 0;
	unsigned int leaf;
	int err;

	if (d->drawn && d->drawn_tap == t->index && d->drawn_rows == rows && d->drawn_cols == cols &&
	    !memcmp(&d->drawn_style, st, sizeof(*st)))
		return 0;
	d->drawn = 0;
	tui_plot_choose(c, &leaf, &r, &k);
	err = tui_grid_resize(&d->grid, rows, cols);
	if (!err)
		err = leaf_values(d, c, t->payload);
	if (!err)
		err = d->kind == TUI_PLOT_LINE ? tui_plot_line(&d->grid, d->vals, (size_t)k, st) :
		      tui_plot_heatmap(&d->grid, d->vals, (size_t)r, (size_t)k, st);
	if (err)
		return err;
	d->drawn = 1;
	d->drawn_tap = t->index;
	d->drawn_rows = rows;
	d->drawn_cols = cols;
	d->drawn_style = *st;
	return 0;
}

int tui_detail_pane_build(struct tui_detail_pane *d, const struct tui_consumer *tc,
			  const char *platform, const struct tui_tap *t, int rows, int cols,
			  int text_only, const struct tui_plot_style *st)
{
	const struct hcb_consumer *c = tc->c;
	uint64_t r, k;
	int err, head;

	hcb_buf_reset(&d->text);
	d->caption[0] = '\0';
	d->mode = TUI_DETAIL_TEXT;
	err = tui_detail_text(&d->text, tc, platform, t);
	if (err)
		return err;
	d->lines = count_lines(hcb_buf_str(&d->text));
	d->kind = t->payload ? tui_plot_choose(c, &d->leaf, &r, &k) : TUI_PLOT_NONE;
	/* the plot is a column narrower: the pane's lines start with a blank */
	if (d->kind == TUI_PLOT_NONE || cols < 2)
		return 0;
	if (d->lines + 1 + TUI_PLOT_MIN_ROWS <= rows) {
		d->mode = TUI_DETAIL_BOTH;
		caption(d, c);
		d->grid_y = d->lines + 1;
		return draw(d, c, t, rows - d->grid_y, cols - 1, st);
	}
	/* the head, the copy's line if any, the leaf's figures, the plot */
	head = 2 + tui_tap_has_copy(t);
	if (text_only || rows - head < TUI_PLOT_MIN_ROWS)
		return 0;
	d->mode = TUI_DETAIL_PLOT;
	hcb_buf_reset(&d->text);
	err = tui_detail_head(&d->text, c, t);
	if (!err)
		err = tui_detail_copy(&d->text, t);
	if (!err)
		err = tui_detail_leaf(&d->text, c, d->leaf, t->payload);
	if (err)
		return err;
	d->lines = count_lines(hcb_buf_str(&d->text));
	d->grid_y = d->lines;
	return draw(d, c, t, rows - d->grid_y, cols - 1, st);
}

int tui_detail_pane_error(struct tui_detail_pane *d, uint64_t index, const char *why)
{
	hcb_buf_reset(&d->text);
	d->mode = TUI_DETAIL_TEXT;
	d->kind = TUI_PLOT_NONE;
	d->caption[0] = '\0';
	d->lines = 2;
	return hcb_buf_printf(&d->text, "tap #%llu cannot be read back from the recording:\n%s\n",
			      (unsigned long long)index, why && *why ? why : "(no reason given)");
}

void tui_detail_pane_free(struct tui_detail_pane *d)
{
	hcb_buf_free(&d->text);
	tui_grid_free(&d->grid);
	free(d->vals);
	memset(d, 0, sizeof(*d));
}
