/* SPDX-License-Identifier: MIT */
/*
 * pycall_events.h - the records of the Python side of JAX's callbacks
 * (pycall.bpf.c), numbered in bpf/ring.h, for the jax-callback decoder
 * (pycall.c), after a call's own records (events.h).
 * All from the thread of the call, in this order:
 *
 *   HCB_EV_JPYCALL   jaxlib's inner function (XlaFfiPythonCpuCallback) is
 *                    entered: the Python callable it is about to call
 *                    (a callable's first entry wakes the reader: its site
 *                    is named while the call runs, pycall.c; in a process
 *                    hcbtrace started, the process waits stopped for it,
 *                    HCB_JPY_F_HELD)
 *   HCB_EV_JPYTEXT   none or more: a string the callable ended in "\n"
 *                    with a concatenation (jax.debug.print's last step,
 *                    sys.stdout.write(msg + "\n")): msg's bytes as CPython
 *                    holds them; the decoder keeps the last one
 *   HCB_EV_JPYEND    the inner function returned: the call is whole
 *
 * The decoder holds a tap of the FFI handler until its thread's
 * HCB_EV_JPYEND, so the callable and the text go with it.
 */
#ifndef HCB_PYCALL_EVENTS_H
#define HCB_PYCALL_EVENTS_H

#include "bpf/ring.h"
#include "core/wire.h"

/* hcb_ev_jpycall.flags */
#define HCB_JPY_F_NOCALLABLE 1u  /* the callbacks' list was unreadable, or the
				  * index past its length: callable is 0 */
#define HCB_JPY_F_HELD 2u        /* the process was stopped (SIGSTOP) as this was
				  * sent, to be let go once it is read
				  * (struct hcb_pycall_hold) */

/* pycall.bpf.c's pycall_hold, for a process hcbtrace started itself
 * (record -- CMD): a callable's first entry stops the process until user
 * space has named its site from the callable's objects, so that a program
 * that ends right after its calls cannot take them away first.  Never for
 * a process hcbtrace attached to: its parent (an interactive shell) would
 * see it stopped. */
struct hcb_pycall_hold {
	HCB_WIRE_U32 on;            /* 1: stop at a callable's first entry */
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 sent;          /* stops sent: user space lets go as many */
};

struct hcb_ev_jpycall {
	HCB_WIRE_U32 type;          /* HCB_EV_JPYCALL */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U32 flags;         /* HCB_JPY_F_* */
	HCB_WIRE_U64 callable;      /* the PyObject * called: callbacks[index] */
	HCB_WIRE_U64 index;         /* its place in the executable's list */
	HCB_WIRE_U64 ts_ns;
};

struct hcb_ev_jpyend {
	HCB_WIRE_U32 type;          /* HCB_EV_JPYEND */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U32 pad;
	HCB_WIRE_U64 ts_ns;
};

/* The most bytes of one text sent; a longer one is sent as its length
 * alone (HCB_JPY_T_LONG) and shown as if there were none. */
#define HCB_JPY_TEXT_MAX 65536u

/* hcb_ev_jpytext.flags */
#define HCB_JPY_T_LONG 1u       /* more than HCB_JPY_TEXT_MAX bytes: none sent */
#define HCB_JPY_T_BAD 2u        /* the left operand did not read as a str */

struct hcb_ev_jpytext {
	HCB_WIRE_U32 type;          /* HCB_EV_JPYTEXT */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U32 tid;
	HCB_WIRE_U32 flags;         /* HCB_JPY_T_* */
	HCB_WIRE_U32 kind;          /* PyUnicode kind: 1, 2 or 4 bytes a character */
	HCB_WIRE_U32 ascii;         /* 1: all ASCII (kind 1) */
	HCB_WIRE_U64 length;        /* characters, as the str says */
	HCB_WIRE_U64 nbytes;        /* bytes that follow: length * kind, or 0 */
	/* then nbytes bytes (the record is of a fixed class size) */
};

#endif
