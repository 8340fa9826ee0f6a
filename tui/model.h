/* SPDX-License-Identifier: MIT */
/*
 * model.h - what the viewer knows, without any terminal: the streams
 * (device x consumer) with their counts, rates and recent values, a bounded
 * ring of the latest taps (payloads copied), and the session's accounting
 * (taps received, dropped by the target side, evicted from the ring).
 *
 * Records come in one at a time (tui_model_add), from a live session's
 * writer.  A recording is browsed in place instead (tui_model_init_indexed,
 * tui/source.h): every tap is indexed, 8 bytes each (where it starts in the
 * file, and its stream), none held; the taps a frame shows are read back
 * through the source and kept in a small cache (tui/model_read.c, over
 * tui/cache.h).  The screen
 * reads a snapshot (tui_snapshot_take) so that pausing freezes what is shown
 * while records keep coming.  Nothing here locks: the caller does
 * (tui/sink.h).
 */
#ifndef HCB_TUI_MODEL_H
#define HCB_TUI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/consumer.h"
#include "core/leafstats.h"
#include "core/record.h"

/* The statistics of a tap's first array a sparkline can follow: enum
 * hcb_stat's first ones (mean, min, max; leafstats.h). */
#define TUI_STATS ((unsigned int)HCB_STAT_NORM)

#define TUI_HIST 240                       /* values kept per stream for its sparkline */
#define TUI_RING_TAPS 10000u               /* default ring size, taps */
#define TUI_RING_BYTES (64ull << 20)       /* default ring size, payload bytes */

/* A consumer as the model keeps it (its own copy), with its search text. */
struct tui_consumer {
	struct hcb_consumer *c;
	char *name;             /* c->name as the screen shows it (controls made
				 * visible: hcb_buf_put_visible) */
	char *label;            /* "name key: value ..." for search and display */
	char *kwtext;           /* "key: value ..." (id_print's kwargs, "what: loss") */
	/* its process (the model's procs), and who that is where the model
	 * shows several (NULL: one process, said nowhere) */
	unsigned int proc;
	const char *ptag, *who;
};

/*
 * A process whose taps the model shows: a job's recordings browsed as one,
 * or several live sessions.  A consumer is its process's: its id is the
 * process's numbering, so two processes' consumers are two, and a stream
 * (device x consumer) is one process's (each process may say cuda:0).
 */
struct tui_process {
	char *tag;              /* the stream and tap lists' column: "p1" (its
				 * process index), "4242" (its pid), "#2" (its
				 * place, no session record) */
	char *who;              /* the detail's line: "process 1 of 2 (jax),
				 * host node07, pid 4242" as replay says it */
	char platform[16];      /* what names its devices ("": the model's) */
};

/* Processes a model tells apart: a job set's files, at most. */
#define TUI_PROCESSES 4096u

/* Devices whose drops the model counts apart: as many as the streams an
 * index holds (model.h's index: 16 bits of stream). */
#define TUI_DROP_DEVICES 65536u

struct tui_devdrops {
	uint32_t device;
	uint32_t used;
	uint64_t count;
};

/* One device x consumer stream (a consumer is one process's). */
struct tui_stream {
	uint32_t device;
	unsigned int cons;      /* index into the model's consumers (first-seen order) */
	uint64_t key;           /* its place in the lists (tui_stream_key) */
	uint64_t count, bytes;
	uint64_t first_ts, last_ts;   /* CLOCK_REALTIME of the first and last tap */
	double rate;            /* taps per second */
	uint64_t rate_count;    /* count and time at the last rate sample */
	uint64_t rate_ns;
	uint64_t last_index;    /* the last tap's index (see struct tui_tap) */
	uint64_t dropped;       /* its device's drops (a snapshot's: tui_model_drops) */
	/* the latest values of the first leaf, per statistic (for a scalar
	 * all three are the value), oldest first from hist_start, TUI_HIST at
	 * most; indexed, the indices of the latest taps instead (recent) */
	double hist[TUI_STATS][TUI_HIST];
	uint64_t recent[TUI_HIST];
	unsigned int hist_len, hist_start;
};

/*
 * A stream's key, its place in the lists: one process's, by device, then
 * consumer first-seen order (device << 32 | consumer); several processes',
 * by process first (process << 52 | device << 20 | consumer: the model
 * takes no more consumers than TUI_MULTI_CONSUMERS then).
 */
