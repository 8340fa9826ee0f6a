/* SPDX-License-Identifier: MIT */
/*
 * recfile.h - reading and writing recordings, whatever their format.
 *
 * The format comes from the file name: ".jsonl" (formats/JSONL.md),
 * ".hcbcap" (formats/HCBCAP.md), ".npz" (write only: one .npy
 * array per tap leaf), ".json" (write only: a timeline in the Chrome
 * Trace Event format for Perfetto, formats/TIMELINE.md; a file so named
 * is still read as a recording when it holds one).  Readers are the file providers (docs/ARCHITECTURE.md): they
 * yield struct hcb_record one at a time, streaming, in the file's order.
 *
 * Errors: functions return -errno; a reader that meets damage keeps a
 * message naming the file and the line (JSONL) or byte offset (.hcbcap),
 * available from hcb_reader_error(), and everything before the damage has
 * been returned already.
 */
#ifndef HCB_RECFILE_H
#define HCB_RECFILE_H

#include <stdio.h>

#include "core/receiver.h"
#include "core/record.h"
#include "core/registry.h"
#include "text/print_opts.h"

enum hcb_file_format {
	HCB_FMT_UNKNOWN = 0,
	HCB_FMT_JSONL,
	HCB_FMT_HCBCAP,
	HCB_FMT_NPZ,
	HCB_FMT_TEXT,      /* id_print text: write only, taps only */
	HCB_FMT_TIMELINE,  /* Chrome Trace Event JSON: write only */
};

/* By the name's extension; HCB_FMT_UNKNOWN if none matches. */
enum hcb_file_format hcb_file_format_of(const char *path);

/* ---- reading ---- */

struct hcb_reader;

/* Opens path ("-" is standard input, read as JSONL).  -ENOENT etc. from
 * open(2); -EPROTONOSUPPORT for a format that cannot be read (npz). */
int hcb_reader_open(struct hcb_reader **out, const char *path);
/* The same over an open stream (taken over, closed by hcb_reader_close),
 * of format f (JSONL or HCBCAP); name is used in messages. */
int hcb_reader_open_stream(struct hcb_reader **out, FILE *f, const char *name,
			   enum hcb_file_format fmt);
/*
 * The next record: 1 and *rec filled, 0 at the end of the file, or
 *   -EBADMSG   damaged or invalid content (message from hcb_reader_error)
 *   -ENODATA   the file ends inside a record: a truncated recording; what
 *              came before is complete, the message says where it stops
 *   -EPROTO    a version this hcbtrace does not read
 *   -E2BIG     a record claims more than this reader will hold
 *   -ENOMEM, -EIO
 * After an error, further calls return the same error.
 */
int hcb_reader_next(struct hcb_reader *r, struct hcb_record *rec);
/* "FILE:LINE: what is wrong" (or "FILE: offset N: ..."), or "" */
const char *hcb_reader_error(const struct hcb_reader *r);
/* The consumers met so far. */
const struct hcb_registry *hcb_reader_consumers(const struct hcb_reader *r);
void hcb_reader_close(struct hcb_reader *r);

/*
 * Random access, for a viewer that indexes a large recording once and reads
 * back only the records it shows (tui/source.c), and for progress meters.
 *
 * hcb_reader_skim() is hcb_reader_next() without a tap's arrays: the
 * record, its consumer, device, seq, ts_ns and copy times, with payload
 * NULL (JSONL: members after "arrays", where no writer puts them, are not
 * seen).  It reads past the data without parsing it (JSONL: finds the
 * line's end; .hcbcap: seeks over the payload), so the framing, the
 * record's header and the consumer definitions are checked, a tap's data
 * only when it is read back.
 * A JSONL tap of a consumer id not met before is parsed whole, which
 * defines the consumer.  Errors as hcb_reader_next().
 *
 * hcb_reader_offset() is where the record last returned (by next or skim)
 * starts (an .hcbcap tap with copy times: at their frame);
 * hcb_reader_seek() to such an offset makes the next hcb_reader_next()
 * return that record again, and clears a reader's error.
 * A reader that seeks meets .hcbcap taps whose consumer frame it skipped:
 * hcb_reader_define() gives it the consumers the indexing pass met (0, or
 * -EBADMSG if the id is defined already as another consumer, -ENOMEM).
 * After a seek a JSONL message names the byte offset, not the line.
 * Seeking needs a regular file: -ESPIPE otherwise.
 *
 * hcb_reader_tell() is where the next record starts: the bytes read so far,
 * and hcb_reader_size() the file's size when it was opened (0: not a
 * regular file, such as standard input).
 */
