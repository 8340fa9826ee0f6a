/* SPDX-License-Identifier: MIT */
/* trace_fleet.c - record --fleet-dir: firings across hosts (trace_fleet.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "watch/fleet.h"
#include "cli.h"
#include "trace_fleet.h"

static struct hcb_fleet *fleet;
static const char *fleet_dir;
static int fleet_quiet;
static int publish_warned;
static int poll_warned;

int trace_fleet_open(const char *dir, int quiet)
{
	struct hcb_fleet_opts o = { .dir = dir, .tracer_pid = (uint32_t)getpid(),
				    .start_ns = hcb_clock_ns(CLOCK_REALTIME) };
	char host[HCB_HOST_MAX + 2] = "";
	struct stat st;
	int err;

	gethostname(host, sizeof(host) - 1);
	o.host = host;
	err = hcb_fleet_open(&fleet, &o);
	if (err == -ENOMEM) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	if (err) {
		/* there, but no file can be made in it (read-only, not ours) */
		cli_err("--fleet-dir '%s': %s%s: fire files are written there: give a directory "
			"that every host of the job shares and can write", cli_vis(dir),
			stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? "cannot write in it: " : "",
			strerror(-err));
		return EXIT_FAIL;
	}
	fleet_dir = dir;
	fleet_quiet = quiet;
	return EXIT_OK;
}

void trace_fleet_fired(pid_t pid, int64_t process, const char *condition, uint64_t wall_ns)
{
	struct hcb_fleet_fire f = { .pid = (uint32_t)pid, .wall_ns = wall_ns };
	int err;

	if (!fleet || pid <= 0)
		return;
	f.process = process >= 0 && process < (int64_t)HCB_PROCESS_MAX ? process : -1;
	hcb_fleet_clean_text(f.condition, sizeof(f.condition), condition[0] ? condition : "?");
	err = hcb_fleet_publish(fleet, &f);
	if (err && !publish_warned++)
		cli_warn("--fleet-dir '%s': cannot tell the other hosts of this firing: %s",
			 cli_vis(fleet_dir), strerror(-err));
}

int trace_fleet_poll(struct hcb_trigger_info *why)
{
	struct hcb_fleet_fire f;
	int got;

	if (!fleet)
		return 0;
	got = hcb_fleet_poll(fleet, hcb_clock_ns(CLOCK_MONOTONIC), &f);
	if (got < 0 && !poll_warned++)
		cli_warn("--fleet-dir '%s': cannot read it: %s (looked at again each second)",
			 cli_vis(fleet_dir), strerror(-got));
	if (got <= 0)
		return 0;
	memset(why, 0, sizeof(*why));
	snprintf(why->condition, sizeof(why->condition), "fleet");
	memcpy(why->by_host, f.host, sizeof(why->by_host));
	why->by_pid = f.pid;
	why->by_process = f.process;
	why->wall_ns = f.wall_ns;
	if (!fleet_quiet) {
		char process[32] = "";

		if (f.process >= 0)
			snprintf(process, sizeof(process), ", process %lld", (long long)f.process);
		/* the host and condition: fleet.h's characters only */
		fprintf(stderr, "hcbtrace: host %s fired (pid %u%s: %s): this host's rings are "
			"written\n", f.host, f.pid, process, f.condition);
	}
	return 1;
}

void trace_fleet_end(void)
{
	struct hcb_fleet_counts c;

	if (!fleet)
		return;
	hcb_fleet_counts(fleet, &c);
	if (c.odd || c.overflow)
		cli_warn("--fleet-dir '%s': %llu file%s named fire-*.json %s no fire file (a link, "
			 "a FIFO, too large or malformed)%s: ignored", cli_vis(fleet_dir),
			 (unsigned long long)c.odd, c.odd == 1 ? "" : "s", c.odd == 1 ? "was" : "were",
			 c.overflow ? "; and it held more than 4096 entries, those past them unread" :
			 "");
	if (c.stale && !fleet_quiet)
		fprintf(stderr, "hcbtrace: --fleet-dir: %llu firing%s from before this session "
			"(an earlier run's) ignored\n", (unsigned long long)c.stale,
			c.stale == 1 ? "" : "s");
	hcb_fleet_free(fleet);
	fleet = NULL;
}
