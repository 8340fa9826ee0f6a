/* SPDX-License-Identifier: MIT */
/*
 * launch.c - run a command under tracing from its very first tap.
 *
 * The BPF side is loaded before the command starts.  It runs with
 * HCBTRACE_SYNC naming two pipes: when its libhcbtap is loaded, the
 * library's constructor says so and waits until hcbtrace has attached, so
 * no tap can be emitted unseen.  A command that taps through a provider
 * with no handshake (jaxlib's) is attached as soon as it maps its library.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "launch_user.h"
#include "trace.h"

struct child {
	pid_t pid;
	int status;
	int reaped;
	struct trace *t;
	int ready_fd;    /* libhcbtap says it is loaded (the handshake) */
	int go_fd;       /* closed: it may go on; -1 once it has */
	int late;        /* a handshake now is a libhcbtap loaded after the attach */
};

enum loaded { LOADED_NOT, LOADED_HANDSHAKE, LOADED_ON_MAP };

/* Let CMD's libhcbtap go on (it waits for this after saying it is loaded). */
static void let_go(struct child *ch)
{
	if (ch->go_fd >= 0)
		close(ch->go_fd);
	ch->go_fd = -1;
}

/* A handshake after the session started on a library seen mapped: CMD
 * loaded libhcbtap too, which the session takes up before it goes on. */
static void late_handshake(struct child *ch)
{
	struct pollfd pfd = { .fd = ch->ready_fd, .events = POLLIN };
	char c;

	if (!ch->late || ch->go_fd < 0 || poll(&pfd, 1, 0) <= 0)
		return;
	if (read(ch->ready_fd, &c, 1) == 1)
		trace_attach_more(ch->t);
	let_go(ch);
}

static int child_alive(void *ctx)
{
	struct child *ch = ctx;

	late_handshake(ch);
	if (!ch->reaped && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid) {
		ch->reaped = 1;
		/* --until exit: an end hcbtrace did not cause */
		if (!trace_exiting)
			trace_ended(ch->t, ch->status);
	}
	return !ch->reaped;
}

static int child_exit_code(struct child *ch)
{
	while (!ch->reaped) {
		if (waitpid(ch->pid, &ch->status, 0) == ch->pid)
			ch->reaped = 1;
		else if (errno != EINTR)
			return EXIT_FAIL;
	}
	if (WIFEXITED(ch->status))
		return WEXITSTATUS(ch->status);
	if (WIFSIGNALED(ch->status))
		return 128 + WTERMSIG(ch->status);
	return EXIT_FAIL;
}

/*
 * --cuda, in the child: the CUDA driver loads CUDA_INJECTION64_PATH when it
 * starts; preloaded too, the library is mapped from the start, so that the
 * session finds its probe when it attaches (it does nothing until the
 * driver calls it).
 */
static void inject_cupti(const char *lib)
{
	const char *pre = getenv("LD_PRELOAD");
	char *both = NULL;

	setenv("CUDA_INJECTION64_PATH", lib, 1);
	if (pre && *pre && asprintf(&both, "%s:%s", lib, pre) > 0)
		setenv("LD_PRELOAD", both, 1);
	else
		setenv("LD_PRELOAD", lib, 1);
	free(both);
}

/* In the child: set up the handshake, become the user CMD runs as, and
 * exec; report failure on errfd (an exec's errno, or minus that of
 * becoming the user). */
