/* SPDX-License-Identifier: MIT */
/*
 * testpyproc.h - a real Python process for the CPython readers' tests: the
 * interpreter runs a script that prints one line (ids of its objects) and
 * then waits on stdin until the test closes it.  No sleep: the test waits
 * for the line, which the child writes only once its objects exist.
 */
#ifndef HCB_TESTPYPROC_H
#define HCB_TESTPYPROC_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

struct pyproc {
	pid_t pid;
	int in_fd;          /* the child's stdin: closed to end it */
	char line[16384];   /* what it printed */
};

/* The pythons of the machine the tests know (pyenv's and Debian's). */
static const char *const test_pythons[] = {
	"/root/.pyenv/versions/3.10.13/bin/python3.10",
	"/root/.pyenv/versions/3.11.7/bin/python3.11",
	"/root/.pyenv/versions/3.12.1/bin/python3.12",
	"/root/.pyenv/versions/3.13.0/bin/python3.13",
	"/usr/bin/python3.11",
};

/* Start python on script (-c, without site; or a file, with the venv's
 * site, where file is set); 0 and p filled once its line is read,
 * -ENOENT if that python is not on this machine, -EIO if it printed
 * nothing. */
static inline int pyproc_run(struct pyproc *p, const char *python, const char *script, int file)
{
	int in[2], out[2];
	size_t n = 0;
	FILE *f;

	if (access(python, X_OK))
		return -ENOENT;
	if (pipe(in) || pipe(out))
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (file)
			execl(python, python, script, (char *)NULL);
		else
			execl(python, python, "-S", "-c", script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->in_fd = in[1];
	f = fdopen(out[0], "r");
	if (f && fgets(p->line, sizeof(p->line), f))
		n = strlen(p->line);
	if (f)
		fclose(f);
	return n ? 0 : -EIO;
}

static inline int pyproc_start(struct pyproc *p, const char *python, const char *script)
{
	return pyproc_run(p, python, script, 0);
}

/* The jax venvs the tests run sites.py in: the environment's, else the
 * build's own (HCB_BUILD_ROOT). */
static const struct { const char *env, *dir; } test_venvs[] = {
	{ "HCB_VENV_JAX12", "venv-jax12" },
	{ "HCB_VENV_JAX", "venv-jax10" },
	{ "HCB_VENV_JAX6", "venv-jax6-py310" },
	{ "HCB_VENV_JAX12_PY313", "venv-jax12-py313" },
};

/* test_venvs[i]'s python into out, or "" where there is none */
static inline void test_venv_python(size_t i, char *out, size_t cap)
{
	const char *v = getenv(test_venvs[i].env), *build = getenv("HCB_BUILD_ROOT");
	char dir[4096];

	if (v && *v)
		snprintf(dir, sizeof(dir), "%s", v);
	else if (build)
		snprintf(dir, sizeof(dir), "%s/%s", build, test_venvs[i].dir);
	else
		dir[0] = '\0';
	snprintf(out, cap, "%s/bin/python", dir);
	if (!dir[0] || access(out, X_OK))
		out[0] = '\0';
}

static inline void pyproc_stop(struct pyproc *p)
{
	int st;

	close(p->in_fd);
	if (waitpid(p->pid, &st, 0) < 0)
		kill(p->pid, SIGKILL);
}

#endif
