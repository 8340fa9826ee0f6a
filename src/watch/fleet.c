/* SPDX-License-Identifier: MIT */
/* fleet.c - fire files in a shared directory, published and polled (fleet.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fleet.h"

struct hcb_fleet {
	struct hcb_fleet_opts o;
	char dir[4096];
	char host[HCB_HOST_MAX + 1];
	uint64_t seq;                    /* fire files published */
	uint64_t next_stat_ns, next_scan_ns;
	struct timespec mtime;           /* DIR's, at the last readdir */
	uint64_t *seen;                  /* names judged: their FNV-1a hashes */
	size_t n_seen;
	struct hcb_fleet_counts counts;
};

static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* The name: "PREFIX HOST-TRACER-SEQ SUFFIX". */
static int fire_name(char *buf, size_t size, const struct hcb_fleet *fl, const char *prefix,
		     const char *suffix)
{
	int n = snprintf(buf, size, "%s/%sfire-%s-%u-%llu%s", fl->dir, prefix, fl->host,
			 (unsigned int)fl->o.tracer_pid, (unsigned long long)fl->seq, suffix);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Whether DIR takes files: one made and removed. */
static int try_dir(const struct hcb_fleet *fl)
{
	char probe[4200];
	struct stat st;
	int fd, n;

	if (stat(fl->dir, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	n = snprintf(probe, sizeof(probe), "%s/.probe-%s-%u", fl->dir, fl->host,
		     (unsigned int)fl->o.tracer_pid);
	if (n < 0 || (size_t)n >= sizeof(probe))
		return -ENAMETOOLONG;
	fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	close(fd);
	unlink(probe);
	return 0;
}

int hcb_fleet_open(struct hcb_fleet **out, const struct hcb_fleet_opts *o)
{
	struct hcb_fleet *fl = calloc(1, sizeof(*fl));
	int err;

	*out = NULL;
	if (!fl)
		return -ENOMEM;
	fl->o = *o;
	if (strlen(o->dir) >= sizeof(fl->dir)) {
		free(fl);
		return -ENAMETOOLONG;
	}
	snprintf(fl->dir, sizeof(fl->dir), "%s", o->dir);
	hcb_fleet_clean_host(fl->host, sizeof(fl->host), o->host);
	fl->o.dir = fl->dir;
	fl->o.host = fl->host;
	fl->seen = calloc(HCB_FLEET_SCAN_MAX, sizeof(*fl->seen));
	err = fl->seen ? try_dir(fl) : -ENOMEM;
	if (err) {
		hcb_fleet_free(fl);
		return err;
	}
	*out = fl;
	return 0;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int hcb_fleet_publish(struct hcb_fleet *fl, const struct hcb_fleet_fire *f)
{
	struct hcb_fleet_fire mine = *f;
	char text[HCB_FLEET_FILE_MAX], tmp[4200], name[4200];
	int len, fd, err;

	fl->seq++;
	memcpy(mine.host, fl->host, sizeof(mine.host));
	mine.tracer_pid = fl->o.tracer_pid;
	mine.seq = fl->seq;
	len = hcb_fleet_format(text, sizeof(text), &mine);
	if (len < 0)
		return len;
	err = fire_name(tmp, sizeof(tmp), fl, ".", ".tmp");
	err = err ? err : fire_name(name, sizeof(name), fl, "", ".json");
	if (err)
		return err;
	/* a temporary name of an earlier hcbtrace of this pid: ours now */
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	err = write_all(fd, text, (size_t)len);
	/* close: where NFS writes it back */
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, name))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	fl->counts.published++;
	return 0;
}

/* 1 if name was judged before, else remembered (0) or past the bound (-1). */
static int judged(struct hcb_fleet *fl, const char *name)
{
	uint64_t h = name_hash(name);

	for (size_t i = 0; i < fl->n_seen; i++) {
		if (fl->seen[i] == h)
			return 1;
	}
	if (fl->n_seen == HCB_FLEET_SCAN_MAX)
		return -1;
	fl->seen[fl->n_seen++] = h;
	return 0;
}

static int fire_file_name(const char *name)
{
	size_t n = strlen(name);

	return n > 10 && !strncmp(name, "fire-", 5) && !strcmp(name + n - 5, ".json");
}

/* Read dirfd's name as a fire file, never blocking and never following
 * a link: 0 and *f, or -EBADMSG (not one). */
static int read_fire(int dirfd, const char *name, struct hcb_fleet_fire *f)
{
	char buf[HCB_FLEET_FILE_MAX + 1];
	struct stat before, st;
	ssize_t n;
	int fd;

	/* a FIFO or a device is never opened: an open could block or act */
	if (fstatat(dirfd, name, &before, AT_SYMLINK_NOFOLLOW) || !S_ISREG(before.st_mode) ||
	    before.st_size > HCB_FLEET_FILE_MAX)
		return -EBADMSG;
	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -EBADMSG;
	/* the same file as judged, not one put there since */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_ino != before.st_ino ||
	    st.st_dev != before.st_dev) {
		close(fd);
		return -EBADMSG;
	}
	do
		n = read(fd, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0 || (size_t)n > HCB_FLEET_FILE_MAX)
		return -EBADMSG;
	return hcb_fleet_parse(buf, (size_t)n, f);
}

/* One new name of DIR judged: 1 and *f if it is a firing of this
 * session's from another hcbtrace, else 0 (counted where odd or stale). */
static int judge(struct hcb_fleet *fl, int dirfd, const char *name, struct hcb_fleet_fire *f)
{
	int seen;

	if (!fire_file_name(name))
		return 0;
	seen = judged(fl, name);
	if (seen) {
		if (seen < 0)
			fl->counts.overflow = 1;
		return 0;
	}
	if (read_fire(dirfd, name, f)) {
		fl->counts.odd++;
		return 0;
	}
	if (f->tracer_pid == fl->o.tracer_pid && !strcmp(f->host, fl->host))
		return 0;
	/* (a time near UINT64_MAX must not wrap round to one long past) */
	if (fl->o.start_ns > HCB_FLEET_SKEW_NS && f->wall_ns < fl->o.start_ns - HCB_FLEET_SKEW_NS) {
		fl->counts.stale++;
		return 0;
	}
	return 1;
}

/* Every entry of DIR, up to the bound: the earliest new firing into *f. */
static int scan(struct hcb_fleet *fl, struct hcb_fleet_fire *f)
{
	struct hcb_fleet_fire one;
	struct dirent *de;
	size_t entries = 0;
	int found = 0;
	DIR *d = opendir(fl->dir);

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (++entries > HCB_FLEET_SCAN_MAX) {
			fl->counts.overflow = 1;
			break;
		}
		if (judge(fl, dirfd(d), de->d_name, &one) != 1)
			continue;
		if (found)
			fl->counts.joined++;
		if (!found || one.wall_ns < f->wall_ns)
			*f = one;
		found = 1;
	}
	closedir(d);
	if (found)
		fl->counts.fired++;
	return found;
}

int hcb_fleet_poll(struct hcb_fleet *fl, uint64_t now_ns, struct hcb_fleet_fire *f)
{
	struct stat st;

	if (now_ns < fl->next_stat_ns)
		return 0;
	fl->next_stat_ns = now_ns + HCB_FLEET_POLL_NS;
	if (stat(fl->dir, &st))
		return -errno;
	/* unchanged, as far as this host sees: a readdir only now and then */
	if (st.st_mtim.tv_sec == fl->mtime.tv_sec && st.st_mtim.tv_nsec == fl->mtime.tv_nsec &&
	    now_ns < fl->next_scan_ns)
		return 0;
	fl->mtime = st.st_mtim;
	fl->next_scan_ns = now_ns + HCB_FLEET_RESCAN_NS;
	return scan(fl, f);
}

void hcb_fleet_counts(const struct hcb_fleet *fl, struct hcb_fleet_counts *c)
{
	*c = fl->counts;
}

void hcb_fleet_free(struct hcb_fleet *fl)
{
	if (!fl)
		return;
	free(fl->seen);
	free(fl);
}
