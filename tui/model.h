/* SPDX-License-Identifier: MIT */
/*
 * model.h - what the viewer knows, without any terminal: the streams
 * (device x consumer) with their counts, rates and recent values, a bounded
 * ring of the latest taps (payloads copied), and the session's accounting
 * (taps received, dropped by the target side, evicted from the ring).
 *
 * Records come in one at a time (tui_model_add), from a live session's
 * writer or from a recording.  The screen reads a snapshot
 * (tui_snapshot_take) so that pausing freezes what is shown while records
 * keep coming.  Nothing here locks: the caller does (tui/sink.h).
 */
#ifndef HCB_TUI_MODEL_H
#define HCB_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "consumer.h"
#include "record.h"

/* The statistics of a tap's first array a sparkline can follow. */
enum tui_stat { TUI_STAT_MEAN, TUI_STAT_MIN, TUI_STAT_MAX, TUI_STATS };

#define TUI_HIST 240                       /* values kept per stream for its sparkline */
#define TUI_RING_TAPS 10000u               /* default ring size, taps */
#define TUI_RING_BYTES (64ull << 20)       /* default ring size, payload bytes */

/* A consumer as the model keeps it (its own copy), with its search text. */
struct tui_consumer {
	struct hcb_consumer *c;
	char *label;            /* "name key: value ..." for search and display */
	char *kwtext;           /* "key: value ..." (id_print's kwargs, "what: loss") */
};

/* One device x consumer stream. */
struct tui_stream {
	uint32_t device;
	unsigned int cons;      /* index into the model's consumers (first-seen order) */
	uint64_t count, bytes;
	uint64_t first_ts, last_ts;   /* CLOCK_REALTIME of the first and last tap */
	double rate;            /* taps per second */
	uint64_t rate_count;    /* count and time at the last rate sample */
	uint64_t rate_ns;
	uint64_t last_index;    /* the last tap's index (see struct tui_tap) */
	/* the latest values of the first leaf, per statistic (for a scalar
	 * all three are the value), oldest first from hist_start, TUI_HIST at most */
	double hist[TUI_STATS][TUI_HIST];
	unsigned int hist_len, hist_start;
};

/* A stream's key: ordered by device, then consumer first-seen order. */
static inline uint64_t tui_stream_key(const struct tui_stream *s)
{
	return ((uint64_t)s->device << 32) | s->cons;
}

struct tui_tap {
	uint64_t index;         /* n-th tap received, from 0: stable across eviction */
	uint64_t seq;           /* the device's packet sequence number */
	uint64_t ts_ns;
	uint32_t device;
	unsigned int cons;
	unsigned int stream;    /* index into the model's streams */
	double value;           /* scalar, or the first leaf's mean (NaN: none) */
	unsigned char *payload;
	size_t len;
};

struct tui_model {
	/* the session */
	char platform[16];
	int32_t pid;
	int ended;              /* an end record was seen */
	/* consumers and streams, in first-seen order */
	struct tui_consumer *cons;
	unsigned int ncons;
	size_t cons_cap;
	struct tui_stream *streams;
	unsigned int nstreams;
	size_t streams_cap;
	/* the ring: taps [first, received) are held */
	struct tui_tap *ring;
	size_t ring_cap;
	uint64_t ring_bytes, ring_bytes_max;
	uint64_t first, received;
	uint64_t evicted;       /* taps no longer held (counted in received) */
	uint64_t lost;          /* taps the model could not take (out of memory): not in received */
	/* accounting from drop records: taps lost before they reached us */
	uint64_t drops[256];
	uint64_t dropped;
	uint64_t barriers;
};

/* cap_taps/cap_bytes 0: the defaults.  -ENOMEM. */
int tui_model_init(struct tui_model *m, size_t cap_taps, uint64_t cap_bytes);
void tui_model_free(struct tui_model *m);

/*
 * Take one record (its payload is copied).  Returns 0, or -ENOMEM (the tap
 * is counted in lost).
 */
int tui_model_add(struct tui_model *m, const struct hcb_record *rec);

/* The held tap of index i, or NULL (evicted, or not received yet). */
const struct tui_tap *tui_model_tap(const struct tui_model *m, uint64_t i);

/* Live rates: every second or more, a stream's rate becomes the taps it got
 * since the last sample over the time since.  now_ns: CLOCK_REALTIME. */
void tui_model_tick(struct tui_model *m, uint64_t now_ns);
/* Recording rates: from the taps' timestamps (count over the time span). */
void tui_model_rates_from_ts(struct tui_model *m);

/* The latest stream values, oldest first, into out (up to TUI_HIST); returns how many. */
unsigned int tui_stream_history(const struct tui_stream *s, enum tui_stat stat, double *out);
/* "mean", "min", "max" */
const char *tui_stat_name(enum tui_stat stat);

/* ---- matching: view filter and search ---- */

/* What `f` takes: "" (nothing), a device number, or a consumer name (substring). */
struct tui_filter {
	int active;
	int device;             /* >= 0: only this device */
	char name[128];         /* else: consumer names containing this */
};

/* Parse the prompt's text.  Returns 0, or -EINVAL for a device number out of range. */
int tui_filter_parse(struct tui_filter *f, const char *text);
int tui_filter_match(const struct tui_filter *f, const struct tui_consumer *c, uint32_t device);
/* Search: a case-insensitive substring of the consumer's name or kwargs. */
int tui_search_match(const struct tui_consumer *c, const char *needle);

/* ---- snapshot: what one frame shows ---- */

struct tui_snapshot {
	struct tui_stream *streams;   /* sorted by key */
	unsigned int nstreams;
	size_t cap;
	uint64_t limit;               /* taps with index < limit are shown */
	uint64_t received;            /* taken or lost */
	uint64_t evicted, lost, dropped;
	uint64_t drops[256];          /* per device */
	double rate;                  /* all streams; NaN: not known yet */
	int ended;
};

/* Copy what the screen needs (streams sorted by device, then consumer).  -ENOMEM. */
int tui_snapshot_take(struct tui_snapshot *s, const struct tui_model *m);
void tui_snapshot_free(struct tui_snapshot *s);

#endif
