/* SPDX-License-Identifier: MIT */
/* recfile.c - opening recordings and dispatching to their format. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recfile_impl.h"

static const struct {
	const char *ext;
	enum hcb_file_format f;
} formats[] = {
	{ ".jsonl", HCB_FMT_JSONL },
	{ ".hcbcap", HCB_FMT_HCBCAP },
	{ ".npz", HCB_FMT_NPZ },
	{ ".txt", HCB_FMT_TEXT },
	{ ".json", HCB_FMT_TIMELINE },
};

enum hcb_file_format hcb_file_format_of(const char *path)
{
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		size_t e = strlen(formats[i].ext);

		if (n > e && strcmp(path + n - e, formats[i].ext) == 0)
			return formats[i].f;
	}
	return HCB_FMT_UNKNOWN;
}

/* A JSONL reader's stdio buffer: a read(2) every 256 KiB, and as much
 * read again after a seek (a viewer's). */
#define JSONL_STDIO_BUF (256u << 10)

/* A regular file's size, for progress and to tell a truncated .hcbcap
 * frame that a skim seeks over; 0 for anything else. */
static uint64_t file_size(FILE *f)
{
	struct stat sb;

	return fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
}

int hcb_reader_open(struct hcb_reader **out, const char *path)
{
	enum hcb_file_format f = strcmp(path, "-") ? hcb_file_format_of(path) : HCB_FMT_JSONL;
	struct hcb_reader *r;
	int err;

	if (f == HCB_FMT_NPZ)
		return -EPROTONOSUPPORT;
	/* a timeline is written, never read: a ".json" holding a recording
	 * (named so before timelines were) is known by its content */
	if (f == HCB_FMT_TIMELINE)
		f = HCB_FMT_UNKNOWN;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = strdup(strcmp(path, "-") ? path : "<stdin>");
	r->consumers = hcb_registry_new();
	if (!r->path || !r->consumers) {
		err = -ENOMEM;
		goto fail;
	}
	r->f = strcmp(path, "-") ? fopen(path, "rbe") : fdopen(dup(STDIN_FILENO), "rb");
	if (!r->f) {
		err = -errno;
		goto fail;
	}
	/* JSONL is read line by line through getline, whose stdio buffer was
	 * 4 KiB: a read(2) every 4 KiB was a fifth of reading a recording of
	 * large taps.  (.hcbcap keeps stdio's: its payloads go past the
	 * buffer, and a skim seeks, which a large buffer would refill.) */
	if (f == HCB_FMT_JSONL && (r->fbuf = malloc(JSONL_STDIO_BUF)))
		setvbuf(r->f, r->fbuf, _IOFBF, JSONL_STDIO_BUF);
	/* a file named otherwise is recognised by its first byte */
	if (f == HCB_FMT_UNKNOWN) {
		int c = getc(r->f);

		f = c == '{' ? HCB_FMT_JSONL : c == 'H' ? HCB_FMT_HCBCAP : HCB_FMT_UNKNOWN;
		if (c != EOF)
			ungetc(c, r->f);
		if (f == HCB_FMT_UNKNOWN) {
			err = -EPROTONOSUPPORT;
			goto fail;
		}
	}
	r->size = file_size(r->f);
	err = f == HCB_FMT_JSONL ? hcb_jsonl_reader_init(r) : hcb_hcbcap_reader_init(r);
	if (err)
		goto fail;
	*out = r;
	return 0;
fail:
	hcb_reader_close(r);
	return err;
}

int hcb_reader_open_stream(struct hcb_reader **out, FILE *f, const char *name,
			   enum hcb_file_format fmt)
{
	struct hcb_reader *r;
	int err;

	if (fmt != HCB_FMT_JSONL && fmt != HCB_FMT_HCBCAP) {
		fclose(f);
		return -EPROTONOSUPPORT;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		fclose(f);
		return -ENOMEM;
	}
	r->f = f;
	r->size = file_size(f);
	r->path = strdup(name);
	r->consumers = hcb_registry_new();
	err = !r->path || !r->consumers ? -ENOMEM :
	      fmt == HCB_FMT_JSONL ? hcb_jsonl_reader_init(r) : hcb_hcbcap_reader_init(r);
	if (err) {
		hcb_reader_close(r);
		return err;
	}
	*out = r;
	return 0;
}

/* The next record by the format's read (next or skim): an error sticks,
 * and the session record is kept for later questions. */
static int read_with(struct hcb_reader *r, struct hcb_record *rec,
		     int (*read)(struct hcb_reader *, struct hcb_record *))
{
	int n;

	if (r->err)
		return r->err;
	n = read(r, rec);
	if (n < 0 && !r->err)
		hcb_reader_fail(r, n, NULL, "%s", strerror(-n));
	if (n == 1 && rec->kind == HCB_REC_SESSION) {
		r->session = rec->session;
		r->have_session = 1;
	}
	return n < 0 ? r->err : n;
}

int hcb_reader_next(struct hcb_reader *r, struct hcb_record *rec)
{
	return read_with(r, rec, r->next);
}

int hcb_reader_skim(struct hcb_reader *r, struct hcb_record *rec)
{
	return read_with(r, rec, r->skim ? r->skim : r->next);
}

uint64_t hcb_reader_offset(const struct hcb_reader *r)
{
	return r->rec_off;
}

