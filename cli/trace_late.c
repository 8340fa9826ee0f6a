/* SPDX-License-Identifier: MIT */
/*
 * trace_late.c - the words for what an attach found that shows less than
 * a user expects, and for a library the traced process mapped after the
 * session attached (src/engine/late.c: jax's CUDA plugin, loaded when jax
 * starts its backends, after `record -- CMD` attached on jaxlib).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "providers/provider.h"
#include "trace.h"
#include "words.h"

/* Its probes need a program this kernel refuses (hcbtrace check says
 * which kernels do). */
static void warn_refused(pid_t pid, const struct hcb_target_info *ti)
{
	struct hcb_refusal r = { 0 };
	char what[512] = "its BPF programs";

	if (!hcb_verdict_last(&r))
		cli_refusal_words(what, sizeof(what), &r);
	cli_warn("process %d loaded %s after the session attached, and this kernel (%s) refuses "
		 "%s: its %s callbacks are not read; its CPU callbacks still are; run 'hcbtrace "
		 "check' for what this kernel supports", (int)pid, cli_vis(ti->path),
		 cli_kernel_release(), what, ti->platform);
	if (getenv("HCBTRACE_DEBUG") && r.prog[0])
		cli_refusal_log(r.prog, r.log);
}

/* Taken up or not: said once, with the time its probes came on (what it
 * handled before was not seen, and is counted nowhere). */
void trace_warn_late(pid_t pid, const struct hcb_warning *w)
{
	const struct hcb_target_info *ti = w->target;
	struct timespec now;
	struct tm tm;
	char when[32] = "now";

	if (!clock_gettime(CLOCK_REALTIME, &now) && localtime_r(&now.tv_sec, &tm))
		snprintf(when, sizeof(when), "%02d:%02d:%02d.%03ld", tm.tm_hour, tm.tm_min,
			 tm.tm_sec, now.tv_nsec / 1000000);
	if (!w->err)
		cli_warn("process %d loaded %s (version %s) after the session attached: its %s callbacks are "
			 "read from %s on (any before were not seen, and are counted nowhere; the "
			 "recording names their devices as it began, by its session record's "
			 "platform: device N is %s device N); its CPU callbacks still are", (int)pid, cli_vis(ti->path), cli_vis(ti->version),
			 ti->platform, when, ti->platform);
	else if (w->err == -ENOEXEC)
		cli_warn("process %d loaded %s (version %s) after the session attached, which is not the code "
			 "hcbtrace knows: %s: its %s callbacks are not read; its CPU callbacks still "
			 "are", (int)pid, cli_vis(ti->path), cli_vis(ti->version),
			 cli_vis(w->detail ? w->detail : "its functions are missing"), ti->platform);
	else if (w->err == -HCB_REFUSED)
		warn_refused(pid, ti);
	else
		cli_warn("process %d loaded %s after the session attached, and cannot be probed "
			 "there (%s): its %s callbacks are not read; its CPU callbacks still are",
			 (int)pid, cli_vis(ti->path), strerror(-w->err), ti->platform);
}

void trace_warn_attached(pid_t pid, const struct hcb_target_info *ti)
{
	/* a session that would otherwise show nothing, silently */
	const char *not_read = cli_provider_words(ti->provider)->not_read;

	if (not_read)
		cli_warn("process %d runs %s %s: %s", (int)pid,
			 cli_provider_words(ti->provider)->library, ti->version, not_read);
	if (ti->notice[0])
		cli_warn("process %d: %s", (int)pid, ti->notice);
	if (ti->unread & HCB_UNREAD_OUTFEED)
		cli_warn("process %d runs jaxlib %s: host_callback's outfeed taps (id_tap, id_print, "
			 "jax's default for them up to 0.4.33) are not read on it, only on jaxlib "
			 "0.4.31; JAX_HOST_CALLBACK_LEGACY=False in the program makes them "
			 "callbacks, which are", (int)pid, ti->version);
}
