/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "filter_opts.h"

int filter_opt(const struct cli_cmd *cmd, struct hcb_filter *f, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case OPT_DEVICE:
		/* any id a runtime gives a device: jax's are 2048 on in process 1 */
		if (cli_parse_u64(cmd, "device", arg, UINT32_MAX, &v))
			return EXIT_USAGE;
		if (hcb_filter_add_device(f, v) == -E2BIG)
			return cli_usage_err(cmd, "too many --device options (at most %d)",
					     HCB_DEVSET_MAX);
		return 0;
	case OPT_CONSUMER:
		switch (hcb_filter_add_consumer(f, arg)) {
		case -E2BIG:
			return cli_usage_err(cmd, "too many --consumer options (at most %d)",
					     HCB_FILTER_MAX_CONSUMERS);
		case -EINVAL:
			return cli_usage_err(cmd, "empty --consumer: give a consumer id or name");
		default:
			return 0;
		}
	default:
		return 1;
	}
}

/* 1 if want names a consumer of one of the registries; names lists them. */
static int matches_any(const char *want, const struct hcb_registry *const *regs, unsigned int nregs,
		       struct hcb_buf *names)
{
	int matched = 0;

	for (unsigned int r = 0; r < nregs; r++) {
		for (unsigned int k = 0; regs[r] && k < hcb_registry_count(regs[r]); k++) {
			const struct hcb_consumer *c = hcb_registry_at(regs[r], k);

			matched |= hcb_filter_names(want, c);
			hcb_buf_printf(names, "%s%s (%u)", names->len ? ", " : "", c->name, c->id);
		}
	}
	return matched;
}

/* A --consumer that matched nothing is most likely a typo: say so, with
 * what there was to match. */
void filter_warn_unmatched(const struct hcb_filter *f, const struct hcb_registry *const *regs,
			   unsigned int nregs)
{
	for (unsigned int i = 0; i < f->nconsumers; i++) {
		struct hcb_buf names = HCB_BUF_INIT;

		if (!matches_any(f->consumers[i], regs, nregs, &names) && names.len)
			cli_warn("--consumer '%s' matched none of the consumers seen: %s",
				 f->consumers[i], hcb_buf_str(&names));
		hcb_buf_free(&names);
	}
}
