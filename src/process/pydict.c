/* SPDX-License-Identifier: MIT */
/* pydict.c - dicts, attributes and ints of CPython, read from outside (pydict.h). */
#include <errno.h>
#include <string.h>

#include "pydict.h"

#define MANAGED_DICT_FLAG (1ul << 4)    /* Py_TPFLAGS_MANAGED_DICT, 3.11+ */
#define INLINE_VALUES_FLAG (1ul << 2)   /* Py_TPFLAGS_INLINE_VALUES, 3.13+ */
#define KIND_GENERAL 0                  /* DICT_KEYS_GENERAL: (hash, key, value) */
#define KIND_SPLIT 2                    /* DICT_KEYS_SPLIT: an instance's shared keys */
#define MAX_LOG2_SIZE 26                /* 64 Mi slots: past HCB_PYDICT_MAX_ENTRIES */
#define CHUNK 256u                      /* entries read at once */
#define NAME_MAX_LEN 128u               /* a key looked for, at most */
#define NO_BOUND UINT64_MAX             /* values with room for every key */

/* A keys table as checked: where its entries are and how they read. */
struct keys {
	uint64_t entries;       /* entry 0 */
	uint64_t n;             /* entries in use or deleted (dk_nentries) */
	unsigned int size;      /* an entry's bytes: 24 (hash, key, value) or 16 (key, value) */
	unsigned int key_at;    /* the key's place in an entry; the value follows */
	int kind;
};

/* The bytes of a slot of the index for a table of 2^log2 slots, as CPython
 * sizes them (1, 2, 4 or 8). */
static unsigned int index_bytes(unsigned int log2)
{
	return log2 < 8 ? 1 : log2 < 16 ? 2 : log2 < 32 ? 4 : 8;
}

/* 3.10: refcnt, size, lookup, usable, nentries, then the index. */
static int keys_310(struct hcb_pyreader *r, uint64_t addr, struct keys *k)
{
	int64_t h[5];
	int err = hcb_pyobj_read(r, addr, h, sizeof(h));
	unsigned int log2 = 0;

	if (err)
		return err;
	while (log2 <= MAX_LOG2_SIZE && (1ll << log2) < h[1])
		log2++;
	/* a power of two from 8; entries within two thirds of it (USABLE_FRACTION) */
	if (h[1] < 8 || log2 > MAX_LOG2_SIZE || (1ll << log2) != h[1] || h[4] < 0 ||
	    h[4] > (h[1] << 1) / 3)
		return -EPROTO;
	k->entries = addr + 40 + (uint64_t)h[1] * index_bytes(log2);
	k->n = (uint64_t)h[4];
	k->size = 24;
	k->key_at = 8;
	k->kind = KIND_GENERAL;
	return 0;
}

/* 3.11+: refcnt, log2 size, log2 index bytes, kind, version, usable,
 * nentries, then the index. */
static int keys_311(struct hcb_pyreader *r, uint64_t addr, struct keys *k)
{
	unsigned char h[32];
	int64_t usable, n;
	int err = hcb_pyobj_read(r, addr, h, sizeof(h));
	unsigned int log2 = h[8], log2_bytes = h[9];

	if (err)
		return err;
	memcpy(&usable, h + 16, 8);
	memcpy(&n, h + 24, 8);
	if (log2 < 3 || log2 > MAX_LOG2_SIZE || h[10] > KIND_SPLIT ||
	    (1u << log2_bytes) != (1u << log2) * index_bytes(log2) || n < 0 || usable < 0 ||
	    n + usable > ((1ll << log2) << 1) / 3)
		return -EPROTO;
	k->entries = addr + 32 + (1ull << log2_bytes);
	k->n = (uint64_t)n;
	k->kind = h[10];
	k->size = k->kind == KIND_GENERAL ? 24 : 16;
	k->key_at = k->kind == KIND_GENERAL ? 8 : 0;
	return 0;
}

static int read_keys(struct hcb_pyreader *r, uint64_t addr, struct keys *k)
{
	int err = r->o->minor == 10 ? keys_310(r, addr, k) : keys_311(r, addr, k);

	if (!err && k->n > HCB_PYDICT_MAX_ENTRIES)
		return -E2BIG;
	return err;
}

/* Is the object at key the str name (n bytes)?  Its head first (type and
 * length), the characters only for a str of the right length. */
