/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace check: what this kernel and this process allow hcbtrace, as
 * `bpftrace --info` says it: the kernel, each BPF feature hcbtrace's
 * programs use (tried, never read off the version), the privilege, and
 * every provider's programs put before the verifier one by one, as a
 * session loads them, with nothing attached; and an exit status for
 * scripts.  No target process is needed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/capture_loop.h"
#include "check.h"
#include "cli.h"
#include "privilege.h"
#include "words.h"

static const struct cli_opt check_opts[] = {
	{ 'f', "format", "FMT", "output format: text (default) or json" },
	{ 'v', "verbose", NULL, "each program's stack depths, and the verifier's last lines of a refusal" },
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

struct check_args {
	const struct cli_cmd *cmd;
	int json, verbose;
};

static int check_opt(void *ctx, int c, const char *arg)
{
	struct check_args *a = ctx;

	switch (c) {
	case 'f':
		if (!strcmp(arg, "json") || !strcmp(arg, "text")) {
			a->json = !strcmp(arg, "json");
			return 0;
		}
		return cli_usage_err(a->cmd, "unknown format '%s': expected text or json", arg);
	case 'v':
		a->verbose = 1;
		return 0;
	default:
		return EXIT_USAGE;
	}
}

/* The first feature every program needs that this kernel lacks, or -1. */
static int missing_needed(const struct check *c)
{
	for (int f = 0; f < HCB_FEAT_COUNT; f++)
		if (hcb_feature_info(f)->needed && c->feat[f] == 0)
			return f;
	return -1;
}

/* A feature it needs is missing, or the privilege to load a program. */
static int cannot_load(const struct check *c)
{
	return missing_needed(c) >= 0 || c->can_load < 0;
}

static int nothing_can(const struct check *c)
{
	return cannot_load(c) || c->can_attach < 0;
}

/* 1 if provider prov (NULL: none, the exec watch) loads name sleepable
 * where the kernel can. */
static int sleepable(const struct hcb_provider *prov, const char *name)
{
	for (size_t i = 0; prov && prov->sleepable && prov->sleepable[i]; i++)
		if (!strcmp(prov->sleepable[i], name))
			return 1;
	return 0;
}

/* Each program of p alone before the verifier (a program of its own: a
 * refusal stops libbpf at that program, and the others would go unseen). */
static int verify_all(struct check *c, struct check_provider *p, const char *const *names)
{
	size_t n = 0;

	while (names[n])
		n++;
	p->progs = calloc(n ? n : 1, sizeof(*p->progs));
	if (!p->progs)
		return -ENOMEM;
	p->nprogs = n;
	p->works = 1;
	for (size_t i = 0; i < n; i++) {
		struct check_prog *cp = &p->progs[i];

		cp->name = names[i];
		if (cannot_load(c))
			cp->err = c->can_load < 0 ? c->can_load : -EOPNOTSUPP;
		else if (!p->prov && c->feat[HCB_FEAT_BTF] != 1)
			cp->err = -ENOENT;   /* no BTF: sessions go without the exec watch */
		else
			cp->err = hcb_probes_verify(names[i], sleepable(p->prov, names[i]), c->verbose,
						    &cp->v);
		if (cp->err != -ENOENT && (cp->err || !cp->v.loaded))
			p->works = 0;
	}
	return 0;
}

static int gather(struct check *c)
{
	static const char *const exec_watch[] = { "hcb_exec", NULL };
	size_t n = 0;
	int err = 0;

	uname(&c->uts);
	for (int f = 0; f < HCB_FEAT_COUNT; f++)
		c->feat[f] = hcb_feature_probe(f);
	c->caps_err = hcb_feature_caps(&c->caps);
	c->can_load = hcb_feature_can_load();
	c->can_attach = c->can_load < 0 ? c->can_load : hcb_feature_can_attach();
	while (hcb_providers[n])
		n++;
	c->provs = calloc(n + 1, sizeof(*c->provs));
	if (!c->provs)
		return -ENOMEM;
	c->nprovs = n + 1;
	/* the exec watch first: every session loads it, so its refusal is
	 * every provider's */
	err = verify_all(c, &c->provs[n], exec_watch);
	for (size_t i = 0; i < n && !err; i++) {
		c->provs[i].prov = hcb_providers[i];
		err = verify_all(c, &c->provs[i], hcb_providers[i]->programs);
		c->provs[i].works &= c->provs[n].works;
	}
	return err;
}

/* The one message of exit status 4: why nothing can be traced. */
static void say_nothing(const struct check *c)
{
	const char *step = c->can_load < 0 ? "load BPF programs" : "attach uprobes";
	int err = c->can_load < 0 ? c->can_load : c->can_attach, f;
	char missing[128];

	if (c->feat[HCB_FEAT_BPF] == 0)
		cli_err("this kernel (%s) has no bpf() system call: hcbtrace needs a kernel with "
			"CONFIG_BPF_SYSCALL", c->uts.release);
	else if (c->feat[HCB_FEAT_UPROBE] == 0)
		cli_err("this kernel (%s) has no uprobes (/sys/bus/event_source/devices/uprobe is "
			"missing): hcbtrace needs CONFIG_UPROBE_EVENTS", c->uts.release);
	else if ((f = missing_needed(c)) >= 0)
		cli_err("this kernel (%s) has no %s, which came with Linux %s: hcbtrace's BPF "
			"programs need it", c->uts.release, cli_feature_words(f),
			hcb_feature_info(f)->since);
	else if (err == -EPERM || err == -EACCES) {
		missing[0] = 0;
		if (!c->caps_err)
			cli_missing_of(c->caps, 0, missing, sizeof(missing));
		if (missing[0])
			cli_err("not enough privilege to %s: this process lacks %s; %s", step, missing,
				cli_privilege_hint());
		else
			cli_err("not enough privilege to %s (%s), though this process has the "
				"capabilities: a security module or the kernel's lockdown forbids it",
				step, strerror(-err));
	} else
		cli_err("cannot %s on this kernel (%s): %s", step, c->uts.release, strerror(-err));
}

/* The message of exit status 1 or 4 when programs are refused: which
 * providers cannot work, and the first program refused of each. */
static void say_refused(const struct check *c, int none)
{
	char line[1024];
	size_t len = 0;

	line[0] = 0;
	for (size_t i = 0; i + 1 < c->nprovs && len < sizeof(line); i++) {
		const struct check_provider *p = &c->provs[i];
		const struct check_prog *first = NULL;

		for (size_t j = 0; j < p->nprogs && !first; j++)
			if (p->progs[j].err || !p->progs[j].v.loaded)
				first = &p->progs[j];
		if (p->works)
			continue;
		if (!first)   /* its own load, and so every provider's */
			first = c->provs[c->nprovs - 1].progs;
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s (refuses %s)",
					len ? ", " : "", p->prov->name, first->name);
	}
	if (none)
		cli_err("this kernel (%s) refuses a BPF program of every provider: %s; hcbtrace "
			"cannot trace here", c->uts.release, line);
	else
		cli_err("on this kernel (%s), these providers cannot work: %s", c->uts.release, line);
}

