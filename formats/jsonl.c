/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "jsonl.h"

int hcb_json_string(struct hcb_buf *out, const char *s)
{
	int err = hcb_buf_putc(out, '"');

	for (; *s && !err; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			err = hcb_buf_printf(out, "\\%c", ch);
		else if (ch == '\n')
			err = hcb_buf_puts(out, "\\n");
		else if (ch == '\t')
			err = hcb_buf_puts(out, "\\t");
		else if (ch < 0x20 || ch == 0x7f)
			err = hcb_buf_printf(out, "\\u%04x", ch);
		else
			err = hcb_buf_putc(out, (char)ch);
	}
	return err ? err : hcb_buf_putc(out, '"');
}

/*
 * Shortest "%.*g" text that reads back to v in the element's own precision
 * (float32 for float32 and the narrower floats, which float32 holds exactly).
 * Precision search, not Ryu: correct, and fast enough for recordings.
 */
static int json_real(struct hcb_buf *out, double v, int single)
{
	char tmp[40];
	int p;

	if (isnan(v))
		return hcb_buf_puts(out, "\"nan\"");
	if (isinf(v))
		return hcb_buf_puts(out, v > 0 ? "\"inf\"" : "\"-inf\"");
	for (p = single ? 6 : 15; p < 17; p++) {
		snprintf(tmp, sizeof(tmp), "%.*g", p, v);
		if (single ? strtof(tmp, NULL) == (float)v : strtod(tmp, NULL) == v)
			break;
	}
	if (p == 17)
		snprintf(tmp, sizeof(tmp), "%.17g", v);
	/* keep it a float for readers that tell 0 from 0.0 (and -0.0) */
	if (!strpbrk(tmp, ".e"))
		strcat(tmp, ".0");
	return hcb_buf_puts(out, tmp);
}

int hcb_json_element(struct hcb_buf *out, unsigned int dtype, const void *p)
{
	int err;

	switch (dtype) {
	case HCB_DT_BOOL:
		return hcb_buf_puts(out, *(const unsigned char *)p ? "true" : "false");
	case HCB_DT_FLOAT64:
		return json_real(out, hcb_elem_to_double(dtype, p), 0);
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
			return json_real(out, hcb_elem_to_double(dtype, p), 1);
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

int hcb_jsonl_end(struct hcb_buf *out, uint64_t taps, uint64_t drops, uint64_t end_ns)
{
	return hcb_buf_printf(out, "{\"type\":\"end\",\"taps\":%llu,\"drops\":%llu,\"end_ns\":%llu}\n",
			      (unsigned long long)taps, (unsigned long long)drops,
			      (unsigned long long)end_ns);
}
