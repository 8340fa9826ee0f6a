/* SPDX-License-Identifier: MIT */
/*
 * jsonl_trigger.c - the flight recorder's trigger record in JSONL
 * (formats/JSONL.md, "trigger"): written after the tap that fired, read
 * back with every member but "condition" optional (a signal names no tap).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/procid.h"
#include "json/jsonparse.h"
#include "jsonl.h"
#include "recfile_impl.h"

int hcb_jsonl_trigger(struct hcb_buf *out, const struct hcb_trigger_info *t)
{
	int err = hcb_buf_puts(out, "{\"type\":\"trigger\",\"condition\":");

	err = err ? err : hcb_json_string(out, t->condition);
	if (!err && t->seq != HCB_TRIGGER_NO_TAP) {
		err = hcb_buf_printf(out, ",\"device\":%u,\"seq\":%llu,\"consumer\":", t->device,
				     (unsigned long long)t->seq);
		err = err ? err : hcb_json_string(out, t->consumer);
	}
	if (!err && t->leaf >= 0)
		err = hcb_buf_printf(out, ",\"leaf\":%lld", (long long)t->leaf);
	if (!err && t->element >= 0)
		err = hcb_buf_printf(out, ",\"element\":%lld", (long long)t->element);
	if (!err && t->seq != HCB_TRIGGER_NO_TAP) {
		/* a float64 as a tap's: "nan", "inf" and "-inf" as strings */
		err = hcb_buf_puts(out, ",\"value\":");
		err = err ? err : hcb_json_element(out, HCB_DT_FLOAT64, &t->value);
	}
	if (!err)
		err = hcb_buf_printf(out, ",\"ts_ns\":%llu", (unsigned long long)t->wall_ns);
	if (!err && t->oversize)
		err = hcb_buf_puts(out, ",\"oversize\":true");
	if (!err && t->by_host[0]) {
		err = hcb_buf_puts(out, ",\"by_host\":");
		err = err ? err : hcb_json_string(out, t->by_host);
	}
	if (!err && t->by_pid)
		err = hcb_buf_printf(out, ",\"by_pid\":%u", t->by_pid);
	if (!err && t->by_pid && t->by_process >= 0)
		err = hcb_buf_printf(out, ",\"by_process\":%lld", (long long)t->by_process);
	if (!err && t->exited && t->exit_signal)
		err = hcb_buf_printf(out, ",\"exit_signal\":%d", t->exit_signal);
	else if (!err && t->exited)
		err = hcb_buf_printf(out, ",\"exit_status\":%d", t->exit_status);
	return err ? err : hcb_buf_puts(out, "}\n");
}

/* Member key of d's top object as a whole number up to max, if there:
 * NULL, or key when it is not one. */
static const char *whole(const struct jdoc *d, const char *key, uint64_t max, uint64_t *v)
{
	uint32_t i = jget(d, 0, key);

	return i == UINT32_MAX || !jwhole(d, i, max, v) ? NULL : key;
}

/* A string member into dst (size bytes), if there. */
static const char *text(const struct jdoc *d, const char *key, char *dst, size_t size)
{
	uint32_t i = jget(d, 0, key);

	if (i == UINT32_MAX)
		return NULL;
	if (d->nodes[i].kind != J_STR || d->nodes[i].slen >= size ||
	    strlen(jstr(d, i)) != d->nodes[i].slen)
		return key;
	memcpy(dst, jstr(d, i), d->nodes[i].slen + 1);
	return NULL;
}

/* "value": a number, or "nan", "inf", "-inf". */
static const char *value(const struct jdoc *d, double *v)
{
	uint32_t i = jget(d, 0, "value");
	char buf[64], *end;

	if (i == UINT32_MAX)
		return NULL;
	if (d->nodes[i].kind == J_STR) {
		const char *s = jstr(d, i);

		*v = !strcmp(s, "nan") ? NAN : !strcmp(s, "inf") ? INFINITY :
		     !strcmp(s, "-inf") ? -INFINITY : 0;
		return *v == 0 ? "value" : NULL;
	}
	if (d->nodes[i].kind != J_NUM || d->nodes[i].numlen >= sizeof(buf))
		return "value";
	memcpy(buf, d->nodes[i].num, d->nodes[i].numlen);
	buf[d->nodes[i].numlen] = '\0';
	*v = strtod(buf, &end);
	return *end ? "value" : NULL;
}

