/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Names of rtnetlink numbers as ip-route(8) writes them: routing tables,
 * route protocols (the list iproute2 ships in rt_protos, which are the
 * RTPROT_* values of linux/rtnetlink.h) and route types.  Built in, so
 * a rule means the same on every host whatever /etc/iproute2 holds.
 */
#ifndef CLS_SYNC_RTNAMES_H
#define CLS_SYNC_RTNAMES_H

#include <stddef.h>
#include <linux/types.h>

/* "main", "local", "default" or a number 1..2^32-1; -EINVAL otherwise. */
int rt_table_parse(const char *s, __u32 *table);
/* "bird", "bgp", "static", ... or a number 0..255. */
int rt_proto_parse(const char *s, __u8 *proto);
/* "unicast", "blackhole", ... (RTN_*) */
int rt_type_parse(const char *s, __u8 *type);

/* Name or decimal number into buf; returns buf. */
const char *rt_table_name(__u32 table, char *buf, size_t n);
const char *rt_proto_name(__u8 proto, char *buf, size_t n);
const char *rt_type_name(__u8 type, char *buf, size_t n);
#define RT_NAME_STRLEN 16

#endif
