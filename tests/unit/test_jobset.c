/* SPDX-License-Identifier: MIT */
/*
 * test_jobset.c - a job's recordings read as one (formats/jobset.h,
 * formats/jobmerge.h; issue 36), on real files in a temporary directory:
 *
 *  - a directory's *.jsonl and *.hcbcap are its recordings, anything else
 *    (a note, a folder, a hidden file) skipped and named; none: -ENOENT;
 *  - each file is the process its last session record before its first
 *    tap names, ordered by process index whatever the files' names; two
 *    files of one process (index and host, or pid and start without an
 *    index) -EEXIST naming both; a file damaged before its first tap
 *    -EBADMSG naming it;
 *  - the merge gives every record of every file once, each file in its own
 *    order (times that step back included), the earliest next record at
 *    each turn, the lower member at equal times, every record but an end
 *    right after its process's session record;
 *  - a file damaged midway: its error once, the others to their end;
 *  - two runs pair by index alone where each has every index once, by host
 *    and index otherwise;
 *  - a process's devices, ascending, any u32, and a device's position.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "jobmerge.h"
#include "jobset.h"
#include "recfile.h"

static char tmpdir[] = "/tmp/test_jobset.XXXXXX";
#include "testtmp.h"

/* A session record's line: process index (-1: none), host, pid. */
static void session_line(FILE *f, int index, const char *host, int pid)
{
	fprintf(f, "{\"type\":\"session\",\"version\":1,\"pid\":%d,\"provider\":\"jax-callback\","
		   "\"platform\":\"cpu\",\"host\":\"%s\"", pid, host);
	if (index >= 0)
		fprintf(f, ",\"process\":{\"index\":%d,\"count\":4,\"source\":\"jax\"}", index);
	fprintf(f, ",\"start_ns\":1000}\n");
}

static void tap_line(FILE *f, unsigned int device, unsigned int seq, unsigned long long ts, double v)
{
	fprintf(f, "{\"type\":\"tap\",\"device\":%u,\"seq\":%u,\"consumer\":7,\"name\":\"loss\","
		   "\"kwargs\":{},\"tree\":\"*\",\"ts_ns\":%llu,\"arrays\":[{\"dtype\":\"float32\","
		   "\"shape\":[],\"data\":[%g]}]}\n", device, seq, ts, v);
}

/* dir/name holding process index (its first session record says none: the
 * second, before the first tap, does), on device index*2048, taps at ts[]. */
static void job_file(const char *dir, const char *name, int index, const char *host,
		     const unsigned long long *ts, int ntaps)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	session_line(f, -1, host, 100 + index);
	session_line(f, index, host, 100 + index);
	for (int i = 0; i < ntaps; i++)
		tap_line(f, (unsigned int)index * 2048, (unsigned int)i, ts[i], index + i / 10.0);
	fprintf(f, "{\"type\":\"end\",\"taps\":%d,\"drops\":0,\"end_ns\":99999}\n", ntaps);
	fclose(f);
}

static const char *subdir(const char *name)
{
	const char *p = tmp_path(name);

	assert_int_equal(mkdir(p, 0700), 0);
	return p;
}

static void test_dir_and_identity(void **state)
{
	static const unsigned long long ts[] = { 10, 20 };
	const char *dir = subdir("ident");
	struct hcb_jobset s;
	char path[512];
	FILE *f;

	(void)state;
	job_file(dir, "a.jsonl", 1, "h", ts, 2);
	job_file(dir, "z.jsonl", 0, "h", ts, 2);
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	f = fopen(path, "w");
	fputs("x\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/more.jsonl", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_dir(&s, dir), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.nskipped, 2);
	assert_string_equal(s.skipped[0], "more.jsonl");
	assert_string_equal(s.skipped[1], "notes.txt");
	assert_int_equal(hcb_jobset_identify(&s), 0);
	/* by process index, not by name */
	assert_non_null(strstr(s.m[0].path, "/z.jsonl"));
	assert_int_equal(s.m[0].who.process.index, 0);
	assert_non_null(strstr(s.m[1].path, "/a.jsonl"));
	assert_int_equal(s.m[1].who.process.index, 1);
	assert_string_equal(s.m[1].who.process.source, "jax");
	hcb_jobset_free(&s);

	/* the same process twice: named both */
	job_file(dir, "copy.jsonl", 1, "h", ts, 1);
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_dir(&s, dir), 0);
	assert_int_equal(hcb_jobset_identify(&s), -EEXIST);
	assert_non_null(strstr(s.error, "/a.jsonl'"));
	assert_non_null(strstr(s.error, "/copy.jsonl'"));
	assert_non_null(strstr(s.error, "process 1 on host h"));
	hcb_jobset_free(&s);
	/* on another host it is another process */
	job_file(dir, "copy.jsonl", 1, "other", ts, 1);
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_dir(&s, dir), 0);
	assert_int_equal(hcb_jobset_identify(&s), 0);
	assert_int_equal(s.n, 3);
	hcb_jobset_free(&s);
}

