/* SPDX-License-Identifier: MIT */
/* pyobj.c - CPython objects read from outside, each checked (pyobj.h). */
#include <errno.h>
#include <string.h>

#include "core/utf8.h"
#include "pyobj.h"
#include "target.h"

#define HEAPTYPE_FLAG (1ul << 9)      /* Py_TPFLAGS_HEAPTYPE */
#define MEMBER_OBJECT_EX 16           /* T_OBJECT_EX / Py_T_OBJECT_EX: a __slots__ entry */
#define MAX_MEMBERS 16u               /* a class's slots looked through, at most */
#define STR_RAW_MAX 4096u             /* a str's bytes as stored, at most */
#define PAGE 4096u

void hcb_pyreader_init(struct hcb_pyreader *r, pid_t pid, const struct hcb_pyoffsets *o)
{
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->o = o;
}

int hcb_pyobj_read(struct hcb_pyreader *r, uint64_t addr, void *buf, size_t len)
{
	/* in the lower half of the address space (user space) */
	if (!addr || addr >= (1ull << 47) || len > (1ull << 47) - addr)
		return -EPROTO;
	r->reads++;
	return hcb_target_read(r->pid, addr, buf, len);
}

/* A C string at addr (tp_name, a member's name), of at most cap - 1
 * bytes: read a page at a time, so a short name at a page's end reads
 * though the page after it is not mapped. */
static int read_cstr(struct hcb_pyreader *r, uint64_t addr, char *out, size_t cap)
{
	size_t got = 0;

	if (!addr || addr >= (1ull << 47) || cap < 2)
		return -EPROTO;
	while (got < cap - 1) {
		size_t n = cap - 1 - got, room = PAGE - ((addr + got) & (PAGE - 1));
		int err;

		if (n > room)
			n = room;
		r->reads++;
		err = hcb_target_read(r->pid, addr + got, out + got, n);
		if (err)
			return err;
		if (memchr(out + got, '\0', n))
			return 0;
		got += n;
	}
	return -EPROTO;   /* a name longer than expected */
}

/* a type's name and whether it is a heap type (a class) */
static int type_name(struct hcb_pyreader *r, uint64_t type, char name[40], int *heap)
{
	uint64_t tp_name, flags = 0;
	int err;

	err = hcb_pyobj_read(r, type + r->o->tp_name, &tp_name, sizeof(tp_name));
	if (!err)
		err = hcb_pyobj_read(r, type + r->o->tp_flags, &flags, sizeof(flags));
	if (!err)
		err = read_cstr(r, tp_name, name, 40);
	*heap = !err && (flags & HEAPTYPE_FLAG);
	return err;
}

int hcb_pyobj_type(struct hcb_pyreader *r, uint64_t addr, char name[40])
{
	uint64_t type;
	int err, heap;

	if (addr & 7)   /* objects are at least 8-aligned: not one */
		return -EPROTO;
	err = hcb_pyobj_read(r, addr + r->o->ob_type, &type, sizeof(type));
	if (err)
		return err;
	for (unsigned int i = 0; i < r->ntypes; i++)
		if (r->types[i].addr == type) {
			memcpy(name, r->types[i].name, 40);
			return 0;
		}
	err = type_name(r, type, name, &heap);
	if (err)
		return err;
	/* remembered as "!name" for a heap type: no class passes as a builtin */
	if (heap) {
		memmove(name + 1, name, 39);
		name[0] = '!';
		name[39] = '\0';
	}
	if (r->ntypes < HCB_PYOBJ_TYPES) {
		r->types[r->ntypes].addr = type;
		memcpy(r->types[r->ntypes].name, name, 40);
		r->ntypes++;
	}
	return 0;
}

int hcb_pyobj_is(struct hcb_pyreader *r, uint64_t addr, const char *type)
{
	char name[40];
	int err = hcb_pyobj_type(r, addr, name);

	if (err)
		return err;
	return strcmp(name, type) == 0 ? 0 : -EPROTO;
}

/* one code point as UTF-8 at out[*n], room permitting; no NUL or
 * surrogate in a name */
