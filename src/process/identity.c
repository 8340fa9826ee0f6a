/* SPDX-License-Identifier: MIT */
/*
 * identity.c - who a traced process is (identity.h): its host, its
 * environment read within a bound, and the sources weighed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/procid.h"
#include "identity.h"
#include "pydist.h"

int hcb_ident_environ(pid_t pid, char **env, size_t *len)
{
	char path[64], *buf = NULL;
	size_t got = 0, cap = 0;
	int fd, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* one byte past the bound says there was more */
	while (got < HCB_ENVIRON_MAX + 1) {
		ssize_t n;

		if (got == cap) {
			size_t ncap = cap ? cap * 2 : 16384;
			char *nb;

			if (ncap > HCB_ENVIRON_MAX + 1)
				ncap = HCB_ENVIRON_MAX + 1;
			nb = realloc(buf, ncap);
			if (!nb) {
				err = -ENOMEM;
				break;
			}
			buf = nb;
			cap = ncap;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno == ESRCH ? -ESRCH : -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (err) {
		free(buf);
		return err;
	}
	/* past the bound: whole variables only, the one cut dropped */
	if (got > HCB_ENVIRON_MAX) {
		char *last = memrchr(buf, '\0', HCB_ENVIRON_MAX);

		got = last ? (size_t)(last - buf) + 1 : 0;
	}
	*env = buf;
	*len = got;
	return 0;
}

/* 1 if pid is in our UTS namespace, 0 if not, -errno. */
static int same_uts(pid_t pid)
{
	char path[64];
	struct stat ours, theirs;

	snprintf(path, sizeof(path), "/proc/%d/ns/uts", (int)pid);
	if (stat(path, &theirs))
		return errno == ENOENT ? -ESRCH : -errno;
	if (stat("/proc/self/ns/uts", &ours))
		return -errno;
	return ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
}

struct ns_read {
	int fd;
	int err;
	struct utsname u;
};

/* A thread of its own enters the namespace (namespaces are a task's: the
 * rest of hcbtrace stays where it is) and ends there. */
static void *read_in_ns(void *arg)
{
	struct ns_read *n = arg;

	if (setns(n->fd, CLONE_NEWUTS))
		n->err = -errno;
	else if (uname(&n->u))
		n->err = -errno;
	return NULL;
}

int hcb_ident_host(pid_t pid, char *host, size_t cap)
{
	struct ns_read n = { .fd = -1 };
	char path[64];
	pthread_t t;
	int same = same_uts(pid), err;

	host[0] = '\0';
	if (same < 0)
		return same;
	if (same) {
		if (uname(&n.u))
			return -errno;
	} else {
		snprintf(path, sizeof(path), "/proc/%d/ns/uts", (int)pid);
		n.fd = open(path, O_RDONLY | O_CLOEXEC);
		if (n.fd < 0)
			return errno == ENOENT ? -ESRCH : -errno;
		err = pthread_create(&t, NULL, read_in_ns, &n);
		if (!err)
			pthread_join(t, NULL);
		close(n.fd);
		if (err)
			return -err;
		if (n.err)
			return n.err;
	}
	n.u.nodename[sizeof(n.u.nodename) - 1] = '\0';
	if (!hcb_host_name_ok(n.u.nodename, strlen(n.u.nodename)) || strlen(n.u.nodename) >= cap)
		return -EINVAL;
	snprintf(host, cap, "%s", n.u.nodename);
	return 0;
}

/* Add one sentence to what id->why says. */
static void __attribute__((format(printf, 2, 3))) tell(struct hcb_identity *id, const char *fmt, ...)
{
	size_t n = strlen(id->why);
	va_list ap;

	if (n && n + 2 < sizeof(id->why)) {
		memcpy(id->why + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(id->why + n, sizeof(id->why) - n, fmt, ap);
	va_end(ap);
}

/* "1 of 4", "3" (no count) */
static const char *place(const struct hcb_process_id *p, char *buf, size_t cap)
{
	if (p->count)
		snprintf(buf, cap, "%u of %u", p->index, p->count);
	else
		snprintf(buf, cap, "%u", p->index);
	return buf;
}

/* jax's word over what id had: said where they differ. */
static void take_jax(struct hcb_identity *id, const struct hcb_process_id *jax)
{
	char a[32], b[32];

	if (id->process.source[0] &&
	    (id->process.index != jax->index || (id->process.count && id->process.count != jax->count)))
		tell(id, "jax says process %s, the %s environment %s: jax's is recorded",
		     place(jax, a, sizeof(a)), id->process.source, place(&id->process, b, sizeof(b)));
	id->process = *jax;
}

/* The flags fill what no better source knows. */
static void take_flags(struct hcb_identity *id, const struct hcb_ident_flags *f)
{
	struct hcb_process_id said = { .index = f->index, .count = f->count, .source = "flag" };
	char a[32], b[32];

	if (f->has_index && !id->process.source[0]) {
		id->process = said;
	} else if (f->has_index && (f->index != id->process.index ||
				    (f->count && id->process.count && f->count != id->process.count))) {
		tell(id, "--process-index %s differs from what %s says (%s): %s's is recorded",
		     place(&said, a, sizeof(a)), id->process.source, place(&id->process, b, sizeof(b)),
		     id->process.source);
	} else if (f->count && id->process.source[0] && !id->process.count) {
		if (id->process.index < f->count)
			id->process.count = f->count;
		else
			tell(id, "--process-count %u is not above the process index %u %s gives",
			     f->count, id->process.index, id->process.source);
	} else if (f->count && !id->process.source[0]) {
		tell(id, "--process-count without a process index: give --process-index too");
	}
	if (f->job && !id->job[0])
		snprintf(id->job, sizeof(id->job), "%s", f->job);
	else if (f->job && strcmp(f->job, id->job))
		tell(id, "--job %s differs from the job the launcher names (%s): %s is recorded",
		     f->job, id->job, id->job);
}

int hcb_ident_read(pid_t pid, const struct hcb_ident_flags *flags, struct hcb_identity *id)
{
	struct hcb_ident_env env;
	struct hcb_process_id jax;
	char *buf = NULL, why[256];
	size_t len = 0;
	int err;

	memset(id, 0, sizeof(*id));
	err = hcb_ident_host(pid, id->host, sizeof(id->host));
	if (err == -ESRCH)
		return err;
	if (err == -EINVAL)
		tell(id, "its host's name is not text (UTF-8): not recorded");
	err = hcb_ident_environ(pid, &buf, &len);
	if (err == -ESRCH)
		return err;
	if (!err) {
		hcb_ident_env_parse(buf, len, &env);
		free(buf);
		id->process = env.process;
		memcpy(id->job, env.job, sizeof(id->job));
		if (env.why[0])
			tell(id, "%s", env.why);
	}
	err = hcb_pydist_read(pid, &jax, why, sizeof(why));
	if (!err)
		take_jax(id, &jax);
	else if (err == -EPROTO)
		tell(id, "%s", why);
	else if (err == -ESRCH)
		return err;
	if (flags)
		take_flags(id, flags);
	return 0;
}

int hcb_ident_recheck_jax(pid_t pid, struct hcb_identity *id)
{
	struct hcb_process_id jax, had = id->process;
	char why[256];

	if (!strcmp(id->process.source, "jax") || hcb_pydist_read(pid, &jax, why, sizeof(why)))
		return 0;
	id->why[0] = '\0';
	take_jax(id, &jax);
	return had.index != jax.index || had.count != jax.count || strcmp(had.source, jax.source);
}
