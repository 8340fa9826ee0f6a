/* SPDX-License-Identifier: MIT */
/*
 * consumer.h - the consumer model: a tap site's name, kwargs, pytree and
 * leaf shapes, and its registration blob on the wire (hcb_wire.h).
 *
 * libhcbtap builds blobs with hcb_reg_build(); hcbtrace parses blobs read
 * from a target with hcb_consumer_from_reg(), which trusts nothing.  libc only.
 */
#ifndef HCB_CONSUMER_H
#define HCB_CONSUMER_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

struct hcb_kwarg {
	char *key;
	char *value;
};

struct hcb_leaf_shape {
	unsigned int dtype;   /* enum hcb_dtype */
	unsigned int ndim;
	uint64_t dims[HCB_MAX_DIMS];
	uint64_t nelems;
	uint64_t nbytes;
};

struct hcb_consumer {
	uint32_t id;
	char *name;
	unsigned int nkwargs;
	struct hcb_kwarg *kwargs;   /* in registration order */
	char *tree;                 /* structure string, NUL terminated */
	unsigned int nleaves;
	struct hcb_leaf_shape *leaves;
	uint64_t total_bytes;       /* sum of leaves[].nbytes */
};

/* One leaf as a caller describes it: struct hcbtap_leaf's fields. */
struct hcb_leaf_spec {
	unsigned int dtype;          /* enum hcb_dtype */
	unsigned int ndim;
	uint64_t dims[HCB_MAX_DIMS]; /* the first ndim count */
};

/* What a caller gives to describe a site (libhcbtap's register arguments). */
struct hcb_consumer_spec {
	const char *name;
	const char *const *kwargs;   /* key, value, ..., NULL; or NULL */
	const char *tree;            /* NULL: "*" for one leaf, else a tuple */
	unsigned int nleaves;
	const struct hcb_leaf_spec *leaves;   /* nleaves */
};

/*
 * Serialize spec as a registration blob with the given consumer id (written
 * into the blob).  *blob is malloc'ed.  -EINVAL if the spec is invalid (bad
 * name, kwargs, tree, dtype, rank, leaf count or sizes), -ENOMEM.
 */
int hcb_reg_build(const struct hcb_consumer_spec *spec, uint32_t id,
		  void **blob, size_t *len);

/* The registration blob of an existing consumer (id included): how
 * recordings store consumers.  -ENOMEM, or -EINVAL for an invalid one. */
int hcb_consumer_to_reg(const struct hcb_consumer *c, void **blob, size_t *len);

/* The consumer id libhcbtap derives from a blob's content (id field ignored):
 * stable across runs, never 0. */
uint32_t hcb_reg_hash(const void *blob, size_t len);

/*
 * Parse and validate a blob of len bytes (e.g. read from a target).  Returns
 * 0 and a new consumer, or -EBADMSG (bad magic/version/lengths/tree/dtype,
 * rank or name length out of range), -E2BIG (more leaves or bytes than
 * HCB_MAX_LEAVES / HCB_MAX_REG_BYTES), -ENOMEM.
 */
int hcb_consumer_from_reg(const void *blob, size_t len, struct hcb_consumer **out);
void hcb_consumer_free(struct hcb_consumer *c);

/*
 * A deep copy of c, to free with hcb_consumer_free: for holding a consumer
 * longer than its reader or decoder does.  It needs no registration blob, so
 * it copies any consumer; a NULL name or tree is copied as "".  0 or -ENOMEM.
 */
int hcb_consumer_dup(const struct hcb_consumer *c, struct hcb_consumer **out);

/*
 * 1 if a and b are the same consumer: id, name, kwargs (keys and values, in
 * order), tree and leaf shapes (dtype, rank, dims) all equal, a NULL name or
 * tree counting as ""; else 0.  Exactly when their registration blobs would
 * be equal, without building them.
 */
int hcb_consumer_equal(const struct hcb_consumer *a, const struct hcb_consumer *b);

/* The value of kwarg key, or NULL. */
const char *hcb_consumer_kwarg(const struct hcb_consumer *c, const char *key);

#endif
