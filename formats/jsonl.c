/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "jsonl.h"
#include "jsonparse.h"

/* Names and kwargs come from the target: bytes that are not UTF-8 are
 * written as U+FFFD, so every record stays valid JSON. */
int hcb_json_string(struct hcb_buf *out, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int err = hcb_buf_putc(out, '"');

	while (*s && !err) {
		unsigned char ch = *s;
		int n = json_utf8_len(s);

		if (n == 0) {
			err = hcb_buf_puts(out, "\\ufffd");
			s++;
			continue;
		}
		if (n > 1)
			err = hcb_buf_add(out, s, (size_t)n);
		else if (ch == '"' || ch == '\\')
			err = hcb_buf_printf(out, "\\%c", ch);
		else if (ch == '\n')
			err = hcb_buf_puts(out, "\\n");
		else if (ch == '\t')
			err = hcb_buf_puts(out, "\\t");
		else if (ch < 0x20 || ch == 0x7f)
			err = hcb_buf_printf(out, "\\u%04x", ch);
		else
			err = hcb_buf_putc(out, (char)ch);
		s += n;
	}
	return err ? err : hcb_buf_putc(out, '"');
}

/*
 * Does the decimal d read back as the element bits of a narrow float type
 * (float16, bfloat16, float8)?  Those types have few enough bits that their
 * neighbours and the midpoints between them are exact doubles: d must lie
 * inside the rounding interval of the value, a midpoint counting only
 * where round-half-to-even picks the value (an even bit pattern).
 */
static int narrow_roundtrips(unsigned int dtype, uint32_t bits, double d)
{
	size_t size = hcb_dtype_size(dtype);
	uint32_t sign = 1u << (size * 8 - 1), mag = bits & (sign - 1);
	double v, lo, hi, prev, next;
	uint32_t nb;

	v = fabs(hcb_elem_to_double(dtype, &bits));
	if ((bits & sign) ? d > 0 || (d == 0 && !signbit(d)) : d < 0 || (d == 0 && signbit(d)))
		return 0;
	d = fabs(d);
	nb = mag - 1;
	prev = mag ? hcb_elem_to_double(dtype, &nb) : -hcb_elem_to_double(dtype, &(uint32_t){ 1 });
	nb = mag + 1;
	next = hcb_elem_to_double(dtype, &nb);
	if (!isfinite(next))   /* the largest finite value: its interval is as wide above */
		next = v + (v - prev);
	lo = (prev + v) / 2;
	hi = (v + next) / 2;
	if (d > lo && d < hi)
		return 1;
	return (d == lo || d == hi) && !(mag & 1);
}

static int roundtrips(unsigned int dtype, const void *p, double v, const char *text)
{
	uint32_t bits = 0;

	switch (dtype) {
	case HCB_DT_FLOAT64:
		return strtod(text, NULL) == v;
	case HCB_DT_FLOAT32:
		return strtof(text, NULL) == (float)v;
	default:
		memcpy(&bits, p, hcb_dtype_size(dtype));
		return narrow_roundtrips(dtype, bits, strtod(text, NULL));
	}
}

/*
 * Lay out significant digits d (no dot) with decimal exponent e (value =
 * 0.d * 10^(e+1), i.e. d[0] is the 10^e digit) as Python's repr does:
 * positional for -4 <= e < 16 (always with a '.'), else d.ddde+XX.
 */
