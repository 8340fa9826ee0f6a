/* SPDX-License-Identifier: MIT */
/*
 * test_tree.c - pytree structure strings (src/core/tree.h): the grammar's valid
 * forms with their leaf numbering, every kind of malformed input, and a
 * property check that validate and parse agree on random strings.
 *
 *	gcc ... -Isrc src/core/tree.c tests/unit/test_tree.c -lcmocka
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/tree.h"

/* ---- helpers ---- */

/* The input in a heap block of exactly len bytes, so ASan catches any read
 * past s[len) (tree strings on the wire are not NUL terminated). */
static char *exact(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	memcpy(p, s, len);
	return p;
}

static int validate_n(const char *s, size_t len, unsigned int *nleaves)
{
	char *p = exact(s, len);
	int err = hcb_tree_validate(p, len, nleaves);

	free(p);
	return err;
}

static int parse_n(const char *s, size_t len, struct hcb_tree **t, unsigned int *nleaves)
{
	char *p = exact(s, len);
	int err = hcb_tree_parse(p, len, t, nleaves);

	free(p);
	return err;
}

/* Write t back in canonical form: "( * * )", "{ k=* }", "( )". */
static void unparse(const struct hcb_tree *t, char *out, size_t cap, size_t *pos)
{
	static const char opens[] = { [HCB_TREE_TUPLE] = '(', [HCB_TREE_LIST] = '[', [HCB_TREE_DICT] = '{' };
	static const char closes[] = { [HCB_TREE_TUPLE] = ')', [HCB_TREE_LIST] = ']', [HCB_TREE_DICT] = '}' };
	int n;

	if (t->kind == HCB_TREE_LEAF) {
		n = snprintf(out + *pos, cap - *pos, "*");
		*pos += (size_t)n;
		return;
	}
	n = snprintf(out + *pos, cap - *pos, "%c", opens[t->kind]);
	*pos += (size_t)n;
	for (unsigned int i = 0; i < t->nchildren; i++) {
		n = snprintf(out + *pos, cap - *pos, " ");
		*pos += (size_t)n;
		if (t->children[i].key) {
			n = snprintf(out + *pos, cap - *pos, "%s=", t->children[i].key);
			*pos += (size_t)n;
		}
		unparse(&t->children[i], out, cap, pos);
	}
	n = snprintf(out + *pos, cap - *pos, " %c", closes[t->kind]);
	*pos += (size_t)n;
	assert_true(*pos < cap);
}

/* Leaves in document order must be numbered 0, 1, 2, ... */
static void check_numbering(const struct hcb_tree *t, unsigned int *next)
{
	if (t->kind == HCB_TREE_LEAF) {
		assert_int_equal(t->leaf, *next);
		assert_int_equal(t->nchildren, 0);
		(*next)++;
		return;
	}
	for (unsigned int i = 0; i < t->nchildren; i++) {
		if (t->kind == HCB_TREE_DICT)
			assert_non_null(t->children[i].key);
		else
			assert_null(t->children[i].key);
		check_numbering(&t->children[i], next);
	}
}

/* ---- golden cases: input, leaves, canonical form ---- */

struct valid_case {
	const char *in;
	unsigned int leaves;
	const char *canon;
};

static const struct valid_case valid_cases[] = {
	{ "*", 1, "*" },
	{ "( * * )", 2, "( * * )" },
	{ "[ * ]", 1, "[ * ]" },
	{ "{ a=* b=( * * ) }", 3, "{ a=* b=( * * ) }" },
	{ "( )", 0, "( )" },
	{ "[ ]", 0, "[ ]" },
	{ "{ }", 0, "{ }" },
	{ "  (   *    * )  ", 2, "( * * )" },          /* runs of spaces, both ends */
	{ "( [ * { x=* y=[ ] } ] * )", 3, "( [ * { x=* y=[ ] } ] * )" },
	{ "{ w={ v=( * ) } }", 1, "{ w={ v=( * ) } }" },  /* container right after "=" */
	{ "{ }=* }", 1, "{ }=* }" },                      /* "}" is a legal key character */
	{ "{ \xc3\xa9t\xc3\xa9=* }", 1, "{ \xc3\xa9t\xc3\xa9=* }" }, /* UTF-8 key */
	{ "{ b=* a=* }", 2, "{ b=* a=* }" },              /* order kept, not sorted */
	{ "( ( ( * ) ) * )", 2, "( ( ( * ) ) * )" },
};

