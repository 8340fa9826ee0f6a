/* SPDX-License-Identifier: MIT */
/*
 * grow.h - the one way to grow a malloc'ed array: hcb_grow().  libc only
 * (libhcbtap compiles it too).  Text is built with buf.h instead.
 *
 * Header only, so that every build that compiles a few of src/'s files on
 * their own (libhcbtap, the Python package, the fuzz targets, the unit
 * tests of the viewer) needs no new source in its list.
 */
#ifndef HCB_GROW_H
#define HCB_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HCB_GROW_MIN 8   /* elements of a first allocation, at least */

/*
 * Make the array whose address is array_ptr (a T ** passed as void *:
 * &s->items) hold at least need elements of elem_size bytes; *cap is how
 * many it holds now, 0 for none (the pointer NULL).  When it must grow it
 * grows to at least twice *cap (and HCB_GROW_MIN), so appending one at a
 * time costs amortized constant time.  0, or -ENOMEM (a size that overflows
 * or a failed realloc) with the array and *cap left as they were.
 */
static inline int hcb_grow(void *array_ptr, size_t *cap, size_t need, size_t elem_size)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap > SIZE_MAX / 2 ? need : *cap * 2;
	if (ncap < need)
		ncap = need;
	if (ncap < HCB_GROW_MIN)
		ncap = HCB_GROW_MIN;
	if (elem_size && ncap > SIZE_MAX / elem_size)
		ncap = need;
	if (elem_size && ncap > SIZE_MAX / elem_size)
		return -ENOMEM;
	/* the pointer is read and written as bytes: T * is not void * */
	memcpy(&p, array_ptr, sizeof(p));
	p = realloc(p, ncap * elem_size);
	if (!p)
		return -ENOMEM;
	memcpy(array_ptr, &p, sizeof(p));
	*cap = ncap;
	return 0;
}

#endif
