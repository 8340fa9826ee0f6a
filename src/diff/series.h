/* SPDX-License-Identifier: MIT */
/*
 * diff_series.h - what a picture of a drift needs (hcbtrace diff --plot),
 * gathered beside the diff engine (diff.h) while the recordings stream by:
 * per stream (device and consumer, keyed as the engine keys them) and per
 * leaf, the value of each tap over its occurrence index on both sides, and
 * where the engine found the pairs to differ; and, for the first pair that
 * differs in the values of an array, that array's elements.  Plain data
 * for a chart library; no text, no file format.  libc only.
 *
 * Memory stays flat in the length of the recordings: a series keeps at most
 * HCB_SERIES_BUCKETS buckets of consecutive taps.  Each bucket covers
 * `width` taps (1, 2, 4, ...): when a tap's index no longer fits, pairs of
 * buckets merge and the width doubles, so a stream of any length ends with
 * between HCB_SERIES_BUCKETS / 2 and HCB_SERIES_BUCKETS buckets (fewer for
 * a short one), each with the min, max and sum of its taps' values.  Only
 * the first HCB_SERIES_LEAVES leaves of a consumer are gathered, and the
 * first array sample is reduced to at most HCB_SAMPLE_POINTS points (1-D)
 * or HCB_SAMPLE_SIDE x HCB_SAMPLE_SIDE cells (2-D).
 */
#ifndef HCB_DIFF_SERIES_H
#define HCB_DIFF_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "core/consumer.h"
#include "core/leafstats.h"
#include "core/record.h"
#include "diff.h"

/* ---- the series ---- */

#define HCB_SERIES_BUCKETS 256u  /* points of a series at most */
#define HCB_SERIES_LEAVES 16u    /* leaves of a stream gathered at most */
#define HCB_SERIES_NONE UINT64_MAX

/* Consecutive taps of a series: indices [i * width, (i + 1) * width). */
struct hcb_series_bucket {
	double min[2], max[2], sum[2];  /* of each side's finite values */
	uint32_t taps[2];               /* taps of each side in the bucket */
	uint32_t finite[2];             /* of which with a finite value */
	uint32_t differ;                /* pairs in the bucket that differ in this leaf */
};

/* One leaf of one stream, both sides (index 0 REF, 1 NEW). */
struct hcb_series {
	unsigned int leaf;
	int have_shape[2];
	struct hcb_leaf_shape shape[2];   /* of the side's first tap */
	uint64_t width;                   /* taps per bucket */
	unsigned int nbuckets;            /* in use: (max taps - 1) / width + 1 */
	struct hcb_series_bucket *b;
	uint64_t taps[2];
	uint64_t nonfinite[2];            /* taps without a finite value */
	uint64_t differ;                  /* pairs that differ in this leaf */
	uint64_t first_differ;            /* index of the first, or HCB_SERIES_NONE */
	size_t capbuckets;                /* allocated */
};

/* One stream: a consumer on a device. */
struct hcb_series_stream {
	uint32_t device;
	const char *name;            /* NULL: the taps have no name, keyed by id */
	uint32_t consumer_id;        /* the first tap's */
	const char *tree;            /* the first tap's pytree structure */
	uint64_t taps[2];
	unsigned int leaves;         /* the consumer's leaves (the first tap's) */
	unsigned int nseries;        /* gathered: at most HCB_SERIES_LEAVES */
	struct hcb_series *series;
	uint64_t differ;             /* pairs that differ, in any way */
	uint64_t unmatched[2];       /* taps of REF missing from NEW, of NEW extra */
	uint64_t first_differ;       /* first index that differs or is unmatched, or NONE */
	int whole;                   /* a difference in structure: every leaf differs */
};

/* The elements of the first array that differs (diff --plot's close-up):
 * cells of block_rows x block_cols elements (2-D), or points of block_cols
 * elements (any other rank, the array flattened in row-major order). */
struct hcb_sample {
	uint32_t device;
	char *name;                  /* NULL: by consumer id */
	uint32_t consumer_id;
	uint64_t index;              /* the occurrence */
	unsigned int leaf;
	struct hcb_leaf_shape shape;
	uint64_t mismatched;         /* elements not close, of shape.nelems */
	int grid;                    /* 2-D: rows x cols cells */
	uint64_t rows, cols;         /* cells (rows 1 unless grid) */
	uint64_t block_rows, block_cols;
	/* per cell, rows * cols, row-major; NaN where no element is a number */
	double *mean[3];             /* REF, NEW, NEW - REF: means of the cell */
	double *min[3], *max[3];
	double *extreme;             /* NEW - REF of largest magnitude, with its sign */
	unsigned char *mismatch;     /* 1: an element of the cell is not close */
};

#define HCB_SAMPLE_POINTS 512u   /* 1-D: elements shown one by one up to this */
#define HCB_SAMPLE_SIDE 64u      /* 2-D: cells per dimension at most */

struct hcb_series_set;

/* stat: what arrays become; opts: the diff's tolerances (for the sample's
 * mismatches).  -ENOMEM. */
int hcb_series_new(struct hcb_series_set **out, enum hcb_stat stat, const struct hcb_diff_opts *opts);
void hcb_series_free(struct hcb_series_set *s);

/* One record of a side, as fed to hcb_diff_feed (taps count, the rest is
 * ignored).  0, -ENOMEM, -EINVAL (a tap without consumer or payload). */
int hcb_series_feed(struct hcb_series_set *s, enum hcb_diff_side side, const struct hcb_record *rec);
/* The engine's findings, from its callbacks.  0 or -ENOMEM. */
int hcb_series_tap_differs(struct hcb_series_set *s, const struct hcb_diff_tap *t);
int hcb_series_unmatched(struct hcb_series_set *s, const struct hcb_diff_unmatched *u);

enum hcb_stat hcb_series_stat(const struct hcb_series_set *s);
/* Every stream, by device, then named ones by name, then by id (the order
 * of the engine's reports).  *out valid until the next call on s. */
size_t hcb_series_streams(struct hcb_series_set *s, const struct hcb_series_stream *const **out);
/* The first array that differed in its values, or NULL. */
const struct hcb_sample *hcb_series_sample(const struct hcb_series_set *s);

/* The x of a bucket: the middle of the taps it holds on side (or on any
 * side when side < 0), as an occurrence index. */
double hcb_series_bucket_x(const struct hcb_series *se, unsigned int i, int side);

#endif
