/* SPDX-License-Identifier: MIT */
/* diff_job.c - the diff of two runs of one job, process by process (diff_job.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "text/idprint.h"
#include "diff_job.h"
#include "job_input.h"

struct job_tally {
	size_t paired, differ, only[2];
	int trouble;
};

static const char *const run_name[2] = { "REF", "NEW" };

static void pair_header(const struct diff_run *run, const struct hcb_job_member *a,
			const struct hcb_job_member *b)
{
	char na[256], nb[256];

	if (run->fmt == OUT_QUIET)
		return;
	printf("== REF %s, NEW %s\n", job_member_name(a, na, sizeof(na)), job_member_name(b, nb, sizeof(nb)));
	fflush(stdout);
}

static void only_in(const struct diff_run *run, const struct hcb_job_member *m, int side)
{
	char name[256];

	if (run->fmt == OUT_QUIET)
		return;
	printf("== %s: in %s only ('%s'): %s has no such process\n", job_member_name(m, name, sizeof(name)),
	       run_name[side], cli_vis(m->path), run_name[!side]);
}

/* A's members paired with B's (used[j]: B's j-th is taken); 1 to stop. */
static int each_pair(struct diff_run *run, const struct hcb_jobset *set, char *used, diff_pair_fn pair,
		     struct job_tally *t)
{
	int loose = hcb_jobset_pair_loose(&set[0], &set[1]);
	int single = set[0].n == 1 && set[1].n == 1;

	for (size_t i = 0; i < set[0].n; i++) {
		const struct hcb_job_member *a = &set[0].m[i];
		size_t j;
		int code;

		for (j = 0; j < set[1].n; j++)
			if (!used[j] && (single || hcb_job_pairs_with(a, &set[1].m[j], loose)))
				break;
		if (j == set[1].n) {
			t->only[0]++;
			only_in(run, a, 0);
			continue;
		}
		used[j] = 1;
		t->paired++;
		pair_header(run, a, &set[1].m[j]);
		run->path[0] = a->path;
		run->path[1] = set[1].m[j].path;
		code = pair(run);
		t->differ += code == EXIT_FAIL;
		t->trouble |= code == EXIT_USAGE;
		if (code && run->fmt == OUT_QUIET)
			return 1;   /* the answer is known */
	}
	return 0;
}

static int verdict(const struct diff_run *run, const struct hcb_jobset *set, const struct job_tally *t)
{
	if (run->fmt == OUT_TEXT)
		printf("job: %zu process%s in REF, %zu in NEW: %zu paired, %zu differ; %zu in REF only, "
		       "%zu in NEW only\n", set[0].n, set[0].n == 1 ? "" : "es", set[1].n, t->paired,
		       t->differ, t->only[0], t->only[1]);
	if (t->trouble)
		return EXIT_USAGE;
	return t->differ || t->only[0] || t->only[1] ? EXIT_FAIL : EXIT_OK;
}

/* Refused for a job: what compares two files only. */
static int two_files_only(const struct cli_cmd *cmd, const struct diff_run *run)
{
	if (run->fmt == OUT_JSON || run->plot)
		return cli_usage_err(cmd, "%s compares two recordings: give two files, not a job's recordings",
				     run->plot ? "--plot" : "-f json");
	return 0;
}

int diff_jobs(const struct cli_cmd *cmd, struct diff_run *run, diff_pair_fn pair)
{
	struct hcb_jobset set[2];
	struct job_tally t = { 0 };
	const char *path[2] = { run->path[0], run->path[1] };
	char *used = NULL;
	int code = 0;

	if (two_files_only(cmd, run))
		return EXIT_USAGE;
	hcb_jobset_init(&set[0]);
	hcb_jobset_init(&set[1]);
	for (int side = 0; side < 2 && !code; side++)
		code = job_input_load(&set[side], &path[side], 1, run->fmt == OUT_QUIET, EXIT_USAGE);
	if (!code && !(used = calloc(set[1].n + 1, 1))) {
		cli_err("out of memory");
		code = EXIT_USAGE;
	}
	if (!code && !each_pair(run, set, used, pair, &t)) {
		for (size_t j = 0; j < set[1].n; j++)
			if (!used[j]) {
				t.only[1]++;
				only_in(run, &set[1].m[j], 1);
			}
		code = verdict(run, set, &t);
	} else if (!code) {
		code = t.trouble ? EXIT_USAGE : EXIT_FAIL;
	}
	free(used);
	hcb_jobset_free(&set[0]);
	hcb_jobset_free(&set[1]);
	return code;
}

