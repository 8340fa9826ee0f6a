/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/grow.h"
#include "session.h"

struct hcb_sess {
	int dir_fd, fd, wake_fd;
	struct hcb_sess_shared *st;
	char name[64], wake_name[64];   /* in the run directory */
};

const char *hcb_sess_dir(void)
{
	const char *d = getenv("HCBTRACE_RUNDIR");

	return d && *d ? d : "/run/hcbtrace";
}

/*
 * The run directory, open: trusted only if this user or root owns it and
 * nobody else may write to it (root's barrier writes to the FIFOs there and
 * believes the files' answers: on a shared directory anyone could plant
 * both).  Nothing in it is reached by name from outside it (openat, no
 * symlink followed).  -EPERM: it is not to be trusted.
 */
static int open_dir(int create)
{
	const char *d = hcb_sess_dir();
	struct stat st;
	int fd;

	if (create && mkdir(d, 0700) && errno != EEXIST)
		return -errno;
	fd = open(d, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st) || (st.st_uid != geteuid() && st.st_uid != 0) || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* A file of the run directory that is what it should be (O_NOFOLLOW: a
 * symlink is not followed); -errno. */
static int open_in(int dir_fd, const char *name, int flags, mode_t type)
{
	int fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || (st.st_mode & S_IFMT) != type) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int names(pid_t target, pid_t session, char *status, char *wake, size_t size)
{
	int a = snprintf(status, size, "%d.%d.session", (int)target, (int)session);
	int b = snprintf(wake, size, "%d.%d.wake", (int)target, (int)session);

	return a < 0 || b < 0 || (size_t)a >= size || (size_t)b >= size ? -ENAMETOOLONG : 0;
}

/* 1 if some process holds the file's lock: its session is alive. */
static int locked(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		return 0;
	}
	return errno == EWOULDBLOCK;
}

/* Is the file name of the run directory left by a session that is gone?
 * A status file nobody holds a lock on is; a FIFO or a status file in the
 * making is once its session's process is. */
static int stale(int dir_fd, const char *name, pid_t session, const char *kind)
{
	int fd, dead = kill(session, 0) && errno == ESRCH;

	if (strcmp(kind, "session"))
		return dead;
	fd = open_in(dir_fd, name, O_RDONLY, S_IFREG);
	if (fd < 0)
		return fd == -EPERM;   /* no status file: nothing this run made */
	dead = !locked(fd);
	close(fd);
	return dead;
}

/* Remove what sessions that were killed left in the run directory. */
static void sweep(int dir_fd)
{
	/* a description of its own: a dup() would share the caller's place */
	int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *dir;

	if (fd < 0 || !(dir = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(dir))) {
		char kind[16];
		int tp, sp, n = 0;

		if (sscanf(de->d_name, "%d.%d.%15[a-z.]%n", &tp, &sp, kind, &n) != 3 ||
		    de->d_name[n] || sp <= 0 ||
		    (strcmp(kind, "session") && strcmp(kind, "session.tmp") && strcmp(kind, "wake")))
			continue;
		if (stale(dir_fd, de->d_name, sp, kind))
			unlinkat(dir_fd, de->d_name, 0);
	}
	closedir(dir);
}

