/* SPDX-License-Identifier: MIT */
/*
 * decode_impl.h - the jax-callback decoder's state, shared by its files
 * (listed below, with what each offers the others).  Figures, problems
 * and every bound go through providers/bounds.h, as the hcbtap decoder's
 * do.  Nothing outside this folder includes it but the unit tests of
 * names.c and of calls without a thunk (tests/unit/test_jaxffi_names.c,
 * test_jaxffi_unsited.c).
 */
#ifndef HCB_JAXCB_DECODE_IMPL_H
#define HCB_JAXCB_DECODE_IMPL_H

#include <stdint.h>

#include "core/buf.h"
#include "providers/bounds.h"
#include "providers/xshape.h"
#include "check.h"
#include "decode.h"
#include "events.h"
#include "names.h"

#define JX_MAX_PAYLOAD (UINT64_C(4) << 30)   /* as hcbtap/decode.c: a call is held whole */
/* Calls in flight, all threads: at most this many, holding at most this
 * many bytes (what they claim, taken when the call begins: two of the
 * largest); past either the oldest goes as it is if whole (its name or
 * end the only thing it waited for), else is given up, counted.  Room for
 * the calls a reader finds in the ring after a program's end (up to two
 * wake-ups' bytes, and a poll's worth, a few hundred small calls): they
 * wait, whole, for the end of the input to name them (sites.c). */
#define JX_MAX_INFLIGHT 4096u
#define JX_CALL_BYTES (2 * JX_MAX_PAYLOAD)
/* Call sites kept (each a consumer): as many as the hcbtap decoder keeps
 * consumers.  A call of a site past them is not shown (one problem). */
#define JX_MAX_SITES HCB_BOUNDS_CONSUMERS
#define JX_MAX_LEGACY_SITES 1024u            /* legacy descriptors numbered, beyond: one name */
/* Buckets of the indexes, powers of two. */
#define JX_CALL_BUCKETS 512u
#define JX_SITE_BUCKETS 4096u
#define JX_LEGACY_SLOTS (2 * JX_MAX_LEGACY_SITES)

/* A call whose records are still coming. */
struct jcall {
	struct jcall *older, *newer;       /* every call in flight */
	struct jcall *snext, **sprev;      /* its (device, seq) bucket, newest first */
	struct jcall *tnext, **tprev;      /* its thread's bucket, newest first */
	struct hcb_ev_jcall h;             /* its call record; names made printable */
	uint32_t nseen;                    /* operands so far */
	int64_t last_arg;                  /* arg of the last one, -1 before any */
	uint64_t arg_left;                 /* bytes of the last one still to come */
	uint64_t got;                      /* payload bytes so far */
	uint64_t held;                     /* bytes taken from the pool */
	uint64_t touched_ns;               /* its last record (a tick's time) */
	struct hcb_xshape *shapes;         /* h.nargs */
	struct hcb_buf payload;
	/* the Python side (pycall_events.h), where the inner function is
	 * probed: a Python callback's call waits for its end, whole */
	unsigned int await_end : 1;        /* it will come */
	unsigned int py_seen : 1;          /* its HCB_EV_JPYCALL came */
	unsigned int whole : 1;            /* its operands all came: waits for the end */
	/* no thunk named its site (one begun before the probe was in place,
	 * or the thread's thunk was another custom call's): named by its
	 * callable, as a call with a thunk named that callable's site
	 * (sites.c); until then, whole, it waits, its thread's no more */
	unsigned int unsited : 1;
	unsigned int parked : 1;           /* whole and ended, it waits for its name */
	unsigned int final : 1;            /* nothing more will come for it: shown as it is */
	/* entries on its thread since its own that are no call's held here
	 * (a callback its Python ran, whose call was not sent): their texts
	 * are not its, their ends come before its own */
	unsigned int foreign;
	uint64_t py_callable;              /* the Python callable, 0: not known */
	/* the namer's answer for it, asked at the entry while the callable
	 * lived, where the call's site was new (names.c) */
	struct hcb_pysite *py_site;        /* NULL: not asked (or no memory) */
	int py_err;                        /* the namer's: 0, or why not */
	/* the last text the Python side sent (UTF-8), and how it came */
	struct hcb_buf text;
	unsigned int text_state;           /* JX_TEXT_* */
};

