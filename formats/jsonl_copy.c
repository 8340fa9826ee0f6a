/* SPDX-License-Identifier: MIT */
/*
 * jsonl_copy.c - a JSONL tap's "copy_ns" (formats/JSONL.md): the
 * device-side start and end of its device-to-host copy, [START, END], two
 * whole numbers with START <= END.  Apart from jsonl_read.c, which is full.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json/jsonparse.h"
#include "recfile_impl.h"

/* Node i as a whole number from 0 to UINT64_MAX, as the reader's get_u64
 * takes one; 0 or -EBADMSG. */
static int whole(const struct jdoc *d, uint32_t i, uint64_t *out)
{
	const struct jnode *n = &d->nodes[i];
	char buf[32], *end;

	if (n->kind != J_NUM || n->numlen >= sizeof(buf) || n->num[0] == '-')
		return -EBADMSG;
	memcpy(buf, n->num, n->numlen);
	buf[n->numlen] = '\0';
	errno = 0;
	*out = strtoull(buf, &end, 10);
	return errno || *end ? -EBADMSG : 0;
}

const char *hcb_jsonl_copy_ns(const struct jdoc *d, uint32_t obj, uint64_t out[2])
{
	uint32_t i = jget(d, obj, "copy_ns");

	out[0] = out[1] = 0;
	if (i == UINT32_MAX)
		return NULL;
	if (d->nodes[i].kind != J_ARR || d->nodes[i].count != 2 ||
	    whole(d, jfirst(i), &out[0]) || whole(d, d->nodes[jfirst(i)].end, &out[1])) {
		out[0] = out[1] = 0;
		return "'copy_ns' is not a list of two whole numbers from 0 to 18446744073709551615";
	}
	if (out[0] > out[1]) {
		out[0] = out[1] = 0;
		return "'copy_ns' ends before it starts";
	}
	return NULL;
}