static int key_is(struct hcb_pyreader *r, uint64_t key, const char *name, size_t n,
		  uint64_t *str_type)
{
	char s[NAME_MAX_LEN + 1];
	uint64_t head[3];
	long got;
	int err = hcb_pyobj_read(r, key, head, sizeof(head));

	if (err)
		return err;
	if (*str_type && head[1] != *str_type)
		return 0;
	if (*str_type && head[2] != n)
		return 0;   /* an ASCII name's length is its bytes */
	got = hcb_pyobj_str(r, key, s, sizeof(s));
	if (got == -E2BIG)
		return 0;
	if (got < 0)
		return (int)got;
	*str_type = head[1];
	return (size_t)got == n && !memcmp(s, name, n);
}

/* The entry of keys whose key is name: 1 and its index and value (its
 * value in the entry: 0 in a split table), 0 if none, -errno. */
static int find_entry(struct hcb_pyreader *r, const struct keys *k, const char *name,
		      uint64_t *index, uint64_t *val)
{
	unsigned char buf[CHUNK * 24];
	uint64_t str_type = 0;
	size_t n = strlen(name);

	if (n > NAME_MAX_LEN)
		return -EINVAL;
	for (uint64_t at = 0; at < k->n; at += CHUNK) {
		uint64_t count = k->n - at < CHUNK ? k->n - at : CHUNK;
		int err = hcb_pyobj_read(r, k->entries + at * k->size, buf, count * k->size);

		if (err)
			return err;
		for (uint64_t i = 0; i < count; i++) {
			uint64_t key, v;
			int is;

			memcpy(&key, buf + i * k->size + k->key_at, 8);
			memcpy(&v, buf + i * k->size + k->key_at + 8, 8);
			if (!key)
				continue;   /* deleted */
			is = key_is(r, key, name, n, &str_type);
			if (is < 0)
				return is;
			if (is) {
				*index = at + i;
				*val = v;
				return 1;
			}
		}
	}
	return 0;
}

/* The value of name in a table: in its entry, or values[index] of a split
 * one's values (room for capacity at most: NO_BOUND, the table's only). */
static int table_get(struct hcb_pyreader *r, uint64_t keys, uint64_t values, uint64_t capacity,
		     const char *name, uint64_t *val)
{
	struct keys k;
	uint64_t index;
	int err = read_keys(r, keys, &k);

	if (err)
		return err;
	if (values && k.kind != KIND_SPLIT && r->o->minor > 10)
		return -EPROTO;
	err = find_entry(r, &k, name, &index, val);
	if (err <= 0)
		return err ? err : -ENOENT;
	if (values) {
		if (index >= capacity)
			return -ENOENT;   /* a key the instance's values have no room for */
		err = hcb_pyobj_read(r, values + index * 8, val, 8);
		if (err)
			return err;
	}
	return *val ? 0 : -ENOENT;
}

/* A dict's keys table, and its values where they are apart (a split
 * table's: 0 if not) with the room they have. */
static int dict_tables(struct hcb_pyreader *r, uint64_t dict, uint64_t *keys, uint64_t *values,
		       uint64_t *capacity)
{
	const struct hcb_pyoffsets *o = r->o;
	unsigned char head[4];
	int err = hcb_pyobj_is(r, dict, "dict");

	if (!err)
		err = hcb_pyobj_read(r, dict + o->dict_keys, keys, 8);
	if (!err)
		err = hcb_pyobj_read(r, dict + o->dict_values, values, 8);
	if (err)
		return err;
	if (!*keys || (*keys & 7) || (*values & 7))
		return -EPROTO;
	*capacity = NO_BOUND;
	if (!*values)
		return 0;
	/* 3.13's values say how many they hold room for: capacity, its first byte */
	if (o->dict_values_at) {
		err = hcb_pyobj_read(r, *values, head, sizeof(head));
		if (err)
			return err;
		*capacity = head[0];
	}
	*values += o->dict_values_at;
	return 0;
}

int hcb_pydict_get(struct hcb_pyreader *r, uint64_t dict, const char *name, uint64_t *val)
{
	uint64_t keys, values, capacity;
	int err = dict_tables(r, dict, &keys, &values, &capacity);

	return err ? err : table_get(r, keys, values, capacity, name, val);
}

