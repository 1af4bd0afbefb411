/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tc's units, as tc(8) reads them, for rates, sizes and times an operator
 * types, and the text they are printed as (which reads back the same).
 * Units are case-insensitive; a number may have a decimal fraction
 * ("1.5mbit").  Errors are -EINVAL or -ERANGE with a one-line reason in
 * why (lib/parse.h), in the caller's storage.
 */
#ifndef CLS_UNITS_H
#define CLS_UNITS_H

#include <stddef.h>
#include <linux/types.h>

#include "lib/parse.h"

/* The largest rate taken: 8 Tbit/s, in bytes per second. */
#define RATE_MAX_BPS (1000ULL * 1000 * 1000 * 1000)

/*
 * A rate in bytes per second (tc's rate64): bit, kbit, mbit, gbit, tbit
 * (and a bare number: bits per second), bps, kbps, mbps, gbps, tbps
 * (bytes per second), the IEC forms kibit, mibit, ..., kibps, ...  Bits
 * are divided by 8 and rounded down; a rate below 1 byte per second is
 * refused.
 */
int parse_rate(const char *s, __u64 *bytes_per_sec, struct parse_why *why);
/*
 * A size in bytes, at most 4 GiB - 1: b (and a bare number), k or kb, m
 * or mb, g or gb (1024-based), kbit, mbit, gbit (tc's: 1024-based bits).
 */
int parse_size(const char *s, __u32 *bytes, struct parse_why *why);
/*
 * A time in nanoseconds: s, sec, secs, ms, msec, msecs, us, usec, usecs
 * (and a bare number: microseconds, as tc), ns, nsec, nsecs.
 */
int parse_time(const char *s, __u64 *ns, struct parse_why *why);

#define UNITS_STRLEN 32
/* "100mbit", "1500kbit", "12bit": the largest unit that is exact. */
void format_rate(__u64 bytes_per_sec, char *buf, size_t n);
/* "64kb", "1514b". */
void format_size(__u32 bytes, char *buf, size_t n);
/* "50ms", "250us", "10ns". */
void format_time(__u64 ns, char *buf, size_t n);

#endif
