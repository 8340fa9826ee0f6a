/* SPDX-License-Identifier: MIT */
/* buf.h - a growable byte buffer for building text; returns -ENOMEM, never exits. */
#ifndef HCB_BUF_H
#define HCB_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct hcb_buf {
	char *data;  /* always NUL terminated once anything was added */
	size_t len;
	size_t cap;
};

#define HCB_BUF_INIT { NULL, 0, 0 }

int hcb_buf_reserve(struct hcb_buf *b, size_t extra);
int hcb_buf_add(struct hcb_buf *b, const void *p, size_t n);
int hcb_buf_puts(struct hcb_buf *b, const char *s);
int hcb_buf_putc(struct hcb_buf *b, char c);
int hcb_buf_printf(struct hcb_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int hcb_buf_vprintf(struct hcb_buf *b, const char *fmt, va_list ap);
/* Append n copies of c. */
int hcb_buf_fill(struct hcb_buf *b, char c, size_t n);
/*
 * Append s (n bytes) as text that a terminal shows and never acts on: what a
 * traced program or a recording names (consumers, kwargs, paths) goes
 * through here before it reaches a terminal.  Printable ASCII and printable
 * UTF-8 are kept as they are (the backslash too); newline, carriage return
 * and tab become \n, \r and \t; every other C0 control, DEL, the bytes of a
 * C1 control (U+0080..U+009F) and bytes that are no valid UTF-8 become
 * \xHH, lower-case hex.  -ENOMEM.
 */
int hcb_buf_put_visible(struct hcb_buf *b, const char *s, size_t n);
void hcb_buf_reset(struct hcb_buf *b);   /* len = 0, keeps memory */
void hcb_buf_free(struct hcb_buf *b);
/* "" when nothing was added yet. */
const char *hcb_buf_str(const struct hcb_buf *b);

#endif