/* JX_TEXT_UNPROVEN: its Python side was not seen whole (its entry or its
 * end did not come), so the last text it has may be none of its own */
enum { JX_TEXT_NONE, JX_TEXT_OK, JX_TEXT_LONG, JX_TEXT_BAD, JX_TEXT_UNPROVEN };
/* Sites told once that their text could not be shown: at most so many */
#define JX_TEXT_NOTICES 256u

/* A call site seen, and the consumer made up for it. */
struct site {
	struct site *next;                 /* in its bucket */
	uint64_t hash;
	char op[HCB_JAXFFI_OP_MAX], module[HCB_JAXFFI_MODULE_MAX];
	char target[HCB_JAXFFI_TARGET_MAX];
	unsigned int nleaves;
	struct hcb_xshape *shapes;
	const struct hcb_consumer *c;      /* in the registry */
	int kind;                          /* HCB_PYSITE_* as its objects say, 0: not read */
	uint64_t ident;                    /* what its objects say, hashed; 0: not read */
};

/* Callables whose calls had a thunk, with their site: a cache of the
 * newest (a callable's slot by its address), what a call without a thunk
 * is named by.  A power of two. */
#define JX_CALLABLES 4096u
struct jx_callable {
	uint64_t callable;
	const struct site *s;
	uint64_t index;                    /* the calls' index attribute; ~0: none */
	uint64_t first_ns, last_ns;        /* the first and last such call's time */
};

/* Callback sites remembered before any print (textproof.c), and how long
 * they come round with none before the probe goes. */
#define JX_LOOP_CALLBACKS 16u
#define JX_NO_PRINT_NS 1000000000ull

/* Thunks learned once (thunks.c): names as their first call proved them.
 * A power of two, twice the probe's room at least. */
#define JX_THUNK_SLOTS 2048u
struct jx_thunk {
	uint64_t thunk;
	uint32_t pid;
	uint32_t used;
	uint32_t op_len, module_len;
	char op[HCB_JAXFFI_OP_MAX];
	char module[HCB_JAXFFI_MODULE_MAX];
	char target[HCB_JAXFFI_TARGET_MAX];
	struct hcb_jaxffi_site site;       /* as handed to the probe */
};

