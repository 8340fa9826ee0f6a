/* SPDX-License-Identifier: MIT */
/*
 * progress.h - how far long work has read its input, on stderr while it is
 * a terminal: "\r[ 43%] 430 MB of 1.0 GB, 210 MB/s", redrawn at most four
 * times a second, the first time after a quarter of a second (quick work
 * shows nothing; HCBTRACE_PROGRESS_DELAY_MS sets another delay), and
 * cleared at the end.  Nothing at all when stderr is not
 * a terminal, or when the command's output goes to that same terminal (the
 * two would interleave).  convert, diff and replay use it; the byte
 * positions come from the readers (hcb_reader_tell).
 */
#ifndef HCB_CLI_PROGRESS_H
#define HCB_CLI_PROGRESS_H

#include <stdint.h>

struct progress {
	int on;
	int shown;              /* a line is on the terminal */
	uint64_t total;         /* bytes; 0: not known (a pipe) */
	uint64_t start_ns, last_ns;
	uint64_t first_ns;      /* how long before the first line */
};

/* total: the bytes to read (0: unknown); stdout_used: the command writes
 * its output to standard output. */
void progress_start(struct progress *p, uint64_t total, int stdout_used);
/* done bytes read so far; draws when it is time. */
void progress_update(struct progress *p, uint64_t done);
/* Clear the line (before any message that follows the work). */
void progress_end(struct progress *p);

/* "430 MB", "1.0 GB", "512 B": what the line says of n bytes. */
void progress_bytes(char *out, int cap, double n);

#endif
