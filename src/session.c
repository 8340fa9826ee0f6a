/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "grow.h"
#include "session.h"

struct hcb_sess {
	int fd, wake_fd;
	struct hcb_sess_shared *st;
	char path[4096], wake_path[4096];
};

const char *hcb_sess_dir(void)
{
	const char *d = getenv("HCBTRACE_RUNDIR");

	return d && *d ? d : "/run/hcbtrace";
}

static int make_dir(void)
{
	if (mkdir(hcb_sess_dir(), 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

static int names(pid_t target, pid_t session, char *status, char *wake, size_t size)
{
	int a = snprintf(status, size, "%s/%d.%d.session", hcb_sess_dir(), (int)target, (int)session);
	int b = snprintf(wake, size, "%s/%d.%d.wake", hcb_sess_dir(), (int)target, (int)session);

	return a < 0 || b < 0 || (size_t)a >= size || (size_t)b >= size ? -ENAMETOOLONG : 0;
}

int hcb_sess_open(struct hcb_sess **out, pid_t target, const char *what, const char *output)
{
	char tmp[4200];
	struct hcb_sess *s;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->fd = s->wake_fd = -1;
	err = make_dir();
	if (!err)
		err = names(target, getpid(), s->path, s->wake_path, sizeof(s->path));
	if (err)
		goto fail;
	/* the FIFO first: a visible status file always has its wake-up */
	unlink(s->wake_path);
	if (mkfifo(s->wake_path, 0600)) {
		err = -errno;
		goto fail;
	}
	/* read-write, so the FIFO never reports end-of-file between barriers */
	s->wake_fd = open(s->wake_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (s->wake_fd < 0) {
		err = -errno;
		goto fail;
	}
	/* built under a temporary name and locked before it is renamed into
	 * place: a barrier never sees it unlocked and takes it for stale */
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->path);
	unlink(tmp);
	s->fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (s->fd < 0 || flock(s->fd, LOCK_EX) || ftruncate(s->fd, sizeof(*s->st))) {
		err = -errno;
		goto fail_tmp;
	}
	s->st = mmap(NULL, sizeof(*s->st), PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, 0);
	if (s->st == MAP_FAILED) {
		s->st = NULL;
		err = -errno;
		goto fail_tmp;
	}
	s->st->version = HCB_SESS_VERSION;
	s->st->session_pid = getpid();
	s->st->target_pid = target;
	s->st->start_ns = hcb_clock_ns(CLOCK_REALTIME);
	s->st->state = HCB_SESS_RUNNING;
	snprintf(s->st->what, sizeof(s->st->what), "%s", what ? what : "");
	snprintf(s->st->output, sizeof(s->st->output), "%s", output ? output : "");
	__atomic_store_n(&s->st->magic, HCB_SESS_MAGIC, __ATOMIC_RELEASE);
	if (rename(tmp, s->path)) {
		err = -errno;
		goto fail_tmp;
	}
	*out = s;
	return 0;
fail_tmp:
	unlink(tmp);
fail:
	if (s->wake_fd >= 0)
		unlink(s->wake_path);
	s->path[0] = s->wake_path[0] = '\0';
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

uint64_t hcb_sess_requested(struct hcb_sess *s)
{
	char buf[256];

	while (read(s->wake_fd, buf, sizeof(buf)) > 0)
		;
	return __atomic_load_n(&s->st->barrier_req, __ATOMIC_ACQUIRE);
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
	if (s->path[0])
		unlink(s->path);
	if (s->wake_path[0])
		unlink(s->wake_path);
	if (s->wake_fd >= 0)
		close(s->wake_fd);
	if (s->fd >= 0)
		close(s->fd);   /* releases the lock */
	free(s);
}

/* ---- a barrier's side ---- */

/* 1 if some process holds the file's lock: its session is alive. */
static int locked(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		return 0;
	}
	return errno == EWOULDBLOCK;
}

static int peer_cmp(const void *a, const void *b)
{
	const struct hcb_sess_peer *x = a, *y = b;

	return (x->session_pid > y->session_pid) - (x->session_pid < y->session_pid);
}

int hcb_sess_list(pid_t target, struct hcb_sess_peer **peers, size_t *n)
{
	struct hcb_sess_peer *v = NULL;
	size_t len = 0, cap = 0;
	struct dirent *de;
	DIR *dir;
	int err = 0;

	*peers = NULL;
	*n = 0;
	dir = opendir(hcb_sess_dir());
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(dir))) {
		char status[4096], wake[4096], kind[16];
		int tp, sp, fd;
		struct stat sb;
		void *m;

		if (sscanf(de->d_name, "%d.%d.%15s", &tp, &sp, kind) != 3 || tp != target ||
		    strcmp(kind, "session"))
			continue;
		if (names(target, sp, status, wake, sizeof(status)))
			continue;
		fd = open(status, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;   /* ended meanwhile */
		if (!locked(fd)) {
			/* left behind by a session that was killed */
			unlink(status);
			unlink(wake);
			close(fd);
			continue;
		}
		if (fstat(fd, &sb) || (size_t)sb.st_size < sizeof(struct hcb_sess_shared)) {
			close(fd);
			continue;
		}
		m = mmap(NULL, sizeof(struct hcb_sess_shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			err = -errno;
			close(fd);
			break;
		}
		if (((struct hcb_sess_shared *)m)->magic != HCB_SESS_MAGIC ||
		    ((struct hcb_sess_shared *)m)->version != HCB_SESS_VERSION) {
			munmap(m, sizeof(struct hcb_sess_shared));
			close(fd);
			continue;
		}
		if (hcb_grow(&v, &cap, len + 1, sizeof(*v))) {
			munmap(m, sizeof(struct hcb_sess_shared));
			close(fd);
			err = -ENOMEM;
			break;
		}
		v[len++] = (struct hcb_sess_peer){ .fd = fd, .session_pid = sp, .st = m };
	}
	closedir(dir);
	if (err) {
		hcb_sess_peers_free(v, len);
		return err;
	}
	if (len)
		qsort(v, len, sizeof(*v), peer_cmp);
	*peers = v;
	*n = len;
	return 0;
}

int hcb_sess_request(pid_t target, struct hcb_sess_peer *peer)
{
	char status[4096], wake[4096];
	int fd, err = 0;

	peer->ticket = __atomic_add_fetch(&peer->st->barrier_req, 1, __ATOMIC_ACQ_REL);
	if (names(target, peer->session_pid, status, wake, sizeof(status)))
		return -ENAMETOOLONG;
	fd = open(wake, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;   /* ENOENT/ENXIO: the session is ending */
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
