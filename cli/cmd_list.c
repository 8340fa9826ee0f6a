/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace list: the processes hcbtrace can trace, with what each declares
 * (devices and consumers, where its provider can say without attaching)
 * and the hcbtrace sessions attached to it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "process/target.h"
#include "providers/provider.h"
#include "session/session.h"
#include "text/idprint.h"
#include "cli.h"
#include "words.h"

static const struct cli_opt list_opts[] = {
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

static void print_shape(struct hcb_buf *b, const struct hcb_leaf_shape *l)
{
	hcb_buf_printf(b, "%s[", hcb_dtype_name(l->dtype));
	for (unsigned int d = 0; d < l->ndim; d++)
		hcb_buf_printf(b, "%s%llu", d ? "," : "", (unsigned long long)l->dims[d]);
	hcb_buf_putc(b, ']');
}

/* The hcbtrace sessions attached, the ones a barrier would wait for. */
static void list_sessions(pid_t pid)
{
	struct hcb_sess_peer *peers;
	size_t n;
	int err = hcb_sess_list(pid, &peers, &n);

	if (err == -EPERM) {
		printf("  sessions: not looked for (the run directory %s is not trusted: see "
		       "HCBTRACE_RUNDIR in hcbtrace(1))\n", cli_vis(hcb_sess_dir()));
		return;
	}
	if (err || !n) {
		printf("  sessions: none\n");
		return;
	}
	printf("  sessions: %zu\n", n);
	for (size_t i = 0; i < n; i++)
		printf("    %-10d %s > %s\n", (int)peers[i].session_pid,
		       cli_vis((const char *)peers[i].st->what), cli_vis((const char *)peers[i].st->output));
	hcb_sess_peers_free(peers, n);
}

static void print_devices(const char *platform, const uint64_t *mask)
{
	struct hcb_buf line = HCB_BUF_INIT;
	int any = 0;

	hcb_buf_puts(&line, "  devices:");
	for (unsigned int d = 0; d < HCB_MAX_DEVICES; d++)
		if (mask[d / 64] & (1ull << (d % 64))) {
			hcb_buf_putc(&line, ' ');
			hcb_idprint_device(&line, platform, d);
			any = 1;
		}
	if (!any)
		hcb_buf_puts(&line, " (none yet)");
	printf("%s\n", hcb_buf_str(&line));
	hcb_buf_free(&line);
}

static void print_consumers(const struct hcb_registry *reg)
{
	struct hcb_buf line = HCB_BUF_INIT;

	printf("  consumers: %u\n", hcb_registry_count(reg));
	for (unsigned int i = hcb_registry_count(reg); i-- > 0;) {
		const struct hcb_consumer *c = hcb_registry_at(reg, i);

		hcb_buf_reset(&line);
		hcb_buf_printf(&line, "    %-10u %-16s %s ", c->id, cli_vis(c->name), cli_vis(c->tree));
		for (unsigned int l = 0; l < c->nleaves && l < 8; l++) {
			hcb_buf_puts(&line, l ? "," : "");
			print_shape(&line, &c->leaves[l]);
		}
		if (c->nleaves > 8)
			hcb_buf_printf(&line, ",... (%u leaves)", c->nleaves);
		for (unsigned int k = 0; k < c->nkwargs; k++)
			hcb_buf_printf(&line, " %s: %s", cli_vis(c->kwargs[k].key),
				       cli_vis(c->kwargs[k].value));
		printf("%s\n", hcb_buf_str(&line));
	}
	hcb_buf_free(&line);
}

/* What the target declares, read from outside.  -ENOMEM, or 0 (a process
 * that went away or cannot be read is left out, with a warning if odd). */
static int list_described(struct hcb_target_info *ti)
{
	struct hcb_registry *reg = hcb_registry_new();
	uint64_t mask[HCB_MAX_DEVICES / 64];
	int err;

	if (!reg)
		return -ENOMEM;
	err = ti->provider->describe(ti, mask, reg);
	if (err) {
		/* it may have exited since the scan: not worth an error */
		if (err != -ESRCH)
			cli_warn("process %d: cannot read its %s registry: %s", (int)ti->pid,
				 cli_provider_words(ti->provider)->library, strerror(-err));
		hcb_registry_free(reg);
		return err == -ENOMEM ? err : 0;
	}
	printf("%d %s\n", (int)ti->pid, cli_vis(ti->comm));
	printf("  library: %s\n", cli_vis(ti->path));
	print_devices(ti->platform, mask);
	list_sessions(ti->pid);
	print_consumers(reg);
	hcb_registry_free(reg);
	return 0;
}

/*
 * Why ti's provider reads the process when another provider's library is
 * mapped too (jaxlib 0.6.0 maps both a vestigial xla_extension.so and
 * libjax_common.so): what that provider's own look at it found.
 */
static void list_others(pid_t pid, const struct hcb_target_info *ti)
{
	for (size_t i = 0; hcb_providers[i]; i++) {
		const struct hcb_provider *p = hcb_providers[i];
		struct hcb_target_info t = { .pid = pid, .provider = p };
		char path[4096];
		uint64_t base;
		int err;

		if (p == ti->provider ||
		    hcb_target_find_mapping(pid, p->is_library, path, sizeof(path), &base))
			continue;
		err = p->find(pid, &t);
		printf("  also maps %s (the %s provider's): %s\n", cli_vis(path), p->name,
		       !err ? "readable too, but the provider above answers first" :
		       err == -EPROTONOSUPPORT ? "not a version it reads" :
		       err == -ENOEXEC ? "without the functions it probes" :
		       err == -ENODATA ? "stripped" : strerror(-err));
	}
}

static int list_one(pid_t pid)
{
	struct hcb_target_info ti;
	const struct cli_provider_words *w;
	int err = hcb_provider_find(pid, 0, &ti);

	if (err && err != -EPROTONOSUPPORT)
		return 0;   /* gone since the scan */
	if (!err && ti.provider->describe)
		return list_described(&ti);
	w = cli_provider_words(ti.provider);
	printf("%d %s\n", (int)pid, strcmp(ti.comm, "?") ? cli_vis(ti.comm) : "");
	printf("  library: %s\n", cli_vis(ti.path));
	if (err)
		printf("  %s %s: not supported (supported %s versions: %s)\n", w->library, cli_vis(ti.version),
		       w->library, ti.provider->supported ? ti.provider->supported() : "none");
	else
		printf("  %s %s: %s\n", w->library, cli_vis(ti.version), w->kind);
	list_others(pid, &ti);
	list_sessions(pid);
	return 0;
}

static int list_opt(void *ctx, int c, const char *arg)
{
	(void)ctx;
	(void)c;
	(void)arg;
	return EXIT_USAGE;   /* list has no options but --help */
}

static int run_list(const struct cli_cmd *cmd, int argc, char **argv)
{
	pid_t *pids = NULL;
	size_t n = 0;
	int err;

	err = cli_parse_opts(cmd, argc, argv, list_opt, NULL);
	if (err)
		return err == CLI_HELP_SHOWN ? EXIT_OK : err;
	if (optind < argc)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[optind]);
	err = hcb_provider_list(&pids, &n);
	if (err) {
		cli_err("cannot scan /proc: %s", strerror(-err));
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		if (list_one(pids[i])) {
			cli_err("out of memory");
			free(pids);
			return EXIT_FAIL;
		}
	}
	if (!n)
		cli_err("no process has libhcbtap, or a jaxlib whose taps hcbtrace reads, loaded");
	free(pids);
	return EXIT_OK;
}

const struct cli_cmd cmd_list = {
	.name = "list",
	.run = run_list,
	.summary = "list processes that have libhcbtap loaded, with devices and consumers",
	.usage = "[OPTIONS]",
	.description = "List processes that have libhcbtap loaded, with their devices and consumers.",
	.opts = list_opts,
};
