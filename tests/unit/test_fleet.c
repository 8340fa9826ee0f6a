/* SPDX-License-Identifier: MIT */
/*
 * test_fleet.c - record --fleet-dir's fire files (src/watch/fleet.h): the
 * one form written and read back, everything else refused; a directory
 * polled as another host's hcbtrace would see it: its own files, an
 * earlier run's, and what anyone else may put there (a link, a FIFO, a
 * huge or binary file) judged without blocking, counted once.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "watch/fleet.h"

#define NOW 1795318845000000000ull

static char dir[64];

static struct hcb_fleet_fire fire(const char *host, uint32_t tracer, uint64_t wall_ns)
{
	struct hcb_fleet_fire f = { .tracer_pid = tracer, .seq = 1, .pid = 4242, .process = 3,
				    .wall_ns = wall_ns };

	snprintf(f.host, sizeof(f.host), "%s", host);
	snprintf(f.condition, sizeof(f.condition), "loss: max > 1e4");
	return f;
}

static int parse(const char *text)
{
	struct hcb_fleet_fire f;

	return hcb_fleet_parse(text, strlen(text), &f);
}

static void test_format_parse(void **state)
{
	struct hcb_fleet_fire f = fire("node-07.x", 99, NOW), g;
	char buf[HCB_FLEET_FILE_MAX];
	int n;

	(void)state;
	n = hcb_fleet_format(buf, sizeof(buf), &f);
	assert_true(n > 0);
	assert_string_equal(buf, "{\"hcbtrace_fleet\":1,\"host\":\"node-07.x\",\"hcbtrace_pid\":99,"
			    "\"seq\":1,\"pid\":4242,\"process\":3,\"condition\":\"loss: max > 1e4\","
			    "\"wall_ns\":1795318845000000000}\n");
	assert_int_equal(hcb_fleet_parse(buf, (size_t)n, &g), 0);
	assert_memory_equal(&f, &g, sizeof(f));
	/* no index known: none written, -1 read */
	f.process = -1;
	n = hcb_fleet_format(buf, sizeof(buf), &f);
	assert_int_equal(hcb_fleet_parse(buf, (size_t)n, &g), 0);
	assert_int_equal(g.process, -1);
	/* one byte less, more, changed: refused */
	assert_int_equal(hcb_fleet_parse(buf, (size_t)n - 1, &g), -EBADMSG);
	buf[n] = 'x';
	assert_int_equal(hcb_fleet_parse(buf, (size_t)n + 1, &g), -EBADMSG);
	assert_int_equal(parse("{\"hcbtrace_fleet\":1,\"host\":\"a b\",\"hcbtrace_pid\":1,\"seq\":1,"
			       "\"pid\":1,\"condition\":\"x\",\"wall_ns\":1}\n"), -EBADMSG);
	assert_int_equal(parse("{\"hcbtrace_fleet\":1,\"host\":\"a\",\"hcbtrace_pid\":0,\"seq\":1,"
			       "\"pid\":1,\"condition\":\"x\",\"wall_ns\":1}\n"), -EBADMSG);
	assert_int_equal(parse("{\"hcbtrace_fleet\":1,\"host\":\"a\",\"hcbtrace_pid\":1,\"seq\":1,"
			       "\"pid\":4294967296,\"condition\":\"x\",\"wall_ns\":1}\n"), -EBADMSG);
	assert_int_equal(parse("{\"hcbtrace_fleet\":1,\"host\":\"a\",\"hcbtrace_pid\":1,\"seq\":1,"
			       "\"pid\":1,\"condition\":\"x\",\"wall_ns\":18446744073709551616}\n"),
			 -EBADMSG);
	assert_int_equal(parse("{\"hcbtrace_fleet\":1,\"host\":\"a\",\"hcbtrace_pid\":1,\"seq\":01,"
			       "\"pid\":1,\"condition\":\"x\",\"wall_ns\":1}\n"), -EBADMSG);
	assert_int_equal(parse("{\"hcbtrace_fleet\":1,\"host\":\"a\",\"hcbtrace_pid\":1,\"seq\":1,"
			       "\"pid\":1,\"process\":1048576,\"condition\":\"x\",\"wall_ns\":1}\n"),
			 -EBADMSG);
	assert_int_equal(parse("{\"hcbtrace_fleet\":1,\"host\":\"a\",\"hcbtrace_pid\":1,\"seq\":1,"
			       "\"pid\":1,\"condition\":\"x\\\"\",\"wall_ns\":1}\n"), -EBADMSG);
	assert_int_equal(parse(""), -EBADMSG);
	/* what a writer may not write */
	f = fire("a/b", 1, NOW);
	assert_int_equal(hcb_fleet_format(buf, sizeof(buf), &f), -EINVAL);
	f = fire("a", 1, NOW);
	assert_int_equal(hcb_fleet_format(buf, 20, &f), -ENOSPC);
}

