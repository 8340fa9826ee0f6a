/* SPDX-License-Identifier: MIT */
/*
 * convert_parquet.c - hcbtrace convert FILE|DIR... -o OUT.parquet (or
 * -o OUTDIR/, a dataset partitioned by host and process): Debian packages
 * no Parquet writer for C, PyPI has the reference one (pyarrow), so the
 * writer is the Python reader's (python/hcbtap/recording/_parquet.py) and
 * this runs it: HCB_PYTHON, else the python3 on PATH, with this
 * hcbtrace's python/ first on PYTHONPATH.  That program says what went
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

int convert_parquet(const struct cli_cmd *cmd, int n, char **ins, const char *out,
		    const struct hcb_filter *filter)
{
	const char *python = getenv("HCB_PYTHON");
	char **argv;
	pid_t pid;
	int err;

	if (n < 1)
		return cli_usage_err(cmd, "which recordings? hcbtrace convert FILE|DIR... -o OUT.parquet");
	if (filter->device_filter || filter->nconsumers)
		return cli_usage_err(cmd, "--device and --consumer do not apply to Parquet: convert "
				     "every tap, and say WHERE device = N in the query");
	if (!python || !*python)
		python = "python3";
	if (access(python_dir(), R_OK)) {
		cli_err("the Parquet writer, hcbtrace's Python package, is not at %s: reinstall hcbtrace "
			"(meson install puts it there)", python_dir());
		return EXIT_SYSTEM;
	}
	argv = calloc(n + 7, sizeof(*argv));
	if (!argv)
		return EXIT_FAIL;
	argv[0] = (char *)python;
	argv[1] = "-m";
	argv[2] = "hcbtap.recording.parquet";
	argv[3] = "-o";
	argv[4] = (char *)out;
	argv[5] = "--";
	memcpy(argv + 6, ins, n * sizeof(*argv));
	err = set_pythonpath();
	pid = err ? -1 : fork();
	if (pid == 0) {
		execvp(python, argv);
		_exit(127);
	}
	free(argv);
	if (pid < 0) {
		cli_err("cannot run the Parquet writer: %s", strerror(err ? -err : errno));
		return EXIT_FAIL;
	}
	return wait_python(pid, python);
}
