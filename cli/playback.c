/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "playback.h"
#include "progress.h"
#include "trace.h"

/* Wait until a tap of time ts is due, speed times as fast as recorded
 * since the one before it (*last; 0: none). */
static void playback_pace(uint64_t *last, uint64_t ts, double speed)
{
	struct timespec d;
	double wait;

	if (*last && ts > *last && !trace_exiting) {
		wait = (double)(ts - *last) / 1e9 / speed;
		if (wait > 3600)
			wait = 3600;   /* a clock jump in the recording must not stall us for days */
		d.tv_sec = (time_t)wait;
		d.tv_nsec = (long)((wait - (double)d.tv_sec) * 1e9);
		while (nanosleep(&d, &d) && errno == EINTR && !trace_exiting)
			;
	}
	*last = ts;
}

int playback_admit(const struct playback_opts *o, const struct hcb_record *rec, uint64_t *taps,
		   uint64_t *last_ts)
{
	if (rec->kind != HCB_REC_TAP)
		return 1;
	if (o->count && *taps >= o->count)
		return -1;
	if (!hcb_filter_match(&o->filter, rec->tap.device, rec->tap.consumer))
		return 0;
	if (o->speed > 0)
		playback_pace(last_ts, rec->tap.wall_ns, o->speed);
	(*taps)++;
	return 1;
}

int playback_finish(struct hcb_writer *w, int err, const char *wname, struct hcb_nanwatch *nw,
		    int code)
{
	/* the first error is the one said; w is closed either way */
	err = err ? (hcb_writer_close(w), err) : hcb_writer_close(w);
	if (err == -ENOMEM) {
		cli_err("out of memory formatting the output");
		code = EXIT_FAIL;
	} else if (err) {
		cli_err("writing to %s: %s", wname, strerror(-err));
		code = EXIT_FAIL;
	}
	print_watch_summary(nw);
	hcb_nanwatch_free(nw);
	return code;
}

int playback(const char *in, struct hcb_writer *w, const char *wname, const struct playback_opts *o)
{
	struct hcb_reader *r = NULL;
	struct progress pg;
	struct hcb_record rec;
	struct hcb_nanwatch *nw = NULL;
	struct hcb_receiver rx = hcb_writer_receiver(w);
	uint64_t taps = 0, records = 0, last_ts = 0;
	int admit;
	int n, err = 0, code = EXIT_OK;

	if (print_watch_around(&(struct print_choice){ .nonfinite = o->nonfinite }, &nw, &rx)) {
		hcb_writer_close(w);
		return EXIT_FAIL;
	}
	n = hcb_reader_open(&r, in);
	/* the input is open: the output takes the old file's place */
	if (!n && o->dest && (n = cli_output_place(o->dest))) {
		hcb_reader_close(r);
		hcb_writer_close(w);
		cli_err("cannot put the output in place as '%s': %s", o->dest->path, strerror(-n));
		hcb_nanwatch_free(nw);
		return EXIT_FAIL;
	}
	if (n) {
		hcb_writer_close(w);
		hcb_nanwatch_free(nw);
		if (n == -EPROTONOSUPPORT)
			cli_err("'%s': not a recording hcbtrace reads (JSONL or .hcbcap)", in);
		else
			cli_err("cannot open '%s': %s", in, strerror(-n));
		return EXIT_FAIL;
	}
	progress_start(&pg, hcb_reader_size(r), o->to_stdout);
	while (!trace_exiting && (n = hcb_reader_next(r, &rec)) == 1) {
		progress_update(&pg, hcb_reader_tell(r));
		admit = playback_admit(o, &rec, &taps, &last_ts);
		if (admit < 0)
			break;
		if (!admit)
			continue;
		records++;
		/* the writer, or --nonfinite's watch before it */
		err = rx.ops->record(rx.ctx, &rec);
		if (err)
			break;
	}
	progress_end(&pg);
	if (n < 0 && !err) {
		if (n == -ENODATA) {
			cli_warn("%s", hcb_reader_error(r));
		} else {
			cli_err("%s", hcb_reader_error(r));
			code = EXIT_FAIL;
		}
	}
	code = playback_finish(w, err, wname, nw, code);
	if (!o->quiet)
		filter_warn_unmatched(&o->filter, (const struct hcb_registry *[]){ hcb_reader_consumers(r) }, 1);
	hcb_reader_close(r);
	return code;
}
