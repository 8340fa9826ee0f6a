/* SPDX-License-Identifier: MIT */
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

