/* SPDX-License-Identifier: MIT */
/*
 * jobmerge.h - the records of a job's recordings (jobset.h) as one stream,
 * in time order: a k-way merge that holds one record a file, never a file.
 *
 * Order.  Taps, barriers and triggers by their ts_ns, an end by its end_ns;
 * a session or drop record, which has no time of its own in order, comes as
 * soon as its file's record before it has (the time of that one).  Files are
 * each in their own order already (a recording's times may step back a
 * little: a jax-callback session writes what several threads give it); the
 * merge keeps every file's order and takes, each time, the file whose next
 * record is earliest, the lower member first at equal times.
 *
 * Who.  In a set of several files every record but an end comes right
 * after its process's session record: a file's session record is kept until
 * the file's next record, and given before it, and again whenever the
 * stream turns to that file from another (a text writer prints a header
 * for it where the job has several processes; device names follow its
 * platforms).  A file of session records alone gives none.
 */
#ifndef HCB_JOBMERGE_H
#define HCB_JOBMERGE_H

#include <stddef.h>

#include "core/record.h"
#include "core/registry.h"
#include "jobset.h"

struct hcb_jobmerge;

/* Opens every member of s (identified: hcb_jobset_identify); s must
 * outlive the merge.  0, -ENOMEM, -EMFILE, ... (hcb_jobmerge_error names
 * the file); *out is set but where there is no memory for it, and is
 * closed by the caller, failed or not. */
int hcb_jobmerge_open(struct hcb_jobmerge **out, const struct hcb_jobset *s);
/*
 * The next record: 1, *rec (valid until the next call) and *member (its
 * file's index in the set); 0 at the end of every file; or a file's error
 * (as hcb_reader_next: -EBADMSG, -ENODATA a file cut short, ...), with
 * hcb_jobmerge_error() naming it.  After an error the failed file is done
 * and the others go on: calling again continues the merge.
 */
int hcb_jobmerge_next(struct hcb_jobmerge *m, struct hcb_record *rec, size_t *member);
const char *hcb_jobmerge_error(const struct hcb_jobmerge *m);
/* The consumers met so far in member i's file. */
const struct hcb_registry *hcb_jobmerge_consumers(const struct hcb_jobmerge *m, size_t i);
/*
 * For a reader that browses the files in place (the viewer): each file is
 * read whole up to bytes, skimmed past them (recfile.h: hcb_reader_skim, a
 * tap without its arrays); call before the first hcb_jobmerge_next.  And
 * where in member i's file the record hcb_jobmerge_next gave last starts
 * (hcb_reader_offset: for hcb_reader_seek), a record of that member but not
 * a session record given again.
 */
void hcb_jobmerge_skim_after(struct hcb_jobmerge *m, uint64_t bytes);
uint64_t hcb_jobmerge_offset(const struct hcb_jobmerge *m, size_t i);
/* Member i's size when opened (hcb_reader_size: 0, not a regular file). */
uint64_t hcb_jobmerge_member_size(const struct hcb_jobmerge *m, size_t i);
/* Bytes read so far of every file, and their sizes together (0: unknown). */
uint64_t hcb_jobmerge_tell(const struct hcb_jobmerge *m);
uint64_t hcb_jobmerge_size(const struct hcb_jobmerge *m);
void hcb_jobmerge_close(struct hcb_jobmerge *m);

#endif
