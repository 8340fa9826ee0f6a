/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/leafstats.h"
#include "nonfinite.h"
#include "trigger.h"

static const char *const stats[] = { "min", "max", "mean", "sum" };
static const char *const cmps[] = { "<", "<=", ">", ">=", "==", "!=" };

struct cursor {
	const char *s, *p;
};

static void skip_space(struct cursor *c)
{
	while (isspace((unsigned char)*c->p))
		c->p++;
}

/* The word at the cursor (letters, digits, '_', '.', '-'): its length. */
static size_t word_len(const char *p)
{
	size_t n = 0;

	while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '.' || p[n] == '-')
		n++;
	return n;
}

static bool take_word(struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	skip_space(c);
	if (strncmp(c->p, w, n) || word_len(c->p) != n)
		return false;
	c->p += n;
	return true;
}

/* The SELECT ':' prefix, if the string has one (a ':' before any CMP). */
static int parse_select(struct cursor *c, struct hcb_trigger *t, const char **why)
{
	const char *colon = strchr(c->p, ':'), *at;
	size_t n;

	if (!colon || strcspn(c->p, "<>=!") < (size_t)(colon - c->p))
		return 0;
	skip_space(c);
	n = word_len(c->p);
	at = c->p + n;
	if (n >= sizeof(t->name)) {
		*why = "a consumer name of at most 127 characters";
		return -EINVAL;
	}
	memcpy(t->name, c->p, n);
	t->name[n] = '\0';
	c->p = at;
	skip_space(c);
	if (*c->p == '@') {
		char *end;

		c->p++;
		skip_space(c);
		if (!isdigit((unsigned char)*c->p)) {
			*why = "a device number after '@'";
			return -EINVAL;
		}
		errno = 0;
		t->device = (int64_t)strtoull(c->p, &end, 10);
		/* any id a runtime gives a device, jax's 2048 on: a u32 */
		if (errno || t->device > UINT32_MAX || t->device < 0) {
			*why = "a device number of at most 4294967295 after '@'";
			return -EINVAL;
		}
		c->p = end;
		skip_space(c);
	}
	if (*c->p != ':') {
		*why = "':' after the consumer name and device";
		return -EINVAL;
	}
	c->p++;
	return 0;
}

static int parse_cond(struct cursor *c, struct hcb_trigger *t, const char **why)
{
	char *end;
	size_t i;

	if (take_word(c, "nonfinite")) {
		t->nonfinite = 1;
		return 0;
	}
	t->absolute = take_word(c, "abs");
	for (i = 0; i < 4 && !take_word(c, stats[i]); i++)
		;
	if (i == 4) {
		*why = t->absolute ? "a statistic: min, max, mean or sum" :
			"nonfinite, abs, or a statistic: min, max, mean or sum";
		return -EINVAL;
	}
	t->stat = (enum hcb_trigger_stat)i;
	skip_space(c);
	/* the longer operators first: "<=" is not "<" then "=" */
	for (i = 6; i-- > 0;)
		if (!strncmp(c->p, cmps[i], strlen(cmps[i])) &&
		    (strlen(cmps[i]) == 2 || (c->p[1] != '=')))
			break;
	if (i == (size_t)-1) {
		*why = "a comparison: <, <=, >, >=, == or !=";
		return -EINVAL;
	}
	t->cmp = (enum hcb_trigger_cmp)i;
	c->p += strlen(cmps[i]);
	skip_space(c);
	t->number = strtod(c->p, &end);
	if (end == c->p) {
		*why = "a number";
		return -EINVAL;
	}
	c->p = end;
	return 0;
}

int hcb_trigger_parse(const char *s, struct hcb_trigger *t, size_t *col, const char **why)
{
	struct cursor c = { s, s };
	int err;

	memset(t, 0, sizeof(*t));
	t->device = -1;
	*why = NULL;
	err = parse_select(&c, t, why);
	if (!err)
		err = parse_cond(&c, t, why);
	if (!err) {
		skip_space(&c);
		if (*c.p) {
			*why = "the end of the condition";
			err = -EINVAL;
		}
	}
	*col = (size_t)(c.p - c.s) + 1;
	return err;
}

