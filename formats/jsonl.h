/* SPDX-License-Identifier: MIT */
/*
 * jsonl.h - JSONL records (formats/JSONL.md), one object per line, "type" first.
 * Written by hand rather than through jansson's tree: a tap can hold
 * millions of elements, and every float must be the shortest text that
 * reads back to the same value in its own dtype.
 */
#ifndef HCB_JSONL_H
#define HCB_JSONL_H

#include <stdint.h>
#include <sys/types.h>

#include "core/buf.h"
#include "core/consumer.h"

#define HCB_JSONL_VERSION 1

int hcb_json_string(struct hcb_buf *out, const char *s);
/* One element of dtype at p: integers exactly, floats shortest (always with
 * a '.' or exponent), "nan"/"inf"/"-inf" as strings, complex as [re, im]. */
int hcb_json_element(struct hcb_buf *out, unsigned int dtype, const void *p);

int hcb_jsonl_session(struct hcb_buf *out, pid_t pid, const char *provider,
		      const char *platform, uint64_t start_ns);
struct hcb_session_info;
/* The whole session record: who its process is and its devices too,
 * each where known (jsonl_session.c). */
int hcb_jsonl_session_info(struct hcb_buf *out, const struct hcb_session_info *s);
int hcb_jsonl_tap(struct hcb_buf *out, const struct hcb_consumer *c, uint32_t device,
		  int64_t seq, uint64_t wall_ns, const unsigned char *payload);
/* The same with the device-side times of the tap's device-to-host copy
 * ("copy_ns", after "ts_ns"): written only when copy_end_ns is not 0. */
int hcb_jsonl_tap_copy(struct hcb_buf *out, const struct hcb_consumer *c, uint32_t device,
		       int64_t seq, uint64_t wall_ns, uint64_t copy_start_ns, uint64_t copy_end_ns,
		       const unsigned char *payload);
int hcb_jsonl_drop(struct hcb_buf *out, uint32_t device, uint64_t count, const char *reason);
int hcb_jsonl_barrier(struct hcb_buf *out, uint64_t wall_ns, uint64_t taps);
int hcb_jsonl_end(struct hcb_buf *out, uint64_t taps, uint64_t drops, uint64_t end_ns);
struct hcb_trigger_info;
/* A flight recorder's trigger record (jsonl_trigger.c). */
int hcb_jsonl_trigger(struct hcb_buf *out, const struct hcb_trigger_info *t);

struct hcb_record;
/* Any record as its JSONL line (tap seq UINT64_MAX: written as null). */
int hcb_jsonl_record(struct hcb_buf *out, const struct hcb_record *rec);

#endif
