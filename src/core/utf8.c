/* SPDX-License-Identifier: MIT */
/* pystr.c - code points as UTF-8 (pystr.h). */
#include "utf8.h"

unsigned int hcb_utf8_put(uint32_t cp, unsigned char o[4])
{
	if (cp < 0x80) {
		o[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (unsigned char)(0xc0 | cp >> 6);
		o[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (unsigned char)(0xe0 | cp >> 12);
		o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
		o[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp > 0x10ffff)
		return 0;
	o[0] = (unsigned char)(0xf0 | cp >> 18);
	o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
	o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
	o[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/* The length of the UTF-8 sequence at s (at most n bytes), 0 if it is
 * none: no overlong form, no surrogate, nothing past U+10FFFF. */
static size_t seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t k;

	if (s[0] < 0x80)
		return 1;
	k = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
	if (!k || k > n || s[0] > 0xf4)
		return 0;
	cp = s[0] & (0x7f >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp < 0xe000) || cp > 0x10ffff)
		return 0;
	return k;
}

int hcb_utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;

	while (n) {
		size_t k = seq_len(p, n);

		if (!k)
			return 0;
		p += k;
		n -= k;
	}
	return 1;
}