static void test_no_index_and_damage(void **state)
{
	const char *dir = subdir("noindex"), *empty = subdir("empty");
	struct hcb_jobset s;
	char p[3][512];
	FILE *f;

	(void)state;
	for (int i = 0; i < 3; i++) {
		snprintf(p[i], sizeof(p[i]), "%s/%d.jsonl", dir, i);
		f = fopen(p[i], "w");
		session_line(f, -1, "h", i ? 7 : 5);
		tap_line(f, 0, 0, 10, 1);
		fclose(f);
	}
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_file(&s, p[0]), 0);
	assert_int_equal(hcb_jobset_add_file(&s, p[1]), 0);
	assert_int_equal(hcb_jobset_identify(&s), 0);
	assert_int_equal(s.m[0].who.pid, 5);
	/* pid 7 twice, the same start: one process */
	assert_int_equal(hcb_jobset_add_file(&s, p[2]), 0);
	assert_int_equal(hcb_jobset_identify(&s), -EEXIST);
	assert_non_null(strstr(s.error, "pid 7 on host h"));
	hcb_jobset_free(&s);

	/* damaged before its first tap: the file and line named */
	f = fopen(p[2], "w");
	fputs("{\"type\":\"session\",\"vers\n", f);
	fclose(f);
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_file(&s, p[2]), 0);
	assert_int_equal(hcb_jobset_identify(&s), -EBADMSG);
	assert_non_null(strstr(s.error, "/2.jsonl:1"));
	hcb_jobset_free(&s);

	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_dir(&s, empty), -ENOENT);
	assert_non_null(strstr(s.error, "holds no recording"));
	hcb_jobset_free(&s);
}

/* Each record the merge gives, as "P:kind:ts", the process being the one
 * of the session record last given. */
static void merge_all(const struct hcb_jobset *s, char *out, size_t size, int *errors)
{
	struct hcb_jobmerge *m;
	struct hcb_record rec;
	size_t member, at = 0;
	int n, who = -1;

	*errors = 0;
	assert_int_equal(hcb_jobmerge_open(&m, s), 0);
	while ((n = hcb_jobmerge_next(m, &rec, &member)) != 0) {
		if (n < 0) {
			++*errors;
			assert_non_null(strstr(hcb_jobmerge_error(m), ".jsonl:"));
			continue;
		}
		if (rec.kind == HCB_REC_SESSION) {
			who = (int)rec.session.process.index;
			assert_int_equal(who, (int)s->m[member].who.process.index);
			continue;
		}
		if (rec.kind == HCB_REC_TAP) {
			assert_int_equal(who, (int)s->m[member].who.process.index);
			at += (size_t)snprintf(out + at, size - at, "%d:%llu ", who,
					       (unsigned long long)rec.tap.wall_ns);
		} else {
			at += (size_t)snprintf(out + at, size - at, "end%zu ", member);
		}
	}
	hcb_jobmerge_close(m);
}

static void test_merge(void **state)
{
	/* process 1's times step back once (threads of a jax-callback
	 * session): its own order is kept */
	static const unsigned long long t0[] = { 10, 30, 30, 50 }, t1[] = { 20, 30, 60, 40, 70 };
	const char *dir = subdir("merge");
	struct hcb_jobset s;
	char out[512];
	int errors;

	(void)state;
	job_file(dir, "b.jsonl", 0, "h", t0, 4);
	job_file(dir, "a.jsonl", 1, "h", t1, 5);
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_dir(&s, dir), 0);
	assert_int_equal(hcb_jobset_identify(&s), 0);
	merge_all(&s, out, sizeof(out), &errors);
	assert_int_equal(errors, 0);
	assert_string_equal(out, "0:10 1:20 0:30 0:30 1:30 0:50 1:60 1:40 1:70 end0 end1 ");
	hcb_jobset_free(&s);
}