/* The status file under a temporary name, locked, mapped and filled in. */
static int make_status(struct hcb_sess *s, const char *tmp, pid_t target, const char *what,
		       const char *output)
{
	unlinkat(s->dir_fd, tmp, 0);
	s->fd = openat(s->dir_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (s->fd < 0 || flock(s->fd, LOCK_EX) || ftruncate(s->fd, sizeof(*s->st)))
		return -errno;
	s->st = mmap(NULL, sizeof(*s->st), PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->st == MAP_FAILED) {
		s->st = NULL;
		return -errno;
	}
	s->st->version = HCB_SESS_VERSION;
	s->st->session_pid = getpid();
	s->st->target_pid = target;
	s->st->start_ns = hcb_clock_ns(CLOCK_REALTIME);
	s->st->state = HCB_SESS_RUNNING;
	snprintf(s->st->what, sizeof(s->st->what), "%s", what ? what : "");
	snprintf(s->st->output, sizeof(s->st->output), "%s", output ? output : "");
	__atomic_store_n(&s->st->magic, HCB_SESS_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

int hcb_sess_open(struct hcb_sess **out, pid_t target, const char *what, const char *output)
{
	char tmp[80];
	struct hcb_sess *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = s->wake_fd = -1;
	s->dir_fd = err = open_dir(1);
	if (err >= 0)
		err = names(target, getpid(), s->name, s->wake_name, sizeof(s->name));
	if (err < 0)
		goto fail;
	sweep(s->dir_fd);
	/* the FIFO first: a visible status file always has its wake-up */
	unlinkat(s->dir_fd, s->wake_name, 0);
	if (mkfifoat(s->dir_fd, s->wake_name, 0600)) {
		err = -errno;
		goto fail;
	}
	/* read-write, so the FIFO never reports end-of-file between barriers */
	s->wake_fd = err = open_in(s->dir_fd, s->wake_name, O_RDWR, S_IFIFO);
	if (err < 0)
		goto fail_wake;
	/* built under a temporary name and locked before it is renamed into
	 * place: a barrier never sees it unlocked and takes it for stale */
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->name);
	err = make_status(s, tmp, target, what, output);
	if (!err && renameat(s->dir_fd, tmp, s->dir_fd, s->name))
		err = -errno;
	if (err) {
		unlinkat(s->dir_fd, tmp, 0);
		goto fail_wake;
	}
	*out = s;
	return 0;
fail_wake:
	unlinkat(s->dir_fd, s->wake_name, 0);
fail:
	s->name[0] = s->wake_name[0] = '\0';
	hcb_sess_close(s);
	return err;
}

struct hcb_sess_shared *hcb_sess_status(struct hcb_sess *s)
{
	return s->st;
}

int hcb_sess_wake_fd(struct hcb_sess *s)
{
	return s->wake_fd;
}

void hcb_sess_drain(struct hcb_sess *s)
{
	char buf[256];

	while (read(s->wake_fd, buf, sizeof(buf)) > 0)
		;
}

uint64_t hcb_sess_requested(struct hcb_sess *s)
{
	hcb_sess_drain(s);
	return __atomic_load_n(&s->st->barrier_req, __ATOMIC_ACQUIRE);
}

uint64_t hcb_sess_deadline(struct hcb_sess *s)
{
	return __atomic_load_n(&s->st->barrier_deadline_ns, __ATOMIC_ACQUIRE);
}

void hcb_sess_done(struct hcb_sess *s, uint64_t req)
{
	__atomic_store_n(&s->st->barrier_ns, hcb_clock_ns(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
	__atomic_store_n(&s->st->barrier_done, req, __ATOMIC_RELEASE);
}

void hcb_sess_close(struct hcb_sess *s)
{
	if (!s)
		return;
	if (s->st) {
		__atomic_store_n(&s->st->state, HCB_SESS_ENDED, __ATOMIC_RELEASE);
		munmap(s->st, sizeof(*s->st));
	}
	if (s->name[0])
		unlinkat(s->dir_fd, s->name, 0);
	if (s->wake_name[0])
		unlinkat(s->dir_fd, s->wake_name, 0);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	if (s->fd >= 0)
		close(s->fd);   /* releases the lock */
	if (s->dir_fd >= 0)
		close(s->dir_fd);
	free(s);
}

/* ---- a barrier's side ---- */

static int peer_cmp(const void *a, const void *b)
{
	const struct hcb_sess_peer *x = a, *y = b;

	return (x->session_pid > y->session_pid) - (x->session_pid < y->session_pid);
}

/* The status file name of a live session of the run directory, mapped,
 * into *peer: 0, 1 if it is not one (stale, ended, not a status file), or
 * -errno. */
static int peer_open(int dir_fd, const char *name, pid_t session, struct hcb_sess_peer *peer)
{
	int fd = open_in(dir_fd, name, O_RDWR, S_IFREG);
	struct stat sb;
	void *m;

	if (fd < 0)
		return 1;   /* ended meanwhile */
	/* unlocked: its session was killed since the sweep (the next removes it) */
	if (!locked(fd) || fstat(fd, &sb) || (size_t)sb.st_size < sizeof(struct hcb_sess_shared)) {
		close(fd);
		return 1;
	}
	m = mmap(NULL, sizeof(struct hcb_sess_shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		close(fd);
		return -errno;
	}
	if (((struct hcb_sess_shared *)m)->magic != HCB_SESS_MAGIC ||
	    ((struct hcb_sess_shared *)m)->version != HCB_SESS_VERSION) {
		munmap(m, sizeof(struct hcb_sess_shared));
		close(fd);
		return 1;
	}
	*peer = (struct hcb_sess_peer){ .fd = fd, .session_pid = session, .st = m };
	return 0;
}

/* The live sessions of target, or with session pid session (either 0:
 * any). */
static int list_matching(pid_t target, pid_t session, struct hcb_sess_peer **peers, size_t *n)
{
	struct hcb_sess_peer *v = NULL, p;
	size_t len = 0, cap = 0;
	struct dirent *de;
	int err = 0, dir_fd;
	DIR *dir;

	*peers = NULL;
	*n = 0;
	dir_fd = open_dir(0);
	if (dir_fd < 0)
		return dir_fd == -ENOENT ? 0 : dir_fd;
	dir = fdopendir(dir_fd);
	if (!dir) {
		close(dir_fd);
		return -errno;
	}
	sweep(dir_fd);
	while ((de = readdir(dir)) && err >= 0) {
		char kind[16];
		int tp, sp, k = 0;

		if (sscanf(de->d_name, "%d.%d.%15[a-z]%n", &tp, &sp, kind, &k) != 3 || de->d_name[k] ||
		    (target && tp != target) || sp <= 0 || (session && sp != session) ||
		    strcmp(kind, "session"))
			continue;
		err = peer_open(dir_fd, de->d_name, sp, &p);
		if (err)
			continue;
		if (hcb_grow(&v, &cap, len + 1, sizeof(*v))) {
			munmap((void *)p.st, sizeof(struct hcb_sess_shared));
			close(p.fd);
			err = -ENOMEM;
			break;
		}
		v[len++] = p;
	}
	closedir(dir);
	if (err < 0) {
		hcb_sess_peers_free(v, len);
		return err;
	}
	if (len)
		qsort(v, len, sizeof(*v), peer_cmp);
	*peers = v;
	*n = len;
	return 0;
}

int hcb_sess_list(pid_t target, struct hcb_sess_peer **peers, size_t *n)
{
	if (target <= 0) {
		*peers = NULL;
		*n = 0;
		return 0;
	}
	return list_matching(target, 0, peers, n);
}

int hcb_sess_list_session(pid_t session_pid, struct hcb_sess_peer **peers, size_t *n)
{
	if (session_pid <= 0) {
		*peers = NULL;
		*n = 0;
		return 0;
	}
	return list_matching(0, session_pid, peers, n);
}

/* Raise the session's deadline for barriers to at least deadline_ns. */
static void raise_deadline(volatile struct hcb_sess_shared *st, uint64_t deadline_ns)
{
	uint64_t was = __atomic_load_n(&st->barrier_deadline_ns, __ATOMIC_RELAXED);

	while (was < deadline_ns &&
	       !__atomic_compare_exchange_n(&st->barrier_deadline_ns, &was, deadline_ns, 0,
					    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		;
}

int hcb_sess_request(pid_t target, struct hcb_sess_peer *peer, uint64_t deadline_ns)
{
	char status[64], wake[64];
	int fd, dir_fd, err = 0;

	/* the deadline before the request: the session reads them in turn */
	raise_deadline(peer->st, deadline_ns);
	peer->ticket = __atomic_add_fetch(&peer->st->barrier_req, 1, __ATOMIC_ACQ_REL);
	if (names(target, peer->session_pid, status, wake, sizeof(status)))
		return -ENAMETOOLONG;
	dir_fd = open_dir(0);
	if (dir_fd < 0)
		return dir_fd;
	fd = open_in(dir_fd, wake, O_WRONLY, S_IFIFO);
	close(dir_fd);
	if (fd < 0)
		return fd;   /* ENOENT/ENXIO: the session is ending */
	/* EAGAIN: the FIFO is full of earlier wake-ups, which will do */
	if (write(fd, "b", 1) < 0 && errno != EAGAIN)
		err = -errno;
	close(fd);
	return err;
}

int hcb_sess_peer_alive(const struct hcb_sess_peer *peer)
{
	return locked(peer->fd);
}

enum hcb_sess_answer hcb_sess_answer(const struct hcb_sess_peer *peer)
{
	if (__atomic_load_n(&peer->st->barrier_done, __ATOMIC_ACQUIRE) >= peer->ticket)
		return HCB_SESS_ANSWERED;
	if (__atomic_load_n(&peer->st->state, __ATOMIC_ACQUIRE) == HCB_SESS_ENDED ||
	    !hcb_sess_peer_alive(peer))
		return HCB_SESS_GONE;
	return HCB_SESS_WAITING;
}

void hcb_sess_peers_free(struct hcb_sess_peer *peers, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		munmap((void *)peers[i].st, sizeof(struct hcb_sess_shared));
		close(peers[i].fd);
	}
	free(peers);
}