static int put_utf8(char *out, size_t cap, size_t *n, uint32_t c)
{
	unsigned char b[4];
	size_t k;

	if (c == 0 || (c >= 0xd800 && c < 0xe000) || !(k = hcb_utf8_put(c, b)))
		return -EPROTO;
	if (*n + k >= cap)
		return -E2BIG;
	memcpy(out + *n, b, k);
	*n += k;
	return 0;
}

/* The characters raw[0..len) of kind as UTF-8; the kind must be the
 * narrowest that holds them (CPython's own rule), else the str is not one. */
static long str_utf8(const unsigned char *raw, uint64_t len, unsigned int kind, int ascii,
		     char *out, size_t cap)
{
	uint32_t top = 0;
	size_t n = 0;

	for (uint64_t i = 0; i < len; i++) {
		uint32_t c = hcb_pystr_char(raw, kind, i);
		int err;

		if (c > top)
			top = c;
		err = put_utf8(out, cap, &n, c);
		if (err)
			return err;
	}
	out[n] = '\0';
	if (ascii ? top >= 0x80 : kind == 1 ? top < 0x80 : kind == 2 ? top < 0x100 : top < 0x10000)
		return -EPROTO;
	return (long)n;
}

long hcb_pyobj_str(struct hcb_pyreader *r, uint64_t addr, char *out, size_t cap)
{
	unsigned char raw[STR_RAW_MAX];
	const struct hcb_pyoffsets *o = r->o;
	uint64_t len;
	uint32_t state;
	unsigned int kind;
	int err, ascii;

	if (!cap)
		return -E2BIG;
	err = hcb_pyobj_is(r, addr, "str");
	if (!err)
		err = hcb_pyobj_read(r, addr + o->str_length, &len, sizeof(len));
	if (!err)
		err = hcb_pyobj_read(r, addr + o->str_state, &state, sizeof(state));
	if (err)
		return err;
	kind = state >> HCB_PYSTR_KIND_SHIFT & HCB_PYSTR_KIND_MASK;
	ascii = !!(state & HCB_PYSTR_ASCII);
	if (!(state & HCB_PYSTR_COMPACT) || (kind != 1 && kind != 2 && kind != 4) ||
	    (ascii && kind != 1) || len > (1ull << 40))
		return -EPROTO;
	if (len >= cap || (len + 1) * kind > STR_RAW_MAX)
		return -E2BIG;
	/* the characters and the NUL CPython ends every compact str with: a
	 * table that is off finds no NUL there, or one among the characters */
	err = hcb_pyobj_read(r, addr + (ascii ? o->str_ascii_data : o->str_compact_data), raw,
			     (len + 1) * kind);
	if (err)
		return err;
	for (unsigned int i = 0; i < kind; i++)
		if (raw[len * kind + i])
			return -EPROTO;
	return str_utf8(raw, len, kind, ascii, out, cap);
}

int hcb_pyobj_tuple(struct hcb_pyreader *r, uint64_t addr, uint64_t *items, unsigned int max)
{
	int64_t n;
	int err = hcb_pyobj_is(r, addr, "tuple");

	if (!err)
		err = hcb_pyobj_read(r, addr + r->o->ob_size, &n, sizeof(n));
	if (err)
		return err;
	if (n < 0 || n > (int64_t)max || n > (int64_t)HCB_PYOBJ_MAX_ITEMS)
		return -EPROTO;
	if (n) {
		err = hcb_pyobj_read(r, addr + r->o->tuple_items, items, (size_t)n * 8);
		if (err)
			return err;
	}
	for (int64_t i = 0; i < n; i++)
		if (!items[i])
			return -EPROTO;   /* a tuple being built: not one to read */
	return (int)n;
}

int hcb_pyobj_cell(struct hcb_pyreader *r, uint64_t addr, uint64_t *ref)
{
	int err = hcb_pyobj_is(r, addr, "cell");

	return err ? err : hcb_pyobj_read(r, addr + r->o->cell_ref, ref, sizeof(*ref));
}

