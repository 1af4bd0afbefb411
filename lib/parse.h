/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Text <-> value for everything an operator types: prefixes (ip's syntax),
 * class ids (tc's syntax), numbers, DSCP, batch and route file lines.
 * Errors are -EINVAL/-ERANGE/-E2BIG/-ENOSPC; where a caller passes `why`,
 * it gets a one-line reason meant for a person, in its own storage: the
 * parsers keep no state, so threads parse side by side (route load).
 */
#ifndef CLS_PARSE_H
#define CLS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <sys/socket.h> /* AF_INET, AF_INET6 */

struct cls_prefix {
	int family;    /* AF_INET or AF_INET6 */
	__u8 len;      /* 0..32 or 0..128 */
	__u8 addr[16]; /* network order; IPv4 uses addr[0..3], rest zero */
};

#define PREFIX_STRLEN 64

/* Why a parse failed; "" where the parser had nothing to say. */
struct parse_why {
	char text[sizeof("host bits set (did you mean ?)") + PREFIX_STRLEN];
};

/*
 * "10.0.0.0/8", "2001:db8::/32", "192.0.2.1" (/32), "::1" (/128).
 * Like `ip route`, a prefix with host bits set is refused, not masked:
 * why then suggests the masked prefix.
 */
int parse_prefix(const char *s, struct cls_prefix *p, struct parse_why *why);
/* A single address (no '/'): len = 32 or 128. */
int parse_addr(const char *s, struct cls_prefix *p, struct parse_why *why);
/* Canonical text, inet_ntop form. Returns length or -ENOSPC. */
int format_prefix(const struct cls_prefix *p, char *buf, size_t n);
/* a contains b: same family, a->len <= b->len, first a->len bits equal. */
bool prefix_contains(const struct cls_prefix *a, const struct cls_prefix *b);

/*
 * tc class handle as tc(8) parses it: "1:10" -> 0x00010010 (hex fields),
 * "1:" -> 0x00010000, ":10" -> 0x10, "10" -> 0x10, "root" -> 0xFFFFFFFF,
 * "none" -> 0. Returns 0 or -EINVAL.
 */
int parse_classid(const char *s, __u32 *classid);
/* "1:10" form (%x:%x); "root"/"none" for those values. */
void format_classid(__u32 classid, char *buf, size_t n);
#define CLASSID_STRLEN 16

/* Decimal or 0x hex, whole string, no sign; -ERANGE or -EINVAL. */
int parse_u32(const char *s, __u32 *v);
int parse_u64(const char *s, __u64 *v);
/* 0..63 (decimal or 0x), or CS0-CS7, AF11-AF43, EF, VA, LE (any case). */
int parse_dscp(const char *s, __u8 *dscp);
/*
 * Whether cpu is in a kernel CPU list ("0-3,8", as /sys/devices/system/
 * cpu/online reads, a trailing newline allowed): 1 or 0; -EINVAL if the
 * list is not one.
 */
int cpulist_has(const char *list, unsigned int cpu);

/*
 * Split a batch/route file line in place, like iproute2's makeargs():
 * whitespace separates, "double" and 'single' quotes group (a="b c" is one
 * word, a=b c), '#' anywhere outside quotes starts a comment. argv holds max
 * pointers; argv[argc] = NULL when argc < max. Returns argc (0 for
 * blank/comment), -EINVAL for an unterminated quote, -E2BIG for more than
 * max arguments.
 */
int split_args(char *line, char **argv, int max);

/*
 * Route file line "PREFIX CLASS". Returns 1 with *p and *class_tok (points
 * into line) set, 0 for blank/comment, negative errno with *why set.
 * No allocation: called once per line of million-line files.
 */
int parse_route_line(char *line, struct cls_prefix *p, char **class_tok,
		     struct parse_why *why);

/*
 * The route lines of buf[0..len): each cut at '\n' (the last may lack
 * one), refused if it holds a NUL byte, then read by parse_route_line().
 * route(arg, prefix, class_tok) is called for each route in order; a
 * non-zero return stops the walk and is returned, why left "".  A bad
 * line stops it: its negative errno is returned and why says what is
 * wrong.  *lines counts the lines read, the one that stopped the walk
 * included.  -ENOMEM: no memory for a line (why says so).
 */
typedef int (*route_line_fn)(void *arg, const struct cls_prefix *p,
			     char *class_tok);
int parse_route_buf(const char *buf, size_t len, route_line_fn route, void *arg,
		    size_t *lines, struct parse_why *why);

/*
 * Class names: [A-Za-z_][A-Za-z0-9_.-]*, 1..31 chars, and not parseable
 * as a classid (so "ff" is not a name). Returns 0 or -EINVAL with *why.
 */
int check_class_name(const char *s, struct parse_why *why);
#define CLASS_NAME_MAX 31

#endif
