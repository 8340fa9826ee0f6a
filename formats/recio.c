/* SPDX-License-Identifier: MIT */
/*
 * recio.c - what every format's reader and writer share below recfile.c:
 * saying where a recording went wrong (hcb_reader_fail), and writing
 * whole records (hcb_write_all).  Apart from recfile.c, which dispatches
 * to the formats, so that no format calls back the file that calls it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "recfile_impl.h"

int hcb_reader_fail(struct hcb_reader *r, int err, const char *where, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	if (r->err)
		return r->err;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(r->error, sizeof(r->error), "%s:%s%s %s", r->path, where ? where : "",
		 where ? ":" : "", msg);
	r->err = err;
	return err;
}

int hcb_reader_empty(struct hcb_reader *r, const char *where)
{
	return hcb_reader_fail(r, -EBADMSG, where, "empty file: not a recording "
			       "(a recording starts with its session record)");
}

int hcb_write_all(struct hcb_writer *w, const void *p, size_t n)
{
	uint64_t start = w->bytes;
	const char *c = p;

	if (w->batch)
		return hcb_batch_write(w, p, n);
	while (n) {
		ssize_t k = write(w->fd, c, n);

		if (k < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			/* a disk that filled up mid-record: cut the file back to the
			 * last whole record rather than leave half of this one */
			if (w->own_fd && w->bytes != start && ftruncate(w->fd, (off_t)start) == 0 &&
			    lseek(w->fd, (off_t)start, SEEK_SET) == (off_t)start)
				w->bytes = start;
			return -err;
		}
		c += k;
		n -= (size_t)k;
		w->bytes += (uint64_t)k;
		w->written = w->bytes;
	}
	return 0;
}
