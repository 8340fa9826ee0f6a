/* SPDX-License-Identifier: MIT */
/*
 * pretty.h - the subset of JAX's Wadler-Lindig pretty printer
 * (jax._src.pretty_printer) that id_print used to lay out pytrees.
 *
 * id_print printed a tuple as
 *	group(concat([text("( "), nest(2, join(brk(), items)), text(" )")]))
 * a list the same with "[ " / " ]", a dict with "{ " / " }" and items
 * concat([text("key="), value]) sorted by key, and an array as
 * text(numpy.array2string(...)), which may hold newlines.  Rendering at
 * width 80 reproduces str(doc) byte for byte.
 *
 * Documents live in an arena and are freed together.  Constructors return
 * NULL when out of memory and pass a NULL child on as NULL, so a caller
 * builds the whole tree and checks once, at the end.
 */
#ifndef HCB_PRETTY_H
#define HCB_PRETTY_H

#include <stddef.h>

#include "core/buf.h"

struct hcb_doc;
struct hcb_doc_arena;

struct hcb_doc_arena *hcb_doc_arena_new(void);
void hcb_doc_arena_free(struct hcb_doc_arena *a);  /* NULL is fine */

/* Literal text, copied; newlines are printed as they are. */
struct hcb_doc *hcb_doc_text(struct hcb_doc_arena *a, const char *s, size_t len);
/* pp.brk(" "): a space, or a newline and the indentation if its group breaks. */
struct hcb_doc *hcb_doc_brk(struct hcb_doc_arena *a);
/* The parts one after the other; n == 0 is the empty document. */
struct hcb_doc *hcb_doc_concat(struct hcb_doc_arena *a, struct hcb_doc *const *parts,
			       size_t n);
/* Breaks inside d indent n more columns. */
struct hcb_doc *hcb_doc_nest(struct hcb_doc_arena *a, int n, struct hcb_doc *d);
/* Print d flat if all of it fits on the current line, else break its breaks. */
struct hcb_doc *hcb_doc_group(struct hcb_doc_arena *a, struct hcb_doc *d);

/*
 * Append the document laid out for width columns (str(doc) is width 80).
 * Returns 0, -ENOMEM, or -EINVAL for a NULL document.
 */
int hcb_doc_render(struct hcb_buf *out, const struct hcb_doc *d, int width);

#endif