/* The exit status: 0 every provider works, 1 some cannot, 4 none can;
 * with its message (after the report) if not 0. */
static int decide(const struct check *c, int say)
{
	size_t working = 0;

	if (nothing_can(c)) {
		if (say)
			say_nothing(c);
		return EXIT_SYSTEM;
	}
	for (size_t i = 0; i + 1 < c->nprovs; i++)
		working += c->provs[i].works;
	if (working + 1 == c->nprovs)
		return EXIT_OK;
	if (say)
		say_refused(c, !working);
	return working ? EXIT_FAIL : EXIT_SYSTEM;
}

static void check_free(struct check *c)
{
	for (size_t i = 0; i < c->nprovs; i++)
		free(c->provs[i].progs);
	free(c->provs);
}

static int run_check(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct check_args a = { .cmd = cmd };
	struct check c = { 0 };
	int err = cli_parse_opts(cmd, argc, argv, check_opt, &a);

	if (err)
		return err == CLI_HELP_SHOWN ? EXIT_OK : err;
	if (optind < argc)
		return cli_usage_err(cmd, "unexpected argument '%s'", argv[optind]);
	/* libbpf's own messages go to stderr only when HCBTRACE_DEBUG is set */
	hcb_capture_libbpf_log(getenv("HCBTRACE_DEBUG") ? stderr : NULL);
	c.verbose = a.verbose;
	err = gather(&c);
	if (err) {
		check_free(&c);
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	c.status = decide(&c, 0);
	if (a.json)
		err = check_print_json(&c, stdout);
	else
		check_print_text(&c, stdout);
	if (err)
		cli_err("out of memory");
	else
		decide(&c, 1);
	check_free(&c);
	return err ? EXIT_FAIL : c.status;
}

const struct cli_cmd cmd_check = {
	.name = "check",
	.run = run_check,
	.summary = "say what this kernel and this process allow hcbtrace",
	.usage = "[OPTIONS]",
	.description = "Say what this kernel and this process allow hcbtrace: the BPF features it "
		       "uses, the privilege, and whether each provider's programs load.",
	.opts = check_opts,
};