int hcb_reader_skim(struct hcb_reader *r, struct hcb_record *rec);
uint64_t hcb_reader_offset(const struct hcb_reader *r);
int hcb_reader_seek(struct hcb_reader *r, uint64_t offset);
int hcb_reader_define(struct hcb_reader *r, const struct hcb_consumer *c);
uint64_t hcb_reader_tell(const struct hcb_reader *r);
uint64_t hcb_reader_size(const struct hcb_reader *r);

/* ---- writing ---- */

struct hcb_writer;

/*
 * Create path (mode 0600: taps can hold private data; an existing file is
 * replaced) for format f, or write to fd when path is NULL (JSONL only).
 * The file grows by whole records only, so a killed writer leaves it
 * readable up to its last record.  To fd, each record goes out as it
 * comes (a terminal or pipe sees it at once); to a file of its own, in
 * batches of up to 1 MiB (hcb_writer_flush, sync and close send what is
 * gathered).
 */
int hcb_writer_open(struct hcb_writer **out, const char *path, enum hcb_file_format f);
int hcb_writer_open_fd(struct hcb_writer **out, int fd, enum hcb_file_format f);
/* -EIO/-ENOSPC/-EPIPE...: the write failed; the file holds whole records
 * only, as many as the disk took. */
int hcb_writer_write(struct hcb_writer *w, const struct hcb_record *rec);
/* What the batch gathered, out to the file (the page cache, not the disk:
 * that is hcb_writer_sync).  -errno on failure, as for a write. */
int hcb_writer_flush(struct hcb_writer *w);
/* The writer as a live session's receiver (src/core/receiver.h): each record
 * written, flush and sync as hcb_writer_flush and hcb_writer_sync.  It has
 * no words for warnings. */
struct hcb_receiver hcb_writer_receiver(struct hcb_writer *w);
/* Text output: numpy's print options (default: id_print's). */
void hcb_writer_set_print_opts(struct hcb_writer *w, const struct hcb_print_opts *o);
/* Everything written so far is on the disk (fsync for a regular file; a
 * pipe or terminal has it already).  -errno on failure. */
int hcb_writer_sync(struct hcb_writer *w);
/* A recording of a live session: on disk when closed (fsync), so that a CI
 * step that ends with it has it.  A converted file is left to the page
 * cache, as cp leaves its copy. */
void hcb_writer_set_durable(struct hcb_writer *w);
/* Several writers on one stream (attach -p A -p B: each process's session
 * writes standard output): *last is the writer whose record went out last,
 * and a text writer's tap that follows another writer's says first whose it
 * is (one line: the process, as its session record named it). */
void hcb_writer_share_stream(struct hcb_writer *w, const struct hcb_writer **last);
/* Flush (npz writes its directory here) and close; -errno on failure. */
int hcb_writer_close(struct hcb_writer *w);
/* The same, and *taps: the taps the file holds then (see hcb_writer_taps). */
int hcb_writer_close_taps(struct hcb_writer *w, uint64_t *taps);
/* Tap records written whole so far: those a disk that filled up cut back
 * are not counted (they are not in the file), those still in the batch are
 * (they are, once it goes out, unless that fails). */
uint64_t hcb_writer_taps(const struct hcb_writer *w);

#endif
