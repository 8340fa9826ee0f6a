/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: who a traced process is (issue 36), from what the
 * process controls: its environment (src/process/identity_env.c), the
 * values a recording's name takes from it (src/core/namepat.c), and its
 * memory, where jax's distributed state is read (src/process/pydist.c,
 * pydict.c, pyobj.c).  Whatever the bytes, each gives an answer or an
 * error, within its bounds, nothing more.
 *
 * Input: 1 byte of mode, then
 *   0: an environment block (NUL-separated NAME=VALUE);
 *   1: 1 byte of pattern length P, P bytes of pattern, 1 byte of host
 *      length H, H bytes of host, then an environment block;
 *   2: 1 byte choosing the Python (3.10 + b % 4), then the process's
 *      memory, mapped at IMAGE_BASE, where _PyRuntime is.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "core/namepat.h"
#include "core/procid.h"
#include "process/identity.h"
#include "process/pydist.h"
#include "process/pyver.h"
#include "process/target.h"

#define IMAGE_BASE 0x10000ull

static const uint8_t *image;
static size_t image_size;

/* The target's memory is the input; nothing else of it is there. */
int hcb_target_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	(void)pid;
	if (addr < IMAGE_BASE || addr - IMAGE_BASE > image_size ||
	    len > image_size - (addr - IMAGE_BASE))
		return -EFAULT;
	memcpy(buf, image + (addr - IMAGE_BASE), len);
	return 0;
}

int hcb_target_symbol_offset(const char *lib_path, const char *name, uint64_t *off)
{
	(void)lib_path;
	(void)name;
	(void)off;
	return -ENOENT;
}

int hcb_target_find_mapping(pid_t pid, int (*is_it)(const char *path), char *path, size_t size,
			    uint64_t *base)
{
	(void)pid;
	(void)is_it;
	(void)path;
	(void)size;
	(void)base;
	return -ENOENT;
}

static void environment(const char *env, size_t len)
{
	static const char *const names[] = { "SLURM_PROCID", "RANK", "X", "" };
	struct hcb_ident_env out;
	const char *val;
	size_t vlen;

	assert(hcb_ident_env_parse(env, len, &out) == 0);
	assert(hcb_procid_check(&out.process) >= 0);
	assert(!out.job[0] || hcb_job_name_ok(out.job, strlen(out.job)));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (hcb_ident_env_get(env, len, names[i], &val, &vlen) == 0)
			assert(val >= env && val + vlen <= env + len);
}

struct env_block {
	const char *env;
	size_t len;
};

static int env_of(void *ctx, const char *name, const char **val, size_t *len)
{
	const struct env_block *b = ctx;

	return hcb_ident_env_get(b->env, b->len, name, val, len);
}

static void pattern(const uint8_t *data, size_t size)
{
	char pat[256], host[256], out[512], why[256];
	struct env_block b;
	struct hcb_namepat_vals v = { .pid = 4242, .has_index = 1, .index = 3, .env = env_of,
				      .ctx = &b };
	size_t p, h;

	if (size < 2)
		return;
	p = data[0] < size - 1 ? data[0] : size - 1;
	memcpy(pat, data + 1, p);
	pat[p] = '\0';
	data += 1 + p;
	size -= 1 + p;
	h = size && data[0] < size ? data[0] : 0;
	memcpy(host, size ? data + 1 : data, h);
	host[h] = '\0';
	b.env = (const char *)data + (size ? 1 + h : 0);
	b.len = size ? size - 1 - h : 0;
	v.host = host;
	if (hcb_namepat_expand(pat, &v, out, sizeof(out), why, sizeof(why)) == 0) {
		assert(strlen(out) < sizeof(out));
		for (size_t i = 0; out[i]; i++)
			assert((unsigned char)out[i] >= 0x20 || memchr(pat, out[i], strlen(pat)));
	}
	assert(strlen(why) < sizeof(why));
}

static void memory(const uint8_t *data, size_t size)
{
	const struct hcb_pyoffsets *o;
	struct hcb_process_id p;
	struct hcb_pyreader r;
	char why[256];

	if (!size)
		return;
	o = hcb_pyoffsets_get(10 + data[0] % 4);
	image = data + 1;
	image_size = size - 1;
	hcb_pyreader_init(&r, 1, o);
	if (hcb_pydist_walk(&r, IMAGE_BASE, &p, why, sizeof(why)) == 0) {
		assert(hcb_procid_check(&p) == 1 && p.count > p.index && !strcmp(p.source, "jax"));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		environment((const char *)data + 1, size - 1);
		break;
	case 1:
		pattern(data + 1, size - 1);
		break;
	default:
		memory(data + 1, size - 1);
		break;
	}
	return 0;
}
