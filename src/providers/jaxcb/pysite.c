/* SPDX-License-Identifier: MIT */
/* pysite.c - jax callbacks' call sites by the user's code (pysite.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pysite.h"

#define MAX_DEPTH 10u                     /* jax's wrappers are 3 to 6 deep */
#define SLOTS (2u * HCB_PYSITE_CACHE)     /* the hash's size: half full at most */
#define HEAD_BYTES 80u                    /* a function's head: type, code, closure */

/* jax's wrappers, by qualname and the file (under jax/_src/) it is in */
enum step { ROOT, WRAPPER, FLAT };
static const struct jaxfn {
	const char *qualname, *file;
	enum step step;
} jaxfns[] = {
	{ "emit_python_callback.<locals>._wrapped_callback", "callback.py", ROOT },
	{ "_buffer_callback_lowering.<locals>.wrapped_callback", "buffer_callback.py", ROOT },
	{ "debug_callback_lowering.<locals>._callback", "debugging.py", WRAPPER },
	{ "io_callback_lowering.<locals>._callback", "callback.py", WRAPPER },
	{ "pure_callback_lowering.<locals>._callback", "callback.py", WRAPPER },
	{ "_make_flat_callback.<locals>._flat_callback", "debugging.py", FLAT },
	{ "debug_callback.<locals>._flat_callback", "debugging.py", FLAT },
	{ "debug_callback.<locals>._debug_callback.<locals>._flat_callback", "debugging.py", FLAT },
};

struct entry {
	uint64_t callable;                /* 0: free */
	unsigned char head[HEAD_BYTES];   /* the callable's head when walked, refcount zeroed */
	int err;                          /* the walk's: 0 or -EPROTO */
	struct hcb_pysite *site;          /* err == 0 */
};

struct hcb_pysites {
	struct hcb_pyreader r;
	struct entry *slots;              /* SLOTS of them */
	unsigned int used;
};

struct walk {
	struct hcb_pyreader *r;
	struct hcb_pysite *out;
	char qual[HCB_PYSITE_QUALNAME], file[HCB_PYSITE_FILE];   /* the function's at hand */
};

static int walk_obj(struct walk *w, uint64_t obj, unsigned int depth);

/* the file name under jax/_src/ of a path, or NULL */
static const char *jax_src_file(const char *path)
{
	const char *p = strstr(path, "/jax/_src/");

	while (p) {
		const char *next = strstr(p + 1, "/jax/_src/");

		if (!next)
			return p + 10;
		p = next;
	}
	return NULL;
}

/* the one closure cell of function f holding a next step: a function, a
 * functools.partial or a _FlatCallback (any other count: -EPROTO) */
static int next_step(struct walk *w, const struct hcb_pyfunc *f, uint64_t *next)
{
	uint64_t cells[HCB_PYOBJ_MAX_ITEMS];
	unsigned int found = 0;
	int n;

	if (!f->closure)
		return -EPROTO;
	n = hcb_pyobj_tuple(w->r, f->closure, cells, HCB_PYOBJ_MAX_ITEMS);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		uint64_t ref;
		char type[40];
		int err = hcb_pyobj_cell(w->r, cells[i], &ref);

		if (!err && !ref)
			continue;
		if (!err)
			err = hcb_pyobj_type(w->r, ref, type);
		if (err)
			return err;
		if (strcmp(type, "function") && strcmp(type, "!functools.partial") &&
		    strcmp(type, "functools.partial") && strcmp(type, "!_FlatCallback"))
			continue;
		*next = ref;
		found++;
	}
	return found == 1 ? 0 : -EPROTO;
}

/* the user's function: the site is a callback named by it */
static int user_function(struct walk *w, const struct hcb_pycode *c)
{
	struct hcb_pysite *o = w->out;

	if (c->firstlineno <= 0)
		return -EPROTO;
	o->kind = HCB_PYSITE_CALLBACK;
	memcpy(o->qualname, w->qual, sizeof(o->qualname));
	memcpy(o->file, w->file, sizeof(o->file));
	o->line = (unsigned int)c->firstlineno;
	return 0;
}

