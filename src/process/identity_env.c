/* SPDX-License-Identifier: MIT */
/*
 * identity_env.c - a launcher's environment read for who a process is
 * (identity.h): pure, any bytes give an answer (tests/fuzz/fuzz_ident.c).
 *
 * The launchers, innermost first: the one that started the process itself
 * knows it best (torchrun under SLURM: SLURM_PROCID numbers the node's
 * torchrun, RANK the worker; mpirun in an sbatch script: SLURM_PROCID is
 * the script's 0 in every rank, OMPI_COMM_WORLD_RANK the rank's).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/procid.h"
#include "identity.h"

enum var {
	V_RANK, V_WORLD_SIZE, V_TORCH_RUN,
	V_OMPI_RANK, V_OMPI_SIZE,
	V_PMI_RANK, V_PMI_SIZE,
	V_SLURM_PROCID, V_SLURM_NTASKS, V_SLURM_NPROCS, V_SLURM_JOB_ID,
	V_K8S_INDEX, V_JOBSET_INDEX, V_JOBSET_GLOBAL, V_JOBSET_REPLICAS,
	NVARS
};

static const char *const var_names[NVARS] = {
	[V_RANK] = "RANK", [V_WORLD_SIZE] = "WORLD_SIZE", [V_TORCH_RUN] = "TORCHELASTIC_RUN_ID",
	[V_OMPI_RANK] = "OMPI_COMM_WORLD_RANK", [V_OMPI_SIZE] = "OMPI_COMM_WORLD_SIZE",
	[V_PMI_RANK] = "PMI_RANK", [V_PMI_SIZE] = "PMI_SIZE",
	[V_SLURM_PROCID] = "SLURM_PROCID", [V_SLURM_NTASKS] = "SLURM_NTASKS",
	[V_SLURM_NPROCS] = "SLURM_NPROCS", [V_SLURM_JOB_ID] = "SLURM_JOB_ID",
	[V_K8S_INDEX] = "JOB_COMPLETION_INDEX", [V_JOBSET_INDEX] = "JOB_INDEX",
	[V_JOBSET_GLOBAL] = "JOB_GLOBAL_INDEX", [V_JOBSET_REPLICAS] = "GLOBAL_REPLICAS",
};

/* A variable as found: absent, its value, or there twice with two values. */
struct found {
	const char *val;
	size_t len;
	int state;          /* 0 absent, 1 there, -1 there twice, differing */
};

/* Each entry of env (NUL-separated; the last may lack its NUL) to fn. */
static void each_entry(const char *env, size_t len, void (*fn)(const char *e, size_t n, void *ctx),
		       void *ctx)
{
	size_t at = 0;

	while (at < len) {
		const char *nul = memchr(env + at, '\0', len - at);
		size_t n = nul ? (size_t)(nul - (env + at)) : len - at;

		if (n)
			fn(env + at, n, ctx);
		at += n + 1;
	}
}

/* NAME=VALUE: the value of an entry of that name, or NULL. */
static const char *value_of(const char *e, size_t n, const char *name, size_t *vlen)
{
	size_t k = strlen(name);

	if (n <= k || e[k] != '=' || memcmp(e, name, k))
		return NULL;
	*vlen = n - k - 1;
	return e + k + 1;
}

static void note(struct found *f, const char *val, size_t len)
{
	if (f->state == 0) {
		*f = (struct found){ val, len, 1 };
	} else if (f->state == 1 && (f->len != len || memcmp(f->val, val, len))) {
		f->state = -1;
	}
}

static void take_entry(const char *e, size_t n, void *ctx)
{
	struct found *vars = ctx;

	/* every name looked for is upper case: most entries stop here */
	if (e[0] < 'G' || e[0] > 'W')
		return;
	for (int i = 0; i < NVARS; i++) {
		size_t vlen;
		const char *val = value_of(e, n, var_names[i], &vlen);

		if (val) {
			note(&vars[i], val, vlen);
			return;
		}
	}
}

struct one_var {
	const char *name;
	struct found f;
};

static void take_one(const char *e, size_t n, void *ctx)
{
	struct one_var *o = ctx;
	size_t vlen;
	const char *val = value_of(e, n, o->name, &vlen);

	if (val)
		note(&o->f, val, vlen);
}

int hcb_ident_env_get(const char *env, size_t len, const char *name, const char **val,
		      size_t *vlen)
{
	struct one_var o = { .name = name };

	if (!name[0] || strchr(name, '='))
		return -EINVAL;
	each_entry(env, len, take_one, &o);
	if (o.f.state == 0)
		return -ENOENT;
	if (o.f.state < 0)
		return -EINVAL;
	*val = o.f.val;
	*vlen = o.f.len;
	return 0;
}