int hcb_reader_seek(struct hcb_reader *r, uint64_t offset)
{
	int err;

	if (!r->size)
		return -ESPIPE;
	if (offset > INT64_MAX)
		return -EINVAL;
	/* a damaged record read back before says nothing about this one */
	r->err = 0;
	r->error[0] = '\0';
	clearerr(r->f);
	err = r->seek ? r->seek(r, offset) : 0;
	if (err)
		return err;
	if (fseeko(r->f, (off_t)offset, SEEK_SET) < 0)
		return -errno;
	r->pos = offset;
	r->seeked = 1;
	return 0;
}

int hcb_reader_define(struct hcb_reader *r, const struct hcb_consumer *c)
{
	const struct hcb_consumer *old = hcb_registry_get(r->consumers, c->id);
	struct hcb_consumer *copy;
	int err;

	if (old)
		return hcb_consumer_equal(old, c) ? 0 : -EBADMSG;
	err = hcb_consumer_dup(c, &copy);
	return err ? err : hcb_registry_add(r->consumers, copy);
}

uint64_t hcb_reader_tell(const struct hcb_reader *r)
{
	return r->pos;
}

uint64_t hcb_reader_size(const struct hcb_reader *r)
{
	return r->size;
}

const char *hcb_reader_error(const struct hcb_reader *r)
{
	return r->error;
}

const struct hcb_registry *hcb_reader_consumers(const struct hcb_reader *r)
{
	return r->consumers;
}

void hcb_reader_close(struct hcb_reader *r)
{
	if (!r)
		return;
	if (r->free)
		r->free(r);
	if (r->f)
		fclose(r->f);
	free(r->fbuf);
	hcb_registry_free(r->consumers);
	free(r->path);
	free(r);
}

static int writer_init(struct hcb_writer *w, enum hcb_file_format f)
{
	w->print = (struct hcb_print_opts)HCB_PRINT_OPTS_IDPRINT;
	switch (f) {
	case HCB_FMT_JSONL: return hcb_jsonl_writer_init(w);
	case HCB_FMT_HCBCAP: return hcb_hcbcap_writer_init(w);
	case HCB_FMT_NPZ: return hcb_npz_writer_init(w);
	case HCB_FMT_TEXT: return hcb_text_writer_init(w);
	case HCB_FMT_TIMELINE: return hcb_timeline_writer_init(w);
	default: return -EPROTONOSUPPORT;
	}
}

int hcb_writer_open_fd(struct hcb_writer **out, int fd, enum hcb_file_format f)
{
	struct hcb_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	err = writer_init(w, f);
	if (err) {
		free(w);
		return err;
	}
	*out = w;
	return 0;
}

int hcb_writer_open(struct hcb_writer **out, const char *path, enum hcb_file_format f)
{
	int fd, err;

	if (f == HCB_FMT_UNKNOWN)
		f = hcb_file_format_of(path);
	if (f == HCB_FMT_UNKNOWN)
		return -EPROTONOSUPPORT;
	/* 0600 whatever the umask: taps can hold private data */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, 0600) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	err = hcb_writer_open_fd(out, fd, f);
	if (!err) {
		/* a file of our own takes its records in batches */
		(*out)->own_fd = 1;
		err = hcb_batch_new(*out);
		if (err)
			hcb_writer_close(*out);
		return err;
	}
	close(fd);
	return err;
}

int hcb_writer_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	int err;

	if (rec->kind == HCB_REC_SESSION) {
		w->session = rec->session;
		w->have_session = 1;
	}
	err = w->write(w, rec);
	if (!err && rec->kind == HCB_REC_TAP)
		w->taps++;
	if (!err && w->batch)
		err = hcb_batch_record_end(w);
	return err;
}

static int receive_record(void *ctx, const struct hcb_record *rec)
{
	return hcb_writer_write(ctx, rec);
}

static int receive_sync(void *ctx)
{
	return hcb_writer_sync(ctx);
}

static int receive_flush(void *ctx)
{
	return hcb_writer_flush(ctx);
}

static const struct hcb_receiver_ops writer_receiver_ops = {
	.record = receive_record,
	.sync = receive_sync,
	.flush = receive_flush,
};

struct hcb_receiver hcb_writer_receiver(struct hcb_writer *w)
{
	return (struct hcb_receiver){ &writer_receiver_ops, w };
}

void hcb_writer_set_print_opts(struct hcb_writer *w, const struct hcb_print_opts *o)
{
	w->print = *o;
}

void hcb_writer_share_stream(struct hcb_writer *w, const struct hcb_writer **last)
{
	w->stream_last = last;
}

void hcb_writer_set_durable(struct hcb_writer *w)
{
	w->durable = 1;
}

int hcb_writer_sync(struct hcb_writer *w)
{
	struct stat sb;
	int err = hcb_writer_flush(w);

	if (err)
		return err;
	if (fstat(w->fd, &sb) == 0 && S_ISREG(sb.st_mode) && fsync(w->fd) < 0)
		return -errno;
	return 0;
}

int hcb_writer_close(struct hcb_writer *w)
{
	return hcb_writer_close_taps(w, NULL);
}

int hcb_writer_close_taps(struct hcb_writer *w, uint64_t *taps)
{
	int err = 0;

	if (!w)
		return 0;
	if (w->close)
		err = w->close(w);
	if (w->batch) {
		int ferr = hcb_writer_flush(w);

		err = err ? err : ferr;
		hcb_batch_free(w);
	}
	if (taps)
		*taps = w->taps;
	if (w->own_fd) {
		if (!err && w->durable && fsync(w->fd) < 0 && errno != EINVAL)
			err = -errno;
		if (close(w->fd) < 0 && !err)
			err = -errno;
	}
	free(w);
	return err;
}

uint64_t hcb_writer_taps(const struct hcb_writer *w)
{
	return w->taps;
}