static int walk_function(struct walk *w, uint64_t obj, unsigned int depth)
{
	const char *base;
	struct hcb_pyfunc f;
	struct hcb_pycode c;
	uint64_t next;
	long len;
	int err = hcb_pyobj_func(w->r, obj, &f);

	if (!err)
		err = hcb_pyobj_code(w->r, f.code, &c);
	if (err)
		return err;
	len = hcb_pyobj_str(w->r, f.qualname, w->qual, sizeof(w->qual));
	if (len >= 0)
		len = hcb_pyobj_str(w->r, c.filename, w->file, sizeof(w->file));
	if (len < 0)
		return len == -E2BIG ? -EPROTO : (int)len;
	/* CPython 3.12+ clears a function it frees to name "" (3.10, 3.11: the
	 * read fails or the type is no longer one): the program moved on */
	if (!depth && !w->qual[0])
		return -ESTALE;
	base = jax_src_file(w->file);
	if (!base)   /* the user's own code; never the callable jaxlib holds */
		return depth ? user_function(w, &c) : -EPROTO;
	for (size_t i = 0; i < sizeof(jaxfns) / sizeof(jaxfns[0]); i++) {
		const struct jaxfn *j = &jaxfns[i];

		if (strcmp(j->qualname, w->qual) || strcmp(j->file, base))
			continue;
		if ((j->step == ROOT) != (depth == 0) && !(j->step == ROOT && depth == 1))
			return -EPROTO;
		if (j->step == ROOT && depth == 1)
			w->out->ordered = 1;   /* the token's wrapper around the other */
		err = next_step(w, &f, &next);
		return err ? err : walk_obj(w, next, depth + 1);
	}
	return -EPROTO;   /* a jax function not known as one of the chain */
}

/* functools.partial: jax.debug.print's _format_print_callback and its
 * format string, or a user's partial (named by the function in it) */
static int walk_partial(struct walk *w, uint64_t obj, unsigned int depth)
{
	uint64_t fn, args, items[HCB_PYOBJ_MAX_ITEMS];
	struct hcb_pyfunc f;
	struct hcb_pycode c;
	char name[64], file[HCB_PYSITE_FILE];
	const char *base;
	long len;
	int n, err = hcb_pyobj_partial(w->r, obj, &fn, &args);

	if (!err)
		err = hcb_pyobj_func(w->r, fn, &f);
	if (!err)
		err = hcb_pyobj_code(w->r, f.code, &c);
	if (err)
		return err;
	len = hcb_pyobj_str(w->r, f.qualname, name, sizeof(name));
	if (len >= 0)
		len = hcb_pyobj_str(w->r, c.filename, file, sizeof(file));
	if (len == -E2BIG || (len >= 0 && strcmp(name, "_format_print_callback")))
		return walk_obj(w, fn, depth + 1);
	if (len < 0)
		return (int)len;
	base = jax_src_file(file);
	if (!base || strcmp(base, "debugging.py"))
		return -EPROTO;
	n = hcb_pyobj_tuple(w->r, args, items, HCB_PYOBJ_MAX_ITEMS);
	if (n < 1)
		return n < 0 ? n : -EPROTO;
	len = hcb_pyobj_str(w->r, items[0], w->out->fmt, sizeof(w->out->fmt));
	if (len < 0)
		return len == -E2BIG ? -EPROTO : (int)len;
	w->out->kind = HCB_PYSITE_PRINT;
	/* (a site whose options are not read keeps its probed text) */
	w->out->opts_ok = !hcb_pysite_print_opts(w->r, items, n, &w->out->opts);
	return 0;
}

