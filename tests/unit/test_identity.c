/* SPDX-License-Identifier: MIT */
/*
 * test_identity.c - who a traced process is (issue 36): a launcher's
 * environment (src/process/identity_env.c) of every launcher and of odd
 * and hostile ones, a recording's name from a pattern (src/core/namepat.c),
 * the checks records apply (src/core/procid.c); and, on real processes,
 * /proc/PID/environ read within its bound, the host of a process in a UTS
 * namespace of its own, and the sources weighed with the user's flags
 * (src/process/identity.c).
 */
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/namepat.h"
#include "core/procid.h"
#include "process/identity.h"

/* An environment block from NUL-separated text (sizeof - 1: the last
 * variable keeps its NUL, as /proc/PID/environ ends). */
#define ENV(s) (s), sizeof(s) - 1

static void parse(const char *env, size_t len, struct hcb_ident_env *out)
{
	assert_int_equal(hcb_ident_env_parse(env, len, out), 0);
}

static void expect(const struct hcb_ident_env *e, const char *source, uint32_t index,
		   uint32_t count)
{
	assert_string_equal(e->process.source, source);
	if (source[0]) {
		assert_int_equal(e->process.index, index);
		assert_int_equal(e->process.count, count);
	}
}

static void test_launchers(void **state)
{
	struct hcb_ident_env e;

	(void)state;
	parse(ENV("HOME=/root\0SLURM_PROCID=3\0SLURM_NTASKS=8\0SLURM_JOB_ID=81723\0"), &e);
	expect(&e, "slurm", 3, 8);
	assert_string_equal(e.job, "81723");
	assert_string_equal(e.why, "");
	/* the older name of the count */
	parse(ENV("SLURM_PROCID=0\0SLURM_NPROCS=2\0"), &e);
	expect(&e, "slurm", 0, 2);
	parse(ENV("OMPI_COMM_WORLD_RANK=5\0OMPI_COMM_WORLD_SIZE=6\0"), &e);
	expect(&e, "openmpi", 5, 6);
	parse(ENV("PMI_RANK=1\0PMI_SIZE=4\0"), &e);
	expect(&e, "pmi", 1, 4);
	parse(ENV("RANK=7\0WORLD_SIZE=16\0TORCHELASTIC_RUN_ID=exp-1\0"), &e);
	expect(&e, "torchrun", 7, 16);
	assert_string_equal(e.job, "exp-1");
	/* torch's env:// without torchrun; its run id "none" names nothing */
	parse(ENV("RANK=1\0WORLD_SIZE=2\0TORCHELASTIC_RUN_ID=none\0"), &e);
	expect(&e, "torchrun", 1, 2);
	assert_string_equal(e.job, "");
	parse(ENV("RANK=1\0WORLD_SIZE=2\0"), &e);
	expect(&e, "torch", 1, 2);
	/* RANK alone is too common a name to mean torch's */
	parse(ENV("RANK=1\0"), &e);
	expect(&e, "", 0, 0);
	assert_string_equal(e.why, "");
	/* an Indexed Job: an index, no count */
	parse(ENV("JOB_COMPLETION_INDEX=4\0"), &e);
	expect(&e, "kubernetes", 4, 0);
	/* a JobSet of one Job: its index is the job's; of several, not */
	parse(ENV("JOB_COMPLETION_INDEX=4\0JOB_INDEX=0\0GLOBAL_REPLICAS=1\0"), &e);
	expect(&e, "kubernetes", 4, 0);
	parse(ENV("JOB_COMPLETION_INDEX=4\0JOB_INDEX=1\0GLOBAL_REPLICAS=3\0"), &e);
	expect(&e, "", 0, 0);
	assert_non_null(strstr(e.why, "JobSet"));
	/* nothing of a launcher */
	parse(ENV("PATH=/bin\0HOME=/\0"), &e);
	expect(&e, "", 0, 0);
	assert_string_equal(e.why, "");
	assert_string_equal(e.job, "");
	parse("", 0, &e);
	expect(&e, "", 0, 0);
}

/* The innermost launcher's word: torchrun's inside SLURM's, Open MPI's
 * inside an sbatch script's SLURM_PROCID=0. */
