/* SPDX-License-Identifier: MIT */
/* jobset.c - the recordings of one job and who each one's process is (jobset.h). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/procid.h"
#include "jobset.h"
#include "recfile.h"

void hcb_jobset_init(struct hcb_jobset *s)
{
	memset(s, 0, sizeof(*s));
}

void hcb_jobset_free(struct hcb_jobset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->m[i].path);
	for (size_t i = 0; i < s->nskipped; i++)
		free(s->skipped[i]);
	free(s->m);
	free(s->skipped);
	hcb_jobset_init(s);
}

__attribute__((format(printf, 3, 4)))
static int fail(struct hcb_jobset *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	return err;
}

int hcb_jobset_add_file(struct hcb_jobset *s, const char *path)
{
	struct hcb_job_member *m;

	if (s->n >= HCB_JOBSET_MAX)
		return fail(s, -E2BIG, "more than %u recordings: read them in parts", HCB_JOBSET_MAX);
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;

		m = realloc(s->m, cap * sizeof(*m));
		if (!m)
			return fail(s, -ENOMEM, "out of memory");
		s->m = m;
		s->cap = cap;
	}
	m = &s->m[s->n];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	if (!m->path)
		return fail(s, -ENOMEM, "out of memory");
	s->n++;
	return 0;
}

static int note_skipped(struct hcb_jobset *s, const char *name)
{
	char **k = realloc(s->skipped, (s->nskipped + 1) * sizeof(*k));

	if (!k)
		return fail(s, -ENOMEM, "out of memory");
	s->skipped = k;
	k[s->nskipped] = strdup(name);
	if (!k[s->nskipped])
		return fail(s, -ENOMEM, "out of memory");
	s->nskipped++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What joins dir and a name in it: "run/" needs no second '/'. */
static const char *sep_after(const char *dir)
{
	size_t n = strlen(dir);

	return n && dir[n - 1] == '/' ? "" : "/";
}

/* A regular file (through a link too) named as a recording is. */
static int is_recording(const char *dir, const char *name)
{
	enum hcb_file_format f = hcb_file_format_of(name);
	char path[4096];
	struct stat st;

	if (name[0] == '.' || (f != HCB_FMT_JSONL && f != HCB_FMT_HCBCAP))
		return 0;
	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", dir, sep_after(dir), name) >= sizeof(path))
		return 0;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The names in dir but . and .., sorted: *names, *n. */
static int list_dir(struct hcb_jobset *s, const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;
	int err = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return fail(s, -errno, "cannot read the directory '%s': %s", dir, strerror(errno));
	while (!err && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap) {
			char **k = realloc(*names, (cap = cap ? cap * 2 : 16) * sizeof(*k));

			if (!k) {
				err = -ENOMEM;
				break;
			}
			*names = k;
		}
		(*names)[*n] = strdup(e->d_name);
		err = (*names)[*n] ? 0 : -ENOMEM;
		*n += !err;
	}
	closedir(d);
	/* an empty folder has no list at all: qsort takes none */
	if (!err && *n)
		qsort(*names, *n, sizeof(**names), by_name);
	return err ? fail(s, err, "out of memory") : 0;
}

int hcb_jobset_add_dir(struct hcb_jobset *s, const char *dir)
{
	char **names, path[4096];
	size_t n, before = s->n;
	int err;

	err = list_dir(s, dir, &names, &n);
	for (size_t i = 0; i < n; i++) {
		if (!err && !is_recording(dir, names[i]))
			err = note_skipped(s, names[i]);
		else if (!err && (size_t)snprintf(path, sizeof(path), "%s%s%s", dir, sep_after(dir),
						  names[i]) >= sizeof(path))
			err = fail(s, -ENAMETOOLONG, "'%s%s%s': name too long", dir, sep_after(dir), names[i]);
		else if (!err)
			err = hcb_jobset_add_file(s, path);
		free(names[i]);
	}
	free(names);
	if (!err && s->n == before)
		err = fail(s, -ENOENT, "'%s' holds no recording (.jsonl or .hcbcap)", dir);
	return err;
}

/* The last session record before m's first tap. */
static int identify_one(struct hcb_jobset *s, struct hcb_job_member *m)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	int n = hcb_reader_open(&r, m->path);

	if (n == -EPROTONOSUPPORT)
		return fail(s, n, "'%s': not a recording hcbtrace reads (JSONL or .hcbcap)", m->path);
	if (n)
		return fail(s, n, "cannot open '%s': %s", m->path, strerror(-n));
	while ((n = hcb_reader_skim(r, &rec)) == 1 && rec.kind != HCB_REC_TAP) {
		if (rec.kind != HCB_REC_SESSION)
			continue;
		m->has_session = 1;
		m->who = rec.session;
		m->who.devices = NULL;
		m->who.ndevices = 0;
	}
	/* a file cut short is read as far as it goes: the merge says where */
	if (n < 0 && n != -ENODATA)
		fail(s, n, "%s", hcb_reader_error(r));
	hcb_reader_close(r);
	return n < 0 && n != -ENODATA ? n : 0;
}

static int has_index(const struct hcb_job_member *m)
{
	return m->has_session && hcb_procid_check(&m->who.process) == 1;
}

