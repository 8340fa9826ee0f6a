/* SPDX-License-Identifier: MIT */
/*
 * launch_user.h - whom `record -- CMD` and `run -- CMD` run CMD as: under
 * sudo the user who ran it (SUDO_UID, SUDO_GID), or --user NAME; never
 * silently as root.  Users and groups are read from /etc/passwd and
 * /etc/group (NSS is not for a static binary).  launch.c asks before it starts CMD and has the child
 * become that user before its exec.
 */
#ifndef HCB_CLI_LAUNCH_USER_H
#define HCB_CLI_LAUNCH_USER_H

#include <sys/types.h>

#include "cli.h"

#define USER_OPT \
	{ OPT_USER, "user", "NAME", "run CMD as user NAME (a name or a uid); under sudo CMD " \
	  "runs as the user who ran sudo (SUDO_UID), --user root keeps root" }

/* supplementary groups kept, at most (the kernel takes 65536) */
#define LAUNCH_USER_MAX_GROUPS 64

struct launch_user {
	int change;              /* 0: CMD runs as hcbtrace does */
	uid_t uid;
	gid_t gid;
	char name[256];          /* "" where the uid has no passwd entry */
	char home[4096];         /* its home, for HOME; "" if none */
	gid_t groups[LAUNCH_USER_MAX_GROUPS];   /* its group, then /etc/group's */
	size_t ngroups;
};

/* --user NAME: kept for launch_user_resolve().  0. */
int launch_user_opt(const char *name);
/* Whom CMD runs as (--user, else SUDO_UID/SUDO_GID when hcbtrace is root,
 * else no change).  0, or an exit code after saying why. */
int launch_user_resolve(struct launch_user *u);
/* In the child, before its exec: become u, for good (supplementary
 * groups, group, user, and HOME, USER and LOGNAME).  0 or -errno. */
int launch_user_become(const struct launch_user *u);

#endif