static void test_innermost(void **state)
{
	struct hcb_ident_env e;

	(void)state;
	parse(ENV("SLURM_PROCID=1\0SLURM_NTASKS=2\0SLURM_JOB_ID=9\0RANK=13\0WORLD_SIZE=16\0"), &e);
	expect(&e, "torch", 13, 16);
	assert_string_equal(e.job, "9");
	parse(ENV("SLURM_PROCID=0\0SLURM_NTASKS=1\0OMPI_COMM_WORLD_RANK=3\0OMPI_COMM_WORLD_SIZE=4\0"), &e);
	expect(&e, "openmpi", 3, 4);
	parse(ENV("SLURM_PROCID=2\0SLURM_NTASKS=4\0PMI_RANK=2\0PMI_SIZE=4\0"), &e);
	expect(&e, "pmi", 2, 4);
	parse(ENV("JOB_COMPLETION_INDEX=1\0SLURM_PROCID=2\0SLURM_NTASKS=4\0"), &e);
	expect(&e, "slurm", 2, 4);
}

/* A launcher's variables that do not check out name no process, and say
 * why; nothing further out is taken instead. */
static void test_refused(void **state)
{
	static const struct { const char *env; size_t len; const char *why; } bad[] = {
		{ ENV("SLURM_PROCID=4\0SLURM_NTASKS=4\0"), "SLURM_NTASKS" },
		{ ENV("SLURM_PROCID=-1\0SLURM_NTASKS=4\0"), "SLURM_PROCID" },
		{ ENV("SLURM_PROCID=+1\0SLURM_NTASKS=4\0"), "SLURM_PROCID" },
		{ ENV("SLURM_PROCID=01\0SLURM_NTASKS=4\0"), "SLURM_PROCID" },
		{ ENV("SLURM_PROCID=1 \0SLURM_NTASKS=4\0"), "SLURM_PROCID" },
		{ ENV("SLURM_PROCID=\0SLURM_NTASKS=4\0"), "SLURM_PROCID" },
		{ ENV("SLURM_PROCID=1\0SLURM_NTASKS=99999999999999999999\0"), "SLURM_NTASKS" },
		{ ENV("SLURM_PROCID=1\0SLURM_NTASKS=1048577\0"), "SLURM_NTASKS" },
		{ ENV("SLURM_PROCID=1\0"), "without SLURM_NTASKS" },
		{ ENV("SLURM_PROCID=1\0SLURM_NTASKS=4\0SLURM_PROCID=2\0"), "twice" },
		{ ENV("OMPI_COMM_WORLD_RANK=x\0OMPI_COMM_WORLD_SIZE=2\0SLURM_PROCID=0\0SLURM_NTASKS=2\0"),
		  "OMPI_COMM_WORLD_RANK" },
		{ ENV("RANK=3\0WORLD_SIZE=0\0"), "WORLD_SIZE" },
		{ ENV("JOB_COMPLETION_INDEX=1048576\0"), "JOB_COMPLETION_INDEX" },
	};
	struct hcb_ident_env e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		parse(bad[i].env, bad[i].len, &e);
		if (e.process.source[0] || !strstr(e.why, bad[i].why))
			fail_msg("case %zu: source '%s', why '%s'", i, e.process.source, e.why);
	}
	/* the same value twice is one value */
	parse(ENV("SLURM_PROCID=1\0SLURM_NTASKS=4\0SLURM_PROCID=1\0"), &e);
	expect(&e, "slurm", 1, 4);
	/* the largest index and count taken */
	parse(ENV("SLURM_PROCID=1048575\0SLURM_NTASKS=1048576\0"), &e);
	expect(&e, "slurm", 1048575, 1048576);
	/* a job's name that is none: spaces, controls, too long */
	parse(ENV("SLURM_JOB_ID=a b\0"), &e);
	assert_string_equal(e.job, "");
	parse(ENV("SLURM_JOB_ID=\x1b[31m\0"), &e);
	assert_string_equal(e.job, "");
	parse(ENV("SLURM_JOB_ID=1234567890123456789012345678901234567890123456789012345678901234\0"), &e);
	assert_string_equal(e.job, "");
}

/* Odd blocks: no NUL at the end, empty entries, names without '=',
 * a name that is a prefix of one looked for. */
static void test_odd_blocks(void **state)
{
	static const char block[] = "\0\0=\0SLURM_PROCID\0SLURM_PROCIDX=5\0SLURM_PROCID=2\0"
				    "SLURM_NTASKS=3";
	struct hcb_ident_env e;
	const char *val;
	size_t vlen;

	(void)state;
	parse(block, sizeof(block) - 1, &e);
	expect(&e, "slurm", 2, 3);
	assert_int_equal(hcb_ident_env_get(block, sizeof(block) - 1, "SLURM_NTASKS", &val, &vlen), 0);
	assert_int_equal(vlen, 1);
	assert_memory_equal(val, "3", 1);
	assert_int_equal(hcb_ident_env_get(block, sizeof(block) - 1, "SLURM_PROC", &val, &vlen),
			 -ENOENT);
	assert_int_equal(hcb_ident_env_get(block, sizeof(block) - 1, "", &val, &vlen), -EINVAL);
	assert_int_equal(hcb_ident_env_get(block, sizeof(block) - 1, "A=B", &val, &vlen), -EINVAL);
	assert_int_equal(hcb_ident_env_get(ENV("A=1\0A=2\0"), "A", &val, &vlen), -EINVAL);
	assert_int_equal(hcb_ident_env_get(ENV("A=\0"), "A", &val, &vlen), 0);
	assert_int_equal(vlen, 0);
}

