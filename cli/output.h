/* SPDX-License-Identifier: MIT */
/*
 * output.h - a command's output file, replaced only once there is
 * something to replace it with: an existing recording is not lost to a
 * command that fails before its session starts (a mistyped pid), nor to
 * one whose output is its own input.
 */
#ifndef HCB_CLI_OUTPUT_H
#define HCB_CLI_OUTPUT_H

#include "recfile.h"

struct cli_output {
	char *path;    /* where the output goes in the end */
	char *tmp;     /* written under this name beside it until placed; NULL:
			* written in place (a FIFO, a terminal, /dev/stdout) */
	char *pattern; /* a name with patterns (core/namepat.h): path is made
			* from it for the process attached (cli_output_name) */
};

/*
 * A writer of format f (HCB_FMT_UNKNOWN: by path's name) for path.  A
 * regular file, or none yet, is written under a temporary name in the same
 * directory (through a symlink: beside the file it names), put in place by
 * cli_output_place(); anything else is opened as it is, so that a FIFO or
 * a pipe streams as before.  -errno as hcb_writer_open().
 */
int cli_output_open(struct cli_output *o, const char *path, enum hcb_file_format f,
		    struct hcb_writer **w);
/*
 * A name with patterns (%h, %p, %r, %q{VAR}, %%) is the name of the
 * process attached, made once it is: written meanwhile under a temporary
 * name in the pattern's directory (its part before the first pattern).
 * cli_output_name() makes path for pid, who it is (id) and its
 * environment: 0, or -errno and why[wcap] in words.
 */
struct hcb_identity;
int cli_output_name(struct cli_output *o, int pid, const struct hcb_identity *id, char *why,
		    size_t wcap);
/* The same, said: EXIT_OK, or the exit code after one message (2: a name
 * refused; 1: the environment not read, no memory). */
int cli_output_name_said(struct cli_output *o, const char *given, int pid,
			 const struct hcb_identity *id);
/* The session has started (attached, the input opened): the output takes
 * the place of what path held.  0, or -errno (it stays where it is). */
int cli_output_place(struct cli_output *o);
/* Remove the temporary file if it never took its place; free. */
void cli_output_done(struct cli_output *o);
/* 1 if paths a and b both exist and are one file (device and inode, not
 * the name: ./x, x and a hard link are one), else 0. */
int cli_same_file(const char *a, const char *b);

#endif
