/* SPDX-License-Identifier: MIT */
/* target_state.c - whether a traced process is there and runs, from its
 * /proc/PID/stat and status (target.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

int hcb_target_exists(pid_t pid)
{
	char p[64];

	if (pid <= 0)
		return -EINVAL;
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	return access(p, F_OK) == 0 ? 0 : -ESRCH;
}

/* What follows "pid (comm)" in /proc/PID/stat, read into buf: the command
 * name may hold any byte, ')' and spaces too, so the last ')' ends it.
 * NULL where pid is gone or the line cannot be read as one (*gone says
 * which). */
static const char *stat_after_comm(pid_t pid, char *buf, size_t size, int *gone)
{
	char p[64];
	ssize_t n;
	int fd;

	*gone = 1;
	snprintf(p, sizeof(p), "/proc/%d/stat", (int)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	*gone = 0;
	buf[n] = '\0';
	return strrchr(buf, ')');
}

char hcb_target_state(pid_t pid)
{
	char buf[512];
	int gone;
	const char *rp = stat_after_comm(pid, buf, sizeof(buf), &gone);

	if (gone)
		return 0;
	return rp && rp[1] == ' ' && rp[2] ? rp[2] : '?';
}

pid_t hcb_target_parent(pid_t pid)
{
	char buf[512];
	int gone, ppid = 0;
	const char *rp = stat_after_comm(pid, buf, sizeof(buf), &gone);

	if (!rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
		return 0;
	return ppid;
}

/* 1 if pid's thread group has a thread besides pid, its leader: one
 * listed in /proc/PID/task. */
static int has_other_thread(pid_t pid)
{
	char p[64];
	struct dirent *d;
	int found = 0;
	DIR *dir;

	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	dir = opendir(p);
	if (!dir)
		return 0;
	while (!found && (d = readdir(dir)))
		found = d->d_name[0] != '.' && atoi(d->d_name) != (int)pid;
	closedir(dir);
	return found;
}

static int ended(char st)
{
	return !st || st == 'Z' || st == 'X';
}

/*
 * A leader that has ended is a process gone only when no thread of its
 * group runs on.  A leader shows as ended while its threads run: after its
 * own pthread_exit(), and while another thread exec's, which waits for
 * the leader to end, then takes its place and its pid (the exec is seen
 * only after).  Where no other thread is listed, the state is read again:
 * the thread that exec'd may have taken the pid between the two reads.
 */
int hcb_target_alive(pid_t pid)
{
	if (!ended(hcb_target_state(pid)))
		return 1;
	return has_other_thread(pid) || !ended(hcb_target_state(pid));
}
