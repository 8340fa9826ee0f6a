/* SPDX-License-Identifier: MIT */
/* pydist.c - jax's distributed state, read from outside (pydist.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pydict.h"
#include "pydist.h"
#include "pyver.h"
#include "target.h"

#define JAX_MODULE "jax._src.distributed"

/* One step that did not check out: -EPROTO, named. */
static int step(char *why, size_t cap, int err, const char *what)
{
	if (err == -EPROTO || err == -E2BIG || err == -ERANGE)
		snprintf(why, cap, "jax's distributed state was not read: %s did not check out", what);
	else
		snprintf(why, cap, "jax's distributed state was not read: %s: %s", what,
			 strerror(-err));
	return err == -E2BIG || err == -ERANGE ? -EPROTO : err;
}

/* The module named name in sys.modules, proven: a module whose own
 * __name__ is name.  Its globals (md_dict) in *globals. */
static int module(struct hcb_pyreader *r, uint64_t modules, const char *name, uint64_t *globals)
{
	char own[64];
	uint64_t mod, str;
	long n;
	int err = hcb_pydict_get(r, modules, name, &mod);

	if (!err)
		err = hcb_pyobj_is(r, mod, "module");
	if (!err)
		err = hcb_pyobj_read(r, mod + r->o->module_dict, globals, 8);
	if (!err)
		err = hcb_pydict_get(r, *globals, "__name__", &str);
	if (err)
		return err;
	n = hcb_pyobj_str(r, str, own, sizeof(own));
	if (n < 0)
		return (int)n;
	return strcmp(own, name) ? -EPROTO : 0;
}

/* sys.modules: the main interpreter's modules, proven by "sys" in it. */
static int modules_of(struct hcb_pyreader *r, uint64_t runtime, uint64_t *modules)
{
	uint64_t interp, globals;
	int err = hcb_pyobj_read(r, runtime + r->o->runtime_main, &interp, 8);

	if (!err && (!interp || (interp & 7)))
		err = -EPROTO;
	if (!err)
		err = hcb_pyobj_read(r, interp + r->o->interp_modules, modules, 8);
	if (!err)
		err = module(r, *modules, "sys", &globals);
	return err == -ENOENT ? -EPROTO : err;
}

/* global_state's attribute name: an int from 0 to max.  -ENOENT: not
 * set (the class's default: initialize() never ran). */
static int state_int(struct hcb_pyreader *r, uint64_t state, const char *name, uint64_t max,
		     uint64_t *v)
{
	uint64_t obj;
	int err = hcb_pyobj_attr(r, state, name, &obj);

	return err ? err : hcb_pyobj_int(r, obj, max, v);
}

int hcb_pydist_walk(struct hcb_pyreader *r, uint64_t runtime, struct hcb_process_id *p,
		    char *why, size_t cap)
{
	uint64_t modules, globals, state, client, index, count;
	char tname[40];
	int err;

	why[0] = '\0';
	err = modules_of(r, runtime, &modules);
	if (err)
		return step(why, cap, err, "the interpreter's sys.modules");
	err = module(r, modules, JAX_MODULE, &globals);
	if (err == -ENOENT)
		return err;   /* jax._src.distributed is not imported */
	if (err)
		return step(why, cap, err, "module " JAX_MODULE);
	err = hcb_pydict_get(r, globals, "global_state", &state);
	if (!err)
		err = hcb_pyobj_is(r, state, "!State");
	if (err)
		return step(why, cap, err == -ENOENT ? -EPROTO : err, JAX_MODULE ".global_state");
	/* no client: jax.distributed.initialize() has not connected one */
	err = hcb_pyobj_attr(r, state, "client", &client);
	if (!err)
		err = hcb_pyobj_type(r, client, tname);
	if (!err && !strcmp(tname, "NoneType"))
		err = -ENOENT;
	if (err)
		return err == -ENOENT ? err : step(why, cap, err, "global_state.client");
	/* set before the client is: both there once it is */
	err = state_int(r, state, "process_id", HCB_PROCESS_MAX - 1, &index);
	if (err)
		return step(why, cap, err == -ENOENT ? -EPROTO : err, "global_state.process_id");
	err = state_int(r, state, "num_processes", HCB_PROCESS_MAX, &count);
	if (!err && index >= count)
		err = -ERANGE;
	if (err)
		return step(why, cap, err == -ENOENT ? -EPROTO : err, "global_state.num_processes");
	*p = (struct hcb_process_id){ .index = (uint32_t)index, .count = (uint32_t)count,
				      .source = "jax" };
	return 0;
}

int hcb_pydist_read(pid_t pid, struct hcb_process_id *p, char *why, size_t cap)
{
	const struct hcb_pyoffsets *table;
	struct hcb_pyoffsets o;
	struct hcb_pyreader r;
	struct hcb_pyver v;
	uint64_t runtime;
	int err = hcb_pyver_open(pid, &v, &table, why, cap);

	if (err)
		return err == -ENOENT ? -ENOENT : err;
	o = *table;
	/* 3.13 publishes where its interpreter, dicts and ints keep things */
	err = hcb_pyver_debug_interp(pid, &v, &o);
	if (err && err != -ENOENT)
		return step(why, cap, err, "_Py_DebugOffsets");
	err = hcb_target_symbol_offset(v.path, "_PyRuntime", &runtime);
	if (err)
		return step(why, cap, err == -ENOENT ? -EPROTO : err, "_PyRuntime");
	hcb_pyreader_init(&r, pid, &o);
	err = hcb_pydist_walk(&r, v.base + runtime, p, why, cap);
	/* a dict the program changed while it was read: once more */
	if (err == -EPROTO) {
		hcb_pyreader_init(&r, pid, &o);
		err = hcb_pydist_walk(&r, v.base + runtime, p, why, cap);
	}
	return err;
}