#define TUI_MULTI_CONSUMERS (1u << 20)
static inline uint64_t tui_stream_key(const struct tui_stream *s)
{
	return s->key;
}
static inline uint64_t tui_key_of(uint32_t device, unsigned int cons, unsigned int proc, int multi)
{
	if (!multi)
		return ((uint64_t)device << 32) | cons;
	return ((uint64_t)proc << 52) | ((uint64_t)device << 20) | cons;
}
/* The consumer a key names. */
static inline unsigned int tui_key_cons(uint64_t key, int multi)
{
	return (unsigned int)(key & (multi ? TUI_MULTI_CONSUMERS - 1 : 0xffffffffu));
}

struct tui_tap {
	uint64_t index;         /* n-th tap received, from 0: stable across eviction */
	uint64_t seq;           /* the device's packet sequence number */
	uint64_t wall_ns;
	uint32_t device;
	unsigned int cons;
	unsigned int stream;    /* index into the model's streams */
	double value;           /* scalar, or the first leaf's mean (NaN: none) */
	int nonfinite;          /* a NaN or inf in it (looked for once, as it came) */
	unsigned char *payload;
	size_t len;
	uint64_t copy_start_ns, copy_end_ns;   /* its device copy (end 0: not known) */
	/* a jax.debug.print's line (text_len bytes, after the payload where
	 * held), NULL: none */
	const char *text;
	uint32_t text_len;
};

/* What a list row shows of a tap, held or read back. */
struct tui_row {
	uint64_t index, seq, wall_ns;
	uint32_t device;
	unsigned int cons;
	double stat[TUI_STATS];         /* of its first leaf, by enum hcb_stat */
	char value[96];                 /* tui_tap_summary; or why it cannot be read */
	int bad;                        /* it could not be read back: value says why */
	int nonfinite;                  /* it holds a NaN or inf (the list marks it) */
};

/* Reading a recording's taps back (tui/source.c). */
struct tui_fetch_ops {
	/* The tap at offset off: 0 and *rec (its payload valid until the
	 * next call), or -errno with what is wrong in err. */
	int (*read)(void *ctx, uint64_t off, struct hcb_record *rec, char *err, size_t cap);
};

struct tui_cache;

struct tui_model {
	/* the session */
	char platform[16];
	int32_t pid;
	int ended;              /* an end record was seen */
	/* the processes (none registered: one, unnamed), and the one whose
	 * records come now */
	struct tui_process *procs;
	unsigned int nprocs;
	size_t procs_cap;
	unsigned int cur_proc;
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
	/* accounting from drop records: taps lost before they reached us, in
	 * all, and per device (any u32 id) for at most TUI_DROP_DEVICES devices
	 * (past them, in the total alone): open addressing */
	struct tui_devdrops *devdrops;
	size_t ndevdrops, devdrops_cap;
	uint64_t dropped;
	uint64_t barriers;
	/* a recording browsed in place: taps [0, received) indexed */
	int indexed;
	uint64_t *index;        /* per tap: its offset << 16 | its stream */
	size_t index_cap;
	/* per tap, 2 bits: whether it was read back yet, and held a NaN or
	 * inf (tui/model_read.c): a tap is looked at once, however often
	 * its row is shown or jumped over */
	unsigned char *nfmarks;
	size_t nfmarks_cap;
	const struct tui_fetch_ops *fetch;
	void *fetch_ctx;
	struct tui_cache *cache;  /* what was read back (tui/model_read.c) */
	uint64_t reads;         /* taps read back so far (a test's count of the work) */
	struct tui_tap got;     /* tui_model_get's answer */
	const char *text;       /* its text, where it has one (indexed: read back) */
	int indexing;           /* the index is still growing */
	uint64_t index_pos, index_size;   /* bytes indexed, of */
	int damaged;            /* indexing stopped at damage */
	char fetch_error[256];  /* why the last tap could not be read back */
};

#define TUI_INDEX_STREAMS 0xffffu     /* streams an index entry can name */
#define TUI_INDEX_OFFSET_MAX (UINT64_C(1) << 48)

/* cap_taps/cap_bytes 0: the defaults.  -ENOMEM. */
int tui_model_init(struct tui_model *m, size_t cap_taps, uint64_t cap_bytes);
void tui_model_free(struct tui_model *m);

/*
 * Take one record (its payload is copied).  Returns 0, or -ENOMEM (the tap
 * is counted in lost).
 */
int tui_model_add(struct tui_model *m, const struct hcb_record *rec);

