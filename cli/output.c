/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/namepat.h"
#include "process/identity.h"
#include "cli.h"
#include "output.h"

/* The temporary name beside path: ".NAME.hcbtrace-PID.tmp" in its directory. */
static char *tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	char *tmp;

	if (asprintf(&tmp, "%.*s.%s.hcbtrace-%d.tmp", dir, path, path + dir, (int)getpid()) < 0)
		return NULL;
	return tmp;
}

static unsigned int patterns_opened;

/* A pattern's temporary name, in its directory before the first pattern:
 * ".hcbtrace-PID-N.tmp" there (the name is not known yet). */
static int open_pattern(struct cli_output *o, const char *path, enum hcb_file_format f,
			struct hcb_writer **w)
{
	const char *pct = strchr(path, '%'), *slash = path;
	int dir = 0, err;

	for (const char *p = path; p < pct; p++)
		if (*p == '/')
			slash = p + 1;
	dir = (int)(slash - path);
	o->pattern = strdup(path);
	/* numbered: one hcbtrace may write one recording a process
	 * (trace_many.h), each beside the others until named */
	if (!o->pattern || asprintf(&o->tmp, "%.*s.hcbtrace-%d-%u.tmp", dir, path, (int)getpid(),
				    ++patterns_opened) < 0) {
		o->tmp = NULL;
		cli_output_done(o);
		return -ENOMEM;
	}
	unlink(o->tmp);
	err = hcb_writer_open(w, o->tmp, f);
	if (err) {
		free(o->tmp);
		o->tmp = NULL;
		cli_output_done(o);
	}
	return err;
}

int cli_output_open(struct cli_output *o, const char *path, enum hcb_file_format f,
		    struct hcb_writer **w)
{
	struct stat st, lst;
	int err;

	*o = (struct cli_output){ 0 };
	if (f == HCB_FMT_UNKNOWN)
		f = hcb_file_format_of(path);
	if (f == HCB_FMT_UNKNOWN)
		return -EPROTONOSUPPORT;
	if (hcb_namepat_has(path))
		return open_pattern(o, path, f, w);
	/* a FIFO, a terminal, a pipe: written as it is, streaming */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return hcb_writer_open(w, path, f);
	/* through a symlink, the file it names is replaced, not the link (a
	 * dangling one: ENOENT, as its directory may not exist) */
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
		o->path = realpath(path, NULL);
	else
		o->path = strdup(path);
	err = o->path ? 0 : errno == ENOMEM ? -ENOMEM : -errno;
	o->tmp = o->path ? tmp_name(o->path) : NULL;
	if (!o->tmp) {
		cli_output_done(o);
		return err ? err : -ENOMEM;
	}
	unlink(o->tmp);
	err = hcb_writer_open(w, o->tmp, f);
	if (err) {
		free(o->tmp);
		o->tmp = NULL;   /* nothing to remove */
		cli_output_done(o);
	}
	return err;
}

/* The target's environment, read once, for %q{VAR}. */
struct env_of {
	int pid;
	char *buf;
	size_t len;
	int err, read;
};

static int env_get(void *ctx, const char *name, const char **val, size_t *len)
{
	struct env_of *e = ctx;

	if (!e->read) {
		e->read = 1;
		e->err = hcb_ident_environ(e->pid, &e->buf, &e->len);
	}
	return e->err ? e->err : hcb_ident_env_get(e->buf, e->len, name, val, len);
}

int cli_output_name(struct cli_output *o, int pid, const struct hcb_identity *id, char *why,
		    size_t wcap)
{
	struct env_of env = { .pid = pid };
	struct hcb_namepat_vals v = { .host = id->host, .pid = pid, .env = env_get, .ctx = &env,
				      .has_index = id->process.source[0] != '\0',
				      .index = id->process.index };
	char name[PATH_MAX];
	struct stat st;
	int err;

	if (!o->pattern)
		return 0;
	err = hcb_namepat_expand(o->pattern, &v, name, sizeof(name), why, wcap);
	free(env.buf);
	if (err)
		return err;
	/* through a symlink, the file it names; anything else but a file is
	 * not replaced */
	if (lstat(name, &st) == 0 && S_ISLNK(st.st_mode))
		o->path = realpath(name, NULL);
	else if (stat(name, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(why, wcap, "'%s' is there and is not a file", name);
		return -EEXIST;
	} else {
		o->path = strdup(name);
	}
	return o->path ? 0 : -errno;
}

int cli_output_name_said(struct cli_output *o, const char *given, int pid,
			 const struct hcb_identity *id)
{
	char why[256] = "";
	int err = cli_output_name(o, pid, id, why, sizeof(why));

	if (!err)
		return EXIT_OK;
	cli_err("cannot name the recording '%s' for process %d: %s", cli_vis(given), pid,
		why[0] ? cli_vis(why) : strerror(-err));
	return err == -ENOMEM || err == -EIO ? EXIT_FAIL : EXIT_USAGE;
}

int cli_output_place(struct cli_output *o)
{
	if (!o->tmp)
		return 0;
	if (!o->path)
		return -EINVAL;   /* a pattern not named yet */
	if (rename(o->tmp, o->path))
		return -errno;
	free(o->tmp);
	o->tmp = NULL;
	return 0;
}

void cli_output_done(struct cli_output *o)
{
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->path);
	free(o->pattern);
	*o = (struct cli_output){ 0 };
}

int cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
