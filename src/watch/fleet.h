/* SPDX-License-Identifier: MIT */
/*
 * fleet.h - one trigger, the whole job's lead-up across hosts (record
 * --fleet-dir DIR): the hcbtrace of every host of a job shares DIR, a
 * directory on a shared file system (NFS, Lustre: plain files and an
 * atomic rename, no notification across hosts, clocks roughly in sync).
 *
 * A firing of this host's job publishes one small fire file there,
 * written under a temporary name (".fire-HOST-TRACER-SEQ.tmp") and
 * renamed into place ("fire-HOST-TRACER-SEQ.json"), so that no reader
 * ever sees half of one.  Every hcbtrace polls DIR: a stat of it at most
 * every HCB_FLEET_POLL_NS, a readdir (at most HCB_FLEET_SCAN_MAX entries)
 * when its mtime changed or HCB_FLEET_RESCAN_NS passed (a shared file
 * system may keep a directory's attributes cached).  A fire file new to
 * it, from another hcbtrace, that fired at or after this session's start
 * (less HCB_FLEET_SKEW_NS, the clocks' allowance) is a firing; one from
 * before is a leftover of an earlier run, counted stale.
 *
 * Nothing in DIR is trusted: only a regular file (never a link, a FIFO,
 * a device: judged by fstatat before it is opened, opened O_NONBLOCK and
 * O_NOFOLLOW, checked again by fstat) named fire-*.json, at most
 * HCB_FLEET_FILE_MAX bytes, in exactly the form hcb_fleet_format writes,
 * is read; anything else named like one is counted odd, once.
 */
#ifndef HCB_FLEET_H
#define HCB_FLEET_H

#include <stddef.h>
#include <stdint.h>

#include "core/record.h"

#define HCB_FLEET_FILE_MAX 1024                  /* bytes of one fire file */
#define HCB_FLEET_SCAN_MAX 4096                  /* entries of DIR judged */
#define HCB_FLEET_POLL_NS 100000000ull           /* a stat of DIR: 100 ms */
#define HCB_FLEET_RESCAN_NS 1000000000ull        /* a readdir at least: 1 s */
#define HCB_FLEET_SKEW_NS 2000000000ull          /* clocks apart: 2 s */

/* One firing as a fire file says it. */
struct hcb_fleet_fire {
	char host[HCB_HOST_MAX + 1];   /* the publisher's: [A-Za-z0-9._-], 1 to 64 */
	uint32_t tracer_pid;           /* the hcbtrace that published it */
	uint64_t seq;                  /* its firings: 1, 2, ... */
	uint32_t pid;                  /* the traced process that fired (not 0) */
	int64_t process;               /* its index in its job; -1: not known */
	char condition[256];           /* printable ASCII but '"' and '\\' */
	uint64_t wall_ns;              /* when it fired (CLOCK_REALTIME) */
};

/* f as its file holds it, into buf: its length, or -EINVAL (f breaks
 * the rules above), -ENOSPC (size too small). */
int hcb_fleet_format(char *buf, size_t size, const struct hcb_fleet_fire *f);
/* A fire file's len bytes: 0 and *f, or -EBADMSG for anything but what
 * hcb_fleet_format writes. */
int hcb_fleet_parse(const char *buf, size_t len, struct hcb_fleet_fire *f);
/* host as a fire file may name it: every byte but [A-Za-z0-9._-] as
 * '_', at most HCB_HOST_MAX ("localhost" for none); condition's the
 * same, every byte outside the printable ASCII (and '"', '\\') as '?'. */
void hcb_fleet_clean_host(char *dst, size_t size, const char *host);
void hcb_fleet_clean_text(char *dst, size_t size, const char *text);

struct hcb_fleet;

struct hcb_fleet_opts {
	const char *dir;
	const char *host;          /* this one's (cleaned) */
	uint32_t tracer_pid;       /* this hcbtrace's */
	uint64_t start_ns;         /* the session's start (CLOCK_REALTIME) */
};

/* 0; -ENOMEM; or why DIR is no place for fire files (-ENOENT,
 * -ENOTDIR, -EACCES, -EROFS...: a file is created in it and removed, to
 * know). */
int hcb_fleet_open(struct hcb_fleet **out, const struct hcb_fleet_opts *o);
/* Publish f (its host, tracer_pid and seq are this one's): 0 or -errno. */
int hcb_fleet_publish(struct hcb_fleet *fl, const struct hcb_fleet_fire *f);
/* Look at DIR if it is time (now_ns: CLOCK_MONOTONIC): 1 and *f, the
 * earliest firing new to it from another hcbtrace (those that came with
 * it are part of it); 0: none; -errno: DIR could not be read. */
int hcb_fleet_poll(struct hcb_fleet *fl, uint64_t now_ns, struct hcb_fleet_fire *f);

struct hcb_fleet_counts {
	uint64_t published;   /* fire files this one wrote */
	uint64_t fired;       /* firings of other hosts acted on */
	uint64_t joined;      /* ... that came with one acted on */
	uint64_t stale;       /* fired before this session (an earlier run's) */
	uint64_t odd;         /* named fire-*.json, not a fire file */
	uint64_t overflow;    /* 1: DIR held more than HCB_FLEET_SCAN_MAX entries,
			       * those past it not judged */
};
void hcb_fleet_counts(const struct hcb_fleet *fl, struct hcb_fleet_counts *c);
void hcb_fleet_free(struct hcb_fleet *fl);

#endif