/*
 * Process proc (< TUI_PROCESSES) takes the records from now on; the first
 * time, it is registered, named by who (its session record, NULL: none)
 * or else by fallback (a file's name).  Register every process before the
 * first tap: a consumer learns who its process is as it is first seen.
 * 0, -E2BIG, -ENOMEM.
 */
int tui_model_process(struct tui_model *m, unsigned int proc, const struct hcb_session_info *who,
		      const char *fallback);

/* What names the devices of consumer cons's process: its session's
 * platform, else the model's. */
const char *tui_model_platform(const struct tui_model *m, unsigned int cons);

/* The held tap of index i, or NULL (evicted, or not received yet; indexed:
 * always NULL, see tui_model_get). */
const struct tui_tap *tui_model_tap(const struct tui_model *m, uint64_t i);

/* A recording browsed in place, its taps read back through ops.  -ENOMEM. */
int tui_model_init_indexed(struct tui_model *m, const struct tui_fetch_ops *ops, void *ctx);
/* Its cache of what was read back, anew within entries rows and bytes of
 * payloads (0: the defaults, tui/cache.h).  -ENOMEM. */
int tui_model_cache_bounds(struct tui_model *m, size_t entries, uint64_t bytes);
/* One tap of it, rec without payload (hcb_reader_skim), starting at off:
 * counted in its stream as tui_model_add counts, nothing held.  -ENOMEM;
 * -E2BIG for a stream or offset the index cannot name. */
int tui_model_index(struct tui_model *m, const struct hcb_record *rec, uint64_t off);
/* Tap i's device and consumer, held or indexed: 0, or -ENOENT. */
int tui_model_tap_where(const struct tui_model *m, uint64_t i, uint32_t *device, unsigned int *cons);
/* Tap i whole: held, or read back through the cache (tui/model_read.c); NULL if it is neither
 * (m->fetch_error says why when it could not be read back).  Valid until
 * the model's next call. */
const struct tui_tap *tui_model_get(struct tui_model *m, uint64_t i);
/* Tap i's row: 0, or -ENOENT (not held).  A tap that cannot be read back is
 * a row too, bad, its value saying why. */
int tui_model_row(struct tui_model *m, uint64_t i, struct tui_row *row);
/* The same, only if it needs no reading back: 0, or -ENOENT. */
int tui_model_row_cached(struct tui_model *m, uint64_t i, struct tui_row *row);
/* 1 if tap i holds a NaN or inf, 0 if not (or it cannot be read back), or
 * -ENOENT (not held).  Held: known as it came; indexed: read back the first
 * time only, and only if may_read (else -EAGAIN). */
int tui_model_nonfinite(struct tui_model *m, uint64_t i, int may_read);

/* Live rates: every second or more, a stream's rate becomes the taps it got
 * since the last sample over the time since.  now_ns: CLOCK_REALTIME. */
void tui_model_tick(struct tui_model *m, uint64_t now_ns);
/* Recording rates: from the taps' timestamps (count over the time span). */
void tui_model_rates_from_ts(struct tui_model *m);
/* The rate of count taps stamped first .. last: NaN when the stamps say
 * nothing of time: fewer than two taps, all stamped alike (a script that
 * stamps every tap the same), or closer than a microsecond apart on
 * average (a counter written as ts_ns: no tracer delivers a million taps a
 * second on one stream). */
double tui_rate_of(uint64_t count, uint64_t first, uint64_t last);

/* The latest stream values, oldest first, into out (up to TUI_HIST); returns how many. */
unsigned int tui_stream_history(const struct tui_stream *s, enum hcb_stat stat, double *out);

/* ---- matching: view filter and search ---- */

/* What `f` takes: "" (nothing), a device number, "@TAG" (a process as the
 * lists' proc column shows it), or a consumer name (substring). */
struct tui_filter {
	int active;
	int64_t device;         /* >= 0: only this device (any u32 id) */
	char proc[24];          /* else, non-empty: only this process's */
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
	uint64_t evicted, lost, dropped;   /* per device: each stream's dropped */
	double rate;                  /* all streams; NaN: not known yet */
	int ended;
	int indexed, indexing, damaged;
	int percent;                  /* indexing: of the file's bytes */
};

/* The drops of device (any u32 id) the model has counted. */
uint64_t tui_model_drops(const struct tui_model *m, uint32_t device);

/* Copy what the screen needs (streams sorted by device, then consumer).  -ENOMEM. */
int tui_snapshot_take(struct tui_snapshot *s, const struct tui_model *m);
void tui_snapshot_free(struct tui_snapshot *s);

#endif
