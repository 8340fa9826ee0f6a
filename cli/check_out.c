/* SPDX-License-Identifier: MIT */
/*
 * check_out.c - what `hcbtrace check` found (cmd_check.c), as a table to
 * read or as one JSON object for scripts: the same facts, in the same
 * order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "check.h"
#include "cli.h"
#include "privilege.h"
#include "words.h"

static const char *provider_name(const struct check_provider *p)
{
	return p->prov ? p->prov->name : "every session (the exec watch)";
}

static size_t refused_count(const struct check_provider *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nprogs; i++)
		n += !p->progs[i].err && !p->progs[i].v.loaded;
	return n;
}

/* ---- the table ---- */

static void text_feature(int f, int state, FILE *out)
{
	const char *since = hcb_feature_info(f)->since;

	if (state == 1)
		fprintf(out, "  %-44s yes\n", cli_feature_words(f));
	else if (state == 0)
		fprintf(out, "  %-44s no (Linux %s)\n", cli_feature_words(f), since);
	else
		fprintf(out, "  %-44s cannot tell: %s\n", cli_feature_words(f), strerror(-state));
}

static void text_privilege(const struct check *c, FILE *out)
{
	fprintf(out, "privilege\n");
	for (const struct cli_cap *cc = cli_caps; cc->name; cc++)
		fprintf(out, "  %-44s %s\n", cc->name,
			c->caps_err ? "cannot tell" : c->caps >> cc->cap & 1 ? "yes" : "no");
	fprintf(out, "  %-44s %s\n", "to trace", cli_privilege_hint());
	fprintf(out, "  %-44s %s\n", "load a uprobe program",
		c->can_load > 0 ? "yes" : strerror(-c->can_load));
	fprintf(out, "  %-44s %s\n", "attach a uprobe",
		c->can_attach > 0 ? "yes" : strerror(-c->can_attach));
}

static void text_prog(const struct check *c, const struct check_prog *cp, FILE *out)
{
	const struct hcb_verdict *v = &cp->v;

	if (cp->err == -ENOENT)
		fprintf(out, "    %-42s not loaded: without BTF, sessions do not watch for execs\n",
			cp->name);
	else if (cp->err)
		fprintf(out, "    %-42s not tried: %s\n", cp->name, strerror(-cp->err));
	else if (v->loaded)
		fprintf(out, "    %-42s loaded\n", cp->name);
	else if (v->reason[0])
		fprintf(out, "    %-42s refused: %s\n", cp->name, cli_vis(v->reason));
	else
		fprintf(out, "    %-42s refused: %s\n", cp->name, strerror(-v->err));
	if (!c->verbose || cp->err)
		return;
	fprintf(out, "      %s", v->sleepable ? "sleepable" : "not sleepable");
	if (v->stack[0])
		fprintf(out, "; stack depth %s", v->stack);
	if (v->insns >= 0)
		fprintf(out, "; %ld instructions processed", v->insns);
	fputc('\n', out);
	if (!v->loaded && v->log[0]) {
		fprintf(out, "      the verifier's last lines%s:\n",
			v->explained ? "" : " (its figures; the full log did not fit)");
		cli_print_lines(out, "        ", v->log);
	}
}

void check_print_text(const struct check *c, FILE *out)
{
	fprintf(out, "kernel %s %s %s (%s)\n", c->uts.sysname, c->uts.release, c->uts.machine,
		c->uts.version);
	fprintf(out, "features\n");
	for (int f = 0; f < HCB_FEAT_COUNT; f++)
		text_feature(f, c->feat[f], out);
	text_privilege(c, out);
	fprintf(out, "providers\n");
	for (size_t i = 0; i < c->nprovs; i++) {
		const struct check_provider *p = &c->provs[i];
		size_t refused = refused_count(p);

		if (p->works)
			fprintf(out, "  %s: works\n", provider_name(p));
		else if (refused)
			fprintf(out, "  %s: cannot work (%zu of %zu programs refused)\n",
				provider_name(p), refused, p->nprogs);
		else
			fprintf(out, "  %s: cannot work\n", provider_name(p));
		for (size_t j = 0; j < p->nprogs; j++)
			text_prog(c, &p->progs[j], out);
	}
}

/* ---- JSON ---- */

static json_t *jlines(const char *log)
{
	json_t *a = json_array();
	const char *line = log;

	while (a && *line) {
		size_t len = strcspn(line, "\n");

		json_array_append_new(a, json_stringn(line, len));
		line += len + (line[len] == '\n');
	}
	return a;
}

