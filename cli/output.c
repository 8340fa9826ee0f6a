/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int cli_output_place(struct cli_output *o)
{
	if (!o->tmp)
		return 0;
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
	*o = (struct cli_output){ 0 };
}

int cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
