/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "bpf/features.h"
#include "providers/hcbtap/hcbtap.h"
#include "providers/jaxcb/jaxcb.h"
#include "providers/outfeed/outfeed.h"
#include "cli.h"
#include "privilege.h"
#include "words.h"

static const struct cli_provider_words words[] = {
	{ &hcb_prov_hcbtap, "libhcbtap", "taps", "probes", "libhcbtap's taps", NULL },
	{ &hcb_prov_outfeed, "jaxlib", "outfeed", "legacy outfeed", "host_callback's outfeed; taps print with their consumer id "
	  "(kwargs live in Python)",
	  "which counts nothing hcbtrace can read: barrier needs libhcbtap; in the program, "
	  "host_callback.barrier_wait() waits for its own receiver",
	  "only host_callback's outfeed taps (id_tap, id_print) are read: jax.debug.print and "
	  "JAX's other callbacks are read by --provider jax-callback (one provider a session)" },
	{ &hcb_prov_jaxcb, "jaxlib", "callbacks", "callbacks",
	  "JAX's callbacks (jax.debug.print, debug.callback, io_callback, pure_callback, "
	  "buffer_callback); each call site prints as callback: OP module: MODULE",
	  "which count nothing hcbtrace can read: barrier needs libhcbtap; in the program, "
	  "jax.effects_barrier() waits for its own callbacks" },
};

const struct cli_provider_words *cli_provider_words(const struct hcb_provider *p)
{
	static const struct cli_provider_words unknown = { NULL, "its library", "taps", "probes", "taps",
							   NULL };

	for (size_t i = 0; p && i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i].prov == p)
			return &words[i];
	return &unknown;
}

void cli_provider_names(char *out, size_t cap)
{
	size_t len = 0;

	out[0] = 0;
	for (size_t i = 0; hcb_providers[i] && len < cap; i++) {
		const char *sep = !i ? "" : hcb_providers[i + 1] ? ", " : " or ";
		int n = snprintf(out + len, cap - len, "%s%s", sep, hcb_providers[i]->name);

		len += n > 0 ? (size_t)n : 0;
	}
}

int cli_target_err(int err, pid_t pid, const struct hcb_target_info *ti)
{
	const char *comm = ti && ti->comm[0] ? ti->comm : "?";
	const struct hcb_provider *p = ti ? ti->provider : NULL;
	const struct cli_provider_words *w = cli_provider_words(p);
	char missing[128];

	switch (err) {
	case -ESRCH:
		cli_err("no process with pid %d", (int)pid);
		return EXIT_TARGET;
	case -HCB_REFUSED:
		return cli_refused_err(p);
	case -EACCES:
	case -EPERM:
		cli_missing_caps(pid, missing, sizeof(missing));
		cli_err("not enough privilege to trace process %d (%s): %s%s%s%s", (int)pid, comm,
			missing[0] ? "this process lacks " : "", missing, missing[0] ? "; " : "",
			cli_privilege_hint());
		return EXIT_SYSTEM;
	case -ENOSYS:
		cli_err("this kernel has no uprobes (/sys/bus/event_source/devices/uprobe is "
			"missing): hcbtrace needs CONFIG_UPROBE_EVENTS");
		return EXIT_SYSTEM;
	case -ENOENT:
		cli_err("process %d (%s) has no libhcbtap loaded, nor a jaxlib whose taps hcbtrace "
			"reads: nothing to attach to; programs emit taps by linking libhcbtap (see "
			"hcbtap.h), or with JAX's callbacks (jax.debug.print and its kin)", (int)pid,
			comm);
		return EXIT_TARGET;
	case -ENODATA:
		cli_err("process %d (%s) runs %s %s, whose library %s is stripped (no symbol "
			"table): the functions hcbtrace probes are found there only; install %s "
			"from PyPI, which keeps it", (int)pid, comm, w->library, ti ? ti->version : "?",
			ti ? ti->path : "?", w->library);
		return EXIT_TARGET;
	case -ENOEXEC:
		if (ti && ti->why[0]) {
			cli_err("process %d (%s) runs %s %s, whose library %s is not the code "
				"hcbtrace knows: %s", (int)pid, comm, w->library, ti->version,
				ti->path, ti->why);
			return EXIT_TARGET;
		}
		cli_err("process %d (%s) runs %s %s, whose library %s lacks the functions hcbtrace "
			"probes: an unusual build; supported %s versions: %s", (int)pid, comm,
			w->library, ti ? ti->version : "?", ti ? ti->path : "?", w->library,
			p && p->supported ? p->supported() : "none");
		return EXIT_TARGET;
	case -EPROTONOSUPPORT:
		cli_err("process %d (%s) runs %s %s, whose %s hcbtrace cannot read; supported %s "
			"versions: %s", (int)pid, comm, w->library, ti ? ti->version : "?", w->reads, w->library,
			p && p->supported ? p->supported() : "none");
		return EXIT_TARGET;
	case -EBADMSG:
		cli_err("process %d (%s): its %s (%s) is of another version than this hcbtrace; "
			"use the hcbtrace that matches it", (int)pid, comm, w->library,
			ti ? ti->path : "?");
		return EXIT_TARGET;
	default:
		cli_err("cannot attach to process %d (%s) through %s (%s): %s", (int)pid, comm,
			w->library, ti ? ti->path : "?", strerror(-err));
		return EXIT_TARGET;
	}
}

const char *cli_kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "?";
	return u.release;
}

void cli_refusal_words(char *out, size_t cap, const struct hcb_refusal *r)
{
	char why[256];

	hcb_verdict_reason(r->log, why, sizeof(why));
	if (why[0])
		snprintf(out, cap, "BPF program %s (the verifier: %s)", r->prog, why);
	else
		snprintf(out, cap, "BPF program %s (bpf(): %s)", r->prog, strerror(-r->err));
}

