/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "json/jsonparse.h"
#include "text/dragon4.h"
#include "jsonl.h"
#include "jsonl_num.h"

/* Names and kwargs come from the target: bytes that are not UTF-8 are
 * written as U+FFFD, so every record stays valid JSON; every control
 * character (C0, DEL, C1) is written as an escape. */
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
		/* a C1 control (U+0080..U+009F) escaped too: a recording shown on a
		 * terminal shows it, and JSON reads it back as the same character */
		if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0)
			err = hcb_buf_printf(out, "\\u%04x", s[1]);
		else if (n > 1)
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

/* Dragon4's view of a finite, nonzero element of a float dtype: its own
 * mantissa bits and smallest normal exponent decide its shortest digits. */
static struct hcb_d4_float d4_bits(unsigned int dtype, double v)
{
	int mant_bits = 52, min_exp = -1022;

	hcb_dtype_float_format(dtype, &mant_bits, &min_exp);
	return hcb_d4_split(v, mant_bits, min_exp);
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
 * The shortest digits that read back to the element in its own dtype (and
 * of those the nearest: Dragon4's unique digits, as Python's repr picks
 * them for a double), laid out as Python's repr would.
 */
int hcb_json_real_d4(struct hcb_buf *out, unsigned int dtype, const void *p)
{
	double v = hcb_elem_to_double(dtype, p);
	struct hcb_d4_float bits;
	struct hcb_decimal d;

	if (isnan(v))
		return hcb_buf_puts(out, "\"nan\"");
	if (isinf(v))
		return hcb_buf_puts(out, v > 0 ? "\"inf\"" : "\"-inf\"");
	if (v == 0)
		return hcb_buf_puts(out, signbit(v) ? "-0.0" : "0.0");
	/* float8_e8m0fnu's smallest, 2^-127: ml_dtypes reads anything above it
	 * as 2^-126 (it rounds there as if the code were 0), so only its exact
	 * digits read back */
	if (dtype == HCB_DT_FLOAT8_E8M0FNU && v == 0x1p-127)
		return hcb_buf_puts(out, "5.877471754111438e-39");
	bits = d4_bits(dtype, v);
	hcb_dragon4(&bits, HCB_D4_UNIQUE, HCB_D4_TOTAL, -1, -1, &d);
	while (d.n > 1 && d.d[d.n - 1] == '0')
		d.n--;
	return put_repr(out, signbit(v) != 0, d.d, d.n, d.e);
}

/* float32 and float64 by dragonbox (the same text: jsonl_num.h), the
 * narrow floats by Dragon4 */
static int json_real(struct hcb_buf *out, unsigned int dtype, const void *p)
{
	int err;

	if (dtype != HCB_DT_FLOAT32 && dtype != HCB_DT_FLOAT64)
		return hcb_json_real_d4(out, dtype, p);
	err = hcb_buf_reserve(out, HCB_JSON_REAL_MAX);
	if (err)
		return err;
	out->len += hcb_json_real_text(out->data + out->len, dtype, p);
	out->data[out->len] = '\0';
	return 0;
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
		  int64_t seq, uint64_t wall_ns, const unsigned char *payload)
{
	return hcb_jsonl_tap_copy(out, c, device, seq, wall_ns, 0, 0, payload);
}

int hcb_jsonl_tap_copy(struct hcb_buf *out, const struct hcb_consumer *c, uint32_t device,
		       int64_t seq, uint64_t wall_ns, uint64_t copy_start_ns, uint64_t copy_end_ns,
		       const unsigned char *payload)
{
	int err;

	/* readers refuse copy times that end before they start */
	if (copy_start_ns > copy_end_ns)
		return -EINVAL;
	err = hcb_buf_printf(out, "{\"type\":\"tap\",\"device\":%u,\"seq\":", device);
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
		err = hcb_buf_printf(out, ",\"ts_ns\":%llu", (unsigned long long)wall_ns);
	/* only where they are known: a recording without them stays as it was */
	if (!err && copy_end_ns)
		err = hcb_buf_printf(out, ",\"copy_ns\":[%llu,%llu]", (unsigned long long)copy_start_ns,
				     (unsigned long long)copy_end_ns);
	if (!err)
		err = hcb_buf_puts(out, ",\"arrays\":[");
	for (unsigned int i = 0; i < c->nleaves && !err; i++) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		size_t size = hcb_dtype_size(l->dtype);

		err = hcb_buf_printf(out, "%s{\"dtype\":\"%s\",\"shape\":[", i ? "," : "",
				     hcb_dtype_name(l->dtype));
		for (unsigned int d = 0; d < l->ndim && !err; d++)
			err = hcb_buf_printf(out, "%s%llu", d ? "," : "", (unsigned long long)l->dims[d]);
		if (!err)
			err = hcb_buf_puts(out, "],\"data\":[");
		if (!err && (l->dtype == HCB_DT_FLOAT32 || l->dtype == HCB_DT_FLOAT64))
			err = hcb_json_reals(out, l->dtype, payload, l->nelems);
		else for (uint64_t e = 0; e < l->nelems && !err; e++) {
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

int hcb_jsonl_barrier(struct hcb_buf *out, uint64_t wall_ns, uint64_t taps)
{
	return hcb_buf_printf(out, "{\"type\":\"barrier\",\"ts_ns\":%llu,\"taps\":%llu}\n",
			      (unsigned long long)wall_ns, (unsigned long long)taps);
}

int hcb_jsonl_end(struct hcb_buf *out, uint64_t taps, uint64_t drops, uint64_t end_ns)
{
	return hcb_buf_printf(out, "{\"type\":\"end\",\"taps\":%llu,\"drops\":%llu,\"end_ns\":%llu}\n",
			      (unsigned long long)taps, (unsigned long long)drops,
			      (unsigned long long)end_ns);
}