/* A launcher: the variables that give a process's index and the count. */
struct launcher {
	const char *source;
	enum var index, count, count2;   /* count2: an older name for count, or NVARS */
	int needs_count;                 /* a count is always set with the index */
};

static const struct launcher launchers[] = {
	{ "torchrun", V_RANK, V_WORLD_SIZE, NVARS, 1 },
	{ "openmpi", V_OMPI_RANK, V_OMPI_SIZE, NVARS, 1 },
	{ "pmi", V_PMI_RANK, V_PMI_SIZE, NVARS, 1 },
	{ "slurm", V_SLURM_PROCID, V_SLURM_NTASKS, V_SLURM_NPROCS, 1 },
	{ "kubernetes", V_K8S_INDEX, NVARS, NVARS, 0 },
};

static int bad(struct hcb_ident_env *out, const char *fmt, const char *a, const char *b)
{
	snprintf(out->why, sizeof(out->why), fmt, a, b);
	return 0;
}

/* 1 if a JobSet's variables say the completion index is not the job's:
 * it numbers a pod within one of several child Jobs (the job-wide one
 * needs each Job's parallelism, which no variable gives). */
static int jobset_split(const struct found *v)
{
	uint32_t n;

	if (!v[V_JOBSET_INDEX].state && !v[V_JOBSET_GLOBAL].state)
		return 0;
	return v[V_JOBSET_REPLICAS].state != 1 ||
	       hcb_procid_number(v[V_JOBSET_REPLICAS].val, v[V_JOBSET_REPLICAS].len,
				 HCB_PROCESS_MAX, &n) || n != 1;
}

/* Launcher l's word, where its index variable is there: 1 taken, 0 there
 * and refused (out->why), -1 not this launcher's process. */
static int try_launcher(const struct launcher *l, const struct found *v, struct hcb_ident_env *out)
{
	const struct found *idx = &v[l->index], *cnt = l->count < NVARS ? &v[l->count] : NULL;
	uint32_t index, count = 0;

	if (!idx->state)
		return -1;
	/* RANK alone is too common a name to mean torchrun's */
	if (l->index == V_RANK && !cnt->state)
		return -1;
	if (cnt && !cnt->state && l->count2 < NVARS)
		cnt = &v[l->count2];
	if (idx->state < 0 || (cnt && cnt->state < 0))
		return bad(out, "%s or %s is set twice, to two values: no process index taken "
			   "from them", var_names[l->index], cnt ? var_names[l->count] : "its count");
	if (hcb_procid_number(idx->val, idx->len, HCB_PROCESS_MAX - 1, &index))
		return bad(out, "%s is not a process index (digits, below %s): none taken",
			   var_names[l->index], "1048576");
	if (cnt && cnt->state && (hcb_procid_number(cnt->val, cnt->len, HCB_PROCESS_MAX, &count) ||
				  index >= count))
		return bad(out, "%s is not a process count above %s: no process index taken",
			   var_names[l->count], var_names[l->index]);
	if (l->needs_count && !count)
		return bad(out, "%s is set without %s: no process index taken", var_names[l->index],
			   var_names[l->count]);
	if (l->index == V_K8S_INDEX && jobset_split(v))
		return bad(out, "%s numbers a pod within one Job of a JobSet, not in the whole job: "
			   "no process index taken (%s gives it)", var_names[l->index],
			   "--process-index");
	out->process.index = index;
	out->process.count = count;
	snprintf(out->process.source, sizeof(out->process.source), "%s",
		 l->index == V_RANK && !v[V_TORCH_RUN].state ? "torch" : l->source);
	return 1;
}

/* The job's name: SLURM's job id, else torchrun's run id (its default,
 * "none", names nothing). */
static void job_name(const struct found *v, struct hcb_ident_env *out)
{
	static const enum var order[] = { V_SLURM_JOB_ID, V_TORCH_RUN };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		const struct found *f = &v[order[i]];

		if (f->state != 1 || !hcb_job_name_ok(f->val, f->len) ||
		    (f->len == 4 && !memcmp(f->val, "none", 4)))
			continue;
		memcpy(out->job, f->val, f->len);
		out->job[f->len] = '\0';
		return;
	}
}

int hcb_ident_env_parse(const char *env, size_t len, struct hcb_ident_env *out)
{
	struct found vars[NVARS] = { 0 };

	memset(out, 0, sizeof(*out));
	each_entry(env, len, take_entry, vars);
	for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
		if (try_launcher(&launchers[i], vars, out) >= 0)
			break;
	job_name(vars, out);
	return 0;
}