static void exec_child(char **argv, int ready_w, int go_r, int errfd, const char *inject,
		       const struct launch_user *user)
{
	char env[64];
	int e = launch_user_become(user);

	if (e) {
		if (write(errfd, &e, sizeof(e)) != sizeof(e))
			_exit(127);
		_exit(127);
	}
	snprintf(env, sizeof(env), "%d,%d", ready_w, go_r);
	setenv("HCBTRACE_SYNC", env, 1);
	if (inject)
		inject_cupti(inject);
	signal(SIGPIPE, SIG_DFL);
	execvp(argv[0], argv);
	e = errno;
	if (write(errfd, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

/*
 * Wait for CMD's libhcbtap to say it is loaded, or for CMD to map a library
 * a provider attaches to on sight (jaxlib, for an unmodified JAX program: no
 * handshake, but its first tap comes only after XLA has compiled something,
 * long after jaxlib is loaded, so looking every millisecond or two is in
 * time; if it loads libhcbtap later, the session takes that up then).
 */
static enum loaded wait_loaded(struct child *ch)
{
	struct pollfd pfd = { .fd = ch->ready_fd, .events = POLLIN };
	char c;

	while (!trace_exiting) {
		int n = poll(&pfd, 1, 2);

		if (n > 0 && read(ch->ready_fd, &c, 1) == 1)
			return LOADED_HANDSHAKE;
		/* a library of a version no provider reads does not count: its
		 * program may still load libhcbtap (the hcbtap package), whose
		 * handshake comes */
		if (trace_ready_on_map(ch->t, ch->pid))
			return LOADED_ON_MAP;
		if (!child_alive(ch))
			return LOADED_NOT;
	}
	return LOADED_NOT;
}

/* Start argv with the handshake's pipes (and the CUPTI injection library
 * inject, if not NULL) as user; 0, or an exit code. */
static int start_child(struct child *ch, char **argv, const char *inject,
		       const struct launch_user *user)
{
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int exec_errno = 0, code = 0;

	if (pipe(ready) || pipe(go) || pipe2(errp, O_CLOEXEC)) {
		cli_err("cannot create pipes: %s", strerror(errno));
		code = EXIT_FAIL;
	} else if ((ch->pid = fork()) < 0) {
		cli_err("cannot fork: %s", strerror(errno));
		code = EXIT_FAIL;
	} else if (ch->pid == 0) {
		close(ready[0]);
		close(go[1]);
		close(errp[0]);
		exec_child(argv, ready[1], go[0], errp[1], inject, user);
	} else {
		close(errp[1]);
		errp[1] = -1;
		if (read(errp[0], &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno)) {
			if (exec_errno < 0)
				cli_err("cannot run '%s' as uid %u: %s", argv[0], (unsigned)user->uid,
					strerror(-exec_errno));
			else
				cli_err("cannot run '%s': %s", argv[0], strerror(exec_errno));
			child_exit_code(ch);
			code = 127;
		}
	}
	/* ours: the ends the child does not hold */
	ch->ready_fd = ready[0];
	ch->go_fd = go[1];
	fcntl(ch->ready_fd, F_SETFD, FD_CLOEXEC);
	fcntl(ch->go_fd, F_SETFD, FD_CLOEXEC);
	for (int i = 0; i < 2; i++) {
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (ready[1] >= 0)
		close(ready[1]);
	if (go[0] >= 0)
		close(go[0]);
	return code;
}

/* --cuda: libhcbtap_cupti.so, from $HCBTRACE_CUPTI_LIB, beside this
 * hcbtrace in its build tree, or where it is installed.  0, or an exit code. */
static int cupti_library(char *buf, size_t size)
{
	const char *env = getenv("HCBTRACE_CUPTI_LIB");
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (env && *env) {
		snprintf(buf, size, "%s", env);
	} else {
		exe[n > 0 ? n : 0] = '\0';
		slash = strrchr(exe, '/');
		snprintf(buf, size, "%.*s/../hcbtap/libhcbtap_cupti.so", slash ? (int)(slash - exe) : 1,
			 slash ? exe : ".");
		if (access(buf, R_OK) != 0)
			snprintf(buf, size, "%s/libhcbtap_cupti.so", HCB_LIBDIR);
	}
	if (access(buf, R_OK) == 0)
		return 0;
	cli_err("--cuda needs the CUPTI injection library, libhcbtap_cupti.so: none at %s (it "
		"is built where the CUDA toolkit's headers are, meson -Dcupti=enabled; or set "
		"HCBTRACE_CUPTI_LIB)", buf);
	return EXIT_SYSTEM;
}

/*
 * A library seen mapped has no handshake to hold CMD back while the session
 * attaches (loading the provider's BPF program takes a tenth of a second
 * or more, as long as XLA may take to compile and run its first callback):
 * CMD is stopped for that time.  1 if it was (and is to be let go with
 * resume()), 0 if it ended first.
 */
static int hold(struct child *ch)
{
	int status;

	if (kill(ch->pid, SIGSTOP))
		return 0;
	while (waitpid(ch->pid, &status, WUNTRACED) != ch->pid) {
		if (errno != EINTR)
			return 0;
	}
	if (WIFSTOPPED(status))
		return 1;
	ch->status = status;
	ch->reaped = 1;
	return 0;
}

static void resume(struct child *ch, int held)
{
	if (held)
		kill(ch->pid, SIGCONT);
}

int trace_launch_start(char **argv, int cuda, pid_t *pid, int *ready_fd, int *go_fd)
{
	struct child ch = { .ready_fd = -1, .go_fd = -1 };
	struct launch_user user;
	char cupti[4096];
	int code = cuda ? cupti_library(cupti, sizeof(cupti)) : 0;

	/* --follow's CMD, and all it starts, as whom record -- CMD runs */
	if (!code)
		code = launch_user_resolve(&user);
	if (!code)
		code = start_child(&ch, argv, cuda ? cupti : NULL, &user);
	*pid = ch.pid;
	*ready_fd = ch.ready_fd;
	*go_fd = ch.go_fd;
	return code;
}

int trace_launch(struct trace *t, char **argv)
{
	struct child ch = { .t = t, .ready_fd = -1, .go_fd = -1 };
	struct launch_user user;
	char cupti[4096];
	enum loaded how;
	int held = 0, ended_itself;
	int code = trace_wants_cuda(t) ? cupti_library(cupti, sizeof(cupti)) : 0;

	if (!code)
		code = launch_user_resolve(&user);
	if (!code)
		code = start_child(&ch, argv, trace_wants_cuda(t) ? cupti : NULL, &user);
	if (code)
		goto out;
	how = wait_loaded(&ch);
	if (how == LOADED_NOT) {
		if (!trace_exiting)
			cli_warn("'%s' exited without loading libhcbtap: there were no taps to trace",
				 argv[0]);
		code = child_exit_code(&ch);
		goto out;
	}
	if (how == LOADED_ON_MAP)
		held = hold(&ch);
	code = trace_attach(t, ch.pid);
	resume(&ch, held);
	/* let CMD go on, attached or not; a library seen mapped has no
	 * handshake: a libhcbtap loaded later has, and is taken up then */
	if (how == LOADED_HANDSHAKE || code != EXIT_OK)
		let_go(&ch);
	ch.late = 1;
	if (code != EXIT_OK) {
		kill(ch.pid, SIGTERM);
		child_exit_code(&ch);
		goto out;
	}
	code = trace_run(t, child_alive, &ch);
	/* CMD ended the session itself (--until exit fired on it, or not) */
	ended_itself = ch.reaped;
	let_go(&ch);
	/* like bpftrace -c: when tracing ends first (-c, -d, an output error),
	 * CMD is not left running unwatched.  A CMD that exec'd another
	 * program ended the tracing, not the other way round: it runs on.
	 * Stopped at a trigger (--on-trigger stop), CMD is waited for until
	 * it is resumed and ends: were hcbtrace gone, a stopped CMD in an
	 * orphaned process group would be sent SIGHUP. */
	if (child_alive(&ch) && !trace_exec_seen(t) && !trace_stopped_target(t))
		kill(ch.pid, SIGTERM);
	/* a flight recorder that fired ended CMD on purpose: its recording is
	 * what was asked for, whatever CMD's end says; a CMD that ended by
	 * itself says how */
	if (code == EXIT_OK && (!trace_triggered(t) || ended_itself))
		code = child_exit_code(&ch);
	else
		child_exit_code(&ch);
out:
	let_go(&ch);
	if (ch.ready_fd >= 0)
		close(ch.ready_fd);
	return code;
}