static void test_valid_golden(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
		const struct valid_case *c = &valid_cases[i];
		struct hcb_tree *t = NULL;
		unsigned int nv = 999, np = 999, next = 0;
		char canon[256];
		size_t pos = 0;

		print_message("case %zu: '%s'\n", i, c->in);
		assert_int_equal(validate_n(c->in, strlen(c->in), &nv), 0);
		assert_int_equal(nv, c->leaves);
		assert_int_equal(parse_n(c->in, strlen(c->in), &t, &np), 0);
		assert_int_equal(np, c->leaves);
		check_numbering(t, &next);
		assert_int_equal(next, c->leaves);
		unparse(t, canon, sizeof(canon), &pos);
		assert_string_equal(canon, c->canon);
		hcb_tree_free(t);
	}
}

static void test_shapes(void **state)
{
	struct hcb_tree *t = NULL;
	unsigned int n = 0;
	const char *s = "{ a=* b=( * [ * ] ) }";

	(void)state;
	assert_int_equal(hcb_tree_parse(s, strlen(s), &t, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(t->kind, HCB_TREE_DICT);
	assert_null(t->key);
	assert_int_equal(t->nchildren, 2);
	assert_string_equal(t->children[0].key, "a");
	assert_int_equal(t->children[0].kind, HCB_TREE_LEAF);
	assert_int_equal(t->children[0].leaf, 0);
	assert_string_equal(t->children[1].key, "b");
	assert_int_equal(t->children[1].kind, HCB_TREE_TUPLE);
	assert_int_equal(t->children[1].nchildren, 2);
	assert_null(t->children[1].children[0].key);
	assert_int_equal(t->children[1].children[0].leaf, 1);
	assert_int_equal(t->children[1].children[1].kind, HCB_TREE_LIST);
	assert_int_equal(t->children[1].children[1].nchildren, 1);
	assert_int_equal(t->children[1].children[1].children[0].leaf, 2);
	hcb_tree_free(t);

	/* a single leaf: a bare array */
	assert_int_equal(hcb_tree_parse("*", 1, &t, NULL), 0);
	assert_int_equal(t->kind, HCB_TREE_LEAF);
	assert_int_equal(t->leaf, 0);
	assert_int_equal(t->nchildren, 0);
	hcb_tree_free(t);
	hcb_tree_free(NULL);
}

/* ---- malformed inputs ---- */

struct bad_case {
	const char *in;
	size_t len;    /* 0: strlen(in) */
	const char *why;
};

static const struct bad_case bad_cases[] = {
	{ "", 0, "empty string" },
	{ "   ", 0, "only spaces" },
	{ "(", 0, "unbalanced open" },
	{ ")", 0, "lone close" },
	{ "( *", 0, "missing close" },
	{ "( * ) )", 0, "extra close" },
	{ "* )", 0, "close without open" },
	{ "[ * )", 0, "mismatched close" },
	{ "{ * ]", 0, "mismatched close in dict" },
	{ "(*)", 0, "no spaces at all" },
	{ "( *)", 0, "close glued to leaf" },
	{ "(* )", 0, "open glued to leaf" },
	{ "( * )x", 0, "junk glued to close" },
	{ "**", 0, "double star token" },
	{ "* *", 0, "trailing leaf" },
	{ "( * * ) *", 0, "trailing junk after tree" },
	{ "* x", 0, "trailing word" },
	{ "x", 0, "unknown token" },
	{ "( a )", 0, "word in a tuple" },
	{ "{ * }", 0, "dict entry without key" },
	{ "{ =* }", 0, "empty key" },
	{ "{ k= * }", 0, "space after =" },
	{ "{ k =* }", 0, "space before =" },
	{ "{ k }", 0, "key without =" },
	{ "{ k= }", 0, "key without value" },
	{ "{ k=", 0, "input ends after =" },
	{ "{ k", 0, "input ends in key" },
	{ "{ a=b=* }", 0, "value is not a value" },
	{ "{ a=*}", 0, "close glued to value" },
	{ "{ a\x01=* }", 0, "control character in key" },
	{ "{ a\x7f=* }", 0, "DEL in key" },
	{ "{ a\tb=* }", 0, "tab in key" },
	{ "(\t*\t)", 0, "tabs are not separators" },
	{ "( *\n)", 0, "newline is not a separator" },
	{ "( * )", 3, "cut by len" },
	{ "( *\0 )", 6, "NUL byte inside" },
	{ "*\0", 2, "NUL byte at the end" },
	{ "\0*", 2, "NUL byte at the start" },
	{ "{ a\0b=* }", 9, "NUL byte in key" },
};

static void test_malformed(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		size_t len = c->len ? c->len : strlen(c->in);
		struct hcb_tree *t = (struct hcb_tree *)&t;   /* must stay untouched */
		unsigned int n = 12345;

		print_message("case %zu: %s\n", i, c->why);
		assert_int_equal(validate_n(c->in, len, &n), -EINVAL);
		assert_int_equal(n, 12345);
		assert_int_equal(parse_n(c->in, len, &t, &n), -EINVAL);
		assert_ptr_equal(t, (struct hcb_tree *)&t);
		assert_int_equal(n, 12345);
	}
}

/* The prefix s[0..len) is all that counts: "*junk" cut to 1 byte is "*". */
static void test_length_bounded(void **state)
{
	unsigned int n = 0;

	(void)state;
	assert_int_equal(validate_n("*junk", 1, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(validate_n("( * * ) trailing", 7, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(validate_n("( * * ) trailing", 8, &n), 0);   /* a trailing space is fine */
	assert_int_equal(validate_n("( * * ) trailing", 9, &n), -EINVAL);
	/* nleaves may be NULL */
	assert_int_equal(hcb_tree_validate("( * )", 5, NULL), 0);
}

static void test_key_length(void **state)
{
	char s[300];
	unsigned int n = 0;
	struct hcb_tree *t = NULL;

	(void)state;
	/* 255 bytes: the longest key */
	strcpy(s, "{ ");
	memset(s + 2, 'k', 255);
	strcpy(s + 2 + 255, "=* }");
	assert_int_equal(validate_n(s, strlen(s), &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(parse_n(s, strlen(s), &t, &n), 0);
	assert_int_equal(strlen(t->children[0].key), 255);
	hcb_tree_free(t);
	/* 256 bytes: too long */
	strcpy(s, "{ ");
	memset(s + 2, 'k', 256);
	strcpy(s + 2 + 256, "=* }");
	assert_int_equal(validate_n(s, strlen(s), &n), -EINVAL);
	assert_int_equal(parse_n(s, strlen(s), &t, &n), -EINVAL);
}

/* "( ( ... * ... ) )" with k tuples around one leaf. */
static char *nested(unsigned int k, char open, char close)
{
	char *s = malloc(4 * (size_t)k + 2), *p = s;

	assert_non_null(s);
	for (unsigned int i = 0; i < k; i++) {
		*p++ = open;
		*p++ = ' ';
	}
	*p++ = '*';
	for (unsigned int i = 0; i < k; i++) {
		*p++ = ' ';
		*p++ = close;
	}
	*p = '\0';
	return s;
}

static void test_depth(void **state)
{
	struct hcb_tree *t = NULL;
	unsigned int n = 0;
	char *s;

	(void)state;
	/* HCB_TREE_MAX_DEPTH containers around a leaf: accepted */
	s = nested(HCB_TREE_MAX_DEPTH, '(', ')');
	assert_int_equal(validate_n(s, strlen(s), &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(parse_n(s, strlen(s), &t, &n), 0);
	hcb_tree_free(t);
	free(s);
	/* one more: rejected */
	s = nested(HCB_TREE_MAX_DEPTH + 1, '[', ']');
	assert_int_equal(validate_n(s, strlen(s), &n), -EINVAL);
	assert_int_equal(parse_n(s, strlen(s), &t, &n), -EINVAL);
	free(s);
	/* far deeper (a hostile target): rejected without exhausting the stack */
	s = nested(100000, '(', ')');
	assert_int_equal(validate_n(s, strlen(s), &n), -EINVAL);
	assert_int_equal(parse_n(s, strlen(s), &t, &n), -EINVAL);
	free(s);
	/* the same depth through dict values */
	{
		char buf[8 * 70 + 16], *p = buf;

		for (int i = 0; i < 65; i++)
			p += sprintf(p, "{ k=");
		p += sprintf(p, "*");
		for (int i = 0; i < 65; i++)
			p += sprintf(p, " }");
		assert_int_equal(validate_n(buf, strlen(buf), &n), -EINVAL);
	}
}

/* Many leaves and wide containers. */
static void test_wide(void **state)
{
	size_t nl = 5000, len = 4 + 2 * nl;
	char *s = malloc(len + 1), *p = s;
	struct hcb_tree *t = NULL;
	unsigned int n = 0, next = 0;

	(void)state;
	assert_non_null(s);
	p = stpcpy(p, "[");
	for (size_t i = 0; i < nl; i++)
		p = stpcpy(p, " *");
	stpcpy(p, " ]");
	assert_int_equal(validate_n(s, strlen(s), &n), 0);
	assert_int_equal(n, nl);
	assert_int_equal(parse_n(s, strlen(s), &t, &n), 0);
	assert_int_equal(t->nchildren, nl);
	check_numbering(t, &next);
	assert_int_equal(next, nl);
	hcb_tree_free(t);
	free(s);
}

/* ---- property check: random strings over the grammar's alphabet ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 32);
}

/* A random valid tree, in canonical form, appended at *pos. */
static void gen_valid(char *s, size_t cap, size_t *pos, int depth, unsigned int *leaves)
{
	static const char *const opens[] = { "(", "[", "{" };
	static const char *const closes[] = { ")", "]", "}" };
	unsigned int kind = depth > 5 ? 3 : rnd() % 4;

	if (*pos + 64 > cap)
		kind = 3;
	if (kind == 3) {
		s[(*pos)++] = '*';
		(*leaves)++;
		return;
	}
	*pos += (size_t)sprintf(s + *pos, "%s", opens[kind]);
	for (unsigned int i = 0, n = rnd() % 4; i < n && *pos + 64 < cap; i++) {
		s[(*pos)++] = ' ';
		if (kind == 2)
			*pos += (size_t)sprintf(s + *pos, "k%u=", rnd() % 100);
		gen_valid(s, cap, pos, depth + 1, leaves);
	}
	*pos += (size_t)sprintf(s + *pos, " %s", closes[kind]);
}

static void test_random_agree(void **state)
{
	static const char alphabet[] = "()[]{}*= ak\x01";
	char s[512], canon[1024];

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		struct hcb_tree *t = NULL;
		unsigned int nv = 0, np = 0, gen_leaves = 0;
		size_t len = 0, pos = 0;
		int ev, ep, from_grammar = iter % 2 == 0, intact = 0;

		if (from_grammar) {
			gen_valid(s, sizeof(s) - 8, &len, 0, &gen_leaves);
			intact = rnd() % 3 != 0;
			if (!intact)   /* damage one byte */
				s[rnd() % len] = alphabet[rnd() % (sizeof(alphabet) - 1)];
		} else {
			len = rnd() % 24;
			for (size_t i = 0; i < len; i++)
				s[i] = alphabet[rnd() % (sizeof(alphabet) - 1)];
		}
		ev = validate_n(s, len, &nv);
		ep = parse_n(s, len, &t, &np);
		assert_true(ev == 0 || ev == -EINVAL);
		assert_int_equal(ev, ep);
		if (intact)
			assert_int_equal(ev, 0);
		if (ev)
			continue;
		assert_int_equal(nv, np);
		/* the canonical text parses again to the same leaf count and text */
		unparse(t, canon, sizeof(canon), &pos);
		hcb_tree_free(t);
		assert_int_equal(validate_n(canon, pos, &nv), 0);
		assert_int_equal(nv, np);
		if (intact) {
			assert_int_equal(np, gen_leaves);
			assert_int_equal(pos, len);
			assert_memory_equal(canon, s, len);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_golden),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_length_bounded),
		cmocka_unit_test(test_key_length),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_wide),
		cmocka_unit_test(test_random_agree),
	};

	return cmocka_run_group_tests_name("tree", tests, NULL, NULL);
}
