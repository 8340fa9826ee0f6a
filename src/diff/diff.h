/* SPDX-License-Identifier: MIT */
/*
 * diff.h - the numeric diff of two recordings (the diff command in man/hcbtrace.1), as an engine that
 * is fed records and reports through callbacks: no terminal, no file format.
 *
 * Alignment.  A tap's key is (device, consumer name - or consumer id when
 * the tap has no name -, occurrence index of that consumer on that device).
 * The n-th "loss" tap of device 1 in REF pairs with the n-th "loss" tap of
 * device 1 in NEW, whatever the order across devices or consumers in each
 * file.  seq and ts_ns are not compared, nor are kwargs.
 *
 * Streaming.  Feed both recordings in step (alternating); a tap waits in its
 * key's queue (with a copy of its payload) only until its partner arrives,
 * then both are compared and the copy freed.  Memory is that of the taps
 * one file is ahead of the other, not of the files.  When a side ends
 * (hcb_diff_end), the other side's queued taps can never pair: they are
 * dropped at once and counted as unmatched.
 *
 * Comparison.  dtype and shape exactly; values by numpy.isclose(NEW, REF,
 * rtol, atol, equal_nan) of numpy 1.26, element by element, including its
 * type promotion:
 *   - floats compute |new - ref| <= atol + rtol*|ref| in their own dtype
 *     (float32 in float32, float16 in float16, with rtol and atol first
 *     rounded to that dtype, one rounding per operation, as numpy's ufuncs
 *     do; bfloat16, float8 and float4 the same way, as ml_dtypes does,
 *     but float8_e8m0fnu, which holds no zero, in float32), except
 *     scalars (shape []): numpy's value-based casting computes those in
 *     float64;
 *   - integers (int2 and int4 too) and bools are converted to float64
 *     first (numpy.isclose casts
 *     REF to result_type(REF, 1.0) = float64), so int64 values past 2^53
 *     compare as their float64 roundings, like numpy;
 *   - complex: |new - ref| and |ref| are complex magnitudes in the part's
 *     dtype, computed as numpy's SIMD absolute does;
 *   - non-finite elements match only if equal (inf == inf), NaN matches NaN
 *     only with equal_nan (complex: a NaN in either part counts as NaN).
 *     numpy 1.26 quirk kept for agreement: for complex it multiplies by
 *     ones_like() first, turning inf+0j into inf+nanj, so complex infinities
 *     never match, except with equal_nan, where any two non-finite complex
 *     values match.
 * Max absolute and relative difference are numpy.testing.assert_allclose's
 * (numpy 1.26): over every element except pairs that matched as NaN/NaN or
 * as equal infinities, |new - ref| and |new - ref| / |ref| (where ref != 0;
 * inf if ref is 0 everywhere), a NaN anywhere making the maximum NaN.
 * Floats compute them in their dtype; integers and bools exactly, as the
 * mathematical difference (numpy would wrap around in the integer dtype, or
 * refuse bools).
 */
#ifndef HCB_DIFF_H
#define HCB_DIFF_H

#include <stdint.h>

#include "core/consumer.h"
#include "core/record.h"

enum hcb_diff_side { HCB_DIFF_REF = 0, HCB_DIFF_NEW = 1 };

struct hcb_diff_opts {
	double rtol;                /* 1e-5 */
	double atol;                /* 1e-8 */
	int equal_nan;              /* 0 */
	unsigned int max_examples;  /* mismatches kept per leaf: 5 */
};

#define HCB_DIFF_MAX_EXAMPLES 64u

void hcb_diff_opts_default(struct hcb_diff_opts *o);

/*
 * numpy.isclose(new, ref) for one pair of elements of dtype, given as
 * little-endian bytes, as elements of arrays of 1 or more dimensions: 1
 * close, 0 not.  (The engine's rule, exported for
 * tests; the engine runs the same inline code over whole leaves.)
 */
int hcb_isclose(unsigned int dtype, const void *ref, const void *new,
		const struct hcb_diff_opts *o);

struct hcb_diff_key {
	uint32_t device;
	const char *name;           /* NULL: the taps have no name, keyed by id */
	uint32_t consumer_id;       /* the id of REF's taps (unmatched: of the side's) */
	uint64_t index;             /* occurrence of the consumer on the device, from 0 */
};

enum hcb_leaf_verdict {
	HCB_LEAF_EQUAL = 0,
	HCB_LEAF_VALUES,            /* same dtype and shape, some elements not close */
	HCB_LEAF_DTYPE,             /* dtypes differ: values not compared */
	HCB_LEAF_SHAPE,             /* same dtype, shapes differ: values not compared */
};

