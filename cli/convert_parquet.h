/* SPDX-License-Identifier: MIT */
/* convert_parquet.h - hcbtrace convert ... -o OUT.parquet (or OUTDIR/): by pyarrow, through python/. */
#ifndef HCB_CLI_CONVERT_PARQUET_H
#define HCB_CLI_CONVERT_PARQUET_H

#include "core/filter.h"
#include "cli.h"

/* Whether out names Parquet: OUT.parquet, or a directory (OUTDIR/, or one that is there). */
int convert_parquet_wanted(const char *out);
/* Convert the n recordings (files or directories) in ins to out, by
 * python3 -m hcbtap.recording.parquet; its exit code, which says what
 * went wrong itself. */
int convert_parquet(const struct cli_cmd *cmd, int n, char **ins, const char *out,
		    const struct hcb_filter *filter);

#endif
