/* SPDX-License-Identifier: MIT */
/* pyver.c - the target's Python version and its object offsets (pyver.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyver.h"
#include "target.h"

/*
 * x86-64 release builds with the GIL.  What moved between versions: the
 * code object (3.11 made it variable-sized and reordered it; 3.12 dropped
 * co_warmup), the str head (3.12 dropped wstr: 48 -> 40 and 72 -> 56), the
 * instance dict (managed, before the object, from 3.11).
 */
static const struct hcb_pyoffsets tables[] = {
	{
		.minor = 10,
		.ob_type = 8, .ob_size = 16,
		.tp_name = 24, .tp_basicsize = 32, .tp_flags = 168, .tp_members = 240,
		.tp_dictoffset = 288,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.tuple_items = 24, .cell_ref = 16,
		.func_globals = 16, .func_name = 32, .func_qualname = 40, .func_code = 48,
		.func_closure = 72, .func_module = 104,
		.code_firstlineno = 40, .code_filename = 104, .code_name = 112, .code_qualname = 0,
		.partial_fn = 16, .partial_args = 24, .partial_kw = 32,
		.member_name = 0, .member_type = 8, .member_offset = 16, .member_size = 40,
		.managed_dict = 0,
		.runtime_main = 40, .interp_modules = 856,
		.dict_used = 16, .dict_keys = 32, .dict_values = 40, .dict_values_at = 0,
		.module_dict = 16, .ht_cached_keys = 872,
		.long_size = 16, .long_digits = 24, .long_tagged = 0,
	},
	{
		.minor = 11,
		.ob_type = 8, .ob_size = 16,
		.tp_name = 24, .tp_basicsize = 32, .tp_flags = 168, .tp_members = 240,
		.tp_dictoffset = 288,
		.str_length = 16, .str_state = 32, .str_ascii_data = 48, .str_compact_data = 72,
		.tuple_items = 24, .cell_ref = 16,
		.func_globals = 16, .func_name = 32, .func_qualname = 40, .func_code = 48,
		.func_closure = 72, .func_module = 104,
		.code_firstlineno = 72, .code_filename = 112, .code_name = 120, .code_qualname = 128,
		.partial_fn = 16, .partial_args = 24, .partial_kw = 32,
		.member_name = 0, .member_type = 8, .member_offset = 16, .member_size = 40,
		.managed_dict = 1,
		.runtime_main = 48, .interp_modules = 888,
		.dict_used = 16, .dict_keys = 32, .dict_values = 40, .dict_values_at = 0,
		.module_dict = 16, .ht_cached_keys = 872,
		.long_size = 16, .long_digits = 24, .long_tagged = 0,
	},
	{
		.minor = 12,
		.ob_type = 8, .ob_size = 16,
		.tp_name = 24, .tp_basicsize = 32, .tp_flags = 168, .tp_members = 240,
		.tp_dictoffset = 288,
		.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
		.tuple_items = 24, .cell_ref = 16,
		.func_globals = 16, .func_name = 32, .func_qualname = 40, .func_code = 48,
		.func_closure = 72, .func_module = 104,
		.code_firstlineno = 68, .code_filename = 112, .code_name = 120, .code_qualname = 128,
		.partial_fn = 16, .partial_args = 24, .partial_kw = 32,
		.member_name = 0, .member_type = 8, .member_offset = 16, .member_size = 40,
		.managed_dict = 1,
		.runtime_main = 48, .interp_modules = 944,
		.dict_used = 16, .dict_keys = 32, .dict_values = 40, .dict_values_at = 0,
		.module_dict = 16, .ht_cached_keys = 880,
		.long_size = 16, .long_digits = 24, .long_tagged = 1,
	},
	{
		.minor = 13,
		.ob_type = 8, .ob_size = 16,
		.tp_name = 24, .tp_basicsize = 32, .tp_flags = 168, .tp_members = 240,
		.tp_dictoffset = 288,
		.str_length = 16, .str_state = 32, .str_ascii_data = 40, .str_compact_data = 56,
		.tuple_items = 24, .cell_ref = 16,
		.func_globals = 16, .func_name = 32, .func_qualname = 40, .func_code = 48,
		.func_closure = 72, .func_module = 104,
		.code_firstlineno = 68, .code_filename = 112, .code_name = 120, .code_qualname = 128,
		.partial_fn = 16, .partial_args = 24, .partial_kw = 32,
		.member_name = 0, .member_type = 8, .member_offset = 16, .member_size = 40,
		.managed_dict = 1,
		.runtime_main = 640, .interp_modules = 7656,
		.dict_used = 16, .dict_keys = 32, .dict_values = 40, .dict_values_at = 8,
		.module_dict = 16, .ht_cached_keys = 880,
		.long_size = 16, .long_digits = 24, .long_tagged = 1,
	},
};