int hcb_job_same_process(const struct hcb_job_member *a, const struct hcb_job_member *b)
{
	if (!a->has_session || !b->has_session || has_index(a) != has_index(b) ||
	    strcmp(a->who.host, b->who.host))
		return 0;
	if (has_index(a))
		return a->who.process.index == b->who.process.index;
	return a->who.pid == b->who.pid && a->who.start_ns == b->who.start_ns;
}

/* Processes by index (those with none last), then host, pid and start. */
static int member_order(const void *pa, const void *pb)
{
	const struct hcb_job_member *a = pa, *b = pb;
	int c = has_index(b) - has_index(a);

	if (!c && has_index(a) && a->who.process.index != b->who.process.index)
		return a->who.process.index < b->who.process.index ? -1 : 1;
	if (!c)
		c = strcmp(a->who.host, b->who.host);
	if (!c && a->who.pid != b->who.pid)
		return a->who.pid < b->who.pid ? -1 : 1;
	if (!c && a->who.start_ns != b->who.start_ns)
		return a->who.start_ns < b->who.start_ns ? -1 : 1;
	return c ? c : strcmp(a->path, b->path);
}

static void who_text(const struct hcb_job_member *m, char *buf, size_t size)
{
	if (has_index(m))
		snprintf(buf, size, "process %u%s%s", m->who.process.index,
			 m->who.host[0] ? " on host " : "", m->who.host);
	else
		snprintf(buf, size, "pid %d%s%s", (int)m->who.pid,
			 m->who.host[0] ? " on host " : "", m->who.host);
}

int hcb_jobset_identify(struct hcb_jobset *s)
{
	char who[128];
	int err;

	for (size_t i = 0; i < s->n; i++) {
		err = identify_one(s, &s->m[i]);
		if (err)
			return err;
	}
	if (s->n)
		qsort(s->m, s->n, sizeof(*s->m), member_order);
	/* the same process is next to itself in that order */
	for (size_t i = 1; i < s->n; i++) {
		if (!hcb_job_same_process(&s->m[i - 1], &s->m[i]))
			continue;
		who_text(&s->m[i], who, sizeof(who));
		return fail(s, -EEXIST, "'%s' and '%s' are both recordings of %s: a job's recordings "
			    "hold one file a process; move one of them away", s->m[i - 1].path,
			    s->m[i].path, who);
	}
	return 0;
}

/* Every member has an index, each once (the set is in index order). */
static int indices_unique(const struct hcb_jobset *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (!has_index(&s->m[i]) ||
		    (i && s->m[i].who.process.index == s->m[i - 1].who.process.index))
			return 0;
	return 1;
}

int hcb_jobset_pair_loose(const struct hcb_jobset *a, const struct hcb_jobset *b)
{
	return indices_unique(a) && indices_unique(b);
}

int hcb_job_pairs_with(const struct hcb_job_member *a, const struct hcb_job_member *b, int loose)
{
	if (!has_index(a) || !has_index(b) || a->who.process.index != b->who.process.index)
		return 0;
	return loose || !strcmp(a->who.host, b->who.host);
}

size_t hcb_job_device_position(const uint32_t *ids, size_t n, uint32_t device)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ids[mid] < device)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo] == device ? lo : n;
}

/* device into ids (ascending, *n of *cap) where it is not there yet. */
static int add_device(uint32_t **ids, size_t *n, size_t *cap, uint32_t device)
{
	size_t at, lo = 0, hi = *n;

	while (lo < hi) {
		at = lo + (hi - lo) / 2;
		if ((*ids)[at] < device)
			lo = at + 1;
		else
			hi = at;
	}
	if (lo < *n && (*ids)[lo] == device)
		return 0;
	if (*n >= HCB_JOB_DEVICES_MAX)
		return -E2BIG;
	if (*n == *cap) {
		uint32_t *k = realloc(*ids, (*cap = *cap ? *cap * 2 : 16) * sizeof(*k));

		if (!k)
			return -ENOMEM;
		*ids = k;
	}
	memmove(*ids + lo + 1, *ids + lo, (*n - lo) * sizeof(**ids));
	(*ids)[lo] = device;
	++*n;
	return 0;
}

int hcb_job_devices(struct hcb_jobset *s, size_t i, uint32_t **ids, size_t *n)
{
	struct hcb_reader *r;
	struct hcb_record rec;
	size_t cap = 0;
	int err = hcb_reader_open(&r, s->m[i].path);

	*ids = NULL;
	*n = 0;
	if (err)
		return fail(s, err, "cannot open '%s': %s", s->m[i].path, strerror(-err));
	while ((err = hcb_reader_skim(r, &rec)) == 1)
		if (rec.kind == HCB_REC_TAP && (err = add_device(ids, n, &cap, rec.tap.device)))
			break;
	if (err == -E2BIG)
		fail(s, err, "'%s': more than %u devices", s->m[i].path, HCB_JOB_DEVICES_MAX);
	else if (err == -ENOMEM)
		fail(s, err, "out of memory");
	else if (err < 0 && err != -ENODATA)
		fail(s, err, "%s", hcb_reader_error(r));
	hcb_reader_close(r);
	if (err < 0 && err != -ENODATA) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return err;
	}
	return 0;
}