struct hcb_jaxffi {
	struct hcb_bounds b;               /* ops, figures, problems; calls in b.packets */
	struct hcb_registry *reg;
	struct site *sites[JX_SITE_BUCKETS];
	unsigned int nsites;
	struct jcall *oldest, *newest;
	struct jcall *by_seq[JX_CALL_BUCKETS], *by_thread[JX_CALL_BUCKETS];
	struct hcb_jaxffi_check check;     /* the layout, proven or refused */
	/* legacy calls without a thunk (XLA's classic runtime) have no names:
	 * their sites are numbered by their descriptors, in order of first
	 * sight (a descriptor lives as long as its executable); a hash of
	 * descriptor to number + 1 (0: a free slot) */
	uint64_t legacy_desc[JX_LEGACY_SLOTS];
	unsigned int legacy_num[JX_LEGACY_SLOTS];
	unsigned int nlegacy;
	uint64_t delivered;                /* calls handed on: the layout held for them */
	int inner;                         /* the inner function is probed */
	int no_text;                       /* --no-text: prints keep their operands only */
	int no_ends;                       /* the inner function's return is not probed */
	int ends_with_text;                /* it goes off with the text probe */
	uint64_t unended;                  /* calls handed on before their end came */
	/* sites named by the user's code (names.c) */
	hcb_jaxffi_namer namer;
	void (*namer_release)(void *ctx);
	void *namer_ctx;
	struct jx_name *names[JX_SITE_BUCKETS];   /* the names given, by hash */
	uint64_t text_fallbacks;           /* print calls shown without their text */
	uint64_t text_unproven;            /* of them, because their Python side was
					    * not seen whole */
	struct jx_callable callables[JX_CALLABLES];
	unsigned int parked;               /* calls waiting for their site's name */
	uint64_t named_by_callable;        /* calls without a thunk so named */
	const struct hcb_consumer *text_noticed[JX_TEXT_NOTICES];
	unsigned int ntext_noticed;
	/* prints' lines made by hcbtrace (textproof.c) */
	enum hcb_jaxffi_text_mode text_mode;
	void (*probe_off)(void *ctx);      /* NULL: the probe is not on */
	void *probe_ctx;
	int probe_taken_off;               /* every site was proven: it went off */
	struct jx_proof *proofs;           /* JX_TEXT_NOTICES print sites, at most */
	unsigned int nproofs;
	/* callback sites met before any print: one met again, the probe goes */
	const struct hcb_consumer *callbacks[JX_LOOP_CALLBACKS];
	unsigned int ncallbacks;
	uint64_t callbacks_from_ns;        /* the first one's call time */
	struct hcb_buf line;               /* the line made for the packet */
	uint64_t text_made;                /* prints shown with a made line */
	uint64_t text_mismatch;            /* sites whose made line was not the probed */
	/* call sites learned once (thunks.c) */
	hcb_jaxffi_learn learn;            /* NULL: kept here alone */
	void *learn_ctx;
	struct jx_thunk *thunks;           /* JX_THUNK_SLOTS, made at the first */
	unsigned int nthunks;
	uint64_t known_calls;              /* calls that came without their names */
	/* the probe on XLA's custom-call thunks, while naming needs it
	 * (thunkoff.c) */
	int (*thunk_set)(void *ctx, int on);   /* NULL: it stays as it is */
	void *thunk_ctx;
	int thunk_off;                     /* it is off now */
	uint64_t thunk_quiet_ns;           /* no new site for so long: off */
	uint64_t site_new_ns;              /* the newest new site's call time, or
					    * of the call the probe came on for */
	unsigned int sites_unread;         /* sites whose objects were not read */
	unsigned int thunk_offs, thunk_ons;
};

/*
 * The decoder's files, from the top down: each calls only the functions
 * of the files below it, declared here from the bottom up.
 *
 *   decode.c    records into calls (decode.h)
 *   pycall.c    the Python side of a call, joined to it
 *   deliver.c   a whole call handed on as a packet
 *   sites.c     call sites as consumers      text.c   a print's text
 *   names.c     what a site is called
 *   calls.c     the calls in flight           thunks.c   sites learned once
 *   thunkoff.c  the thunk probe off and on
 */

/* calls.c */
/* A new call in flight for h, its claim taken from the pool (the oldest
 * given up, counted, for room); NULL if it cannot be held (counted), or
 * *err -ENOMEM. */
struct jcall *hcb_jx_call_new(struct hcb_jaxffi *x, const struct hcb_ev_jcall *h, int *err);
struct jcall *hcb_jx_call_find(struct hcb_jaxffi *x, uint32_t dev, uint64_t seq);
/* The newest call in flight of thread (pid, tid), or NULL; the one before
 * c of c's thread (a call made from inside another's callback is newer
 * than it), or NULL. */
struct jcall *hcb_jx_call_of(struct hcb_jaxffi *x, uint32_t pid, uint32_t tid);
struct jcall *hcb_jx_call_older(const struct jcall *c);
/* Call c is its thread's no more (it waits for its site's name alone):
 * hcb_jx_call_of does not find it. */
void hcb_jx_call_unthread(struct jcall *c);
/* The call is done with (delivered, broken or given up): its later
 * records, if any, find no call and are passed over. */