/* Entries at..at+count of k (their bytes in buf): each str key's text
 * read once and matched against every name still wanted. */
static int match_chunk(struct hcb_pyreader *r, const struct keys *k, const unsigned char *buf,
		       uint64_t at, uint64_t count, const char *const *names, unsigned int n,
		       uint64_t *index, uint64_t *vals)
{
	char s[NAME_MAX_LEN + 1];

	for (uint64_t i = 0; i < count; i++) {
		uint64_t key, v;
		long got;

		memcpy(&key, buf + i * k->size + k->key_at, 8);
		memcpy(&v, buf + i * k->size + k->key_at + 8, 8);
		if (!key)
			continue;   /* deleted */
		got = hcb_pyobj_str(r, key, s, sizeof(s));
		if (got == -E2BIG)
			continue;   /* longer than any name looked for */
		if (got < 0)
			return (int)got;
		for (unsigned int j = 0; j < n; j++) {
			if (index[j] == NO_BOUND && !strcmp(s, names[j])) {
				index[j] = at + i;
				vals[j] = v;
			}
		}
	}
	return 0;
}

int hcb_pydict_get_many(struct hcb_pyreader *r, uint64_t dict, const char *const *names,
			unsigned int n, uint64_t *vals)
{
	unsigned char buf[CHUNK * 24];
	uint64_t keys, values, capacity, index[HCB_PYDICT_MAX_NAMES];
	struct keys k;
	int err;

	if (n > HCB_PYDICT_MAX_NAMES)
		return -EINVAL;
	err = dict_tables(r, dict, &keys, &values, &capacity);
	err = err ?: read_keys(r, keys, &k);
	if (err)
		return err;
	if (values && k.kind != KIND_SPLIT && r->o->minor > 10)
		return -EPROTO;
	for (unsigned int j = 0; j < n; j++) {
		index[j] = NO_BOUND;
		vals[j] = 0;
	}
	for (uint64_t at = 0; at < k.n && !err; at += CHUNK) {
		uint64_t count = k.n - at < CHUNK ? k.n - at : CHUNK;

		err = hcb_pyobj_read(r, k.entries + at * k.size, buf, count * k.size);
		err = err ?: match_chunk(r, &k, buf, at, count, names, n, index, vals);
	}
	/* a split table's values are apart, by index */
	for (unsigned int j = 0; j < n && !err && values; j++) {
		vals[j] = 0;
		if (index[j] != NO_BOUND && index[j] < capacity)
			err = hcb_pyobj_read(r, values + index[j] * 8, &vals[j], 8);
	}
	return err;
}

/* 3.10: the dict at tp_dictoffset (a positive one: a fixed-size object). */
static int attr_310(struct hcb_pyreader *r, uint64_t obj, uint64_t type, const char *name,
		    uint64_t *val)
{
	int64_t off;
	uint64_t dict;
	int err = hcb_pyobj_read(r, type + r->o->tp_dictoffset, &off, 8);

	if (err)
		return err;
	if (off < 16 || off > 4096 || off & 7)
		return -EPROTO;
	err = hcb_pyobj_read(r, obj + (uint64_t)off, &dict, 8);
	if (err)
		return err;
	return dict ? hcb_pydict_get(r, dict, name, val) : -ENOENT;
}

/* Values its class's shared keys index (3.11+). */
static int shared_get(struct hcb_pyreader *r, uint64_t type, uint64_t values, uint64_t capacity,
		      const char *name, uint64_t *val)
{
	uint64_t keys;
	int err = hcb_pyobj_read(r, type + r->o->ht_cached_keys, &keys, 8);

	if (err)
		return err;
	if (!keys || (keys & 7) || (values & 7))
		return -EPROTO;
	return table_get(r, keys, values, capacity, name, val);
}

/* The managed dict, three words before the object (3.11+), if any. */
static int managed_dict(struct hcb_pyreader *r, uint64_t obj, const char *name, uint64_t *val)
{
	uint64_t word;
	int err = hcb_pyobj_read(r, obj - 24, &word, 8);

	if (err)
		return err;
	if (r->o->minor == 12 && (word & 1))
		return -EPROTO;   /* values, tagged: read by the caller */
	return word ? hcb_pydict_get(r, word, name, val) : -ENOENT;
}

