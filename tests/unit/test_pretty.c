/* SPDX-License-Identifier: MIT */
/*
 * test_pretty.c - hcb_doc_render against JAX's pretty printer.
 *
 * Data: <dir>/arrayprint/pretty.txt, written by
 * tests/tools/gen_pretty_golden.py from jax 0.4.25 (the format and the
 * document syntax are described there).  <dir> is argv[1], else the
 * environment variable HCB_TEST_DATA; it is the tests/data directory:
 *
 *	./test_pretty tests/data
 *	HCB_TEST_DATA=tests/data ./test_pretty
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

#include "core/buf.h"
#include "text/pretty.h"

static const char *data_dir;

static void skip_ws(const char **p)
{
	while (**p == ' ')
		(*p)++;
}

/* Append code point c as UTF-8. */
static void put_utf8(struct hcb_buf *b, unsigned int c)
{
	if (c < 0x80) {
		hcb_buf_putc(b, (char)c);
	} else if (c < 0x800) {
		hcb_buf_putc(b, (char)(0xc0 | c >> 6));
		hcb_buf_putc(b, (char)(0x80 | (c & 0x3f)));
	} else {
		hcb_buf_putc(b, (char)(0xe0 | c >> 12));
		hcb_buf_putc(b, (char)(0x80 | ((c >> 6) & 0x3f)));
		hcb_buf_putc(b, (char)(0x80 | (c & 0x3f)));
	}
}

/* Parse one document of the golden syntax; NULL on a syntax error. */
static struct hcb_doc *parse(struct hcb_doc_arena *a, const char **p)
{
	skip_ws(p);
	if (**p == '"') {
		struct hcb_buf s = HCB_BUF_INIT;
		struct hcb_doc *d;

		for ((*p)++; **p && **p != '"'; (*p)++) {
			if (**p != '\\') {
				hcb_buf_putc(&s, **p);
				continue;
			}
			(*p)++;
			switch (**p) {
			case 'n': hcb_buf_putc(&s, '\n'); break;
			case 't': hcb_buf_putc(&s, '\t'); break;
			case 'u': {
				char hex[5] = { 0 };

				memcpy(hex, *p + 1, 4);
				put_utf8(&s, (unsigned int)strtoul(hex, NULL, 16));
				*p += 4;
				break;
			}
			default: hcb_buf_putc(&s, **p); break;
			}
		}
		if (**p != '"') {
			hcb_buf_free(&s);
			return NULL;
		}
		(*p)++;
		d = hcb_doc_text(a, hcb_buf_str(&s), s.len);
		hcb_buf_free(&s);
		return d;
	}
	if (strncmp(*p, "brk", 3) == 0) {
		*p += 3;
		return hcb_doc_brk(a);
	}
	if (strncmp(*p, "(concat", 7) == 0) {
		struct hcb_doc *parts[64];
		size_t n = 0;

		*p += 7;
		for (skip_ws(p); **p != ')'; skip_ws(p)) {
			if (n == 64 || !**p)
				return NULL;
			parts[n] = parse(a, p);
			if (!parts[n++])
				return NULL;
		}
		(*p)++;
		return hcb_doc_concat(a, parts, n);
	}
	if (strncmp(*p, "(nest", 5) == 0) {
		char *end;
		long n = strtol(*p + 5, &end, 10);
		struct hcb_doc *d;

		*p = end;
		d = parse(a, p);
		skip_ws(p);
		if (**p != ')')
			return NULL;
		(*p)++;
		return hcb_doc_nest(a, (int)n, d);
	}
	if (strncmp(*p, "(group", 6) == 0) {
		struct hcb_doc *d;

		*p += 6;
		d = parse(a, p);
		skip_ws(p);
		if (**p != ')')
			return NULL;
		(*p)++;
		return hcb_doc_group(a, d);
	}
	return NULL;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	if (n && s[n - 1] == '\n')
		s[n - 1] = '\0';
}