static void test_merge_damage(void **state)
{
	static const unsigned long long t[] = { 10, 20, 30 };
	const char *dir = subdir("damage");
	struct hcb_jobset s;
	char out[512], path[512];
	FILE *f;
	int errors;

	(void)state;
	job_file(dir, "p0.jsonl", 0, "h", t, 3);
	snprintf(path, sizeof(path), "%s/p1.jsonl", dir);
	f = fopen(path, "w");
	session_line(f, 1, "h", 9);
	tap_line(f, 2048, 0, 15, 1);
	fputs("{\"type\":\"tap\",\"device\n", f);
	tap_line(f, 2048, 1, 16, 1);
	fclose(f);
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_dir(&s, dir), 0);
	assert_int_equal(hcb_jobset_identify(&s), 0);
	merge_all(&s, out, sizeof(out), &errors);
	assert_int_equal(errors, 1);
	assert_string_equal(out, "0:10 1:15 0:20 0:30 end0 ");
	hcb_jobset_free(&s);
}

static void test_pairing(void **state)
{
	struct hcb_job_member a[2] = { 0 }, b[2] = { 0 };
	struct hcb_jobset sa = { .m = a, .n = 2 }, sb = { .m = b, .n = 2 };

	(void)state;
	for (int i = 0; i < 2; i++) {
		a[i].has_session = b[i].has_session = 1;
		a[i].who.process = (struct hcb_process_id){ .index = (uint32_t)i, .count = 2, .source = "jax" };
		b[i].who.process = a[i].who.process;
		snprintf(a[i].who.host, sizeof(a[i].who.host), "node%d", i);
		snprintf(b[i].who.host, sizeof(b[i].who.host), "node%d", 5 + i);
	}
	/* each run has each index once: the hosts may change */
	assert_int_equal(hcb_jobset_pair_loose(&sa, &sb), 1);
	assert_int_equal(hcb_job_pairs_with(&a[1], &b[1], 1), 1);
	assert_int_equal(hcb_job_pairs_with(&a[1], &b[0], 1), 0);
	/* an index twice in a run: the host too */
	b[1].who.process.index = 0;
	assert_int_equal(hcb_jobset_pair_loose(&sa, &sb), 0);
	assert_int_equal(hcb_job_pairs_with(&a[0], &b[0], 0), 0);
	snprintf(b[0].who.host, sizeof(b[0].who.host), "node0");
	assert_int_equal(hcb_job_pairs_with(&a[0], &b[0], 0), 1);
	/* no index: no pair */
	a[0].who.process.source[0] = '\0';
	assert_int_equal(hcb_job_pairs_with(&a[0], &b[0], 0), 0);
	assert_int_equal(hcb_jobset_pair_loose(&sa, &sb), 0);
}

/* A process's devices, ascending, and a device's position among them:
 * how --across-processes lines up replicas' devices. */
static void test_devices(void **state)
{
	static const unsigned long long ts[] = { 1, 2, 3 };
	const char *dir = subdir("devices");
	struct hcb_jobset s;
	char path[512];
	uint32_t *ids;
	size_t n;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/p.jsonl", dir);
	f = fopen(path, "w");
	session_line(f, 1, "h", 5);
	tap_line(f, 2049, 0, 1, 1);
	tap_line(f, 4294967295u, 0, 2, 1);
	tap_line(f, 2048, 0, 3, 1);
	tap_line(f, 2049, 1, 4, 1);
	fclose(f);
	job_file(dir, "q.jsonl", 0, "h", ts, 3);
	hcb_jobset_init(&s);
	assert_int_equal(hcb_jobset_add_dir(&s, dir), 0);
	assert_int_equal(hcb_jobset_identify(&s), 0);
	assert_int_equal(hcb_job_devices(&s, 1, &ids, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(ids[0], 2048);
	assert_int_equal(ids[1], 2049);
	assert_int_equal(ids[2], 4294967295u);
	assert_int_equal(hcb_job_device_position(ids, n, 2049), 1);
	assert_int_equal(hcb_job_device_position(ids, n, 4294967295u), 2);
	assert_int_equal(hcb_job_device_position(ids, n, 7), 3);
	free(ids);
	assert_int_equal(hcb_job_devices(&s, 0, &ids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], 0);
	free(ids);
	hcb_jobset_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_and_identity),
		cmocka_unit_test(test_no_index_and_damage),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_damage),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_devices),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
