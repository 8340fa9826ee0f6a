/* SPDX-License-Identifier: MIT */
/* job_input.c - a job's recordings from the command line (job_input.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "core/procid.h"
#include "cli.h"
#include "job_input.h"

#define SKIPPED_SHOWN 5     /* names told one by one; the rest counted */

int job_input_is_job(const char *const *paths, int n)
{
	struct stat st;

	return n > 1 || (n == 1 && strcmp(paths[0], "-") && !stat(paths[0], &st) && S_ISDIR(st.st_mode));
}

/* Each file is open at once while merged: as many descriptors as allowed. */
static void raise_file_limit(size_t files)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= files + 64)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > files + 64 ? files + 64 : rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static void tell_skipped(const struct hcb_jobset *s, const char *dir)
{
	for (size_t i = 0; i < s->nskipped && i < SKIPPED_SHOWN; i++)
		cli_warn("skipped '%s%s%s': not a recording (.jsonl or .hcbcap)", dir,
			 dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", s->skipped[i]);
	if (s->nskipped > SKIPPED_SHOWN)
		cli_warn("skipped %zu more names in '%s' that are not recordings",
			 s->nskipped - SKIPPED_SHOWN, dir);
}

int job_input_load(struct hcb_jobset *s, const char *const *paths, int n, int quiet, int fail_code)
{
	struct stat st;
	int err = 0;

	for (int i = 0; i < n && !err; i++) {
		size_t skipped = s->nskipped;

		if (!strcmp(paths[i], "-")) {
			cli_err("standard input ('-') is one recording: it cannot be read with others");
			return EXIT_USAGE;
		}
		if (stat(paths[i], &st)) {
			cli_err("cannot open '%s': %s", paths[i], strerror(errno));
			return fail_code;
		}
		err = S_ISDIR(st.st_mode) ? hcb_jobset_add_dir(s, paths[i]) : hcb_jobset_add_file(s, paths[i]);
		if (!quiet && s->nskipped > skipped) {
			struct hcb_jobset only = { .skipped = s->skipped + skipped,
						   .nskipped = s->nskipped - skipped };

			tell_skipped(&only, paths[i]);
		}
	}
	if (!err)
		err = hcb_jobset_identify(s);
	if (err) {
		cli_err("%s", s->error);
		return fail_code;
	}
	raise_file_limit(s->n);
	return 0;
}

const char *job_member_name(const struct hcb_job_member *m, char *buf, size_t size)
{
	const struct hcb_session_info *w = &m->who;
	int at = 0;

	if (!m->has_session) {
		snprintf(buf, size, "'%s'", cli_vis(m->path));
		return buf;
	}
	if (hcb_procid_check(&w->process) == 1)
		at = snprintf(buf, size, "process %u (", w->process.index);
	else
		at = snprintf(buf, size, "(");
	if (w->host[0] && at >= 0 && (size_t)at < size)
		at += snprintf(buf + at, size - (size_t)at, "host %s, ", cli_vis(w->host));
	if (at >= 0 && (size_t)at < size)
		snprintf(buf + at, size - (size_t)at, "pid %d)", (int)w->pid);
	return buf;
}