void hcb_jx_call_drop(struct hcb_jaxffi *x, struct jcall *c);
/* The call stopped before all its records came: a problem, then dropped. */
void hcb_jx_call_stopped(struct hcb_jaxffi *x, struct jcall *c, const char *why);
/* Whether call c made no progress for HCB_BOUNDS_EXPIRY_NS, at the time
 * of the last tick: 1, else 0. */
int hcb_jx_call_stale(struct hcb_jaxffi *x, struct jcall *c);
/* Call c, stale and not whole, is given up: counted, then dropped. */
void hcb_jx_call_expire(struct hcb_jaxffi *x, struct jcall *c);
void hcb_jx_calls_free(struct hcb_jaxffi *x);

/* names.c: what a new site is called, and its kwargs */
struct hcb_jx_name {
	char name[HCB_MAX_NAME];
	const char *kwargs[13];            /* key, value, ..., NULL; values may be the call's */
	char file[512], line[16];
	int kind;                          /* HCB_PYSITE_*, 0: by its op */
	uint64_t ident;                    /* what its objects say, hashed; 0: by its op */
};
/* The name of call c's new site: by its Python callable where the namer
 * reads it, else by its op (ops->notice tells why, where it tried).  0 or
 * -ENOMEM. */
int hcb_jx_site_name(struct hcb_jaxffi *x, const struct jcall *c, struct hcb_jx_name *n);
/* At call c's entry (its Python callable running, so alive), for a site
 * not met yet (sites.c: hcb_jx_site_known): the namer asked now and its
 * answer kept with c for hcb_jx_site_name, which may come after the
 * program ended.  0 or -ENOMEM. */
int hcb_jx_name_early(struct hcb_jaxffi *x, struct jcall *c);
/* What call c's Python callable says of its site, hashed (as
 * hcb_jx_name's ident), into *ident: asked at its entry, or now.  0;
 * -ESRCH, the process is gone; -EPROTO where it cannot be read otherwise
 * (no namer, no callable, objects gone or not jax's); -ENOMEM. */
int hcb_jx_callable_ident(struct hcb_jaxffi *x, struct jcall *c, uint64_t *ident);
/* The same, its answer at the entry forgotten and the namer asked now. */
int hcb_jx_callable_ident_now(struct hcb_jaxffi *x, struct jcall *c, uint64_t *ident);
void hcb_jx_names_free(struct hcb_jaxffi *x);

/* sites.c */
/* The made-up consumer of the call's site, registered on first sight:
 * 0, *out and *kind (HCB_PYSITE_*, 0 where its objects were not read);
 * -ENOSPC past JX_MAX_SITES (nothing kept); -ENOMEM. */
int hcb_jx_consumer_for(struct hcb_jaxffi *x, const struct jcall *c,
			const struct hcb_consumer **out, int *kind);
/* Whether call c's site has its consumer already (its operands all came
 * and match one met): 1, else 0. */
int hcb_jx_site_known(const struct hcb_jaxffi *x, const struct jcall *c);
/* A legacy call without a thunk: named after its descriptor's number. */
void hcb_jx_name_legacy(struct hcb_jaxffi *x, struct hcb_ev_jcall *h);
/* A call with no site: named after its index, as far as it is known, in
 * module "unknown", its target target. */
void hcb_jx_name_unknown(struct hcb_ev_jcall *h, const char *target);
/* Call c, whole, without a thunk: named as the site a call with a thunk
 * of its callable had, where that is proven (its operands have the site's
 * shapes, and a call of the callable with a thunk came before and after
 * it, or its objects say the site's words): 1 and c named, else 0.
 * -ENOMEM. */
int hcb_jx_site_by_callable(struct hcb_jaxffi *x, struct jcall *c);
void hcb_jx_sites_free(struct hcb_jaxffi *x);

/* text.c */
/* The text record e (pycall_events.h) of call c, d its avail bytes after
 * the record: kept as c's last text, or why there is none.  0 or -ENOMEM. */
