/* SPDX-License-Identifier: MIT */
/*
 * hcbtrace view -p PID | FILE: the interactive viewer (tui/).
 *
 * Live, the session is attach's (trace.c): the same attach, accounting and
 * barriers, run on a thread of its own, its records going into the
 * viewer's model (tui/sink.h) instead of a file, so the screen never holds
 * up the ring buffer's reader.  A recording is browsed in place, however
 * large: indexed on a thread while it is shown, its taps read back as they
 * are shown (tui/source.h).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"
#include "cli.h"
#include "job_input.h"
#include "recfile.h"
#include "sink.h"
#include "source.h"
#include "trace.h"
#include "trace_many.h"

static const struct cli_opt view_opts[] = {
	{ 'p', "pid", "PID", "the running process to watch (repeatable; else FILE: a recording)" },
	FILTER_OPTS,
	PROVIDER_OPT,
	{ 'b', "buffer-size", "MIB", "live: ring buffer size in MiB (default 64)" },
	MAX_LAG_OPT("live: "),
	{ 'h', "help", NULL, "show this help" },
	{ 0 }
};

struct view_args {
	const struct cli_cmd *cmd;
	struct trace_opts o;
	int pid;                /* the first -p */
	pid_t pids[TRACE_MANY_MAX];
	size_t npids;
};

static int add_pid(struct view_args *a, const char *arg)
{
	int pid;

	if (a->npids == TRACE_MANY_MAX)
		return cli_usage_err(a->cmd, "at most %d processes (-p)", TRACE_MANY_MAX);
	if (cli_parse_pid(a->cmd, arg, &pid))
		return EXIT_USAGE;
	for (size_t i = 0; i < a->npids; i++) {
		if (a->pids[i] == pid)
			return cli_usage_err(a->cmd, "process %d is given twice (-p)", pid);
	}
	a->pids[a->npids++] = pid;
	a->pid = (int)a->pids[0];
	return 0;
}

static int view_opt(void *ctx, int c, const char *arg)
{
	struct view_args *a = ctx;

	if (c == 'p')
		return add_pid(a, arg);
	return trace_opt(a->cmd, &a->o, c, arg);
}

/*
 * While curses owns the terminal, what goes to stderr (the session's
 * warnings and summary) waits in a temporary file, and is printed once the
 * terminal is back.
 */
struct held_stderr {
	int saved;
	FILE *tmp;
};

static void hold_stderr(struct held_stderr *h)
{
	h->saved = -1;
	h->tmp = tmpfile();
	if (!h->tmp)
		return;
	fflush(stderr);
	h->saved = dup(STDERR_FILENO);
	if (h->saved < 0 || dup2(fileno(h->tmp), STDERR_FILENO) < 0) {
		if (h->saved >= 0)
			close(h->saved);
		h->saved = -1;
		fclose(h->tmp);
		h->tmp = NULL;
	}
}

static void release_stderr(struct held_stderr *h)
{
	char buf[4096];
	size_t n;

	if (!h->tmp)
		return;
	fflush(stderr);
	dup2(h->saved, STDERR_FILENO);
	close(h->saved);
	rewind(h->tmp);
	while ((n = fread(buf, 1, sizeof(buf), h->tmp)) > 0)
		fwrite(buf, 1, n, stderr);
	fclose(h->tmp);
	h->tmp = NULL;
}

static int show(struct tui_sink *sink, const char *source, int live)
{
	struct tui_app_opts ao = { .sink = sink, .source = source, .live = live,
				   .stop = &trace_exiting };
	int err = tui_run(&ao);

	if (err == -ENOTTY) {
		cli_err("hcbtrace view cannot use this terminal (TERM=%s)",
			getenv("TERM") ? getenv("TERM") : "");
		return EXIT_USAGE;
	}
	if (err) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	return EXIT_OK;
}

/* ---- live ---- */

struct live_run {
	struct trace *t;
	struct tui_sink *sink;
};

