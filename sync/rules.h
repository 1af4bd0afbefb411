/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which kernel routes the sync daemon mirrors, and into which class.
 *
 * A rule is a list of selectors ending in an action, in ip-route(8)'s
 * words; a config file holds one rule a line ('#' starts a comment), the
 * command line takes the same words, one rule after another (a rule ends
 * at its action):
 *
 *   table 100 realm 5 class 1:10
 *   table 100 protocol bird class bulk
 *   table all via 192.0.2.0/24 dev eth1 metric 100-199 class web
 *   table 100 to 10.0.0.0/8 ignore
 *   rcvbuf 64M                         (settings, not rules: the event
 *   resync 10m                          buffer; how often to resync)
 *
 * Selectors (each at most once a rule; all given must match):
 *   family inet|inet6       (also ipv4|ipv6)
 *   table ID|NAME|all       main, local, default, 1..2^32-1; no table:
 *                           main, as in ip route
 *   protocol NAME|NUM       bird, bgp, static, kernel, zebra, ... (proto)
 *   type TYPE               unicast (the default), blackhole,
 *                           unreachable, prohibit
 *   metric N[-M]            the route's metric (priority, preference)
 *   to PREFIX               the route's prefix lies inside PREFIX
 *                           (what `ip route show root PREFIX` selects)
 *   via PREFIX|ADDR         a gateway inside it (gateway)
 *   dev NAME                the output device (oif)
 *   realm [SRC/]DST         IPv4 routes' RTA_FLOW, as ip route prints it
 *                           (realms); 0..65535 each
 * Actions: `class CLASS` (a classid such as 1:10, or a class name) or
 * `ignore` (the route is not synced, as if no rule matched).
 *
 * The first rule that matches a route decides; a route no rule matches
 * is not synced.  via, dev and realm describe a nexthop: a multipath
 * route matches when one of its nexthops satisfies all three of the
 * rule's nexthop selectors together; a route without nexthops
 * (blackhole, ...) never matches a rule that has any.
 */
#ifndef CLS_SYNC_RULES_H
#define CLS_SYNC_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <net/if.h>
#include <linux/types.h>

#include "lib/parse.h"
#include "sync/kroute.h"

enum sync_sel {
	SYNC_SEL_FAMILY = 1 << 0,
	SYNC_SEL_TABLE = 1 << 1,
	SYNC_SEL_PROTOCOL = 1 << 2,
	SYNC_SEL_TYPE = 1 << 3,
	SYNC_SEL_METRIC = 1 << 4,
	SYNC_SEL_TO = 1 << 5,
	SYNC_SEL_VIA = 1 << 6,
	SYNC_SEL_DEV = 1 << 7,
	SYNC_SEL_REALM = 1 << 8,
};
#define SYNC_SEL_NEXTHOP (SYNC_SEL_VIA | SYNC_SEL_DEV | SYNC_SEL_REALM)

/* RT_TABLE_UNSPEC is no table a route lives in: it stands for "all". */
#define SYNC_TABLE_ALL 0

struct sync_rule {
	unsigned int sel; /* enum sync_sel bits given */
	int family;	  /* 0: both */
	__u32 table;	  /* SYNC_TABLE_ALL or a table id */
	__u8 protocol;
	__u8 type;
	__u32 metric_lo, metric_hi;
	__u32 realm;
	struct cls_prefix to, via;
	char dev[IF_NAMESIZE];
	bool ignore;
	char class_tok[CLASS_NAME_MAX + 1]; /* as written */
	__u32 class_idx;		    /* sync_rules_resolve() */
	unsigned int line;		    /* 0: command line */
};

#define SYNC_RULES_MAX	    65535
#define SYNC_RCVBUF_DEFAULT (32U << 20)
/*
 * The periodic resync, in seconds: a net under what the engine knows of
 * the kernel's ways (a dirty resync is followed by one in the calm, see
 * sync/schedule.h).
 */
#define SYNC_RESYNC_DEFAULT 600
#define SYNC_RESYNC_MIN	    10
#define SYNC_RESYNC_MAX	    (7 * 24 * 3600)
#define SYNC_RESYNC_OFF	    UINT32_MAX

struct sync_rules {
	struct sync_rule *rule;
	size_t n, cap;
	__u32 rcvbuf;	   /* 0: not set */
	__u32 resync_s;	   /* 0: not set; SYNC_RESYNC_OFF: never */
	bool uses_dev;	   /* some rule names a device */
	bool uses_nexthop; /* some rule has via, dev or realm */
};

/* Where a message about a bad rule points: "sync.conf:7: ..." */
#define SYNC_ERR_LEN 256

void sync_rules_init(struct sync_rules *rs);
void sync_rules_free(struct sync_rules *rs);

/*
 * Append the rules of a file; on error err holds "FILE:LINE: what" and
 * rs is unchanged in meaning (the caller frees it).  Returns 0 or a
 * negative errno.
 */
int sync_rules_load(struct sync_rules *rs, const char *path, char *err,
		    size_t errlen);
/* The same from an open stream; name: what messages call it. */
int sync_rules_read(struct sync_rules *rs, FILE *f, const char *name, char *err,
		    size_t errlen);
/* The same grammar from argument words; where = "command line". */
int sync_rules_parse_args(struct sync_rules *rs, int argc, char **argv,
			  const char *where, unsigned int line, char *err,
			  size_t errlen);

/* Turn every rule's class word into a class index through resolve(). */
int sync_rules_resolve(struct sync_rules *rs,
		       int (*resolve)(void *ctx, const char *tok, __u32 *idx),
		       void *ctx, const char *where, char *err, size_t errlen);

/* Maps an interface index to its name, for `dev`; NULL if unknown. */
typedef const char *(*sync_ifname_fn)(void *ctx, __u32 ifindex);

/*
 * Index of the first rule matching r, or -1.  The caller has checked
 * kroute_syncable(r).
 */
int sync_rules_match(const struct sync_rules *rs, const struct kroute *r,
		     sync_ifname_fn ifname, void *ctx);

/* Whether a route of this family and table can match any rule. */
bool sync_rules_want(const struct sync_rules *rs, int family, __u32 table);

/*
 * The tables to dump for a family: fills tables[] (at most max) and
 * returns how many; returns -1 when some rule says `table all` (dump
 * everything) and 0 when no rule wants the family.
 */
int sync_rules_tables(const struct sync_rules *rs, int family, __u32 *tables,
		      size_t max);

/* A rule back in the words that make it (for logs and `status`). */
int sync_rule_format(const struct sync_rule *r, char *buf, size_t n);

#endif