struct hcb_diff_example {
	uint64_t flat;                  /* row-major index */
	uint64_t index[HCB_MAX_DIMS];   /* the same per dimension (ndim of them) */
	unsigned char ref[16], new[16]; /* the elements, little-endian bytes */
};

struct hcb_diff_leaf {
	unsigned int leaf;                      /* position in the tap's tuple */
	enum hcb_leaf_verdict verdict;
	const struct hcb_leaf_shape *shape[2];  /* REF's, NEW's */
	/* HCB_LEAF_VALUES only: */
	uint64_t mismatched;                    /* of shape[0]->nelems */
	double max_abs, max_rel;
	unsigned int diff_dtype;    /* what max_abs/max_rel were computed in:
				     * a float dtype, or HCB_DT_INT64 for exact
				     * integer differences (max_rel: float64) */
	unsigned int nexamples;                 /* the first mismatches, in order */
	const struct hcb_diff_example *examples;
};

/* A pair of taps that differ; valid during the callback only. */
struct hcb_diff_tap {
	struct hcb_diff_key key;
	uint64_t seq[2];
	const struct hcb_consumer *consumer[2];
	const unsigned char *payload[2];
	int leaves_differ;          /* numbers of leaves differ: none compared */
	int tree_differs;           /* pytree structure strings differ */
	unsigned int nleaves;       /* leaves[]: the differing ones only */
	const struct hcb_diff_leaf *leaves;
};

/* Consecutive taps of one key found on one side only. */
struct hcb_diff_unmatched {
	enum hcb_diff_side side;    /* REF: missing from NEW; NEW: extra in NEW */
	struct hcb_diff_key key;    /* key.index: the first of them */
	uint64_t count;
	uint64_t first_seq, last_seq;
};

struct hcb_diff_ops {
	/* A negative return stops the engine: feed/finish return it. */
	int (*tap_differs)(void *ctx, const struct hcb_diff_tap *t);
	/* Called from hcb_diff_finish, REF's first, by device then key. */
	int (*unmatched)(void *ctx, const struct hcb_diff_unmatched *u);
};

struct hcb_diff_counts {
	uint64_t taps[2];           /* tap records fed per side */
	uint64_t compared;          /* pairs */
	uint64_t same, differ;      /* compared = same + differ */
	uint64_t unmatched[2];      /* taps of REF missing in NEW, of NEW extra */
	uint64_t pending, pending_bytes;   /* taps queued now, their payload bytes */
	uint64_t pending_max;       /* most taps ever queued at once */
	uint64_t pending_bytes_max; /* most payload bytes ever queued at once */
};

struct hcb_diff;

/* ops and ctx are kept; opts copied.  -ENOMEM, -EINVAL (max_examples too big). */
int hcb_diff_new(struct hcb_diff **out, const struct hcb_diff_opts *opts,
		 const struct hcb_diff_ops *ops, void *ctx);
void hcb_diff_free(struct hcb_diff *d);

/*
 * One record of a side.  Taps are aligned and compared (tap_differs may be
 * called); session records give the platform; drops, barriers and ends are
 * ignored.  0, -ENOMEM, -EINVAL (a tap without consumer or payload, or fed
 * after its side ended), or the callback's negative value.
 */
int hcb_diff_feed(struct hcb_diff *d, enum hcb_diff_side side, const struct hcb_record *rec);
/* The side has no more records: the other side's queued taps are dropped. */
int hcb_diff_end(struct hcb_diff *d, enum hcb_diff_side side);
/* Ends both sides and reports every unmatched run.  0 or a callback's value. */
int hcb_diff_finish(struct hcb_diff *d);

const struct hcb_diff_counts *hcb_diff_counts(const struct hcb_diff *d);
/* Devices that had taps on side, ascending. */
unsigned int hcb_diff_devices(const struct hcb_diff *d, enum hcb_diff_side side,
			      const uint32_t **devices);
/* 1 if the two sides' device sets differ. */
int hcb_diff_devices_differ(const struct hcb_diff *d);
/* The side's session platform ("cpu"), "" before any session record. */
const char *hcb_diff_platform(const struct hcb_diff *d, enum hcb_diff_side side);
/* 1 if anything differs: a pair, an unmatched tap, the device sets. */
int hcb_diff_differs(const struct hcb_diff *d);

#endif