void cli_print_lines(FILE *f, const char *indent, const char *text)
{
	const char *line = text;

	while (*line) {
		size_t len = strcspn(line, "\n");
		char *one = strndup(line, len);

		fprintf(f, "%s%s\n", indent, one ? cli_vis(one) : "?");
		free(one);
		line += len + (line[len] == '\n');
	}
}

void cli_refusal_log(const char *prog, const char *log)
{
	if (!log[0])
		return;
	fflush(stdout);
	fprintf(stderr, "hcbtrace: the verifier's last lines for %s:\n", prog);
	cli_print_lines(stderr, "    ", log);
}

/* 1 if prog is one of p's own (the exec watch is every session's). */
static int provider_has(const struct hcb_provider *p, const char *prog)
{
	for (size_t i = 0; p && p->programs[i]; i++)
		if (!strcmp(p->programs[i], prog))
			return 1;
	return 0;
}

static const char *const feature_words[HCB_FEAT_COUNT] = {
	[HCB_FEAT_BPF] = "the bpf() system call",
	[HCB_FEAT_BTF] = "the kernel's BTF (/sys/kernel/btf/vmlinux)",
	[HCB_FEAT_RINGBUF] = "the ring buffer map",
	[HCB_FEAT_UPROBE] = "uprobes (the uprobe PMU)",
	[HCB_FEAT_SLEEPABLE] = "sleepable uprobe programs",
	[HCB_FEAT_LOOP] = "bpf_loop()",
	[HCB_FEAT_COOKIE] = "attach cookies (bpf_get_attach_cookie)",
	[HCB_FEAT_TASK_STORAGE] = "task local storage in uprobe programs",
	[HCB_FEAT_COPY_FROM_USER] = "bpf_copy_from_user() in uprobe programs",
	[HCB_FEAT_UPROBE_MULTI] = "uprobe_multi links",
	[HCB_FEAT_PRIV_STACK] = "the JIT's private stack (x86-64)",
};

const char *cli_feature_words(int f)
{
	return f >= 0 && f < HCB_FEAT_COUNT ? feature_words[f] : "?";
}

/* A feature every provider's programs need that this kernel has not (a
 * refusal is likely its doing): its number, or -1. */
static int missing_feature(void)
{
	for (int f = 0; f < HCB_FEAT_COUNT; f++)
		if (hcb_feature_info(f)->needed && hcb_feature_probe(f) == 0)
			return f;
	return -1;
}

int cli_refused_err(const struct hcb_provider *p)
{
	struct hcb_refusal r;
	char what[512];
	int missing;

	if (hcb_verdict_last(&r)) {
		cli_err("this kernel (%s) refuses hcbtrace's BPF programs; run 'hcbtrace check' for "
			"what this kernel supports", cli_kernel_release());
		return EXIT_SYSTEM;
	}
	cli_refusal_words(what, sizeof(what), &r);
	missing = missing_feature();
	if (missing >= 0)
		cli_err("this kernel (%s) has no %s (Linux %s on), which hcbtrace's BPF programs "
			"need: it refuses %s, and nothing can be traced here; run 'hcbtrace check' for "
			"what this kernel supports", cli_kernel_release(), cli_feature_words(missing),
			hcb_feature_info(missing)->since, what);
	else if (provider_has(p, r.prog))
		cli_err("this kernel (%s) refuses the %s provider's %s; run 'hcbtrace check' for "
			"what this kernel supports", cli_kernel_release(), p->name, what);
	else
		cli_err("this kernel (%s) refuses %s; run 'hcbtrace check' for what this kernel "
			"supports", cli_kernel_release(), what);
	if (getenv("HCBTRACE_DEBUG"))
		cli_refusal_log(r.prog, r.log);
	return EXIT_SYSTEM;
}

int cli_load_err(int err, uint64_t ring_bytes)
{
	char missing[128];

	if (err == -HCB_REFUSED)
		return cli_refused_err(NULL);
	if (err == -EPERM || err == -EACCES) {
		cli_missing_caps(0, missing, sizeof(missing));
		cli_err("not enough privilege to load BPF programs: %s%s%s%s",
			missing[0] ? "this process lacks " : "", missing, missing[0] ? "; " : "",
			cli_privilege_hint());
		return EXIT_SYSTEM;
	}
	if (err == -ENOSYS || err == -EOPNOTSUPP) {
		cli_err("this kernel cannot run BPF programs (bpf(): %s): hcbtrace needs "
			"a kernel with CONFIG_BPF_SYSCALL and uprobes", strerror(-err));
		return EXIT_SYSTEM;
	}
	if (err == -ENOMEM || err == -E2BIG) {
		cli_err("cannot create a %llu MiB ring buffer (%s): try a smaller --buffer-size",
			(unsigned long long)(ring_bytes >> 20), strerror(-err));
		return EXIT_SYSTEM;
	}
	cli_err("cannot load the BPF program: %s (set HCBTRACE_DEBUG=1 for libbpf's log)",
		strerror(-err));
	return EXIT_SYSTEM;
}

int cli_target_refused(const struct hcb_target_info *ti, const char *why)
{
	const struct cli_provider_words *w = cli_provider_words(ti->provider);

	/* nothing read through the layout refused was shown; a layout not
	 * proven may differ anywhere, so nothing more is read */
	cli_err("process %d (%s) runs %s %s, whose %s did not pass hcbtrace's layout check: %s; "
		"hcbtrace reads no more of it", (int)ti->pid, ti->comm[0] ? ti->comm : "?",
		w->library, ti->version[0] ? ti->version : "?", w->reads, why);
	return EXIT_TARGET;
}
