/* SPDX-License-Identifier: MIT */
/*
 * launch_user.c - CMD runs as the user who ran sudo, not as root.
 *
 * `sudo hcbtrace record -- python train.py` needs root for the BPF side
 * only: the training itself would otherwise run as root, writing root's
 * files into the user's tree.  So under sudo (hcbtrace's real uid 0,
 * SUDO_UID set) the child drops to SUDO_UID/SUDO_GID and the user's
 * groups before its exec; --user NAME chooses another (--user root keeps
 * root, on purpose).  The drop is checked: a child that could get root
 * back does not run.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch_user.h"

static const char *user_opt;

int launch_user_opt(const char *name)
{
	user_opt = name;
	return 0;
}

/* A uid or gid from the environment or --user: digits only, not -1. */
static int parse_id(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v >= 0xffffffffUL)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static void take_passwd(struct launch_user *u, const struct passwd *pw)
{
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir ? pw->pw_dir : "");
}

/* --user NAME: a passwd name, or a uid (with its passwd group, if any) */
static int resolve_opt(struct launch_user *u)
{
	struct passwd *pw = getpwnam(user_opt);
	unsigned id;

	if (!pw && parse_id(user_opt, &id) == 0)
		pw = getpwuid(id);
	if (!pw) {
		cli_err("--user %s: no such user (in the passwd database)", cli_vis(user_opt));
		return EXIT_USAGE;
	}
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	take_passwd(u, pw);
	/* root asked for as root: nothing to do */
	u->change = !(u->uid == 0 && getuid() == 0);
	return 0;
}

int launch_user_resolve(struct launch_user *u)
{
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	struct passwd *pw;
	unsigned uid, gid;

	memset(u, 0, sizeof(*u));
	if (user_opt)
		return resolve_opt(u);
	if (getuid() != 0 || !sudo_uid)
		return 0;
	if (parse_id(sudo_uid, &uid) || (sudo_gid && parse_id(sudo_gid, &gid))) {
		cli_err("SUDO_UID=%s SUDO_GID=%s: not a user and group id; CMD would run as root: "
			"give --user NAME (--user root to run it as root)", cli_vis(sudo_uid),
			sudo_gid ? cli_vis(sudo_gid) : "(unset)");
		return EXIT_USAGE;
	}
	if (uid == 0)
		return 0;
	pw = getpwuid(uid);
	u->change = 1;
	u->uid = uid;
	u->gid = sudo_gid ? gid : pw ? pw->pw_gid : uid;
	if (pw)
		take_passwd(u, pw);
	return 0;
}

int launch_user_become(const struct launch_user *u)
{
	if (!u->change)
		return 0;
	/* groups first: setgroups and setgid need the privilege setuid drops */
	if (u->name[0] ? initgroups(u->name, u->gid) : setgroups(1, &u->gid))
		return -errno;
	if (setgid(u->gid) || setuid(u->uid))
		return -errno;
	if (u->uid != 0 && (setuid(0) == 0 || geteuid() == 0))
		return -EPERM;
	if (u->name[0]) {
		setenv("USER", u->name, 1);
		setenv("LOGNAME", u->name, 1);
	}
	if (u->home[0])
		setenv("HOME", u->home, 1);
	return 0;
}