/* ---- --across-processes ---- */

struct across {
	size_t diverge, trouble;
	char first[256];            /* the first process that diverged, named */
	char where[256];            /* its first difference */
	uint64_t step;
};

/* Member i against member 0 (run->devices[0]: its devices); the tally. */
static int across_one(struct diff_run *run, struct hcb_jobset *s, size_t i, diff_pair_fn pair,
		      struct across *t)
{
	char a[256], b[256];
	uint32_t *ids;
	size_t n;
	int code;

	if (hcb_job_devices(s, i, &ids, &n)) {
		cli_err("%s", s->error);
		return EXIT_USAGE;
	}
	run->devices[1] = ids;
	run->ndevices[1] = n;
	run->path[1] = s->m[i].path;
	run->have_first = 0;
	if (run->fmt != OUT_QUIET) {
		printf("== %s against %s\n", job_member_name(&s->m[i], b, sizeof(b)),
		       job_member_name(&s->m[0], a, sizeof(a)));
		fflush(stdout);
	}
	code = pair(run);
	if (code == EXIT_FAIL && !t->diverge++)
		job_member_name(&s->m[i], t->first, sizeof(t->first));
	if (code == EXIT_FAIL && t->diverge == 1 && run->have_first) {
		struct hcb_buf key = HCB_BUF_INIT;

		hcb_idprint_device(&key, run->first_platform,
				   diff_device(run, run->first_side, run->first_key.device));
		snprintf(t->where, sizeof(t->where), "%s %s", hcb_buf_str(&key),
			 run->first_key.name ? run->first_key.name : "(unnamed)");
		t->step = run->first_seq;
		hcb_buf_free(&key);
	}
	t->trouble += code == EXIT_USAGE;
	free(ids);
	run->devices[1] = NULL;
	return code;
}

static int across_verdict(const struct diff_run *run, const struct hcb_jobset *s, const struct across *t)
{
	if (run->fmt == OUT_TEXT && !t->diverge)
		printf("processes: %zu compared with process 0: none diverges\n", s->n - 1);
	else if (run->fmt == OUT_TEXT && !t->where[0])   /* no tap differs: its devices do */
		printf("processes: %zu compared with process 0: %zu diverge%s; first %s, in its devices\n",
		       s->n - 1, t->diverge, t->diverge == 1 ? "s" : "", t->first);
	else if (run->fmt == OUT_TEXT)
		printf("processes: %zu compared with process 0: %zu diverge%s; first %s, at seq %llu: %s\n",
		       s->n - 1, t->diverge, t->diverge == 1 ? "s" : "", t->first,
		       (unsigned long long)t->step, t->where);
	return t->trouble ? EXIT_USAGE : t->diverge ? EXIT_FAIL : EXIT_OK;
}

int diff_across(const struct cli_cmd *cmd, struct diff_run *run, int n, const char *const *paths,
		diff_pair_fn pair)
{
	struct hcb_jobset s;
	struct across t = { 0 };
	uint32_t *ref = NULL;
	int code;

	if (two_files_only(cmd, run))
		return EXIT_USAGE;
	if (n < 1)
		return cli_usage_err(cmd, "which job? hcbtrace diff --across-processes DIR");
	hcb_jobset_init(&s);
	code = job_input_load(&s, paths, n, run->fmt == OUT_QUIET, EXIT_USAGE);
	if (!code && s.n < 2) {
		cli_err("'%s' holds one process's recording: nothing to compare it with", s.m[0].path);
		code = EXIT_USAGE;
	}
	if (!code && hcb_job_devices(&s, 0, &ref, &run->ndevices[0])) {
		cli_err("%s", s.error);
		code = EXIT_USAGE;
	}
	run->devices[0] = ref;
	run->path[0] = code ? NULL : s.m[0].path;
	for (size_t i = 1; !code && i < s.n; i++)
		if (across_one(run, &s, i, pair, &t) && run->fmt == OUT_QUIET)
			break;
	if (!code)
		code = across_verdict(run, &s, &t);
	free(ref);
	run->devices[0] = NULL;
	hcb_jobset_free(&s);
	return code;
}
