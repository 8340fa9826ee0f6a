/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int hcb_buf_reserve(struct hcb_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (extra > (size_t)-1 / 2 - b->len)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = cap;
	return 0;
}

int hcb_buf_add(struct hcb_buf *b, const void *p, size_t n)
{
	int err = hcb_buf_reserve(b, n);

	if (err)
		return err;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int hcb_buf_puts(struct hcb_buf *b, const char *s)
{
	return hcb_buf_add(b, s, strlen(s));
}

int hcb_buf_putc(struct hcb_buf *b, char c)
{
	return hcb_buf_add(b, &c, 1);
}

int hcb_buf_fill(struct hcb_buf *b, char c, size_t n)
{
	int err = hcb_buf_reserve(b, n);

	if (err)
		return err;
	memset(b->data + b->len, c, n);
	b->len += n;
	b->data[b->len] = '\0';
	return 0;
}

int hcb_buf_vprintf(struct hcb_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n, err;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return -EINVAL;
	err = hcb_buf_reserve(b, (size_t)n);
	if (err)
		return err;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int hcb_buf_printf(struct hcb_buf *b, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = hcb_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return err;
}

void hcb_buf_reset(struct hcb_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void hcb_buf_free(struct hcb_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char *hcb_buf_str(const struct hcb_buf *b)
{
	return b->data ? b->data : "";
}

/* The length of the UTF-8 sequence of a printable character at s (at most
 * n bytes), 0 if s starts none: C1 controls (U+0080..U+009F), overlong
 * forms, surrogates and stray bytes are not one (RFC 3629). */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
	size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0xc2 || s[0] > 0xf4 || n < len)
		return 0;
	if (s[0] == 0xc2)
		lo = 0xa0;   /* U+0080..U+009F are the C1 controls */
	else if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

int hcb_buf_put_visible(struct hcb_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	/* room for the text as it is (most is), and terminated even if empty */
	int err = hcb_buf_reserve(b, n) ?: hcb_buf_add(b, "", 0);

	for (size_t i = 0; i < n && !err;) {
		size_t k = p[i] >= 0x20 && p[i] < 0x7f ? 1 : p[i] >= 0x80 ? printable_utf8(p + i, n - i) : 0;

		if (k) {
			err = hcb_buf_add(b, p + i, k);
			i += k;
			continue;
		}
		err = p[i] == '\n' ? hcb_buf_puts(b, "\\n") : p[i] == '\r' ? hcb_buf_puts(b, "\\r") :
		      p[i] == '\t' ? hcb_buf_puts(b, "\\t") : hcb_buf_printf(b, "\\x%02x", p[i]);
		i++;
	}
	return err;
}
