/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: a fire file of record --fleet-dir (src/watch/fleet.h),
 * whose bytes anyone who can write the shared directory chooses.  Whatever
 * they are, hcb_fleet_parse takes them or refuses them, within its bound;
 * what it takes is exactly what hcb_fleet_format writes again, byte for
 * byte (one form, nothing else read).
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "watch/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hcb_fleet_fire f;
	char again[HCB_FLEET_FILE_MAX + 1];
	int n;

	if (hcb_fleet_parse((const char *)data, size, &f))
		return 0;
	assert(f.host[0] && f.condition[0] && f.pid && f.tracer_pid && f.seq);
	n = hcb_fleet_format(again, sizeof(again), &f);
	assert(n > 0 && (size_t)n == size && !memcmp(again, data, size));
	return 0;
}