int hcb_pyobj_func(struct hcb_pyreader *r, uint64_t addr, struct hcb_pyfunc *f)
{
	const struct hcb_pyoffsets *o = r->o;
	int err = hcb_pyobj_is(r, addr, "function");

	if (!err)
		err = hcb_pyobj_read(r, addr + o->func_qualname, &f->qualname, 8);
	if (!err)
		err = hcb_pyobj_read(r, addr + o->func_code, &f->code, 8);
	if (!err)
		err = hcb_pyobj_read(r, addr + o->func_closure, &f->closure, 8);
	if (err)
		return err;
	return f->qualname && f->code ? 0 : -EPROTO;
}

int hcb_pyobj_code(struct hcb_pyreader *r, uint64_t addr, struct hcb_pycode *c)
{
	const struct hcb_pyoffsets *o = r->o;
	int err = hcb_pyobj_is(r, addr, "code");

	if (!err)
		err = hcb_pyobj_read(r, addr + o->code_filename, &c->filename, 8);
	if (!err)
		err = hcb_pyobj_read(r, addr + o->code_name, &c->name, 8);
	if (!err)
		err = hcb_pyobj_read(r, addr + o->code_firstlineno, &c->firstlineno, 4);
	if (err)
		return err;
	return c->filename && c->name && c->firstlineno >= 0 ? 0 : -EPROTO;
}

int hcb_pyobj_partial(struct hcb_pyreader *r, uint64_t addr, uint64_t *fn, uint64_t *args)
{
	char name[40];
	int err = hcb_pyobj_type(r, addr, name);

	/* a static type before 3.10's _functools went multi-phase, a heap one since */
	if (!err && strcmp(name, "functools.partial") && strcmp(name, "!functools.partial"))
		err = -EPROTO;
	if (!err)
		err = hcb_pyobj_read(r, addr + r->o->partial_fn, fn, 8);
	if (!err)
		err = hcb_pyobj_read(r, addr + r->o->partial_args, args, 8);
	if (err)
		return err;
	return *fn && *args ? 0 : -EPROTO;
}

/* the offset of the slot name in type, from its tp_members */
static int slot_offset(struct hcb_pyreader *r, uint64_t type, const char *name, int64_t *off)
{
	const struct hcb_pyoffsets *o = r->o;
	uint64_t members, basic;
	int err;

	err = hcb_pyobj_read(r, type + o->tp_members, &members, 8);
	if (!err)
		err = hcb_pyobj_read(r, type + o->tp_basicsize, &basic, 8);
	if (err)
		return err;
	for (unsigned int i = 0; members && i < MAX_MEMBERS; i++) {
		uint64_t m = members + (uint64_t)i * o->member_size, mname;
		int32_t mtype;
		char s[40];

		err = hcb_pyobj_read(r, m + o->member_name, &mname, 8);
		if (!err && !mname)
			return -EPROTO;    /* the table's end: no such slot */
		if (!err)
			err = read_cstr(r, mname, s, sizeof(s));
		if (err == -EPROTO)
			continue;          /* a longer name: not this one */
		if (!err)
			err = hcb_pyobj_read(r, m + o->member_type, &mtype, 4);
		if (!err)
			err = hcb_pyobj_read(r, m + o->member_offset, off, 8);
		if (err)
			return err;
		if (strcmp(s, name))
			continue;
		/* an object slot inside the instance, past its head */
		if (mtype != MEMBER_OBJECT_EX || *off < 16 || (uint64_t)*off + 8 > basic || *off & 7)
			return -EPROTO;
		return 0;
	}
	return -EPROTO;
}

int hcb_pyobj_slot(struct hcb_pyreader *r, uint64_t addr, const char *name, uint64_t *val)
{
	uint64_t type;
	int64_t off;
	int err = hcb_pyobj_read(r, addr + r->o->ob_type, &type, 8);

	if (!err)
		err = slot_offset(r, type, name, &off);
	if (!err)
		err = hcb_pyobj_read(r, addr + (uint64_t)off, val, 8);
	if (err)
		return err;
	return *val ? 0 : -EPROTO;
}