/* What a job's, a fleet's or an exit's trigger adds (absent from older
 * files): 0, or which member is not valid (1 by_pid, 2 by_process,
 * 3 exit_status, 4 exit_signal, 5 by_host). */
static int read_job_exit(const struct jdoc *d, struct hcb_trigger_info *t)
{
	uint64_t pid = 0, proc = UINT64_MAX, status = UINT64_MAX, sig = UINT64_MAX;

	if (whole(d, "by_pid", UINT32_MAX, &pid))
		return 1;
	if (whole(d, "by_process", UINT32_MAX, &proc))
		return 2;
	if (whole(d, "exit_status", 255, &status))
		return 3;
	if (whole(d, "exit_signal", 127, &sig))
		return 4;
	if (jget(d, 0, "by_host") != UINT32_MAX &&
	    (text(d, "by_host", t->by_host, sizeof(t->by_host)) ||
	     !hcb_host_name_ok(t->by_host, strlen(t->by_host))))
		return 5;
	t->by_pid = (uint32_t)pid;
	/* an index means something only with the pid that fired */
	t->by_process = proc == UINT64_MAX || !pid ? -1 : (int64_t)proc;
	t->exited = status != UINT64_MAX || sig != UINT64_MAX;
	t->exit_status = status == UINT64_MAX ? 0 : (int32_t)status;
	t->exit_signal = sig == UINT64_MAX ? 0 : (int32_t)sig;
	return 0;
}

int hcb_jsonl_read_trigger(struct hcb_reader *r, const struct jdoc *d, struct hcb_record *rec,
			   const char *where)
{
	struct hcb_trigger_info *t = &rec->trigger;
	uint64_t dev = 0, seq = HCB_TRIGGER_NO_TAP, leaf = UINT64_MAX, elem = UINT64_MAX;
	const char *bad;
	int err;
	uint32_t ov = jget(d, 0, "oversize");

	rec->kind = HCB_REC_TRIGGER;
	memset(t, 0, sizeof(*t));
	t->value = NAN;
	if (jget(d, 0, "condition") == UINT32_MAX)
		return hcb_reader_fail(r, -EBADMSG, where, "'condition' is missing");
	if ((bad = text(d, "condition", t->condition, sizeof(t->condition))) ||
	    (bad = text(d, "consumer", t->consumer, sizeof(t->consumer))) ||
	    (bad = whole(d, "device", UINT32_MAX, &dev)) ||
	    (bad = whole(d, "seq", UINT64_MAX - 1, &seq)) ||
	    (bad = whole(d, "leaf", INT64_MAX, &leaf)) ||
	    (bad = whole(d, "element", INT64_MAX, &elem)) ||
	    (bad = whole(d, "ts_ns", UINT64_MAX, &t->wall_ns)) || (bad = value(d, &t->value)))
		return hcb_reader_fail(r, -EBADMSG, where, "trigger: '%s' is not valid", bad);
	if (ov != UINT32_MAX && d->nodes[ov].kind != J_TRUE && d->nodes[ov].kind != J_FALSE)
		return hcb_reader_fail(r, -EBADMSG, where, "trigger: 'oversize' is not true or false");
	t->oversize = ov != UINT32_MAX && d->nodes[ov].kind == J_TRUE;
	t->device = (uint32_t)dev;
	t->seq = seq;
	t->leaf = leaf == UINT64_MAX ? -1 : (int64_t)leaf;
	t->element = elem == UINT64_MAX ? -1 : (int64_t)elem;
	err = read_job_exit(d, t);
	if (err)
		return hcb_reader_fail(r, -EBADMSG, where, "trigger: '%s' is not valid",
				       err == 1 ? "by_pid" : err == 2 ? "by_process" :
				       err == 3 ? "exit_status" : err == 4 ? "exit_signal" :
				       "by_host");
	return 1;
}
