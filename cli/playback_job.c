/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jobmerge.h"
#include "playback_job.h"
#include "progress.h"
#include "trace.h"

/* Open the merge and put the output in place; 0 or an exit code after
 * one message. */
static int open_merge(const struct hcb_jobset *set, const struct playback_opts *o,
		      struct hcb_jobmerge **m)
{
	int err = hcb_jobmerge_open(m, set);

	if (err) {
		cli_err("%s", *m ? hcb_jobmerge_error(*m) : "out of memory");
		hcb_jobmerge_close(*m);
		return EXIT_FAIL;
	}
	if (o->dest && (err = cli_output_place(o->dest))) {
		cli_err("cannot put the output in place as '%s': %s", o->dest->path, strerror(-err));
		hcb_jobmerge_close(*m);
		return EXIT_FAIL;
	}
	return 0;
}

/* A file's trouble: a cut-short file is read up to there, damage ends it. */
static void file_trouble(struct hcb_jobmerge *m, int n, int *code)
{
	if (n == -ENODATA) {
		cli_warn("%s", hcb_jobmerge_error(m));
		return;
	}
	cli_err("%s", hcb_jobmerge_error(m));
	*code = EXIT_FAIL;
}

/* The records, merged, into rx; 0 or the writer's error. */
static int pump(struct hcb_jobmerge *m, struct hcb_receiver rx, const struct playback_opts *o,
		int *code)
{
	struct progress pg;
	struct hcb_record rec;
	uint64_t taps = 0, last_ts = 0;
	int admit;
	size_t member;
	int n, err = 0;

	progress_start(&pg, hcb_jobmerge_size(m), o->to_stdout);
	while (!trace_exiting && !err && (n = hcb_jobmerge_next(m, &rec, &member)) != 0) {
		progress_update(&pg, hcb_jobmerge_tell(m));
		if (n < 0) {
			progress_end(&pg);
			file_trouble(m, n, code);
			continue;
		}
		admit = playback_admit(o, &rec, &taps, &last_ts);
		if (admit < 0)
			break;
		if (!admit)
			continue;
		err = rx.ops->record(rx.ctx, &rec);
	}
	progress_end(&pg);
	return err;
}

int playback_job(const struct hcb_jobset *set, struct hcb_writer *w, const char *wname,
		 const struct playback_opts *o)
{
	struct hcb_jobmerge *m = NULL;
	struct hcb_nanwatch *nw = NULL;
	struct hcb_receiver rx = hcb_writer_receiver(w);
	const struct hcb_registry **regs;
	int err, code = EXIT_OK;

	if (print_watch_around(&(struct print_choice){ .nonfinite = o->nonfinite }, &nw, &rx) ||
	    (code = open_merge(set, o, &m))) {
		hcb_writer_close(w);
		hcb_nanwatch_free(nw);
		return code ? code : EXIT_FAIL;
	}
	err = pump(m, rx, o, &code);
	code = playback_finish(w, err, wname, nw, code);
	regs = calloc(set->n, sizeof(*regs));
	if (!o->quiet && regs) {
		for (size_t i = 0; i < set->n; i++)
			regs[i] = hcb_jobmerge_consumers(m, i);
		filter_warn_unmatched(&o->filter, regs, set->n);
	}
	free(regs);
	hcb_jobmerge_close(m);
	return code;
}
