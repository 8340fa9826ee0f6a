/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "filter.h"

int filter_opt(const struct cli_cmd *cmd, struct tap_filter *f, int c, const char *arg)
{
	unsigned long long v;

	switch (c) {
	case OPT_DEVICE:
		if (cli_parse_u64(cmd, "device", arg, HCB_MAX_DEVICES - 1, &v))
			return EXIT_USAGE;
		f->devices[v / 64] |= 1ull << (v % 64);
		f->device_filter = 1;
		return 0;
	case OPT_CONSUMER:
		if (f->nconsumers == sizeof(f->consumers) / sizeof(f->consumers[0]))
			return cli_usage_err(cmd, "too many --consumer options (at most 64)");
		if (!*arg)
			return cli_usage_err(cmd, "empty --consumer: give a consumer id or name");
		f->consumers[f->nconsumers++] = arg;
		return 0;
	default:
		return 1;
	}
}

static int consumer_is(const char *want, const struct hcb_consumer *c)
{
	char *end;
	unsigned long long id = strtoull(want, &end, 0);

	return !strcmp(want, c->name) || (*want && !*end && id == c->id);
}

int filter_match(const struct tap_filter *f, const struct hcb_packet *p)
{
	if (f->device_filter &&
	    (p->device >= HCB_MAX_DEVICES || !(f->devices[p->device / 64] & (1ull << (p->device % 64)))))
		return 0;
	if (!f->nconsumers)
		return 1;
	for (unsigned int i = 0; i < f->nconsumers; i++)
		if (consumer_is(f->consumers[i], p->consumer))
			return 1;
	return 0;
}

/* A --consumer that matched nothing is most likely a typo: say so, with
 * what there was to match. */
void filter_warn_unmatched(const struct tap_filter *f, const struct hcb_registry *reg)
{
	unsigned int n = hcb_registry_count(reg);

	for (unsigned int i = 0; i < f->nconsumers; i++) {
		struct hcb_buf names = HCB_BUF_INIT;
		int matched = 0;

		for (unsigned int k = 0; k < n && !matched; k++) {
			const struct hcb_consumer *c = hcb_registry_at(reg, k);

			matched = consumer_is(f->consumers[i], c);
			hcb_buf_printf(&names, "%s%s (%u)", k ? ", " : "", c->name, c->id);
		}
		if (!matched && n)
			cli_warn("--consumer '%s' matched none of the consumers seen: %s",
				 f->consumers[i], hcb_buf_str(&names));
		hcb_buf_free(&names);
	}
}
