/* SPDX-License-Identifier: MIT */
/*
 * make_seeds OUTDIR - seed corpora for the fuzz targets, made with the
 * project's own encoders so they start from valid input: a registration
 * blob per example consumer, and a record stream (REG chunk, PKT, DATA
 * chunk) per consumer as the BPF side would write it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/consumer.h"
#include "providers/hcbtap/events.h"

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

static size_t rec(unsigned char *out, const void *hdr, size_t hn, const void *data, size_t dn)
{
	size_t n = hn + dn;

	out[0] = (unsigned char)n;
	out[1] = (unsigned char)(n >> 8);
	memcpy(out + 2, hdr, hn);
	memcpy(out + 2 + hn, data, dn);
	return 2 + n;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name, *tree;
		unsigned int n;
		struct hcb_leaf_spec leaves[3];
	} specs[] = {
		{ "loss", "*", 1, { { HCB_DT_FLOAT32 } } },
		{ "power3", "( * * )", 2, { { HCB_DT_FLOAT32 }, { HCB_DT_FLOAT32 } } },
		{ "params", "{ b=* w=* }", 2, { { HCB_DT_FLOAT32 }, { HCB_DT_FLOAT32, 1, { 4 } } } },
		{ "status", "[ * * * ]", 3, { { HCB_DT_INT32 }, { HCB_DT_BOOL }, { HCB_DT_FLOAT64 } } },
		{ "mat", "*", 1, { { HCB_DT_COMPLEX64, 2, { 2, 3 } } } },
	};
	const char *kwargs[] = { "what", "x", NULL };
	unsigned char stream[8192], payload[256];
	char name[64];

	if (argc != 3) {
		fprintf(stderr, "usage: make_seeds REG_DIR RECORDS_DIR\n");
		return 2;
	}
	for (unsigned int i = 0; i < 256; i++)
		payload[i] = (unsigned char)(i * 37);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		struct hcb_consumer_spec s = { specs[i].name, kwargs, specs[i].tree, specs[i].n,
					       specs[i].leaves };
		struct hcb_consumer *c;
		size_t len, n = 0;
		void *blob;

		if (hcb_reg_build(&s, (uint32_t)(i + 1) * 7919, &blob, &len) ||
		    hcb_consumer_from_reg(blob, len, &c)) {
			fprintf(stderr, "make_seeds: spec %zu does not build\n", i);
			return 1;
		}
		snprintf(name, sizeof(name), "reg-%s", specs[i].name);
		put(argv[1], name, blob, len);

		struct hcb_ev_chunk reg = { HCB_EV_REG, c->id, 0, (uint32_t)len, 0, 0, len };
		struct hcb_ev_pkt pkt = { HCB_EV_PKT, c->id, 0, c->nleaves, 0, c->total_bytes, 1000,
					  0, len, 1, 1, HCB_OUTFEED_MAGIC, 0 };
		struct hcb_ev_chunk data = { HCB_EV_DATA, c->id, 0, (uint32_t)c->total_bytes, 0, 0, c->total_bytes };

		n += rec(stream + n, &reg, sizeof(reg), blob, len);
		n += rec(stream + n, &pkt, sizeof(pkt), NULL, 0);
		n += rec(stream + n, &data, sizeof(data), payload, c->total_bytes);
		/* and again as a small packet comes, in one record */
		struct hcb_ev_pkt_wire wire = {
			.type = HCB_EV_PKT_WIRE, .pid = 1, .tid = 1,
			.pkt = { HCB_OUTFEED_MAGIC, c->id, 0, c->nleaves, 1, 0, len, 0, 0,
				 c->total_bytes },
			.in = { 2000 },
		};
		n += rec(stream + n, &wire, sizeof(wire), payload, c->total_bytes);
		snprintf(name, sizeof(name), "records-%s", specs[i].name);
		put(argv[2], name, stream, n);
		free(blob);
		hcb_consumer_free(c);
	}
	return 0;
}
