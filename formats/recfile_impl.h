/* SPDX-License-Identifier: MIT */
/*
 * recfile_impl.h - what each recording format implements behind recfile.h.
 * recfile.c opens the file, picks the format and owns the generic state;
 * a format's init function fills in its callbacks and private state.
 */
#ifndef HCB_RECFILE_IMPL_H
#define HCB_RECFILE_IMPL_H

#include <stdarg.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/registry.h"
#include "text/print_opts.h"
#include "recfile.h"

struct hcb_reader {
	/* the format's: 1 record, 0 end, -errno (after hcb_reader_fail) */
	int (*next)(struct hcb_reader *r, struct hcb_record *rec);
	void (*free)(struct hcb_reader *r);
	void *state;
	FILE *f;                    /* opened for reading, buffered */
	char *fbuf;                 /* f's buffer when not stdio's own (JSONL's) */
	char *path;                 /* as given, for messages */
	struct hcb_registry *consumers;   /* consumers met in the file; taps point here */
	char error[512];
	int err;                    /* sticky once set */
	struct hcb_session_info session;
	int have_session;
	/* random access (recfile.h): the format keeps pos and rec_off as it reads */
	int (*skim)(struct hcb_reader *r, struct hcb_record *rec);   /* NULL: next */
	/* the format's state for reading on from offset off (the generic seek
	 * then puts f there); 0 or -errno */
	int (*seek)(struct hcb_reader *r, uint64_t off);
	uint64_t pos;               /* where the next record starts */
	uint64_t rec_off;           /* where the record last returned starts */
	uint64_t size;              /* of the file at open; 0: not a regular file */
	int seeked;                 /* hcb_reader_seek was called */
};

/* Record an error: "PATH:WHERE: message" where WHERE is the format's
 * ("12" for a JSONL line, "offset 4096" for .hcbcap).  Returns err. */
int hcb_reader_fail(struct hcb_reader *r, int err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A file with nothing in it is no recording (a recorder that never
 * started, a wrong name), not an empty one: -EBADMSG, saying so. */
int hcb_reader_empty(struct hcb_reader *r, const char *where);

int hcb_jsonl_reader_init(struct hcb_reader *r);
int hcb_hcbcap_reader_init(struct hcb_reader *r);

/* The JSONL reader in two steps, for its skim (jsonl_skim.c): the next
 * non-blank line, NUL in place of its newline (1, 0 at the end, or the
 * failure), and the record a line holds (as hcb_reader_next). */
int hcb_jsonl_line(struct hcb_reader *r, char **line, size_t *len);
int hcb_jsonl_parse(struct hcb_reader *r, char *line, size_t len, struct hcb_record *rec);
int hcb_jsonl_skim(struct hcb_reader *r, struct hcb_record *rec);
/* A "trigger" line parsed into d (jsonl_trigger.c): 1, or the failure
 * (hcb_reader_fail at where). */
struct jdoc;
int hcb_jsonl_read_trigger(struct hcb_reader *r, const struct jdoc *d, struct hcb_record *rec,
			   const char *where);

struct hcb_writer {
	int (*write)(struct hcb_writer *w, const struct hcb_record *rec);
	int (*close)(struct hcb_writer *w);   /* the format's last words; not close(fd) */
	void *state;
	int fd;
	int own_fd;
	int durable;                          /* fsync at close (hcb_writer_set_durable) */
	uint64_t bytes;                       /* handed to the writer: the file's size
					       * once the batch is out */
	uint64_t written;                     /* in the file */
	uint64_t taps;                        /* tap records in bytes: whole, not cut back */
	struct hcb_write_batch *batch;        /* NULL: each write goes straight out */
	struct hcb_session_info session;      /* the last session record written */
	struct hcb_print_opts print;          /* text: numpy's print options */
	int have_session;
	const struct hcb_writer **stream_last;   /* hcb_writer_share_stream; NULL: alone */
};

/* Write n bytes with as few write(2) calls as the kernel allows (one for a
 * regular file); EINTR and short writes retried.  -errno on failure.  A
 * file writer gathers them in its batch instead (writebatch.c). */
int hcb_write_all(struct hcb_writer *w, const void *p, size_t n);

/* writebatch.c: a writer's records gathered into few write(2) calls */
int hcb_batch_new(struct hcb_writer *w);
void hcb_batch_free(struct hcb_writer *w);
int hcb_batch_write(struct hcb_writer *w, const void *p, size_t n);
/* A record is whole: a disk that fills up later keeps it or loses it whole. */
int hcb_batch_record_end(struct hcb_writer *w);

int hcb_jsonl_writer_init(struct hcb_writer *w);
int hcb_hcbcap_writer_init(struct hcb_writer *w);
int hcb_npz_writer_init(struct hcb_writer *w);
int hcb_text_writer_init(struct hcb_writer *w);
int hcb_timeline_writer_init(struct hcb_writer *w);

#endif