/* A tracing thread: resizes are the screen's business. */
static void block_winch(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

static void *live_thread(void *arg)
{
	struct live_run *r = arg;
	int code;

	block_winch();
	code = trace_run(r->t, NULL, NULL);
	tui_sink_lock(r->sink);
	r->sink->done = 1;
	r->sink->code = code;
	tui_sink_unlock(r->sink);
	return NULL;
}

/* The header's name for the program: the first word of its command line,
 * without directories, cut to 40 characters. */
static void source_name(char *buf, size_t size, int pid, const char *comm)
{
	const char *end = strchr(comm, ' ');
	int len = end ? (int)(end - comm) : (int)strlen(comm);
	const char *slash = memrchr(comm, '/', (size_t)len);

	if (slash) {
		len -= (int)(slash + 1 - comm);
		comm = slash + 1;
	}
	snprintf(buf, size, "pid %d (%.*s)", pid, len > 40 ? 40 : len, comm);
}

static int view_live(struct view_args *a)
{
	struct tui_sink sink;
	struct live_run run = { .sink = &sink };
	struct held_stderr held;
	struct trace *t = NULL;
	pthread_t th;
	char source[320];
	int code;

	if (tui_sink_init(&sink, 0, 0)) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	trace_install_signals();
	code = trace_new_into(&t, &a->o, tui_sink_receiver(&sink), "the viewer");
	if (code == EXIT_OK)
		code = trace_attach(t, a->pid);
	if (code != EXIT_OK) {
		trace_free(t);
		tui_sink_free(&sink);
		return code;
	}
	run.t = t;
	source_name(source, sizeof(source), a->pid, trace_comm(t));
	hold_stderr(&held);
	if (pthread_create(&th, NULL, live_thread, &run)) {
		release_stderr(&held);
		cli_err("cannot start the session's thread");
		trace_free(t);
		tui_sink_free(&sink);
		return EXIT_FAIL;
	}
	code = show(&sink, source, 1);
	/* q, or Ctrl-C: the session detaches, drains and summarizes */
	trace_exiting = 1;
	pthread_join(th, NULL);
	release_stderr(&held);
	if (code == EXIT_OK)
		code = sink.code;
	trace_free(t);
	tui_sink_free(&sink);
	return code;
}

/* ---- several processes live ---- */

/* Each process's session a trace of its own (trace_many.h, as record and
 * attach -p A -p B run them), every one into the one model, as the
 * model's process of its place in -p. */
struct many_run {
	struct tui_sink sink;
	struct tui_sink_proc procs[TRACE_MANY_MAX];
	const pid_t *pids;
	size_t n;
	struct trace_many *m;
};

static struct hcb_receiver many_into(void *ctx, pid_t pid)
{
	struct many_run *r = ctx;
	size_t i = 0;

	while (i + 1 < r->n && r->pids[i] != pid)
		i++;
	return tui_sink_receiver_of(&r->procs[i]);
}

static void *many_thread(void *arg)
{
	struct many_run *r = arg;
	int code;

	block_winch();
	code = trace_many_run(r->m);
	tui_sink_lock(&r->sink);
	r->sink.done = 1;
	r->sink.code = code;
	tui_sink_unlock(&r->sink);
	return NULL;
}

/* The processes, before any of them is attached: who each is, by pid. */
static int many_register(struct many_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct hcb_session_info who = { .pid = r->pids[i] };

		r->procs[i] = (struct tui_sink_proc){ .sink = &r->sink, .proc = (unsigned int)i };
		if (tui_model_process(&r->sink.model, (unsigned int)i, &who, NULL))
			return -ENOMEM;
	}
	r->sink.model.cur_proc = 0;
	return 0;
}

