/* SPDX-License-Identifier: MIT */
/*
 * trigger.h - conditions on a tap's values, for a flight recorder to fire
 * on (`record --until`) and a watcher to filter on.  The grammar, one
 * condition a string, spaces free between words:
 *
 *   TRIGGER := [ SELECT ':' ] COND
 *   SELECT  := [ NAME ] [ '@' DEVICE ]   the consumer or call site named NAME
 *                                        ("loss", "debug_print.1"), on device
 *                                        number DEVICE; either left out: any
 *   COND    := 'nonfinite'               any NaN or inf in a float leaf
 *            | [ 'abs' ] STAT CMP NUMBER
 *   STAT    := 'min' | 'max' | 'mean' | 'sum'   over every element of every
 *                                        numeric leaf ('abs': of |x|; complex:
 *                                        the real part, |x| its modulus)
 *   CMP     := '<' | '<=' | '>' | '>=' | '==' | '!='
 *   NUMBER  := a decimal or hexadecimal float as strtod reads it, inf, nan
 *
 * e.g. "nonfinite", "loss: max > 1e4", "abs max > 1e30", "mean < 0",
 * "params@1: abs mean >= 3.5".  A NaN among the elements makes min, max,
 * mean and sum NaN, which no comparison but != holds: "nonfinite" is the
 * condition for those.
 */
#ifndef HCB_TRIGGER_H
#define HCB_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include "core/consumer.h"

enum hcb_trigger_stat { HCB_TRIG_MIN, HCB_TRIG_MAX, HCB_TRIG_MEAN, HCB_TRIG_SUM };
enum hcb_trigger_cmp { HCB_TRIG_LT, HCB_TRIG_LE, HCB_TRIG_GT, HCB_TRIG_GE, HCB_TRIG_EQ,
		       HCB_TRIG_NE };

#define HCB_TRIGGER_NAME_MAX 128u

struct hcb_trigger {
	char name[HCB_TRIGGER_NAME_MAX];    /* "" for any consumer */
	int64_t device;                     /* -1 for any device */
	int nonfinite;                      /* 1: COND is nonfinite, the rest unused */
	int absolute;
	enum hcb_trigger_stat stat;
	enum hcb_trigger_cmp cmp;
	double number;
};

/*
 * Parse s into t.  0, or -EINVAL with *col the 1-based column where it
 * went wrong and *why what was expected there (a static string).
 */
int hcb_trigger_parse(const char *s, struct hcb_trigger *t, size_t *col, const char **why);

/* Why a tap fired: where (the leaf and element that decided, for
 * nonfinite, min and max; element -1 for mean and sum) and the value
 * compared (the element's, or the statistic's). */
struct hcb_trigger_hit {
	unsigned int leaf;
	int64_t element;
	double value;
};

/* Does a tap of consumer c on device, payload p (leaves back to back),
 * fire t?  1 and *hit, or 0. */
int hcb_trigger_fires(const struct hcb_trigger *t, const struct hcb_consumer *c, uint32_t device,
		      const unsigned char *p, struct hcb_trigger_hit *hit);

/* t written back in the grammar (for messages and records). */
void hcb_trigger_format(const struct hcb_trigger *t, char *buf, size_t size);

#endif
