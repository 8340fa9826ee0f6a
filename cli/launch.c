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
#include "trace.h"

struct child {
	pid_t pid;
	int status;
	int reaped;
};

static int child_alive(void *ctx)
{
	struct child *ch = ctx;

	if (!ch->reaped && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid)
		ch->reaped = 1;
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

/* In the child: set up the handshake and exec; report exec failure on errfd. */
static void exec_child(char **argv, int ready_w, int go_r, int errfd)
{
	char env[64];
	int e;

	snprintf(env, sizeof(env), "%d,%d", ready_w, go_r);
	setenv("HCBTRACE_SYNC", env, 1);
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
 * long after jaxlib is loaded, so looking every millisecond or two is in time).
 * 1: loaded, 0: CMD exited (or was interrupted) without loading either.
 */
static int wait_loaded(struct child *ch, int ready_r)
{
	struct pollfd pfd = { .fd = ready_r, .events = POLLIN };
	char c;

	while (!trace_exiting) {
		int n = poll(&pfd, 1, 2);

		if (n > 0 && read(ready_r, &c, 1) == 1)
			return 1;
		/* a library of a version no provider reads does not count: its
		 * program may still load libhcbtap (the hcbtap package), whose
		 * handshake comes */
		if (trace_ready_on_map(ch->pid))
			return 1;
		if (!child_alive(ch))
			return 0;
	}
	return 0;
}

int trace_launch(struct trace *t, char **argv)
{
	int ready[2] = { -1, -1 }, go[2] = { -1, -1 }, errp[2] = { -1, -1 };
	struct child ch = { 0 };
	int code, exec_errno = 0;

	if (pipe(ready) || pipe(go) || pipe2(errp, O_CLOEXEC)) {
		cli_err("cannot create pipes: %s", strerror(errno));
		code = EXIT_FAIL;
		goto out;
	}
	ch.pid = fork();
	if (ch.pid < 0) {
		cli_err("cannot fork: %s", strerror(errno));
		code = EXIT_FAIL;
		goto out;
	}
	if (ch.pid == 0) {
		close(ready[0]);
		close(go[1]);
		close(errp[0]);
		exec_child(argv, ready[1], go[0], errp[1]);
	}
	close(ready[1]);
	close(go[0]);
	close(errp[1]);
	ready[1] = go[0] = errp[1] = -1;
	fcntl(ready[0], F_SETFD, FD_CLOEXEC);
	fcntl(go[1], F_SETFD, FD_CLOEXEC);

	if (read(errp[0], &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno)) {
		cli_err("cannot run '%s': %s", argv[0], strerror(exec_errno));
		child_exit_code(&ch);
		code = 127;
		goto out;
	}
	if (!wait_loaded(&ch, ready[0])) {
		if (!trace_exiting)
			cli_warn("'%s' exited without loading libhcbtap: there were no taps to trace",
				 argv[0]);
		code = child_exit_code(&ch);
		goto out;
	}
	code = trace_attach(t, ch.pid);
	/* let CMD go on, attached or not */
	close(go[1]);
	go[1] = -1;
	if (code != EXIT_OK) {
		kill(ch.pid, SIGTERM);
		child_exit_code(&ch);
		goto out;
	}
	code = trace_run(t, child_alive, &ch);
	/* like bpftrace -c: when tracing ends first (-c, -d, an output error),
	 * CMD is not left running unwatched.  A CMD that exec'd another
	 * program ended the tracing, not the other way round: it runs on. */
	if (child_alive(&ch) && !trace_exec_seen(t))
		kill(ch.pid, SIGTERM);
	if (code == EXIT_OK)
		code = child_exit_code(&ch);
	else
		child_exit_code(&ch);
out:
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (go[i] >= 0)
			close(go[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return code;
}