static int view_many(struct view_args *a)
{
	struct many_run *r = calloc(1, sizeof(*r));
	struct held_stderr held;
	char source[64];
	pthread_t th;
	int code;

	if (!r || tui_sink_init(&r->sink, 0, 0)) {
		free(r);
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	r->pids = a->pids;
	r->n = a->npids;
	trace_install_signals();
	code = EXIT_FAIL;
	if (many_register(r))
		cli_err("out of memory");
	else
		code = trace_many_start(&r->m, &a->o, a->pids, a->npids, many_into, r, "the viewer");
	if (code == EXIT_OK) {
		snprintf(source, sizeof(source), "%zu processes", a->npids);
		hold_stderr(&held);
		if (pthread_create(&th, NULL, many_thread, r)) {
			release_stderr(&held);
			cli_err("cannot start the sessions' thread");
			trace_exiting = 1;
			code = trace_many_run(r->m);
			code = code == EXIT_OK ? EXIT_FAIL : code;
		} else {
			code = show(&r->sink, source, 1);
			trace_exiting = 1;
			pthread_join(th, NULL);
			release_stderr(&held);
			if (code == EXIT_OK)
				code = r->sink.code;
		}
	}
	tui_sink_free(&r->sink);
	free(r);
	return code;
}

/* ---- a recording ---- */

static int open_failed(const char *path, int err)
{
	if (err == -EPROTONOSUPPORT)
		cli_err("'%s': not a recording hcbtrace reads (JSONL or .hcbcap)", path);
	else
		cli_err("cannot open '%s': %s", path, strerror(-err));
	return EXIT_FAIL;
}

/* A stream (a pipe, a FIFO) cannot be read back: it is read whole first,
 * as replay reads it, its latest taps held (the live model's ring). */
static int view_stream(struct view_args *a, const char *path, const char *name)
{
	struct hcb_reader *r = NULL;
	struct tui_sink sink;
	struct hcb_record rec;
	int n, code;

	if (tui_sink_init(&sink, 0, 0)) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	n = hcb_reader_open(&r, path);
	if (n) {
		tui_sink_free(&sink);
		return open_failed(path, n);
	}
	trace_install_signals();
	while (!trace_exiting && (n = hcb_reader_next(r, &rec)) == 1)
		if (rec.kind != HCB_REC_TAP || hcb_filter_match(&a->o.filter, rec.tap.device, rec.tap.consumer))
			tui_model_add(&sink.model, &rec);
	if (n < 0 && n != -ENODATA) {
		cli_err("%s", hcb_reader_error(r));
		hcb_reader_close(r);
		tui_sink_free(&sink);
		return EXIT_FAIL;
	}
	if (n == -ENODATA)
		cli_warn("%s", hcb_reader_error(r));
	filter_warn_unmatched(&a->o.filter, (const struct hcb_registry *[]){ hcb_reader_consumers(r) }, 1);
	hcb_reader_close(r);
	tui_model_rates_from_ts(&sink.model);
	code = trace_exiting ? EXIT_OK : show(&sink, name, 0);
	tui_sink_free(&sink);
	return code;
}

/*
 * Browsed in place (tui/source.h): the display opens once the first part
 * is read (whole, as replay reads it: damage there keeps it closed, with
 * replay's message and exit status), the rest is indexed meanwhile.  Damage
 * found later is said when the display closes, as replay says it after
 * what came before.
 */
static int view_file(struct view_args *a, const char *path)
{
	const char *base = strrchr(path, '/'), *name = base && base[1] ? base + 1 : path, *msg;
	struct tui_source *src = NULL;
	struct tui_sink sink;
	struct stat sb;
	int n, code;

	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
		return view_stream(a, path, name);
	n = tui_source_open(&src, path, &sink, &a->o.filter);
	if (n)
		return open_failed(path, n);
	trace_install_signals();
	if (tui_source_start(src)) {
		cli_err("cannot start the thread that indexes '%s'", path);
		tui_source_close(src);
		return EXIT_FAIL;
	}
	n = tui_source_checked(src, &msg);
	if (n < 0 && n != -ENODATA) {
		cli_err("%s", msg);
		tui_source_close(src);
		return EXIT_FAIL;
	}
	code = trace_exiting ? EXIT_OK : show(&sink, name, 0);
	n = tui_source_result(src, &msg);
	if (n == -ENODATA) {
		cli_warn("%s", msg);
	} else if (n < 0 && n != -EINTR) {
		cli_err("%s", msg);
		code = code == EXIT_OK ? EXIT_FAIL : code;
	}
	if (n != -EINTR)
		filter_warn_unmatched(&a->o.filter, (const struct hcb_registry *[]){ tui_source_consumers(src, 0) }, 1);
	tui_source_close(src);
	return code;
}

/* A job's members' troubles, as replay says them once the display is
 * closed: a file cut short is shown up to there, damage fails the run. */
static int job_troubles(const struct tui_source *src, int code)
{
	const char *msg = NULL;
	int err = 0;
	size_t n = tui_source_troubles(src, 0, &err, &msg);

	for (size_t i = 0; i < n && i < TUI_SOURCE_TROUBLES; i++) {
		tui_source_troubles(src, i, &err, &msg);
		if (err == -ENODATA) {
			cli_warn("%s", msg);
			continue;
		}
		cli_err("%s", msg);
		code = code == EXIT_OK ? EXIT_FAIL : code;
	}
	if (n > TUI_SOURCE_TROUBLES)
		cli_warn("%zu more files were damaged or cut short", n - TUI_SOURCE_TROUBLES);
	return code;
}

static void job_unmatched(const struct view_args *a, const struct tui_source *src)
{
	size_t n = tui_source_members(src);
	const struct hcb_registry **regs = calloc(n, sizeof(*regs));

	if (!regs)
		return;
	for (size_t i = 0; i < n; i++)
		regs[i] = tui_source_consumers(src, i);
	filter_warn_unmatched(&a->o.filter, regs, n);
	free(regs);
}

/* A job's recordings, browsed as one (tui/source.h): its processes'
 * streams apart; a member's damage is said when the display closes. */
static int view_job(struct view_args *a, const char *const *paths, int npaths)
{
	struct tui_source *src = NULL;
	struct hcb_jobset set;
	struct tui_sink sink;
	char why[1024], name[160];
	const char *msg;
	int n, code;

	hcb_jobset_init(&set);
	code = job_input_load(&set, paths, npaths, 0, EXIT_FAIL);
	if (!code && tui_source_open_job(&src, &set, &sink, &a->o.filter, why, sizeof(why))) {
		cli_err("%s", why);
		code = EXIT_FAIL;
	}
	if (!code) {
		trace_install_signals();
		if (tui_source_start(src)) {
			cli_err("cannot start the thread that indexes the recordings");
			code = EXIT_FAIL;
		}
	}
	if (!code) {
		snprintf(name, sizeof(name), "%.100s (%zu process%s)", npaths == 1 ? cli_vis(paths[0]) :
			 "recordings", set.n, set.n == 1 ? "" : "es");
		code = trace_exiting ? EXIT_OK : show(&sink, name, 0);
		n = tui_source_result(src, &msg);
		if (n != -EINTR) {
			code = job_troubles(src, code);
			job_unmatched(a, src);
		}
	}
	tui_source_close(src);
	hcb_jobset_free(&set);
	return code;
}

static int run_view(const struct cli_cmd *cmd, int argc, char **argv)
{
	struct view_args a = { .cmd = cmd };
	const char *const *files;
	int code, nfiles;

	trace_opts_init(&a.o);
	a.o.quiet = 0;
	code = cli_parse_opts(cmd, argc, argv, view_opt, &a);
	if (code)
		return code == CLI_HELP_SHOWN ? EXIT_OK : code;
	files = (const char *const *)argv + optind;
	nfiles = argc - optind;
	if (nfiles && a.pid)
		return cli_usage_err(cmd, "give a pid (-p) or a recording, not both");
	if (!nfiles && !a.pid)
		return cli_usage_err(cmd, "what to view? hcbtrace view -p PID, or hcbtrace view FILE | DIR");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		cli_err("hcbtrace view needs a terminal");
		return EXIT_USAGE;
	}
	if (a.npids > 1)
		return view_many(&a);
	if (a.pid)
		return view_live(&a);
	return job_input_is_job(files, nfiles) ? view_job(&a, files, nfiles) : view_file(&a, files[0]);
}

const struct cli_cmd cmd_view = {
	.name = "view",
	.run = run_view,
	.summary = "watch a running program's taps, or a recording, in an interactive viewer",
	.usage = "[OPTIONS] -p PID [-p PID...] | FILE | DIR | FILE FILE...",
	.description = "Watch a running program's taps live, or browse a recording (.jsonl or .hcbcap), "
		       "or a job's recordings as one (a directory, or several files), or several "
		       "processes live (-p given more than once: a column says which process): "
		       "streams per process, device and consumer, the latest taps, a tap in detail as "
		       "id_print printed it with min/max/mean, and a sparkline per device; press ? for "
		       "the keys.",
	.opts = view_opts,
};
