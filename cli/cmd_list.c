/* SPDX-License-Identifier: MIT */
/* hcbtrace list: processes with libhcbtap loaded, their devices and consumers. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "dtype.h"
#include "idprint.h"
#include "session.h"
#include "trace.h"
#include "target.h"

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

	if (hcb_sess_list(pid, &peers, &n) || !n) {
		printf("  sessions: none\n");
		return;
	}
	printf("  sessions: %zu\n", n);
	for (size_t i = 0; i < n; i++)
		printf("    %-10d %s > %s\n", (int)peers[i].session_pid, (const char *)peers[i].st->what,
		       (const char *)peers[i].st->output);
	hcb_sess_peers_free(peers, n);
}

static int list_one(pid_t pid)
{
	struct hcb_registry *reg = hcb_registry_new();
	struct hcb_buf line = HCB_BUF_INIT;
	struct hcb_wire_registry root;
	char lib[4096], comm[256];
	uint64_t base;
	int err;

	if (!reg)
		return -ENOMEM;
	err = hcb_target_find_lib(pid, lib, sizeof(lib), &base);
	if (!err)
		err = hcb_target_read_registry(pid, lib, base, &root, reg);
	if (err) {
		/* it may have exited since the scan: not worth an error */
		if (err != -ESRCH)
			cli_warn("process %d: cannot read its libhcbtap registry: %s", (int)pid,
				 strerror(-err));
		hcb_registry_free(reg);
		return 0;
	}
	if (hcb_target_comm(pid, comm, sizeof(comm)))
		comm[0] = '\0';
	printf("%d %s\n", (int)pid, comm);
	printf("  library: %s\n", lib);
	hcb_buf_puts(&line, "  devices:");
	for (unsigned int d = 0; d < root.ndevices && d < HCB_MAX_DEVICES; d++)
		if (root.device_mask[d / 64] & (1ull << (d % 64))) {
			hcb_buf_putc(&line, ' ');
			hcb_idprint_device(&line, root.platform, d);
		}
	if (!root.ndevices)
		hcb_buf_puts(&line, " (none yet)");
	printf("%s\n", hcb_buf_str(&line));
	list_sessions(pid);
	printf("  consumers: %u\n", hcb_registry_count(reg));
	for (unsigned int i = hcb_registry_count(reg); i-- > 0;) {
		const struct hcb_consumer *c = hcb_registry_at(reg, i);

		hcb_buf_reset(&line);
		hcb_buf_printf(&line, "    %-10u %-16s %s ", c->id, c->name, c->tree);
		for (unsigned int l = 0; l < c->nleaves && l < 8; l++) {
			hcb_buf_puts(&line, l ? "," : "");
			print_shape(&line, &c->leaves[l]);
		}
		if (c->nleaves > 8)
			hcb_buf_printf(&line, ",... (%u leaves)", c->nleaves);
		for (unsigned int k = 0; k < c->nkwargs; k++)
			hcb_buf_printf(&line, " %s: %s", c->kwargs[k].key, c->kwargs[k].value);
		printf("%s\n", hcb_buf_str(&line));
	}
	hcb_buf_free(&line);
	hcb_registry_free(reg);
	return 0;
}

/* A process with jaxlib's legacy outfeed (DESIGN 4.2), not libhcbtap. */
static void list_legacy(pid_t pid)
{
	char path[4096], version[64], comm[256];

	if (hcb_target_find_xla(pid, path, sizeof(path), version, sizeof(version)))
		return;
	if (hcb_target_comm(pid, comm, sizeof(comm)))
		comm[0] = '\0';
	printf("%d %s\n", (int)pid, comm);
	printf("  library: %s\n", path);
	if (trace_outfeed_supported(version))
		printf("  jaxlib %s: host_callback's outfeed; taps print with their consumer id "
		       "(kwargs live in Python)\n", version);
	else
		printf("  jaxlib %s: not supported (supported jaxlib versions: %s)\n", version,
		       trace_outfeed_versions());
	list_sessions(pid);
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
	err = hcb_target_list(&pids, &n);
	if (err) {
		cli_err("cannot scan /proc: %s", strerror(-err));
		return EXIT_FAIL;
	}
	for (size_t i = 0; i < n; i++) {
		err = list_one(pids[i]);
		if (err) {
			cli_err("out of memory");
			free(pids);
			return EXIT_FAIL;
		}
	}
	free(pids);
	pids = NULL;
	{
		size_t nx = 0;

		/* processes with libhcbtap were listed already */
		if (hcb_target_list_xla(&pids, &nx) == 0) {
			for (size_t i = 0; i < nx; i++) {
				char lib[4096];
				uint64_t base;

				if (hcb_target_find_lib(pids[i], lib, sizeof(lib), &base) == -ENOENT)
					list_legacy(pids[i]);
			}
			n += nx;
		}
	}
	if (!n)
		cli_err("no process has libhcbtap (or a jaxlib with host_callback's outfeed) loaded");
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