static void test_clean(void **state)
{
	char host[HCB_HOST_MAX + 1], text[8];
	char long_host[100];

	(void)state;
	hcb_fleet_clean_host(host, sizeof(host), "n\xc3\xa9ud/1 x");
	assert_string_equal(host, "n__ud_1_x");
	hcb_fleet_clean_host(host, sizeof(host), "");
	assert_string_equal(host, "localhost");
	memset(long_host, 'a', sizeof(long_host) - 1);
	long_host[sizeof(long_host) - 1] = '\0';
	hcb_fleet_clean_host(host, sizeof(host), long_host);
	assert_int_equal(strlen(host), HCB_HOST_MAX);
	hcb_fleet_clean_text(text, sizeof(text), "a\"b\\c\n\x01xyz");
	assert_string_equal(text, "a?b?c??");
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hcb-fleet-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void put(const char *name, const void *bytes, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static void put_fire(const char *name, const struct hcb_fleet_fire *f)
{
	char buf[HCB_FLEET_FILE_MAX];
	int n = hcb_fleet_format(buf, sizeof(buf), f);

	assert_true(n > 0);
	put(name, buf, (size_t)n);
}

/* The poll after the next stat and readdir are due. */
static int poll_at(struct hcb_fleet *fl, uint64_t *now, struct hcb_fleet_fire *f)
{
	*now += HCB_FLEET_RESCAN_NS;
	return hcb_fleet_poll(fl, *now, f);
}

static void hostile(void)
{
	char path[256], *big = calloc(1, 1 << 20);
	static const unsigned char binary[] = { 0x7b, 0, 0xff, 0xfe, '\n' };

	assert_non_null(big);
	put("fire-big.json", big, 1 << 20);
	free(big);
	put("fire-bin.json", binary, sizeof(binary));
	snprintf(path, sizeof(path), "%s/fire-fifo.json", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/fire-link.json", dir);
	assert_int_equal(symlink("/dev/zero", path), 0);
	snprintf(path, sizeof(path), "%s/fire-dir.json", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	/* not named as one: not looked at, not counted */
	put("notes.txt", "x", 1);
}

static void test_dir(void **state)
{
	struct hcb_fleet_opts o = { .dir = dir, .host = "here", .tracer_pid = 10,
				    .start_ns = NOW };
	struct hcb_fleet_fire f, got;
	struct hcb_fleet_counts c;
	struct hcb_fleet *fl;
	uint64_t now = 1;

	(void)state;
	assert_int_equal(hcb_fleet_open(&fl, &o), 0);
	/* an earlier run's, hostile files: nothing fires, each counted once */
	f = fire("there", 20, NOW - 3 * HCB_FLEET_SKEW_NS);
	put_fire("fire-there-20-1.json", &f);
	hostile();
	assert_int_equal(poll_at(fl, &now, &got), 0);
	assert_int_equal(poll_at(fl, &now, &got), 0);
	hcb_fleet_counts(fl, &c);
	assert_int_equal(c.stale, 1);
	assert_int_equal(c.odd, 5);
	/* its own firing, published: not one for it */
	f = fire("x", 1, NOW + 1);
	assert_int_equal(hcb_fleet_publish(fl, &f), 0);
	assert_int_equal(poll_at(fl, &now, &got), 0);
	/* two other hosts' (within the clocks' allowance): the earlier */
	f = fire("b", 30, NOW + 5);
	put_fire("fire-b-30-1.json", &f);
	f = fire("a", 40, NOW - HCB_FLEET_SKEW_NS / 2);
	put_fire("fire-a-40-1.json", &f);
	assert_int_equal(poll_at(fl, &now, &got), 1);
	assert_string_equal(got.host, "a");
	assert_int_equal(got.pid, 4242);
	assert_int_equal(got.process, 3);
	/* seen: not again; not before the next stat is due */
	assert_int_equal(poll_at(fl, &now, &got), 0);
	f = fire("c", 50, NOW + 9);
	put_fire("fire-c-50-1.json", &f);
	assert_int_equal(hcb_fleet_poll(fl, now, &got), 0);
	assert_int_equal(poll_at(fl, &now, &got), 1);
	assert_string_equal(got.host, "c");
	hcb_fleet_counts(fl, &c);
	assert_int_equal(c.published, 1);
	assert_int_equal(c.fired, 2);
	assert_int_equal(c.joined, 1);
	assert_int_equal(c.odd, 5);
	assert_int_equal(c.stale, 1);
	assert_int_equal(c.overflow, 0);
	hcb_fleet_free(fl);
}

static void test_open(void **state)
{
	struct hcb_fleet_opts o = { .dir = "/nonexistent/fleet", .host = "h", .tracer_pid = 1 };
	struct hcb_fleet *fl;
	char file[128];

	(void)state;
	assert_int_equal(hcb_fleet_open(&fl, &o), -ENOENT);
	assert_null(fl);
	snprintf(file, sizeof(file), "%s/notes.txt", dir);
	put("notes.txt", "x", 1);
	o.dir = file;
	assert_int_equal(hcb_fleet_open(&fl, &o), -ENOTDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_clean),
		cmocka_unit_test_setup_teardown(test_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