/* 3.11 to 3.13: values, or a dict, kept by CPython around the object. */
static int attr_managed(struct hcb_pyreader *r, uint64_t obj, uint64_t type, uint64_t flags,
			const char *name, uint64_t *val)
{
	uint64_t word, basic;
	unsigned char head[4];
	int err;

	if (!(flags & MANAGED_DICT_FLAG) || obj < 32)
		return -EPROTO;
	switch (r->o->minor) {
	case 11:   /* values four words before, else the dict three before */
		err = hcb_pyobj_read(r, obj - 32, &word, 8);
		if (err)
			return err;
		return word ? shared_get(r, type, word, NO_BOUND, name, val) :
			      managed_dict(r, obj, name, val);
	case 12:   /* one word three before: values tagged with 1, else a dict */
		err = hcb_pyobj_read(r, obj - 24, &word, 8);
		if (err)
			return err;
		if (word & 1)
			return shared_get(r, type, word + 1, NO_BOUND, name, val);
		return managed_dict(r, obj, name, val);
	default:   /* 3.13: values inline after the object while valid */
		if (!(flags & INLINE_VALUES_FLAG))
			return managed_dict(r, obj, name, val);
		err = hcb_pyobj_read(r, type + r->o->tp_basicsize, &basic, 8);
		if (!err)
			err = hcb_pyobj_read(r, obj + basic, head, sizeof(head));
		if (err)
			return err;
		/* capacity, size, embedded, valid */
		if (basic != 16 || head[1] > head[0] || head[2] != 1)
			return -EPROTO;
		if (!head[3])
			return managed_dict(r, obj, name, val);
		return shared_get(r, type, obj + basic + r->o->dict_values_at, head[0], name, val);
	}
}

int hcb_pyobj_attr(struct hcb_pyreader *r, uint64_t obj, const char *name, uint64_t *val)
{
	uint64_t type, flags;
	char tname[40];
	int err = hcb_pyobj_type(r, obj, tname);

	if (err)
		return err;
	if (tname[0] != '!')
		return -EPROTO;   /* a builtin type's instance: no attributes read */
	err = hcb_pyobj_read(r, obj + r->o->ob_type, &type, 8);
	if (!err)
		err = hcb_pyobj_read(r, type + r->o->tp_flags, &flags, 8);
	if (err)
		return err;
	if (r->o->minor == 10)
		return attr_310(r, obj, type, name, val);
	return attr_managed(r, obj, type, flags, name, val);
}

/* An int's value (type, "int" or "bool", checked), up to max. */
static int long_value(struct hcb_pyreader *r, uint64_t addr, const char *type, uint64_t max,
		      uint64_t *v)
{
	const struct hcb_pyoffsets *o = r->o;
	uint64_t size, n, x = 0;
	uint32_t digit[3];
	int err = hcb_pyobj_is(r, addr, type);

	if (!err)
		err = hcb_pyobj_read(r, addr + o->long_size, &size, 8);
	if (err)
		return err;
	if (o->long_tagged) {
		/* sign in the low two bits: 0 positive, 1 zero, 2 negative */
		if ((size & 3) == 3 || ((size & 3) == 1 && size >> 3))
			return -EPROTO;
		if ((size & 3) == 2)
			return -ERANGE;
		n = (size & 3) == 1 ? 0 : size >> 3;
	} else {
		if ((int64_t)size < 0)
			return -ERANGE;
		n = size;
	}
	if (n > 3)
		return -ERANGE;
	if (n) {
		err = hcb_pyobj_read(r, addr + o->long_digits, digit, n * 4);
		if (err)
			return err;
	}
	for (uint64_t i = n; i-- > 0;) {
		/* a 30-bit digit, and no leading zero digit (CPython normalizes) */
		if (digit[i] >> 30 || (i == n - 1 && !digit[i]))
			return -EPROTO;
		if (x >> 34)
			return -ERANGE;
		x = x << 30 | digit[i];
	}
	if (x > max)
		return -ERANGE;
	*v = x;
	return 0;
}

int hcb_pyobj_int(struct hcb_pyreader *r, uint64_t addr, uint64_t max, uint64_t *v)
{
	return long_value(r, addr, "int", max, v);
}

int hcb_pyobj_bool(struct hcb_pyreader *r, uint64_t addr, int *v)
{
	uint64_t x;
	int err = long_value(r, addr, "bool", 1, &x);

	if (!err)
		*v = (int)x;
	return err;
}