const struct hcb_pyoffsets *hcb_pyoffsets_get(unsigned int minor)
{
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i].minor == minor)
			return &tables[i];
	return NULL;
}

int hcb_pyver_from_name(const char *path, unsigned int *major, unsigned int *minor, int *ft)
{
	const char *base = strrchr(path, '/');
	unsigned int a, b;
	char rest[16] = "";
	int n = 0;

	base = base ? base + 1 : path;
	if (strncmp(base, "libpython", 9) == 0)
		base += 9;
	else if (strncmp(base, "python", 6) == 0)
		base += 6;
	else
		return -ENOENT;
	/* 3.N, then "t" for free-threaded, then ".so..." / "d" / end */
	if (sscanf(base, "%u.%u%n", &a, &b, &n) != 2 || a != 3 || b > 99)
		return -ENOENT;
	snprintf(rest, sizeof(rest), "%s", base + n);
	if (rest[0] && rest[0] != 't' && rest[0] != '.' && rest[0] != ' ')
		return -ENOENT;       /* python3.11-config, python3.11foo */
	if (rest[0] == 't' && rest[1] && rest[1] != '.' && rest[1] != ' ')
		return -ENOENT;
	*major = a;
	*minor = b;
	*ft = rest[0] == 't';
	return 0;
}

static int is_libpython(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned int a, b;
	int ft;

	base = base ? base + 1 : path;
	return strncmp(base, "libpython", 9) == 0 && !hcb_pyver_from_name(path, &a, &b, &ft);
}

static int is_python_exe(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned int a, b;
	int ft;

	base = base ? base + 1 : path;
	return strncmp(base, "python", 6) == 0 && !hcb_pyver_from_name(path, &a, &b, &ft);
}

/* Py_Version (3.11+): the file's own claim, read in the process. */
static int read_py_version(pid_t pid, const struct hcb_pyver *v, uint64_t *hex)
{
	uint64_t off;
	uint32_t val;
	int err = hcb_target_symbol_offset(v->path, "Py_Version", &off);

	if (err)
		return err;
	/* const unsigned long in 3.11 .. 3.13; its low 32 bits say it all */
	err = hcb_target_read(pid, v->base + off, &val, sizeof(val));
	if (err)
		return err;
	*hex = val;
	return 0;
}

int hcb_pyver_find(pid_t pid, struct hcb_pyver *v)
{
	uint64_t hex = 0;
	int err;

	memset(v, 0, sizeof(*v));
	err = hcb_target_find_mapping(pid, is_libpython, v->path, sizeof(v->path), &v->base);
	if (err == -ENOENT)   /* a static build: the interpreter is the executable */
		err = hcb_target_find_mapping(pid, is_python_exe, v->path, sizeof(v->path),
					      &v->base);
	if (err)
		return err;
	if (hcb_pyver_from_name(v->path, &v->major, &v->minor, &v->free_threaded))
		return -ENOENT;
	v->hexversion = (uint64_t)v->major << 24 | (uint64_t)v->minor << 16;
	err = read_py_version(pid, v, &hex);
	if (!err) {
		if (hex >> 24 != v->major || (hex >> 16 & 0xff) != v->minor)
			return -EPROTO;
		v->hexversion = hex;
		v->micro = (unsigned int)(hex >> 8 & 0xff);
	} else if (v->minor >= 11) {
		return err == -ENOENT ? -EPROTO : err;   /* 3.11+ exports it */
	}
	if (v->free_threaded || v->major != 3 || v->minor < 10 || !hcb_pyoffsets_get(v->minor))
		return -ENOTSUP;
	return 0;
}

/* _Py_DebugOffsets as 3.13 lays it out (Include/internal/pycore_runtime.h):
 * only the groups compared are named, the others counted in words. */
struct debug_offsets_313 {
	char cookie[8];
	uint64_t version, free_threaded;
	uint64_t runtime_state[3], interpreter_state[13], thread_state[9], interpreter_frame[6];
	struct {
		uint64_t size, filename, name, qualname, linetable, firstlineno, argcount,
			 localsplusnames, localspluskinds, co_code_adaptive;
	} code;
	struct { uint64_t size, ob_type; } pyobject;
	struct { uint64_t size, tp_name, tp_repr, tp_flags; } type;
	struct { uint64_t size, ob_item, ob_size; } tuple;
	uint64_t list[3], dict[3], flt[2], lng[3], bytes[3];
	struct { uint64_t size, state, length, asciiobject_size; } unicode;
};

static int differs(char *msg, size_t cap, const char *what, uint64_t published, unsigned int ours)
{
	if (published == ours)
		return 0;
	snprintf(msg, cap, "_Py_DebugOffsets: %s is %llu in the process, %u in hcbtrace's table",
		 what, (unsigned long long)published, ours);
	return 1;
}

