/* SPDX-License-Identifier: MIT */
/*
 * test_trust.c - what a target names is never trusted (issue 25): text
 * made visible before it reaches a terminal (hcb_buf_put_visible), a line
 * of /proc/PID/maps parsed whatever it holds, a file a target names opened
 * without blocking and only if it is a regular file, and a run directory
 * that others may write to refused.
 */
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/openfile.h"
#include "core/buf.h"
#include "process/target.h"
#include "session/session.h"

static char tmpdir[] = "/tmp/test_trust.XXXXXX";
#include "testtmp.h"

static void expect_shown(const char *in, size_t n, const char *shown)
{
	struct hcb_buf b = HCB_BUF_INIT;

	assert_int_equal(hcb_buf_put_visible(&b, in, n), 0);
	assert_string_equal(hcb_buf_str(&b), shown);
	assert_int_equal(b.len, strlen(shown));
	hcb_buf_free(&b);
}

/* a literal, its NULs and all */
#define EXPECT_SHOWN(lit, shown) expect_shown(lit, sizeof(lit) - 1, shown)

static void test_visible(void **state)
{
	(void)state;
	/* printable text, ASCII and UTF-8, is kept as it is, backslashes too */
	EXPECT_SHOWN("what: x,x^2 \\n", "what: x,x^2 \\n");
	EXPECT_SHOWN("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	EXPECT_SHOWN("\xc2\xa0", "\xc2\xa0");   /* U+00A0, the first past the C1 controls */
	EXPECT_SHOWN("", "");
	/* C0 controls, DEL */
	EXPECT_SHOWN("a\nb\rc\td\x1b]0;t\x07\x7f", "a\\nb\\rc\\td\\x1b]0;t\\x07\\x7f");
	EXPECT_SHOWN("nul\0x", "nul\\x00x");
	/* C1 controls as UTF-8, and bytes of no UTF-8: each byte shown */
	EXPECT_SHOWN("\xc2\x9b" "2J", "\\xc2\\x9b2J");
	EXPECT_SHOWN("\x9b\xff\xc0\xaf", "\\x9b\\xff\\xc0\\xaf");          /* stray, overlong */
	EXPECT_SHOWN("\xed\xa0\x80", "\\xed\\xa0\\x80");                   /* a surrogate */
	EXPECT_SHOWN("\xe2\x82", "\\xe2\\x82");                            /* cut short */
	EXPECT_SHOWN("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");          /* past U+10FFFF */
}

static void test_maps_line(void **state)
{
	struct hcb_maps_line m;

	(void)state;
	assert_int_equal(hcb_maps_parse_line("7f0000001000-7f0000002000 r-xp 00001000 08:01 1234567    "
					      "/usr/lib/libhcbtap.so.0 (deleted)\n", &m), 0);
	assert_true(m.start == 0x7f0000001000ull && m.end == 0x7f0000002000ull && m.off == 0x1000);
	assert_int_equal(m.dev_major, 8);
	assert_int_equal(m.dev_minor, 1);
	assert_true(m.ino == 1234567);
	assert_string_equal(m.path, "/usr/lib/libhcbtap.so.0 (deleted)");
	/* the kernel shows a newline in a path as \012 */
	assert_int_equal(hcb_maps_parse_line("1000-2000 r--p 00000000 fd:02 7 /tmp/a\\012b.so\n", &m), 0);
	assert_string_equal(m.path, "/tmp/a\nb.so");
	assert_int_equal(m.dev_major, 0xfd);
	/* anonymous */
	assert_int_equal(hcb_maps_parse_line("1000-2000 rw-p 00000000 00:00 0\n", &m), 0);
	assert_string_equal(m.path, "");
	/* not a maps line */
	assert_int_equal(hcb_maps_parse_line("", &m), -EINVAL);
	assert_int_equal(hcb_maps_parse_line("2000-1000 r--p 0 0:0 0 /x\n", &m), -EINVAL);
	assert_int_equal(hcb_maps_parse_line("zz-1000 r--p 0 0:0 0 /x\n", &m), -EINVAL);
}

static void test_open_file(void **state)
{
	const char *fifo = tmp_path("fifo"), *reg = tmp_path("reg");
	int fd;

	(void)state;
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* a FIFO with no writer would block a plain open for ever */
	assert_int_equal(hcb_open_regular(fifo), -ESTALE);
	assert_int_equal(hcb_open_regular("/dev/null"), -ESTALE);
	assert_int_equal(hcb_open_regular(tmpdir), -ESTALE);
	assert_int_equal(hcb_open_regular(tmp_path("none")), -ENOENT);
	fd = open(reg, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0 && write(fd, "x", 1) == 1);
	close(fd);
	fd = hcb_open_regular(reg);
	assert_true(fd >= 0);
	/* blocking again, as any file read */
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
	close(fd);
	unlink(fifo);
	unlink(reg);
}

static void test_rundir_trust(void **state)
{
	struct hcb_sess_peer *peers;
	struct hcb_sess *s;
	size_t n;

	(void)state;
	/* writable by others: refused */
	assert_int_equal(mkdir(tmp_path("shared"), 0700), 0);
	assert_int_equal(chmod(tmp_path("shared"), 01777), 0);
	setenv("HCBTRACE_RUNDIR", tmp_path("shared"), 1);
	assert_int_equal(hcb_sess_open(&s, 1, "t", "o"), -EPERM);
	assert_int_equal(hcb_sess_list(1, &peers, &n), -EPERM);
	/* a symlink to a good one: refused, it is not followed */
	assert_int_equal(mkdir(tmp_path("good"), 0700), 0);
	assert_int_equal(symlink(tmp_path("good"), tmp_path("link")), 0);
	setenv("HCBTRACE_RUNDIR", tmp_path("link"), 1);
	assert_int_equal(hcb_sess_open(&s, 1, "t", "o"), -EPERM);
	/* this user's, writable by nobody else: taken; a missing one is made */
	setenv("HCBTRACE_RUNDIR", tmp_path("made"), 1);
	assert_int_equal(hcb_sess_open(&s, 1, "t", "o"), 0);
	assert_int_equal(hcb_sess_list(1, &peers, &n), 0);
	assert_int_equal(n, 1);
	hcb_sess_peers_free(peers, n);
	hcb_sess_close(s);
	assert_int_equal(hcb_sess_list(1, &peers, &n), 0);
	assert_int_equal(n, 0);
	unsetenv("HCBTRACE_RUNDIR");
}

/* /proc/PID/stat read past a command name of any bytes: the parent and
 * the state of a live process, nothing of one gone. */
static void test_stat_line(void **state)
{
	pid_t child;
	int status;

	(void)state;
	assert_int_equal(hcb_target_parent(getpid()), getppid());
	assert_int_equal(hcb_target_state(getpid()), 'R');
	child = fork();
	if (child == 0) {
		/* a name that closes a parenthesis and holds a space */
		prctl(PR_SET_NAME, "a) b (c) 9", 0, 0, 0);
		pause();
		_exit(0);
	}
	assert_true(child > 0);
	/* until the child's name is set (at most 5 s): then its parent must
	 * still be read right past it */
	for (int i = 0; i < 5000; i++) {
		char p[64], name[32] = "";
		FILE *f;

		snprintf(p, sizeof(p), "/proc/%d/comm", (int)child);
		f = fopen(p, "r");
		if (f && fgets(name, sizeof(name), f) && !strncmp(name, "a) b (c) 9", 10)) {
			fclose(f);
			break;
		}
		if (f)
			fclose(f);
		usleep(1000);
	}
	assert_int_equal(hcb_target_parent(child), getpid());
	assert_true(hcb_target_state(child) == 'S' || hcb_target_state(child) == 'R');
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(hcb_target_parent(child), 0);
	assert_int_equal(hcb_target_state(child), 0);
}

/* wait_state PID ST: until pid shows state st (at most 5 s); 1 if it did */
static int wait_state(pid_t pid, char st)
{
	for (int i = 0; i < 5000; i++) {
		if (hcb_target_state(pid) == st)
			return 1;
		usleep(1000);
	}
	return 0;
}

static void *read_then_end(void *arg)
{
	char c;

	return (void *)(long)read(*(int *)arg, &c, 1);
}

/* A leader that ended before its thread (as one does while another thread
 * exec's) shows as a zombie: the process is alive until its last thread
 * ends, and gone then, though its parent has not reaped it. */
static void test_zombie_leader(void **state)
{
	int fds[2], status;
	pid_t child;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	child = fork();
	if (child == 0) {
		pthread_t t;

		close(fds[1]);
		if (pthread_create(&t, NULL, read_then_end, &fds[0]))
			_exit(1);
		pthread_exit(NULL);
	}
	assert_true(child > 0);
	close(fds[0]);
	assert_true(wait_state(child, 'Z'));
	assert_int_equal(hcb_target_alive(child), 1);
	close(fds[1]);                 /* the thread reads EOF and ends */
	for (int i = 0; i < 5000 && hcb_target_alive(child); i++)
		usleep(1000);
	assert_int_equal(hcb_target_alive(child), 0);
	assert_int_equal(hcb_target_state(child), 'Z');
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(hcb_target_alive(child), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_visible),
		cmocka_unit_test(test_maps_line),
		cmocka_unit_test(test_open_file),
		cmocka_unit_test(test_rundir_trust),
		cmocka_unit_test(test_stat_line),
		cmocka_unit_test(test_zombie_leader),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
