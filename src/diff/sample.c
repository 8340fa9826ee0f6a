/* SPDX-License-Identifier: MIT */
/*
 * diff_sample.c - the close-up of the first array that differs for
 * diff_series.h, its elements reduced to a bounded number of cells (a
 * leaf's own figures are leafstats.h's).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/leafstats.h"
#include "series_impl.h"

void hcb_sample_free(struct hcb_sample *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->mean[0]);    /* one block holds every per-cell array */
	free(s->mismatch);
	free(s);
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

/* How the elements fall into cells. */
static void sample_layout(struct hcb_sample *s)
{
	const struct hcb_leaf_shape *l = &s->shape;

	s->block_rows = 1;
	s->rows = 1;
	if (l->ndim == 2 && l->dims[0] && l->dims[1]) {
		s->grid = 1;
		s->block_rows = ceil_div(l->dims[0], HCB_SAMPLE_SIDE);
		s->block_cols = ceil_div(l->dims[1], HCB_SAMPLE_SIDE);
		s->rows = ceil_div(l->dims[0], s->block_rows);
		s->cols = ceil_div(l->dims[1], s->block_cols);
		return;
	}
	/* flattened: every element while they fit, else min..max per point
	 * over half as many points, which reads better than a solid band */
	s->block_cols = l->nelems <= HCB_SAMPLE_POINTS ? 1 : ceil_div(l->nelems, HCB_SAMPLE_POINTS / 2);
	s->cols = l->nelems ? ceil_div(l->nelems, s->block_cols) : 0;
}

static int sample_alloc(struct hcb_sample *s)
{
	size_t cells = (size_t)(s->rows * s->cols), k = 0;
	double *block = malloc((cells ? cells : 1) * 10 * sizeof(double));

	s->mismatch = calloc(cells ? cells : 1, 1);
	if (!block || !s->mismatch) {
		free(block);
		return -ENOMEM;
	}
	for (int i = 0; i < 3; i++) {
		s->mean[i] = block + cells * k++;
		s->min[i] = block + cells * k++;
		s->max[i] = block + cells * k++;
	}
	s->extreme = block + cells * k;
	for (size_t i = 0; i < cells * 10; i++)
		block[i] = i < cells * 9 && (i / cells) % 3 == 0 ? 0 : NAN;
	return 0;
}

/* One number v of side k (2: the difference) into cell c; count[] tallies
 * the numbers of each side per cell for the means. */
static void cell_add(struct hcb_sample *s, size_t c, int k, double v, uint64_t *count)
{
	if (isnan(v))
		return;
	s->mean[k][c] += v;
	count[c * 3 + k]++;
	if (!(s->min[k][c] <= v))
		s->min[k][c] = v;
	if (!(s->max[k][c] >= v))
		s->max[k][c] = v;
	if (k == 2 && !(fabs(s->extreme[c]) >= fabs(v)))
		s->extreme[c] = v;
}

static void sample_fill(struct hcb_sample *s, const unsigned char *ref, const unsigned char *new,
			const struct hcb_diff_opts *opts, uint64_t *count)
{
	const struct hcb_leaf_shape *l = &s->shape;
	size_t size = hcb_dtype_size(l->dtype), cells = (size_t)(s->rows * s->cols);
	uint64_t ncols = s->grid ? l->dims[1] : l->nelems;

	for (uint64_t i = 0; i < l->nelems; i++) {
		uint64_t r = i / ncols, col = i % ncols;
		size_t c = (size_t)((r / s->block_rows) * s->cols + col / s->block_cols);
		double a, b, sq;
		int na = hcb_elem_number(l->dtype, ref + i * size, &a, &sq);
		int nb = hcb_elem_number(l->dtype, new + i * size, &b, &sq);

		cell_add(s, c, 0, na ? a : NAN, count);
		cell_add(s, c, 1, nb ? b : NAN, count);
		cell_add(s, c, 2, na && nb ? b - a : NAN, count);
		if (!hcb_isclose(l->dtype, ref + i * size, new + i * size, opts))
			s->mismatch[c] = 1;
	}
	for (size_t c = 0; c < cells; c++)
		for (int k = 0; k < 3; k++)
			s->mean[k][c] = count[c * 3 + k] ? s->mean[k][c] / count[c * 3 + k] : NAN;
}

int hcb_sample_take(const struct hcb_diff_tap *t, const struct hcb_diff_leaf *l,
		    const struct hcb_diff_opts *opts, struct hcb_sample **out)
{
	const struct hcb_consumer *c = t->consumer[0];
	uint64_t off[2] = { 0, 0 };
	struct hcb_sample *s;
	uint64_t *count;
	int err = -ENOMEM;

	for (unsigned int i = 0; i < l->leaf; i++) {
		off[0] += c->leaves[i].nbytes;
		off[1] += t->consumer[1]->leaves[i].nbytes;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct hcb_sample){ .device = t->key.device, .consumer_id = t->key.consumer_id,
				  .index = t->key.index, .leaf = l->leaf, .shape = *l->shape[0],
				  .mismatched = l->mismatched };
	if (t->key.name && !(s->name = strdup(t->key.name)))
		goto fail;
	sample_layout(s);
	if (sample_alloc(s))
		goto fail;
	count = calloc((size_t)(s->rows * s->cols) * 3 + 1, sizeof(*count));
	if (!count)
		goto fail;
	sample_fill(s, t->payload[0] + off[0], t->payload[1] + off[1], opts, count);
	free(count);
	*out = s;
	return 0;
fail:
	hcb_sample_free(s);
	return err;
}
