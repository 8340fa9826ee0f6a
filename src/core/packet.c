/* SPDX-License-Identifier: MIT */
/* packet.c - the decoders' vocabulary in words and figures (packet.h). */
#include "packet.h"

static const char *const problem_names[HCB_DECODE_PROBLEMS] = {
	[HCB_BAD_MAGIC] = "bad magic",
	[HCB_UNKNOWN_CONSUMER] = "unknown consumer",
	[HCB_BAD_REGISTRATION] = "bad registration",
	[HCB_SHORT_PAYLOAD] = "short payload",
	[HCB_BAD_CHUNK] = "bad chunk",
	[HCB_BAD_RECORD] = "bad record",
	[HCB_INCOMPLETE] = "incomplete",
	[HCB_BAD_DEVICE] = "device out of range",
	[HCB_OVER_BOUND] = "over a bound",
};

const char *hcb_decode_problem_name(enum hcb_decode_problem what)
{
	return what < HCB_DECODE_PROBLEMS ? problem_names[what] : "?";
}

uint64_t hcb_stream_gaps(const struct hcb_stream_stats *s)
{
	uint64_t span;

	if (!s->packets)
		return 0;
	/* a seq seen twice (a confused target) must not make it wrap */
	span = s->last_seq - s->first_seq + 1;
	return span > s->packets ? span - s->packets : 0;
}