static int walk_obj(struct walk *w, uint64_t obj, unsigned int depth)
{
	char type[40];
	uint64_t next;
	int err;

	if (depth > MAX_DEPTH)
		return -EPROTO;
	err = hcb_pyobj_type(w->r, obj, type);
	if (err)
		return err;
	if (strcmp(type, "function") == 0)
		return walk_function(w, obj, depth);
	if (depth && (!strcmp(type, "functools.partial") || !strcmp(type, "!functools.partial")))
		return walk_partial(w, obj, depth);
	if (depth && strcmp(type, "!_FlatCallback") == 0) {
		err = hcb_pyobj_slot(w->r, obj, "callback_func", &next);
		return err ? err : walk_obj(w, next, depth + 1);
	}
	return -EPROTO;
}

int hcb_pysites_open_with(struct hcb_pysites **out, int pid, const struct hcb_pyoffsets *o)
{
	struct hcb_pysites *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->slots = calloc(SLOTS, sizeof(*s->slots));
	if (!s->slots) {
		free(s);
		return -ENOMEM;
	}
	hcb_pyreader_init(&s->r, pid, o);
	*out = s;
	return 0;
}

int hcb_pysites_open(struct hcb_pysites **out, int pid)
{
	const struct hcb_pyoffsets *o;
	struct hcb_pyver v;
	char why[256];
	int err = hcb_pyver_open(pid, &v, &o, why, sizeof(why));

	return err ? err : hcb_pysites_open_with(out, pid, o);
}

static void forget_all(struct hcb_pysites *s)
{
	for (unsigned int i = 0; i < SLOTS; i++)
		free(s->slots[i].site);
	memset(s->slots, 0, SLOTS * sizeof(*s->slots));
	s->used = 0;
}

/* the slot of callable, or the free one where it goes */
static struct entry *find(struct hcb_pysites *s, uint64_t callable)
{
	uint64_t h = callable * 0x9e3779b97f4a7c15ull;

	for (uint64_t i = h >> 40;; i++) {   /* never full: used < SLOTS / 2 */
		struct entry *e = &s->slots[i % SLOTS];

		if (!e->callable || e->callable == callable)
			return e;
	}
}

static int walk_into(struct hcb_pysites *s, struct entry *e, struct hcb_pysite *out)
{
	struct walk w = { .r = &s->r, .out = out };
	int err;

	memset(out, 0, sizeof(*out));
	err = walk_obj(&w, e->callable, 0);
	if (err && err != -EPROTO)
		return err;            /* gone, or a read refused: not remembered */
	if (err)
		memset(out, 0, sizeof(*out));
	e->err = err;
	if (!err && !e->site && !(e->site = malloc(sizeof(*e->site))))
		return -ENOMEM;
	if (!err)
		*e->site = *out;
	return err;
}

int hcb_pysite_lookup(struct hcb_pysites *s, uint64_t callable, struct hcb_pysite *out)
{
	unsigned char head[HEAD_BYTES];
	struct entry *e;
	int err = hcb_pyobj_read(&s->r, callable, head, sizeof(head));

	if (err)
		return err;
	memset(head, 0, 8);   /* the refcount moves; the rest does not */
	e = find(s, callable);
	if (e->callable && memcmp(e->head, head, sizeof(head)) == 0) {
		if (!e->err)
			*out = *e->site;
		return e->err;
	}
	if (!e->callable && s->used + 1 >= SLOTS / 2) {
		forget_all(s);
		e = find(s, callable);
	}
	if (!e->callable)
		s->used++;
	e->callable = callable;
	memcpy(e->head, head, sizeof(head));
	err = walk_into(s, e, out);
	if (err && err != -EPROTO) {   /* a transient failure: walk again next time */
		memset(e->head, 0xff, sizeof(e->head));
	}
	return err;
}

unsigned long hcb_pysites_reads(const struct hcb_pysites *s)
{
	return s->r.reads;
}

void hcb_pysites_free(struct hcb_pysites *s)
{
	if (!s)
		return;
	forget_all(s);
	free(s->slots);
	free(s);
}
