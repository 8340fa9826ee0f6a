/* SPDX-License-Identifier: MIT */
/* textprobe.c - the probes a print's text alone needs (textprobe.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "bpf/uprobe.h"
#include "process/pytext.h"
#include "process/pyver.h"
#include "providers/provider.h"
#include "textprobe.h"

void hcb_jaxcb_text_init(struct hcb_jaxcb_text *t)
{
	*t = (struct hcb_jaxcb_text){ .concat = HCB_UPROBE_LINK_NONE, .ret = HCB_UPROBE_LINK_NONE,
				      .going = { HCB_UPROBE_LINK_NONE, HCB_UPROBE_LINK_NONE } };
}

/* A test's own str layout shift (HCBTRACE_TEST_PYSTR_SHIFT, bytes added
 * to every str offset): strings read through a wrong layout, which the
 * probe's checks must turn away (tests/bats/pytext.bats).  0 otherwise. */
static uint32_t test_str_shift(void)
{
	const char *s = getenv("HCBTRACE_TEST_PYSTR_SHIFT");
	unsigned long v = s ? strtoul(s, NULL, 10) : 0;

	return v <= 64 ? (uint32_t)v : 0;
}

void hcb_jaxcb_text_attach(struct hcb_jaxcb_text *t, struct hcb_probes *probes,
			   struct hcb_target_info *ti, const struct hcb_pyver *v,
			   const struct hcb_pyoffsets *o, const char *pywhy)
{
	struct hcb_uprobe_link *text_link = &t->concat;
	struct hcb_capture_bpf *skel = hcb_probes_skel(probes);
	struct hcb_pytext_target py;
	struct { uint64_t str_type; uint32_t append, length_off, state_off, ascii_data,
		 compact_data, pad; } cfg;
	uint32_t zero = 0, shift = test_str_shift();
	char why[256];
	int err = -ENOENT;

	snprintf(why, sizeof(why), "%s", pywhy);
	if (v)
		err = hcb_pytext_find(v, &py, why, sizeof(why));
	if (!err) {
		struct hcb_uprobe u = { .off = py.concat_off };

		/* kept apart from the others: it may go off first (textproof.c) */
		err = hcb_uprobe_attach_apart(probes, skel->progs.pytext_concat, ti->pid, v->path,
					      &u, text_link);
		if (err)
			snprintf(why, sizeof(why), "cannot probe %.160s: %s", v->path, strerror(-err));
	} else if (!why[0]) {
		snprintf(why, sizeof(why), "its Python was not found: %s", strerror(-err));
	}
	if (!err) {
		cfg = (typeof(cfg)){ py.str_type, (uint32_t)py.append, o->str_length + shift,
				     o->str_state + shift, o->str_ascii_data + shift,
				     o->str_compact_data + shift, 0 };
		err = bpf_map__update_elem(skel->maps.pytext_config, &zero, sizeof(zero), &cfg,
					   sizeof(cfg), BPF_ANY);
		if (err)
			snprintf(why, sizeof(why), "its probe's settings: %s", strerror(-err));
	}
	/* a probe without its settings sends nothing: not on, for textproof */
	if (err)
		hcb_uprobe_link_destroy(text_link);
	if (err)
		snprintf(ti->notice, sizeof(ti->notice), "the text jax.debug.print writes is not "
			 "shown, its taps are, as before: %.240s", why);
}

int hcb_jaxcb_text_on(const struct hcb_jaxcb_text *t)
{
	return hcb_uprobe_link_on(&t->concat);
}

int hcb_jaxcb_text_attach_ret(struct hcb_jaxcb_text *t, struct hcb_probes *probes,
			      const struct hcb_target_info *ti, uint64_t off)
{
	struct hcb_uprobe u = { .off = off, .retprobe = 1 };

	if (!hcb_jaxcb_text_on(t))
		return 0;
	return hcb_uprobe_attach_apart(probes, hcb_probes_skel(probes)->progs.jaxffi_inner_ret,
				       ti->pid, ti->path, &u, &t->ret);
}

int hcb_jaxcb_text_ends(const struct hcb_jaxcb_text *t)
{
	return hcb_uprobe_link_on(&t->ret);
}

static void *destroy_links(void *arg)
{
	struct hcb_jaxcb_text *t = arg;

	hcb_uprobe_link_destroy(&t->going[0]);
	hcb_uprobe_link_destroy(&t->going[1]);
	return NULL;
}

/* The text probe first: the return ends what texts are under way. */
void hcb_jaxcb_text_off(void *ctx)
{
	struct hcb_jaxcb_text *t = ctx;

	t->going[0] = t->concat;
	t->going[1] = t->ret;
	t->concat = t->ret = HCB_UPROBE_LINK_NONE;
	if (pthread_create(&t->off, NULL, destroy_links, t) == 0)
		t->off_started = 1;
	else
		destroy_links(t);
}

void hcb_jaxcb_text_close(struct hcb_jaxcb_text *t)
{
	if (t->off_started)
		pthread_join(t->off, NULL);
	t->off_started = 0;
	hcb_uprobe_link_destroy(&t->concat);
	hcb_uprobe_link_destroy(&t->ret);
}

/* A test's prints shown with hcbtrace's made line alone, no text probe
 * (HCBTRACE_TEST_TEXT=format): the made lines against the program's own
 * (tests/bats/pytext.bats). */
int hcb_jaxcb_text_format_test(void)
{
	const char *s = getenv("HCBTRACE_TEST_TEXT");

	return s && !strcmp(s, "format");
}
