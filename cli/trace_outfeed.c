/* SPDX-License-Identifier: MIT */
/*
 * trace_outfeed.c - attaching to an unmodified program that uses
 * host_callback with jaxlib's legacy CPU outfeed (DESIGN 4.2): which jaxlib
 * versions are understood, and how their devices are named.
 */
#include <errno.h>
#include <string.h>

#include "outfeed.h"
#include "target.h"
#include "trace_impl.h"

/* jaxlib versions whose CPU runtime calls the outfeed entry point per leaf,
 * and where their ExecutableRunOptions keeps the device ordinal (read off
 * the disassembly of ExecutableRunOptions::device_ordinal()). */
static const struct { const char *version; unsigned int device_offset; } supported[] = {
	{ "0.4.31", 8 },
};

#define SUPPORTED_LIST "0.4.31"

static unsigned int device_offset(const char *version)
{
	for (size_t i = 0; i < sizeof(supported) / sizeof(supported[0]); i++)
		if (!strcmp(version, supported[i].version))
			return supported[i].device_offset;
	return 0;
}

int trace_outfeed_supported(const char *version)
{
	return device_offset(version) != 0;
}

const char *trace_outfeed_versions(void)
{
	return SUPPORTED_LIST;
}

int trace_attach_outfeed(struct trace *t, pid_t pid)
{
	char path[4096], version[64];
	unsigned int offset;
	int err;

	err = hcb_target_find_xla(pid, path, sizeof(path), version, sizeof(version));
	if (err)
		return -1;
	offset = device_offset(version);
	if (!offset) {
		cli_err("process %d (%s) runs jaxlib %s, whose outfeed hcbtrace cannot read; "
			"supported jaxlib versions: " SUPPORTED_LIST, (int)pid, t->comm, version);
		return EXIT_TARGET;
	}
	err = hcb_outfeed_new(&t->xdec, trace_decoder_ops(), t);
	if (err) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	err = hcb_live_attach_outfeed(t->live, pid, path, offset, t->xdec);
	if (err == -EPERM || err == -EACCES) {
		cli_err("not enough privilege to attach to process %d: run as root", (int)pid);
		return EXIT_SYSTEM;
	}
	if (err) {
		cli_err("cannot attach to the outfeed of jaxlib %s in process %d (%s): %s", version,
			(int)pid, path, strerror(-err));
		return EXIT_TARGET;
	}
	/* jaxlib 0.4.31 names CPU devices so: str(device) is TFRT_CPU_0 */
	snprintf(t->platform, sizeof(t->platform), "TFRT_CPU_%%u");
	return EXIT_OK;
}