static int put_repr(struct hcb_buf *out, int neg, const char *d, int nd, int e)
{
	int err = neg ? hcb_buf_putc(out, '-') : 0;

	if (err)
		return err;
	if (e >= -4 && e < 16) {
		if (e < 0) {
			err = hcb_buf_puts(out, "0.");
			if (!err)
				err = hcb_buf_fill(out, '0', (size_t)(-e - 1));
			return err ? err : hcb_buf_add(out, d, (size_t)nd);
		}
		if (nd <= e + 1) {
			err = hcb_buf_add(out, d, (size_t)nd);
			if (!err)
				err = hcb_buf_fill(out, '0', (size_t)(e + 1 - nd));
			return err ? err : hcb_buf_puts(out, ".0");
		}
		err = hcb_buf_add(out, d, (size_t)e + 1);
		if (!err)
			err = hcb_buf_putc(out, '.');
		return err ? err : hcb_buf_add(out, d + e + 1, (size_t)(nd - e - 1));
	}
	err = hcb_buf_putc(out, d[0]);
	if (!err && nd > 1) {
		err = hcb_buf_putc(out, '.');
		if (!err)
			err = hcb_buf_add(out, d + 1, (size_t)nd - 1);
	}
	return err ? err : hcb_buf_printf(out, "e%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
}

/*
 * The shortest digits that read back to the element in its own dtype, laid
 * out as Python's repr would.  Round-tripping is monotonic in the number of
 * digits, so a binary search over "%.*e" finds the fewest in a few tries.
 * (A precision search, not Ryu: exact, and fast enough for recordings.)
 */
static int json_real(struct hcb_buf *out, unsigned int dtype, const void *p)
{
	double v = hcb_elem_to_double(dtype, p);
	int lo = 1, hi = dtype == HCB_DT_FLOAT64 ? 17 : 9, nd = 0, e;
	char tmp[40], digits[24];

	if (isnan(v))
		return hcb_buf_puts(out, "\"nan\"");
	if (isinf(v))
		return hcb_buf_puts(out, v > 0 ? "\"inf\"" : "\"-inf\"");
	if (v == 0)
		return hcb_buf_puts(out, signbit(v) ? "-0.0" : "0.0");
	/* whole float32/float64 numbers below 2^24 are exact, their neighbours
	 * at most 1 away: their own digits are the shortest.  Skip the search. */
	if ((dtype == HCB_DT_FLOAT32 || dtype == HCB_DT_FLOAT64 || dtype == HCB_DT_COMPLEX64 ||
	     dtype == HCB_DT_COMPLEX128) && fabs(v) < 16777216 && v == (double)(int32_t)v)
		return hcb_buf_printf(out, "%d.0", (int32_t)v);
	while (lo < hi) {
		int mid = (lo + hi) / 2;

		snprintf(tmp, sizeof(tmp), "%.*e", mid - 1, v);
		if (roundtrips(dtype, p, v, tmp))
			hi = mid;
		else
			lo = mid + 1;
	}
	/* "-d.ddde±XX": take the digits, drop trailing zeros, keep the exponent */
	snprintf(tmp, sizeof(tmp), "%.*e", lo - 1, fabs(v));
	for (const char *c = tmp; *c && *c != 'e'; c++)
		if (*c >= '0' && *c <= '9')
			digits[nd++] = *c;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	e = atoi(strchr(tmp, 'e') + 1);
	return put_repr(out, signbit(v) != 0, digits, nd, e);
}

int hcb_json_element(struct hcb_buf *out, unsigned int dtype, const void *p)
{
	int err;

	switch (dtype) {
	case HCB_DT_BOOL:
		return hcb_buf_puts(out, *(const unsigned char *)p ? "true" : "false");
	case HCB_DT_FLOAT64:
		return json_real(out, dtype, p);
	case HCB_DT_COMPLEX64:
	case HCB_DT_COMPLEX128: {
		size_t half = hcb_dtype_size(dtype) / 2;
		unsigned int part = dtype == HCB_DT_COMPLEX64 ? HCB_DT_FLOAT32 : HCB_DT_FLOAT64;

		err = hcb_buf_putc(out, '[');
		if (!err)
			err = hcb_json_element(out, part, p);
		if (!err)
			err = hcb_buf_putc(out, ',');
		if (!err)
			err = hcb_json_element(out, part, (const char *)p + half);
		return err ? err : hcb_buf_putc(out, ']');
	}
	default:
		if (hcb_dtype_is_float(dtype))
			return json_real(out, dtype, p);
		if (hcb_dtype_is_signed(dtype))
			return hcb_buf_printf(out, "%lld", (long long)hcb_elem_to_i64(dtype, p));
		if (hcb_dtype_is_unsigned(dtype))
			return hcb_buf_printf(out, "%llu", (unsigned long long)hcb_elem_to_u64(dtype, p));
		return -EINVAL;
	}
}

int hcb_jsonl_session(struct hcb_buf *out, pid_t pid, const char *provider,
		      const char *platform, uint64_t start_ns)
{
	int err = hcb_buf_printf(out, "{\"type\":\"session\",\"version\":%d,\"pid\":%d,\"provider\":",
				 HCB_JSONL_VERSION, (int)pid);

	if (!err)
		err = hcb_json_string(out, provider);
	if (!err)
		err = hcb_buf_puts(out, ",\"platform\":");
	if (!err)
		err = hcb_json_string(out, platform);
	if (!err)
		err = hcb_buf_printf(out, ",\"start_ns\":%llu,\"hcbtrace\":\"%s\"}\n",
				     (unsigned long long)start_ns, HCB_VERSION);
	return err;
}

static int kwargs_object(struct hcb_buf *out, const struct hcb_consumer *c)
{
	int err = hcb_buf_putc(out, '{');

	for (unsigned int i = 0; i < c->nkwargs && !err; i++) {
		if (i)
			err = hcb_buf_putc(out, ',');
		if (!err)
			err = hcb_json_string(out, c->kwargs[i].key);
		if (!err)
			err = hcb_buf_putc(out, ':');
		if (!err)
			err = hcb_json_string(out, c->kwargs[i].value);
	}
	return err ? err : hcb_buf_putc(out, '}');
}

int hcb_jsonl_tap(struct hcb_buf *out, const struct hcb_consumer *c, uint32_t device,
		  int64_t seq, uint64_t ts_ns, const unsigned char *payload)
{
	int err = hcb_buf_printf(out, "{\"type\":\"tap\",\"device\":%u,\"seq\":", device);

	if (!err)
		err = seq < 0 ? hcb_buf_puts(out, "null") : hcb_buf_printf(out, "%lld", (long long)seq);
	if (!err)
		err = hcb_buf_printf(out, ",\"consumer\":%u,\"name\":", c->id);

	if (!err)
		err = hcb_json_string(out, c->name);
	if (!err)
		err = hcb_buf_puts(out, ",\"kwargs\":");
	if (!err)
		err = kwargs_object(out, c);
	if (!err)
		err = hcb_buf_puts(out, ",\"tree\":");
	if (!err)
		err = hcb_json_string(out, c->tree);
	if (!err)
		err = hcb_buf_printf(out, ",\"ts_ns\":%llu,\"arrays\":[", (unsigned long long)ts_ns);
	for (unsigned int i = 0; i < c->nleaves && !err; i++) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		size_t size = hcb_dtype_size(l->dtype);

		err = hcb_buf_printf(out, "%s{\"dtype\":\"%s\",\"shape\":[", i ? "," : "",
				     hcb_dtype_name(l->dtype));
		for (unsigned int d = 0; d < l->ndim && !err; d++)
			err = hcb_buf_printf(out, "%s%llu", d ? "," : "", (unsigned long long)l->dims[d]);
		if (!err)
			err = hcb_buf_puts(out, "],\"data\":[");
		for (uint64_t e = 0; e < l->nelems && !err; e++) {
			if (e)
				err = hcb_buf_putc(out, ',');
			if (!err)
				err = hcb_json_element(out, l->dtype, payload + e * size);
		}
		if (!err)
			err = hcb_buf_puts(out, "]}");
		payload += l->nbytes;
	}
	return err ? err : hcb_buf_puts(out, "]}\n");
}

int hcb_jsonl_drop(struct hcb_buf *out, uint32_t device, uint64_t count, const char *reason)
{
	int err = hcb_buf_printf(out, "{\"type\":\"drop\",\"device\":%u,\"count\":%llu,\"reason\":",
				 device, (unsigned long long)count);

	if (!err)
		err = hcb_json_string(out, reason);
	return err ? err : hcb_buf_puts(out, "}\n");
}

int hcb_jsonl_barrier(struct hcb_buf *out, uint64_t ts_ns, uint64_t taps)
{
	return hcb_buf_printf(out, "{\"type\":\"barrier\",\"ts_ns\":%llu,\"taps\":%llu}\n",
			      (unsigned long long)ts_ns, (unsigned long long)taps);
}

int hcb_jsonl_end(struct hcb_buf *out, uint64_t taps, uint64_t drops, uint64_t end_ns)
{
	return hcb_buf_printf(out, "{\"type\":\"end\",\"taps\":%llu,\"drops\":%llu,\"end_ns\":%llu}\n",
			      (unsigned long long)taps, (unsigned long long)drops,
			      (unsigned long long)end_ns);
}