/* Element i of a leaf as the statistics take it (leafstats.h reads it):
 * the real part, |x| (a complex one's modulus) under abs; NaN if it is. */
static double element(unsigned int dtype, const unsigned char *p, uint64_t i, int absolute)
{
	double v, sq;

	if (!hcb_elem_number(dtype, p + i * hcb_dtype_size(dtype), &v, &sq))
		return NAN;
	return absolute ? (hcb_dtype_is_complex(dtype) ? sqrt(sq) : fabs(v)) : v;
}

struct stat_acc {
	double sum, comp;        /* Kahan: the sum and what it lost */
	double best;             /* min or max so far */
	uint64_t n;
	unsigned int leaf;
	int64_t element;         /* of best */
	bool nan;
};

static void accumulate(struct stat_acc *a, const struct hcb_trigger *t, unsigned int leaf,
		       uint64_t i, double x)
{
	double y = x - a->comp, s = a->sum + y;

	a->comp = (s - a->sum) - y;
	a->sum = s;
	a->nan |= isnan(x);
	if (!a->n || (t->stat == HCB_TRIG_MIN ? x < a->best : x > a->best)) {
		a->best = x;
		a->leaf = leaf;
		a->element = (int64_t)i;
	}
	a->n++;
}

static bool compare(enum hcb_trigger_cmp cmp, double x, double number)
{
	switch (cmp) {
	case HCB_TRIG_LT: return x < number;
	case HCB_TRIG_LE: return x <= number;
	case HCB_TRIG_GT: return x > number;
	case HCB_TRIG_GE: return x >= number;
	case HCB_TRIG_EQ: return x == number;
	case HCB_TRIG_NE: return x != number;
	}
	return false;
}

/* The statistic of a tap's numeric elements: 0 and *hit, -1 if it has none. */
static int statistic(const struct hcb_trigger *t, const struct hcb_consumer *c,
		     const unsigned char *p, struct hcb_trigger_hit *hit)
{
	struct stat_acc a = { 0 };

	for (unsigned int l = 0; l < c->nleaves; p += c->leaves[l].nbytes, l++) {
		const struct hcb_leaf_shape *s = &c->leaves[l];

		if (!hcb_dtype_size(s->dtype))
			continue;
		for (uint64_t i = 0; i < s->nelems; i++)
			accumulate(&a, t, l, i, element(s->dtype, p, i, t->absolute));
	}
	if (!a.n)
		return -1;
	hit->leaf = a.leaf;
	hit->element = a.element;
	hit->value = a.nan ? NAN : a.best;
	if (t->stat == HCB_TRIG_SUM || t->stat == HCB_TRIG_MEAN) {
		hit->element = -1;
		hit->value = a.nan ? NAN : t->stat == HCB_TRIG_SUM ? a.sum : a.sum / (double)a.n;
	}
	return 0;
}

int hcb_trigger_fires(const struct hcb_trigger *t, const struct hcb_consumer *c, uint32_t device,
		      const unsigned char *p, struct hcb_trigger_hit *hit)
{
	struct hcb_nonfinite_at at;

	if ((t->name[0] && strcmp(t->name, c->name)) || (t->device >= 0 && t->device != device))
		return 0;
	if (t->nonfinite) {
		if (!hcb_tap_nonfinite(c, p, &at))
			return 0;
		*hit = (struct hcb_trigger_hit){ at.leaf, (int64_t)at.index, at.value };
		return 1;
	}
	return !statistic(t, c, p, hit) && compare(t->cmp, hit->value, t->number);
}

void hcb_trigger_format(const struct hcb_trigger *t, char *buf, size_t size)
{
	char dev[32] = "";
	int n;

	if (t->device >= 0)
		snprintf(dev, sizeof(dev), "@%lld", (long long)t->device);
	n = t->name[0] || dev[0] ? snprintf(buf, size, "%s%s: ", t->name, dev) : 0;
	if (n < 0 || (size_t)n >= size)
		n = 0;
	if (t->nonfinite)
		snprintf(buf + n, size - (size_t)n, "nonfinite");
	else
		snprintf(buf + n, size - (size_t)n, "%s%s %s %.17g", t->absolute ? "abs " : "",
			 stats[t->stat], cmps[t->cmp], t->number);
}