struct hcb_ev_jpytext;
int hcb_jx_text_keep(struct jcall *c, const struct hcb_ev_jpytext *e, const unsigned char *d,
		     size_t avail);
/* The text of call c, of site con of kind (HCB_PYSITE_*, 0: not known),
 * for its packet, or NULL (told once per site where a print's text was
 * expected and could not be had). */
const char *hcb_jx_text_for(struct hcb_jaxffi *x, const struct jcall *c,
			    const struct hcb_consumer *con, int kind, uint32_t *len);

/* textproof.c */
/* A print site's line: made, proven against its probed text, or not. */
enum { JX_PROOF_NONE, JX_PROOF_EQUAL, JX_PROOF_PROBE, JX_PROOF_LATE };
struct jx_proof {
	const struct hcb_consumer *con;
	int state;                         /* JX_PROOF_* */
	int fmt_ok;                        /* fmt and opts read (a print's pysite) */
	char *fmt;
	struct hcb_print_opts opts;
};
/* The text of print call c of site con, where textproof decides it: the
 * probed one (compared with the made line while the probe is on), or the
 * made line once its site is proven; NULL: neither (*why: a reason
 * text.c does not know, or NULL).  No memory for a site's entry or its
 * line: the probed text alone, as without a formatter. */
const char *hcb_jx_text_decide(struct hcb_jaxffi *x, const struct jcall *c,
			       const struct hcb_consumer *con, uint32_t *len, const char **why);
void hcb_jx_proofs_free(struct hcb_jaxffi *x);
/* A call of callback site con (not a print), made at ts_ns, handed on:
 * where no print site was seen yet and the program comes back to a
 * callback site a second or more after the first (its loop has no
 * print), the probe goes off, said once (x->b.ops->info). */
void hcb_jx_text_callback(struct hcb_jaxffi *x, const struct hcb_consumer *con, uint64_t ts_ns);

/* thunks.c */
/* Call h came as F_KNOWN: its names, as its thunk's first call proved
 * them, into h.  1; 0 where its thunk is not kept (not learned here). */
int hcb_jx_thunk_names(struct hcb_jaxffi *x, struct hcb_ev_jcall *h);
/* Call h, read whole, was named by its thunk and proven: its thunk kept,
 * and handed to learn.  0 or -ENOMEM. */
int hcb_jx_thunk_learn(struct hcb_jaxffi *x, const struct hcb_ev_jcall *h);
void hcb_jx_thunks_free(struct hcb_jaxffi *x);

/* thunkoff.c */
/* Call c (made at ts_ns, of callable), named by its thunk, was handed on:
 * where every site seen is named by its callable and none was new for a
 * while, the thunk probe goes off (said once). */
void hcb_jx_thunk_named(struct hcb_jaxffi *x, uint64_t ts_ns, uint64_t callable);
/* Call c, without a thunk, is not named by its callable: the probe on
 * again, if it was off, for a while at least. */
void hcb_jx_thunk_wanted(struct hcb_jaxffi *x, const struct jcall *c);

/* deliver.c */
/* Call c has all its records: handed on and let go.  0, or the packet
 * callback's negative value, or -ENOMEM. */
int hcb_jx_deliver(struct hcb_jaxffi *x, struct jcall *c);
/* Call c, whole, is handed on though its end has not come (why): counted,
 * its text not shown (it may be none of its own). */
int hcb_jx_deliver_unended(struct hcb_jaxffi *x, struct jcall *c, const char *why);
/* Call c, whole: nothing more will come for it (a while without progress,
 * the end of the input): handed on as it is, ended or not. */
int hcb_jx_deliver_final(struct hcb_jaxffi *x, struct jcall *c, const char *why);

/* pycall.c: the Python side's records (pycall_events.h) */
int hcb_jx_on_pycall(struct hcb_jaxffi *x, const void *rec, size_t len);

#endif
