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

/* The passwd entry of name (or of uid, name NULL), from /etc/passwd
 * itself: glibc's NSS would dlopen its modules, which a static hcbtrace
 * cannot (it crashed there on a name not in the file).  1 found, 0 not. */
static int passwd_of(const char *name, uid_t uid, struct launch_user *u)
{
	FILE *f = fopen("/etc/passwd", "re");
	struct passwd *pw;
	int found = 0;

	if (!f)
		return 0;
	while (!found && (pw = fgetpwent(f))) {
		if (name ? strcmp(pw->pw_name, name) != 0 : pw->pw_uid != uid)
			continue;
		found = 1;
		u->uid = pw->pw_uid;
		u->gid = pw->pw_gid;
		snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
		snprintf(u->home, sizeof(u->home), "%s", pw->pw_dir ? pw->pw_dir : "");
	}
	fclose(f);
	return found;
}

/* u's supplementary groups: its group, and those /etc/group lists it in */
static void groups_of(struct launch_user *u)
{
	FILE *f = u->name[0] ? fopen("/etc/group", "re") : NULL;
	struct group *gr;

	u->groups[0] = u->gid;
	u->ngroups = 1;
	if (!f)
		return;
	while (u->ngroups < LAUNCH_USER_MAX_GROUPS && (gr = fgetgrent(f))) {
		for (char **m = gr->gr_mem; m && *m; m++) {
			if (strcmp(*m, u->name) == 0 && gr->gr_gid != u->gid) {
				u->groups[u->ngroups++] = gr->gr_gid;
				break;
			}
		}
	}
	fclose(f);
}

/* --user NAME: a name in /etc/passwd, or a uid (with its passwd entry) */
static int resolve_opt(struct launch_user *u)
{
	unsigned id;

	if (!passwd_of(user_opt, 0, u) &&
	    (parse_id(user_opt, &id) || !passwd_of(NULL, id, u))) {
		cli_err("--user %s: no such user in /etc/passwd", cli_vis(user_opt));
		return EXIT_USAGE;
	}
	/* root asked for as root: nothing to do */
	u->change = !(u->uid == 0 && getuid() == 0);
	groups_of(u);
	return 0;
}

int launch_user_resolve(struct launch_user *u)
{
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	unsigned uid, gid = 0;

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
	/* a user of a directory service (not in /etc/passwd) keeps sudo's ids,
	 * without a name: its group alone */
	if (!passwd_of(NULL, uid, u))
		u->gid = sudo_gid ? gid : uid;
	u->change = 1;
	u->uid = uid;
	if (sudo_gid)
		u->gid = gid;
	groups_of(u);
	return 0;
}

int launch_user_become(const struct launch_user *u)
{
	if (!u->change)
		return 0;
	/* groups first: setgroups and setgid need the privilege setuid drops */
	if (setgroups(u->ngroups, u->groups))
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