/* "176+24+16" as [176, 24, 16]. */
static json_t *jstack(const char *s)
{
	json_t *a;

	if (!s[0])
		return json_null();
	a = json_array();
	while (a && *s) {
		char *end;
		long d = strtol(s, &end, 10);

		if (end == s)
			break;
		json_array_append_new(a, json_integer(d));
		s = *end == '+' ? end + 1 : end;
	}
	return a;
}

static json_t *jprog(const struct check_prog *cp)
{
	const struct hcb_verdict *v = &cp->v;
	int tried = !cp->err, refused = tried && !v->loaded;

	return json_pack("{ss so so* so* so* so* so* so* so*}", "name", cp->name,
			 "loaded", tried ? json_boolean(v->loaded) : json_null(),
			 "sleepable", tried ? json_boolean(v->sleepable) : NULL,
			 "error", cp->err ? json_string(strerror(-cp->err)) :
				  refused ? json_string(strerror(-v->err)) : NULL,
			 "reason", refused && v->reason[0] ? json_string(v->reason) : NULL,
			 "stack_depth", tried ? jstack(v->stack) : NULL,
			 "insns_processed", tried && v->insns >= 0 ? json_integer(v->insns) : NULL,
			 "verifier_log", refused ? jlines(v->log) : NULL,
			 "verifier_log_full", refused ? json_boolean(v->explained) : NULL);
}

static json_t *jprovider(const struct check_provider *p)
{
	json_t *progs = json_array();

	for (size_t i = 0; progs && i < p->nprogs; i++)
		json_array_append_new(progs, jprog(&p->progs[i]));
	return json_pack("{so* sb so}", "name", p->prov ? json_string(p->prov->name) : NULL,
			 "works", p->works, "programs", progs);
}

static json_t *jfeatures(const struct check *c)
{
	json_t *o = json_object();

	for (int f = 0; o && f < HCB_FEAT_COUNT; f++) {
		const struct hcb_feature_info *fi = hcb_feature_info(f);

		json_object_set_new(o, fi->key,
				    json_pack("{ss so ss sb so*}", "what", cli_feature_words(f), "present",
					      c->feat[f] < 0 ? json_null() : json_boolean(c->feat[f]),
					      "since", fi->since, "needed", fi->needed,
					      "error", c->feat[f] < 0 ?
						       json_string(strerror(-c->feat[f])) : NULL));
	}
	return o;
}

/* cli/privilege.c's table: what each capability is for, when, and which
 * commands need it */
static json_t *jneeds(void)
{
	static const char *const when[] = {
		[CLI_NEED_TRACE] = "trace", [CLI_NEED_OLD] = "trace on kernels before 6.6",
		[CLI_NEED_OTHERS] = "other users' processes",
		[CLI_NEED_SIGNAL] = "signal other users' processes",
	};
	json_t *needs = json_object();

	for (const struct cli_cap *cc = cli_caps; needs && cc->name; cc++)
		json_object_set_new(needs, cc->name, json_pack("{ss ss ss}", "for", cc->what, "when",
							       when[cc->when], "commands",
							       cc->commands));
	return needs;
}

static json_t *jprivilege(const struct check *c)
{
	json_t *caps = json_object();

	for (const struct cli_cap *cc = cli_caps; caps && cc->name; cc++)
		json_object_set_new(caps, cc->name,
				    c->caps_err ? json_null() : json_boolean(c->caps >> cc->cap & 1));
	return json_pack("{so so ss sb so* sb so*}", "capabilities", caps, "needs", jneeds(),
			 "hint", cli_privilege_hint(), "load", c->can_load > 0,
			 "load_error", c->can_load > 0 ? NULL : json_string(strerror(-c->can_load)),
			 "attach", c->can_attach > 0,
			 "attach_error", c->can_attach > 0 ? NULL :
					 json_string(strerror(-c->can_attach)));
}

int check_print_json(const struct check *c, FILE *out)
{
	json_t *provs = json_array(), *root;
	int err;

	for (size_t i = 0; provs && i + 1 < c->nprovs; i++)
		json_array_append_new(provs, jprovider(&c->provs[i]));
	root = json_pack("{s{ssssssss} so so so so si}", "kernel", "sysname", c->uts.sysname,
			 "release", c->uts.release, "version", c->uts.version, "machine",
			 c->uts.machine, "features", jfeatures(c), "privilege", jprivilege(c),
			 "providers", provs, "session", jprovider(&c->provs[c->nprovs - 1]),
			 "status", c->status);
	if (!root)
		return -ENOMEM;
	err = json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (err)
		return -ENOMEM;
	fputc('\n', out);
	return 0;
}