/* 3.13's _Py_DebugOffsets, read at _PyRuntime in pid: 0, -ENOENT before
 * 3.13, -EPROTO without its cookie (msg), -errno. */
static int read_debug(pid_t pid, const struct hcb_pyver *v, struct debug_offsets_313 *d,
		      char *msg, size_t cap)
{
	uint64_t off;
	int err;

	snprintf(msg, cap, "%s", "");
	if (v->major != 3 || v->minor < 13)
		return -ENOENT;
	if (v->minor != 13)
		return -ENOTSUP;
	err = hcb_target_symbol_offset(v->path, "_PyRuntime", &off);
	if (err)
		return err;
	err = hcb_target_read(pid, v->base + off, d, sizeof(*d));
	if (err)
		return err;
	if (memcmp(d->cookie, "xdebugpy", 8) != 0 || d->version != v->hexversion) {
		snprintf(msg, cap, "_Py_DebugOffsets: no cookie, or not version %#llx",
			 (unsigned long long)v->hexversion);
		return -EPROTO;
	}
	return 0;
}

int hcb_pyver_check_debug(pid_t pid, const struct hcb_pyver *v, const struct hcb_pyoffsets *o,
			  char *msg, size_t cap)
{
	struct debug_offsets_313 d;
	int err = read_debug(pid, v, &d, msg, cap);

	if (err)
		return err;
	if (differs(msg, cap, "free_threaded", d.free_threaded, 0) ||
	    differs(msg, cap, "ob_type", d.pyobject.ob_type, o->ob_type) ||
	    differs(msg, cap, "tp_name", d.type.tp_name, o->tp_name) ||
	    differs(msg, cap, "tp_flags", d.type.tp_flags, o->tp_flags) ||
	    differs(msg, cap, "tuple ob_item", d.tuple.ob_item, o->tuple_items) ||
	    differs(msg, cap, "tuple ob_size", d.tuple.ob_size, o->ob_size) ||
	    differs(msg, cap, "str state", d.unicode.state, o->str_state) ||
	    differs(msg, cap, "str length", d.unicode.length, o->str_length) ||
	    differs(msg, cap, "str data", d.unicode.asciiobject_size, o->str_ascii_data) ||
	    differs(msg, cap, "co_filename", d.code.filename, o->code_filename) ||
	    differs(msg, cap, "co_name", d.code.name, o->code_name) ||
	    differs(msg, cap, "co_qualname", d.code.qualname, o->code_qualname) ||
	    differs(msg, cap, "co_firstlineno", d.code.firstlineno, o->code_firstlineno))
		return -EPROTO;
	return 0;
}

/* the published ones that do not fit the table's 16 bits are not the process's */
static int fits(uint64_t published, uint16_t *field)
{
	if (published > UINT16_MAX)
		return 0;
	*field = (uint16_t)published;
	return 1;
}

int hcb_pyver_debug_interp(pid_t pid, const struct hcb_pyver *v, struct hcb_pyoffsets *o)
{
	struct debug_offsets_313 d;
	char msg[160];
	int err = read_debug(pid, v, &d, msg, sizeof(msg));

	if (err)
		return err;
	/* the main interpreter follows the head (struct pyinterpreters) */
	if (!fits(d.runtime_state[2] + 8, &o->runtime_main) ||
	    !fits(d.interpreter_state[5], &o->interp_modules) || !fits(d.dict[1], &o->dict_keys) ||
	    !fits(d.dict[2], &o->dict_values) || !fits(d.lng[1], &o->long_size) ||
	    !fits(d.lng[2], &o->long_digits))
		return -EPROTO;
	return 0;
}

int hcb_pyver_open(pid_t pid, struct hcb_pyver *v, const struct hcb_pyoffsets **o, char *why,
		   size_t cap)
{
	char msg[160] = "";
	int err = hcb_pyver_find(pid, v);

	*o = NULL;
	snprintf(why, cap, "%s", "");
	if (!err) {
		*o = hcb_pyoffsets_get(v->minor);
		err = hcb_pyver_check_debug(pid, v, *o, msg, sizeof(msg));
		if (err == -ENOENT)
			err = 0;
		else if (err == -EPROTO)
			err = -ENOTSUP;
	}
	if (err == -ENOTSUP)
		snprintf(why, cap, "the Python of process %d (%u.%u%s) is not one hcbtrace reads "
			 "(3.10 to 3.13, with the GIL)%s%s", (int)pid, v->major, v->minor,
			 v->free_threaded ? ", free-threaded" : "", msg[0] ? ": " : "", msg);
	else if (err)
		snprintf(why, cap, "the Python of process %d was not read: %s", (int)pid,
			 err == -EPROTO ? "its Py_Version disagrees with its file's name" :
			 strerror(-err));
	return err;
}
