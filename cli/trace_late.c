/* SPDX-License-Identifier: MIT */
/*
 * trace_late.c - the words for a library the traced process mapped after
 * the session attached (src/engine/capture_late.c: jax's CUDA plugin, loaded when
 * jax starts its backends, after `record -- CMD` attached on jaxlib).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "providers/provider.h"
#include "trace.h"

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
	else
		cli_warn("process %d loaded %s after the session attached, and cannot be probed "
			 "there (%s): its %s callbacks are not read; its CPU callbacks still are",
			 (int)pid, cli_vis(ti->path), strerror(-w->err), ti->platform);
}
