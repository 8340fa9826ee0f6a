/* SPDX-License-Identifier: MIT */
/*
 * check.h - what `hcbtrace check` found (cmd_check.c), and its two ways
 * of saying it (check_out.c): a table to read, one JSON object for
 * scripts.
 */
#ifndef HCB_CLI_CHECK_H
#define HCB_CLI_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <sys/utsname.h>

#include "bpf/features.h"
#include "bpf/verify.h"
#include "providers/provider.h"

struct check_prog {
	const char *name;
	/* 0: put before the verifier (v says what it said); else why not:
	 * -ENOENT for the exec watch of a kernel without BTF (sessions do not
	 * load it), the privilege's -errno, a map's */
	int err;
	struct hcb_verdict v;
};

struct check_provider {
	const struct hcb_provider *prov;   /* NULL: the exec watch, in every session */
	struct check_prog *progs;
	size_t nprogs;
	int works;                         /* its programs all load, and the session's */
};

struct check {
	int verbose;
	struct utsname uts;
	int feat[HCB_FEAT_COUNT];          /* hcb_feature_probe() of each */
	uint64_t caps;                     /* effective, bit N for capability N */
	int caps_err;
	int can_load, can_attach;          /* 1, or -errno */
	struct check_provider *provs;      /* hcb_providers[]' order, then the exec watch */
	size_t nprovs;
	int status;                        /* the exit status */
};

void check_print_text(const struct check *c, FILE *f);
/* 0, or -ENOMEM. */
int check_print_json(const struct check *c, FILE *f);

#endif
