/* SPDX-License-Identifier: MIT */
/* openfile.h - a file another program names, opened without trusting it. */
#ifndef HCB_CORE_OPENFILE_H
#define HCB_CORE_OPENFILE_H

/*
 * Open a file a target names (a library it maps, a file beside it) for
 * reading: only a regular file, and never blocking on the way (a FIFO or a
 * device planted at the path would hang a plain open()).  The fd, or
 * -errno; -ESTALE for what is not a regular file.  Every open of such a
 * path goes through here.
 */
int hcb_open_regular(const char *path);

#endif
