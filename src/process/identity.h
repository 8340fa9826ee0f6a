/* SPDX-License-Identifier: MIT */
/*
 * identity.h - who a traced process is (issue 36): the host of its UTS
 * namespace, its place among a job's processes and the job's name, from
 * the most authoritative source there is:
 *
 *   1. what its jax says: jax._src.distributed.global_state, read from
 *      outside and proven object by object (pydist.h), once its
 *      distributed client is up;
 *   2. its launcher's environment, /proc/PID/environ (the innermost
 *      launcher first: torchrun's RANK/WORLD_SIZE, Open MPI's, MPICH/PMI's,
 *      SLURM's, then a Kubernetes Indexed Job's completion index);
 *   3. what the user said (--process-index, --process-count, --job),
 *      which fills only what nothing above knows.
 *
 * The environment is the target's to write: it is read within a bound,
 * every value checked (digits only, index < count, a bounded count), and a
 * launcher's variables that do not check out name no process (one line
 * says why), never a guess.
 */
#ifndef HCB_IDENTITY_H
#define HCB_IDENTITY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/record.h"

/* /proc/PID/environ is read up to this much; a variable past it is not seen */
#define HCB_ENVIRON_MAX (4u << 20)

/* What a launcher's environment says. */
struct hcb_ident_env {
	struct hcb_process_id process;  /* source "": no launcher's */
	char job[HCB_JOB_MAX];          /* "": none */
	char why[192];                  /* a launcher's variables there and not
					 * taken, and why ("": none) */
};

/*
 * Parse an environment block (NUL-separated NAME=VALUE, as
 * /proc/PID/environ holds it; len bytes, the last may lack its NUL) for
 * the launchers' variables.  Pure: any bytes give an answer.  0.
 */
int hcb_ident_env_parse(const char *env, size_t len, struct hcb_ident_env *out);
/*
 * The value of variable name in env (as above): 0, *val (not
 * NUL-terminated) and *vlen; -ENOENT: not there; -EINVAL: there twice
 * with two values (which one a program sees depends on how it reads).
 */
int hcb_ident_env_get(const char *env, size_t len, const char *name, const char **val,
		      size_t *vlen);
/*
 * pid's environment as it started (/proc/PID/environ), whole variables
 * only, at most HCB_ENVIRON_MAX bytes: *env (malloc'ed) and *len.
 * -ESRCH, -EACCES (not ours to read), -ENOMEM.
 */
int hcb_ident_environ(pid_t pid, char **env, size_t *len);
/*
 * The host name of pid's UTS namespace, NUL-terminated in host[cap] (cap
 * > HCB_HOST_MAX): ours if it shares it, else read in it by a thread that
 * enters it alone for that.  -EPERM/-EACCES: not allowed to (the host is
 * not known, never guessed); -EINVAL: a name that is no text (UTF-8:
 * core/procid.h); -ESRCH; -errno.
 */
int hcb_ident_host(pid_t pid, char *host, size_t cap);

/* What the user said (flags), each checked already (index < count <=
 * HCB_PROCESS_MAX, a job's name hcb_job_name_ok). */
struct hcb_ident_flags {
	int has_index;                  /* 0: no --process-index */
	uint32_t index;
	uint32_t count;                 /* 0: no --process-count */
	const char *job;                /* NULL: no --job */
};

/* Who a process is, all sources weighed. */
struct hcb_identity {
	char host[HCB_HOST_MAX + 1];
	struct hcb_process_id process;
	char job[HCB_JOB_MAX];
	char why[384];                  /* what a source said and was not taken
					 * (a launcher's odd variable, a flag a
					 * better source contradicts), one line */
};

/*
 * Read pid's identity: its host, its launcher's environment, its jax's
 * distributed state, weighed with flags (may be NULL).  Never fails as a
 * whole: what could not be read is not known (id->why says so where the
 * user should hear it).  0, or -ESRCH for a process gone.
 */
int hcb_ident_read(pid_t pid, const struct hcb_ident_flags *flags, struct hcb_identity *id);
/*
 * Ask pid's jax again (its distributed client may have come up since the
 * attach): 1 if jax now says something id did not (id updated, id->why
 * names a source it overrules), 0 if nothing changed.
 */
int hcb_ident_recheck_jax(pid_t pid, struct hcb_identity *id);

#endif