static void test_golden(void **state)
{
	struct hcb_buf expect = HCB_BUF_INIT, out = HCB_BUF_INIT;
	char path[4096], name[128] = "", *line = NULL, *doc = NULL;
	size_t cap = 0;
	int width = 80, ncases = 0, nbad = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/arrayprint/pretty.txt", data_dir);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s: %s", path, strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		chomp(line);
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (strncmp(line, "case ", 5) == 0) {
			snprintf(name, sizeof(name), "%s", line + 5);
		} else if (strncmp(line, "width ", 6) == 0) {
			width = atoi(line + 6);
		} else if (strncmp(line, "doc ", 4) == 0) {
			free(doc);
			doc = strdup(line + 4);
			assert_non_null(doc);
		} else if (strncmp(line, "expect ", 7) == 0) {
			int n = atoi(line + 7);
			struct hcb_doc_arena *a = hcb_doc_arena_new();
			const char *p = doc;
			struct hcb_doc *d;

			assert_non_null(a);
			assert_non_null(doc);
			hcb_buf_reset(&expect);
			for (int i = 0; i < n; i++) {
				if (getline(&line, &cap, f) < 0)
					fail_msg("%s: %s: file ends inside the expected text", path, name);
				chomp(line);
				if (i)
					hcb_buf_putc(&expect, '\n');
				hcb_buf_puts(&expect, line);
			}
			d = parse(a, &p);
			if (!d)
				fail_msg("%s: %s: cannot parse the document", path, name);
			hcb_buf_reset(&out);
			assert_int_equal(hcb_doc_render(&out, d, width), 0);
			ncases++;
			if (strcmp(hcb_buf_str(&out), hcb_buf_str(&expect)) != 0) {
				if (nbad < 5)
					print_error("%s: case %s\n--- jax\n%s\n--- ours\n%s\n", path,
						    name, hcb_buf_str(&expect), hcb_buf_str(&out));
				nbad++;
			}
			hcb_doc_arena_free(a);
		} else {
			fail_msg("%s: cannot parse '%s'", path, line);
		}
	}
	fclose(f);
	free(line);
	free(doc);
	hcb_buf_free(&expect);
	hcb_buf_free(&out);
	print_message("pretty: %d cases, %d differ\n", ncases, nbad);
	assert_true(ncases > 0);
	assert_int_equal(nbad, 0);
}

/* id_print's tuple: group(concat([text("( "), nest(2, join(brk(), items)), text(" )")])) */
static struct hcb_doc *tuple(struct hcb_doc_arena *a, struct hcb_doc **items, size_t n)
{
	struct hcb_doc *joined[16], *parts[3];
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (i)
			joined[m++] = hcb_doc_brk(a);
		joined[m++] = items[i];
	}
	parts[0] = hcb_doc_text(a, "( ", 2);
	parts[1] = hcb_doc_nest(a, 2, hcb_doc_concat(a, joined, m));
	parts[2] = hcb_doc_text(a, " )", 2);
	return hcb_doc_group(a, hcb_doc_concat(a, parts, 3));
}

static void render_is(const struct hcb_doc *d, int width, const char *want)
{
	struct hcb_buf out = HCB_BUF_INIT;

	assert_int_equal(hcb_doc_render(&out, d, width), 0);
	assert_string_equal(hcb_buf_str(&out), want);
	hcb_buf_free(&out);
}

static void test_examples(void **state)
{
	struct hcb_doc_arena *a = hcb_doc_arena_new();
	struct hcb_doc *items[3], *inner[2];

	(void)state;
	assert_non_null(a);
	items[0] = hcb_doc_text(a, "[1 2]", 5);
	items[1] = hcb_doc_text(a, "3", 1);
	render_is(tuple(a, items, 2), 80, "( [1 2] 3 )");
	render_is(tuple(a, items, 2), 8, "( [1 2]\n  3 )");
	render_is(tuple(a, items, 0), 80, "(  )");

	/* a multi-line leaf is printed as is and counts all its characters */
	items[0] = hcb_doc_text(a, "[[1 2]\n [3 4]]", 14);
	render_is(tuple(a, items, 2), 80, "( [[1 2]\n [3 4]] 3 )");
	inner[0] = hcb_doc_text(a, "x", 1);
	inner[1] = hcb_doc_text(a, "y", 1);
	items[2] = tuple(a, inner, 2);
	render_is(tuple(a, items, 3), 22, "( [[1 2]\n [3 4]]\n  3\n  ( x y ) )");

	/* outside a group a break is a newline */
	render_is(hcb_doc_brk(a), 80, "\n");
	hcb_doc_arena_free(a);
}

static void test_null(void **state)
{
	struct hcb_doc_arena *a = hcb_doc_arena_new();
	struct hcb_doc *parts[2] = { NULL, NULL };
	struct hcb_buf out = HCB_BUF_INIT;

	(void)state;
	assert_null(hcb_doc_group(a, NULL));
	assert_null(hcb_doc_nest(a, 2, NULL));
	parts[0] = hcb_doc_brk(a);
	assert_null(hcb_doc_concat(a, parts, 2));
	assert_null(hcb_doc_text(NULL, "x", 1));
	assert_int_equal(hcb_doc_render(&out, NULL, 80), -EINVAL);
	hcb_doc_arena_free(a);
	hcb_doc_arena_free(NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_golden),
	};

	data_dir = argc > 1 ? argv[1] : getenv("HCB_TEST_DATA");
	if (!data_dir) {
		fprintf(stderr, "usage: %s DATA_DIR (or set HCB_TEST_DATA)\n", argv[0]);
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
