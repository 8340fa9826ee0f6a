/* SPDX-License-Identifier: MIT */
/* print_opts.h - the print options of id_print's text: src/core's. */
#ifndef HCB_PRINT_OPTS_H
#define HCB_PRINT_OPTS_H

#include "core/print_opts.h"

#endif
