/* SPDX-License-Identifier: MIT */
/*
 * convert_parquet.c - hcbtrace convert FILE|DIR... -o OUT.parquet (or
 * -o OUTDIR/, a dataset partitioned by host and process): Debian packages
 * no Parquet writer for C, PyPI has the reference one (pyarrow), so the
 * writer is the Python reader's (python/hcbtap/recording/_parquet.py) and
 * this runs it: HCB_PYTHON, else the python3 on PATH, with this
 * hcbtrace's python/ first on PYTHONPATH; installed from the wheel
 * (scripts/wheel), the reader is the venv's own package hcbtrace.recording
 * and its python3 the one beside hcbtrace.  That program says what went
 * wrong in hcbtrace's words and exits with hcbtrace's codes
 * (formats/PARQUET.md); a python3 that is not there is said here.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convert_parquet.h"

int convert_parquet_wanted(const char *out)
{
	size_t n = strlen(out);
	struct stat st;

	if (n > 8 && !strcmp(out + n - 8, ".parquet"))
		return 1;
	return (n && out[n - 1] == '/') || (!stat(out, &st) && S_ISDIR(st.st_mode));
}

/* python/ of the tree this hcbtrace was built in, where it runs from
 * there; else the one installed beside it (meson installs python/hcbtap
 * under DATADIR/hcbtrace/python). */
static const char *python_dir(void)
{
	static char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t b = strlen(HCB_BUILD_ROOT);

	exe[n > 0 ? n : 0] = '\0';
	if (!strncmp(exe, HCB_BUILD_ROOT, b) && exe[b] == '/' && !access(HCB_SRC_PYDIR, R_OK))
		return HCB_SRC_PYDIR;
	return HCB_PYDIR;
}

static int set_pythonpath(void)
{
	const char *dir = python_dir(), *old = getenv("PYTHONPATH");
	char *path;
	int err;

	if (!old || !*old)
		return setenv("PYTHONPATH", dir, 1) ? -errno : 0;
	if (asprintf(&path, "%s:%s", dir, old) < 0)
		return -ENOMEM;
	err = setenv("PYTHONPATH", path, 1) ? -errno : 0;
	free(path);
	return err;
}

static int wait_python(pid_t pid, const char *python)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return EXIT_FAIL;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
		cli_err("converting to Parquet needs python3 with pyarrow: cannot run '%s' (set "
			"HCB_PYTHON to a python3 that has pyarrow: pip install 'hcbtap[parquet]')",
			python);
		return EXIT_SYSTEM;
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	cli_err("the Parquet writer (%s) ended by signal %d", python, WTERMSIG(status));
	return EXIT_FAIL;
}

/* The wheel's layout: hcbtrace in a venv's bin/, beside its python3, and
 * the reader its package hcbtrace.recording.  1 with python (HCB_PYTHON, or
 * that python3) set, 0 where hcbtrace is not so installed. */
static int wheel_python(const char **python)
{
	static char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return 0;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash || (size_t)(slash - exe) + sizeof("/python3") > sizeof(exe))
		return 0;
	strcpy(slash, "/python3");
	if (access(exe, X_OK))
		return 0;
	if (!*python || !**python)
		*python = exe;
	return 1;
}

/* Which python runs which module, PYTHONPATH set where needed; an exit
 * code after saying why, or 0. */
static int writer_of(const char **python, const char **module)
{
	int err;

	*python = getenv("HCB_PYTHON");
	if (access(python_dir(), R_OK)) {
		if (wheel_python(python)) {
			*module = "hcbtrace.recording.parquet";
			return 0;
		}
		cli_err("the Parquet writer, hcbtrace's Python package, is not at %s: reinstall hcbtrace "
			"(meson install puts it there, or pip install the wheel)", python_dir());
		return EXIT_SYSTEM;
	}
	if (!*python || !**python)
		*python = "python3";
	*module = "hcbtap.recording.parquet";
	err = set_pythonpath();
	if (err) {
		cli_err("cannot run the Parquet writer: %s", strerror(-err));
		return EXIT_FAIL;
	}
	return 0;
}

int convert_parquet(const struct cli_cmd *cmd, int n, char **ins, const char *out,
		    const struct hcb_filter *filter)
{
	const char *python, *module;
	char **argv;
	pid_t pid;
	int code;

	if (n < 1)
		return cli_usage_err(cmd, "which recordings? hcbtrace convert FILE|DIR... -o OUT.parquet");
	if (filter->device_filter || filter->nconsumers)
		return cli_usage_err(cmd, "--device and --consumer do not apply to Parquet: convert "
				     "every tap, and say WHERE device = N in the query");
	code = writer_of(&python, &module);
	if (code)
		return code;
	argv = calloc(n + 7, sizeof(*argv));
	if (!argv)
		return EXIT_FAIL;
	argv[0] = (char *)python;
	argv[1] = "-m";
	argv[2] = (char *)module;
	argv[3] = "-o";
	argv[4] = (char *)out;
	argv[5] = "--";
	memcpy(argv + 6, ins, n * sizeof(*argv));
	pid = fork();
	if (pid == 0) {
		execvp(python, argv);
		_exit(127);
	}
	free(argv);
	if (pid < 0) {
		cli_err("cannot run the Parquet writer: %s", strerror(errno));
		return EXIT_FAIL;
	}
	return wait_python(pid, python);
}