static void test_checks(void **state)
{
	struct hcb_process_id p = { 0 };
	uint32_t v;

	(void)state;
	assert_int_equal(hcb_procid_check(&p), 0);
	p = (struct hcb_process_id){ .index = 1, .count = 2, .source = "slurm" };
	assert_int_equal(hcb_procid_check(&p), 1);
	p.count = 1;
	assert_int_equal(hcb_procid_check(&p), -EINVAL);
	p.count = 0;
	assert_int_equal(hcb_procid_check(&p), 1);
	p.index = HCB_PROCESS_MAX;
	assert_int_equal(hcb_procid_check(&p), -EINVAL);
	p = (struct hcb_process_id){ .index = 0, .count = 1, .source = "a b" };
	assert_int_equal(hcb_procid_check(&p), -EINVAL);
	memset(p.source, 'x', sizeof(p.source));
	assert_int_equal(hcb_procid_check(&p), -EINVAL);
	assert_int_equal(hcb_procid_number("0", 1, 5, &v), 0);
	assert_int_equal(hcb_procid_number("5", 1, 5, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(hcb_procid_number("6", 1, 5, &v), -EINVAL);
	assert_int_equal(hcb_procid_number("1234567890", 10, UINT32_MAX, &v), -EINVAL);
	assert_true(hcb_job_name_ok("81723", 5));
	assert_false(hcb_job_name_ok("", 0));
	assert_false(hcb_job_name_ok("a\tb", 3));
	assert_true(hcb_host_name_ok("node07", 6));
	assert_true(hcb_host_name_ok("n\xc3\xa9ud", 5));
	assert_false(hcb_host_name_ok("a\0b", 3));
	/* no UTF-8: JSON would write three bytes a byte */
	assert_false(hcb_host_name_ok("a\xff" "b", 3));
	assert_false(hcb_host_name_ok("\xc0\x80", 2));
	assert_false(hcb_host_name_ok("\xed\xa0\x80", 3));
	assert_false(hcb_host_name_ok("\xc3", 1));
}

/* The patterns of a recording's name. */
static int fake_env(void *ctx, const char *name, const char **val, size_t *len)
{
	static const char block[] = "OMPI_COMM_WORLD_RANK=3\0SLASH=a/b\0DOTS=..\0CTRL=a\nb\0"
				    "EMPTY=\0LONG=" "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
				    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\0";

	(void)ctx;
	return hcb_ident_env_get(block, sizeof(block) - 1, name, val, len);
}

static int expand(const char *pattern, const char *host, int has_index, char *out, size_t cap,
		  char *why)
{
	struct hcb_namepat_vals v = { .host = host, .pid = 4242, .has_index = has_index,
				      .index = 1, .env = fake_env };

	return hcb_namepat_expand(pattern, &v, out, cap, why, 200);
}

static void test_patterns(void **state)
{
	char out[256], why[200];

	(void)state;
	assert_true(hcb_namepat_has("run/taps-%h-%p.hcbcap"));
	assert_true(hcb_namepat_has("a%%b.jsonl"));
	assert_false(hcb_namepat_has("a%xb.jsonl"));
	assert_false(hcb_namepat_has("plain.jsonl"));
	assert_false(hcb_namepat_has("end%"));
	assert_int_equal(expand("run/taps-%h-%p.hcbcap", "node07", 1, out, sizeof(out), why), 0);
	assert_string_equal(out, "run/taps-node07-4242.hcbcap");
	assert_int_equal(expand("r%r-%q{OMPI_COMM_WORLD_RANK}-%%.jsonl", "n", 1, out, sizeof(out),
				why), 0);
	assert_string_equal(out, "r1-3-%.jsonl");
	/* what is not known falls back, as documented */
	assert_int_equal(expand("%h-%r-[%q{UNSET}][%q{EMPTY}].jsonl", NULL, 0, out, sizeof(out),
				why), 0);
	assert_string_equal(out, "unknown-host-pid4242-[][].jsonl");
	/* the target's values never bring a directory or a control */
	assert_int_equal(expand("x-%q{SLASH}.jsonl", "n", 1, out, sizeof(out), why), -EPERM);
	assert_non_null(strstr(why, "'/'"));
	assert_int_equal(expand("x-%q{CTRL}.jsonl", "n", 1, out, sizeof(out), why), -EPERM);
	assert_int_equal(expand("x-%h.jsonl", "a/b", 1, out, sizeof(out), why), -EPERM);
	assert_int_equal(expand("run/%q{DOTS}/x.jsonl", "n", 1, out, sizeof(out), why), -EPERM);
	assert_int_equal(expand("run/%h/x.jsonl", "..", 1, out, sizeof(out), why), -EPERM);
	assert_int_equal(expand("run/%h%h/x.jsonl", ".", 1, out, sizeof(out), why), -EPERM);
	/* the user's own dots stay theirs */
	assert_int_equal(expand("../%h/x.jsonl", "n", 1, out, sizeof(out), why), 0);
	assert_string_equal(out, "../n/x.jsonl");
	assert_int_equal(expand("run/.%h/x.jsonl", "x", 1, out, sizeof(out), why), 0);
	assert_string_equal(out, "run/.x/x.jsonl");
	/* a dot of theirs that makes "..": refused */
	assert_int_equal(expand("run/.%h/x.jsonl", ".", 1, out, sizeof(out), why), -EPERM);
	/* bounds: a part, the whole */
	assert_int_equal(expand("%q{LONG}.jsonl", "n", 1, out, sizeof(out), why), -ENAMETOOLONG);
	assert_int_equal(expand("%h%h%h%h%h.jsonl", "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn",
				1, out, sizeof(out), why), -ENAMETOOLONG);
	assert_int_equal(expand("%p.jsonl", "n", 1, out, 6, why), -ENAMETOOLONG);
	/* not a pattern */
	assert_int_equal(expand("a%h%x.jsonl", "n", 1, out, sizeof(out), why), -EINVAL);
	assert_int_equal(expand("a%h%", "n", 1, out, sizeof(out), why), -EINVAL);
	assert_int_equal(expand("%q.jsonl", "n", 1, out, sizeof(out), why), -EINVAL);
	assert_int_equal(expand("%q{}.jsonl", "n", 1, out, sizeof(out), why), -EINVAL);
	assert_int_equal(expand("%q{A-B}.jsonl", "n", 1, out, sizeof(out), why), -EINVAL);
	assert_int_equal(expand("%q{1A}.jsonl", "n", 1, out, sizeof(out), why), -EINVAL);
	assert_int_equal(expand("%q{OPEN.jsonl", "n", 1, out, sizeof(out), why), -EINVAL);
}

/* A child that waits with its environment set to env (a NULL-ended
 * list), or in a UTS namespace of its own named host. */
static pid_t child(char *const *env, const char *host, int *fd)
{
	int p[2], q[2];
	pid_t pid;
	char c;

	if (pipe(p) || pipe(q))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		close(q[0]);
		if (host && (unshare(CLONE_NEWUTS) || sethostname(host, strlen(host))))
			_exit(3);
		dup2(p[0], 0);
		dup2(q[1], 1);
		execle("/bin/sh", "sh", "-c", "echo ready; read x", (char *)NULL, env);
		_exit(127);
	}
	close(p[0]);
	close(q[1]);
	*fd = p[1];
	if (read(q[0], &c, 1) != 1) {
		close(q[0]);
		close(p[1]);
		waitpid(pid, NULL, 0);
		return -1;
	}
	close(q[0]);
	return pid;
}

static void stop(pid_t pid, int fd)
{
	close(fd);
	waitpid(pid, NULL, 0);
}

#define BIG_VARS 16            /* of 64 KiB each: a MiB of environment */
#define BIG_VAR (64u << 10)    /* under the kernel's 128 KiB a string */

static void test_real_environ(void **state)
{
	char *env[BIG_VARS + 5] = { "PATH=/bin:/usr/bin" };
	char *huge = malloc(BIG_VARS * (BIG_VAR + 16)), *buf;
	struct hcb_ident_env e;
	struct hcb_identity id;
	size_t len;
	int fd;
	pid_t pid;

	(void)state;
	assert_non_null(huge);
	/* a MiB of variables before the launcher's: read whole all the same */
	for (int i = 0; i < BIG_VARS; i++) {
		char *v = huge + (size_t)i * (BIG_VAR + 16);
		int n = snprintf(v, 16, "BIG%d=", i);

		memset(v + n, 'x', BIG_VAR);
		v[n + BIG_VAR] = '\0';
		env[1 + i] = v;
	}
	env[BIG_VARS + 1] = "SLURM_PROCID=2";
	env[BIG_VARS + 2] = "SLURM_NTASKS=4";
	env[BIG_VARS + 3] = "SLURM_JOB_ID=99";
	pid = child(env, NULL, &fd);
	assert_true(pid > 0);
	assert_int_equal(hcb_ident_environ(pid, &buf, &len), 0);
	assert_true(len > BIG_VARS * BIG_VAR && len < HCB_ENVIRON_MAX);
	parse(buf, len, &e);
	free(buf);
	expect(&e, "slurm", 2, 4);
	assert_int_equal(hcb_ident_read(pid, NULL, &id), 0);
	assert_string_equal(id.process.source, "slurm");
	assert_string_equal(id.job, "99");
	assert_true(id.host[0] != '\0');
	/* the flags: taken only where nothing better knows; said otherwise */
	assert_int_equal(hcb_ident_read(pid, &(struct hcb_ident_flags){ .has_index = 1, .index = 3,
								       .count = 4, .job = "mine" },
					&id), 0);
	assert_int_equal(id.process.index, 2);
	assert_string_equal(id.job, "99");
	assert_non_null(strstr(id.why, "--process-index 3 of 4 differs from what slurm says (2 of 4)"));
	assert_non_null(strstr(id.why, "--job mine"));
	stop(pid, fd);

	/* nothing of a launcher: the flags are the word */
	env[1] = NULL;
	free(huge);
	pid = child(env, NULL, &fd);
	assert_true(pid > 0);
	assert_int_equal(hcb_ident_read(pid, &(struct hcb_ident_flags){ .has_index = 1, .index = 3,
								       .count = 4, .job = "mine" },
					&id), 0);
	assert_string_equal(id.process.source, "flag");
	assert_int_equal(id.process.index, 3);
	assert_int_equal(id.process.count, 4);
	assert_string_equal(id.job, "mine");
	assert_string_equal(id.why, "");
	stop(pid, fd);

	/* an index without a count: the flag's count fills it */
	env[1] = "JOB_COMPLETION_INDEX=5";
	env[2] = NULL;
	pid = child(env, NULL, &fd);
	assert_true(pid > 0);
	assert_int_equal(hcb_ident_read(pid, &(struct hcb_ident_flags){ .count = 8 }, &id), 0);
	assert_string_equal(id.process.source, "kubernetes");
	assert_int_equal(id.process.index, 5);
	assert_int_equal(id.process.count, 8);
	assert_int_equal(hcb_ident_read(pid, &(struct hcb_ident_flags){ .count = 5 }, &id), 0);
	assert_int_equal(id.process.count, 0);
	assert_non_null(strstr(id.why, "--process-count 5 is not above"));
	stop(pid, fd);
	assert_int_equal(hcb_ident_read(pid, NULL, &id), -ESRCH);
}

/* A process in a UTS namespace of its own: its host is read in there. */
static void test_host_namespace(void **state)
{
	char *env[] = { "PATH=/bin:/usr/bin", NULL };
	struct utsname u;
	char host[HCB_HOST_MAX + 1];
	int fd;
	pid_t pid;

	(void)state;
	assert_int_equal(uname(&u), 0);
	pid = child(env, NULL, &fd);
	assert_true(pid > 0);
	assert_int_equal(hcb_ident_host(pid, host, sizeof(host)), 0);
	assert_string_equal(host, u.nodename);
	stop(pid, fd);
	pid = child(env, "hcb-uts-test", &fd);
	if (pid < 0)
		skip();   /* no right to make a namespace here */
	assert_int_equal(hcb_ident_host(pid, host, sizeof(host)), 0);
	assert_string_equal(host, "hcb-uts-test");
	/* and hcbtrace's own is where it was */
	assert_int_equal(uname(&u), 0);
	assert_string_not_equal(u.nodename, "hcb-uts-test");
	stop(pid, fd);
	/* a name that is no text: not known */
	pid = child(env, "bad\xff", &fd);
	assert_true(pid > 0);
	assert_int_equal(hcb_ident_host(pid, host, sizeof(host)), -EINVAL);
	assert_string_equal(host, "");
	stop(pid, fd);
	assert_int_equal(hcb_ident_host(pid, host, sizeof(host)), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launchers),
		cmocka_unit_test(test_innermost),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_odd_blocks),
		cmocka_unit_test(test_checks),
		cmocka_unit_test(test_patterns),
		cmocka_unit_test(test_real_environ),
		cmocka_unit_test(test_host_namespace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
