// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/parse.h"

#define TC_H_ROOT_VAL 0xFFFFFFFFU

static int fail(struct parse_why *why, const char *reason)
{
	if (why)
		snprintf(why->text, sizeof(why->text), "%s", reason);
	return -EINVAL;
}

static int family_bits(int family)
{
	return family == AF_INET ? 32 : 128;
}

static bool is_dec(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Text that names an address family by whether it contains ':'. */
static int parse_addr_n(const char *s, size_t len, struct cls_prefix *p,
			struct parse_why *why)
{
	char buf[INET6_ADDRSTRLEN];
	bool v6 = memchr(s, ':', len) != NULL;

	if (len == 0)
		return fail(why, "missing address");
	/* inet_pton needs a terminated copy; too long means not an address. */
	if (len >= sizeof(buf))
		return fail(why, v6 ? "invalid IPv6 address"
				    : "invalid IPv4 address");
	memcpy(buf, s, len);
	buf[len] = '\0';

	memset(p, 0, sizeof(*p));
	p->family = v6 ? AF_INET6 : AF_INET;
	if (inet_pton(p->family, buf, p->addr) != 1)
		return fail(why, v6 ? "invalid IPv6 address"
				    : "invalid IPv4 address");
	p->len = family_bits(p->family);
	return 0;
}

int parse_addr(const char *s, struct cls_prefix *p, struct parse_why *why)
{
	if (!s || !*s)
		return fail(why, "empty address");
	if (strchr(s, '/'))
		return fail(why, "expected an address, not a prefix");
	return parse_addr_n(s, strlen(s), p, why);
}

/* Decimal only: "/033" is 33, as ip(8) reads it, not octal 27. */
static int parse_len(const char *s, int max, __u8 *len, struct parse_why *why)
{
	unsigned int v = 0;
	const char *c;

	if (!*s)
		return fail(why, "missing prefix length after '/'");
	for (c = s; *c; c++) {
		if (!is_dec(*c))
			return fail(why, "prefix length must be a number");
		if (v <= 1000)
			v = v * 10 + (*c - '0');
	}
	if (v > (unsigned int)max)
		return fail(why, max == 32 ? "prefix length must be 0-32"
					   : "prefix length must be 0-128");
	*len = v;
	return 0;
}

static void mask_prefix(struct cls_prefix *p)
{
	int bits = family_bits(p->family);
	int i;

	for (i = 0; i < bits / 8; i++) {
		int keep = p->len - i * 8;

		if (keep >= 8)
			continue;
		p->addr[i] &= keep <= 0 ? 0 : (__u8)(0xff << (8 - keep));
	}
}

/* Refuse rather than mask: a typo'd route should not silently widen. */
static int check_host_bits(const struct cls_prefix *p, struct parse_why *why)
{
	struct cls_prefix masked = *p;
	char text[PREFIX_STRLEN];

	mask_prefix(&masked);
	if (!memcmp(masked.addr, p->addr, sizeof(p->addr)))
		return 0;
	if (why) {
		format_prefix(&masked, text, sizeof(text));
		snprintf(why->text, sizeof(why->text),
			 "host bits set (did you mean %s?)", text);
	}
	return -EINVAL;
}

int parse_prefix(const char *s, struct cls_prefix *p, struct parse_why *why)
{
	const char *slash;
	int err;

	if (!s || !*s)
		return fail(why, "empty prefix");
	slash = strchr(s, '/');
	if (!slash)
		return parse_addr_n(s, strlen(s), p, why);

	err = parse_addr_n(s, slash - s, p, why);
	if (err)
		return err;
	err = parse_len(slash + 1, family_bits(p->family), &p->len, why);
	if (err)
		return err;
	return check_host_bits(p, why);
}

int format_prefix(const struct cls_prefix *p, char *buf, size_t n)
{
	char addr[INET6_ADDRSTRLEN];
	int len;

	if (p->family != AF_INET && p->family != AF_INET6)
		return -EINVAL;
	if (!inet_ntop(p->family, p->addr, addr, sizeof(addr)))
		return -EINVAL;
	len = snprintf(buf, n, "%s/%u", addr, p->len);
	if (len < 0)
		return -EINVAL;
	if ((size_t)len >= n)
		return -ENOSPC;
	return len;
}

bool prefix_contains(const struct cls_prefix *a, const struct cls_prefix *b)
{
	int full, rest;

	if (a->family != b->family || a->len > b->len)
		return false;
	full = a->len / 8;
	rest = a->len % 8;
	if (memcmp(a->addr, b->addr, full))
		return false;
	if (!rest)
		return true;
	return !((a->addr[full] ^ b->addr[full]) & (__u8)(0xff << (8 - rest)));
}

/*
 * One hex field of a classid, as strtoul(.., 16) would take it but without
 * its leniency for spaces and signs. An empty field is 0, as in tc.
 */
static int parse_hex_field(const char *s, const char *end, __u32 max, __u32 *v)
{
	__u64 acc = 0;

	if (end - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (s == end)
			return -EINVAL;
	}
	for (; s < end; s++) {
		int d = hex_val(*s);

		if (d < 0)
			return -EINVAL;
		acc = acc * 16 + d;
		if (acc > max)
			return -EINVAL;
	}
	*v = acc;
	return 0;
}

int parse_classid(const char *s, __u32 *classid)
{
	const char *colon, *end;
	__u32 maj, min;

	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "root")) {
		*classid = TC_H_ROOT_VAL;
		return 0;
	}
	if (!strcmp(s, "none")) {
		*classid = 0;
		return 0;
	}
	end = s + strlen(s);
	colon = strchr(s, ':');
	if (!colon)
		return parse_hex_field(s, end, 0xffffffffU, classid);
	if (parse_hex_field(s, colon, 0xffff, &maj) ||
	    parse_hex_field(colon + 1, end, 0xffff, &min))
		return -EINVAL;
	*classid = maj << 16 | min;
	return 0;
}

void format_classid(__u32 classid, char *buf, size_t n)
{
	if (classid == TC_H_ROOT_VAL)
		snprintf(buf, n, "root");
	else if (!classid)
		snprintf(buf, n, "none");
	else
		snprintf(buf, n, "%x:%x", classid >> 16, classid & 0xffff);
}

static int parse_unsigned(const char *s, __u64 max, __u64 *v)
{
	int base = 10;
	__u64 acc = 0;
	const char *c;

	if (!s || !*s)
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return -EINVAL;
	}
	/* Junk anywhere is -EINVAL even when the digits before it overflow. */
	for (c = s; *c; c++) {
		int d = hex_val(*c);

		if (d < 0 || d >= base)
			return -EINVAL;
	}
	for (c = s; *c; c++) {
		__u64 d = hex_val(*c);

		if (acc > (max - d) / base)
			return -ERANGE;
		acc = acc * base + d;
	}
	*v = acc;
	return 0;
}

int parse_u32(const char *s, __u32 *v)
{
	__u64 tmp;
	int err;

	err = parse_unsigned(s, 0xffffffffULL, &tmp);
	if (!err)
		*v = tmp;
	return err;
}

int parse_u64(const char *s, __u64 *v)
{
	return parse_unsigned(s, ~0ULL, v);
}

int cpulist_has(const char *list, unsigned int cpu)
{
	unsigned long lo, hi;
	const char *p = list;
	char *end;
	int found = 0;

	while (*p && *p != '\n') {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			p = end + 1;
			if (*p < '0' || *p > '9')
				return -EINVAL;
			hi = strtoul(p, &end, 10);
			if (hi < lo)
				return -EINVAL;
		}
		found |= cpu >= lo && cpu <= hi;
		p = end;
		if (*p == ',' && p[1] && p[1] != '\n')
			p++;
		else if (*p && *p != '\n')
			return -EINVAL;
	}
	return p == list ? -EINVAL : found;
}

/* CS: RFC 2474, AF: RFC 2597, EF: RFC 3246, VA: RFC 5865, LE: RFC 8622. */
static int dscp_by_name(const char *s, __u8 *dscp)
{
	size_t len = strlen(s);

	if (len == 3 && !strncasecmp(s, "cs", 2) && s[2] >= '0' &&
	    s[2] <= '7') {
		*dscp = (s[2] - '0') << 3;
		return 0;
	}
	if (len == 4 && !strncasecmp(s, "af", 2) && s[2] >= '1' &&
	    s[2] <= '4' && s[3] >= '1' && s[3] <= '3') {
		*dscp = (s[2] - '0') << 3 | (s[3] - '0') << 1;
		return 0;
	}
	if (!strcasecmp(s, "ef")) {
		*dscp = 46;
		return 0;
	}
	if (!strcasecmp(s, "va")) {
		*dscp = 44;
		return 0;
	}
	if (!strcasecmp(s, "le")) {
		*dscp = 1;
		return 0;
	}
	return -EINVAL;
}

int parse_dscp(const char *s, __u8 *dscp)
{
	__u32 v;

	if (!s || !*s)
		return -EINVAL;
	if (is_dec(s[0])) {
		if (parse_u32(s, &v) || v > 63)
			return -EINVAL;
		*dscp = v;
		return 0;
	}
	return dscp_by_name(s, dscp);
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/*
 * Copy one word onto itself with quotes removed; a word may mix plain and
 * quoted parts (name="a b"). Returns the position after the word, or NULL
 * for an unterminated quote. '#' ends the line only outside quotes.
 */
static char *take_word(char *in, char **out_end, bool *comment)
{
	char *out = in;

	while (*in && !is_space(*in)) {
		if (*in == '#') {
			*comment = true;
			break;
		}
		if (*in == '"' || *in == '\'') {
			char *close = strchr(in + 1, *in);
			size_t n;

			if (!close)
				return NULL;
			n = close - in - 1;
			memmove(out, in + 1, n);
			out += n;
			in = close + 1;
			continue;
		}
		*out++ = *in++;
	}
	*out_end = out;
	return in;
}

int split_args(char *line, char **argv, int max)
{
	bool comment = false;
	int argc = 0;
	char *cp = line;

	while (*cp && !comment) {
		char *start, *end;

		while (is_space(*cp))
			cp++;
		if (!*cp || *cp == '#')
			break;
		if (argc >= max)
			return -E2BIG;
		start = cp;
		cp = take_word(cp, &end, &comment);
		if (!cp)
			return -EINVAL;
		/* The word ends at a space or '#' we may overwrite. */
		if (*cp)
			cp++;
		*end = '\0';
		argv[argc++] = start;
	}
	if (argc < max)
		argv[argc] = NULL;
	return argc;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * "a.b.c.d/len CLASS": nearly every line of a big route file, and the
 * general path (split_args, inet_pton) spent more on it than the kernel
 * spends storing the route.  Returns false for anything else (quotes,
 * comments, a zero-padded octet, host bits...), for the general path to
 * accept or to explain.
 */
static bool route_line_v4(char *line, struct cls_prefix *p, char **class_tok)
{
	__u32 addr = 0, v;
	char *s = line, *tok, *end;
	int i, digits;

	while (is_blank(*s))
		s++;
	for (i = 0; i < 4; i++) {
		for (v = 0, digits = 0; is_dec(*s) && digits < 4; digits++)
			v = v * 10 + (*s++ - '0');
		if (!digits || digits > 3 || v > 255 ||
		    (digits > 1 && s[-digits] == '0') ||
		    *s++ != (i < 3 ? '.' : '/'))
			return false;
		addr = addr << 8 | v;
	}
	for (v = 0, digits = 0; is_dec(*s) && digits < 3; digits++)
		v = v * 10 + (*s++ - '0');
	if (!digits || v > 32 || !is_blank(*s))
		return false;
	if (v < 32 && (addr & (0xffffffffU >> v)))
		return false;
	while (is_blank(*s))
		s++;
	tok = s;
	while (*s && !is_space(*s)) {
		if (*s == '"' || *s == '\'' || *s == '#')
			return false;
		s++;
	}
	end = s;
	if (end == tok)
		return false;
	while (is_space(*s))
		s++;
	if (*s)
		return false;
	*end = '\0';
	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	p->len = v;
	p->addr[0] = addr >> 24;
	p->addr[1] = addr >> 16;
	p->addr[2] = addr >> 8;
	p->addr[3] = addr;
	*class_tok = tok;
	return true;
}

int parse_route_line(char *line, struct cls_prefix *p, char **class_tok,
		     struct parse_why *why)
{
	char *argv[3];
	int argc, err;

	if (route_line_v4(line, p, class_tok))
		return 1;

	argc = split_args(line, argv, 3);
	if (argc == -EINVAL)
		return fail(why, "unterminated quote");
	if (argc == 0)
		return 0;
	if (argc != 2)
		return fail(why, "expected PREFIX CLASS");
	err = parse_prefix(argv[0], p, why);
	if (err)
		return err;
	*class_tok = argv[1];
	return 1;
}

int parse_route_buf(const char *buf, size_t len, route_line_fn route, void *arg,
		    size_t *lines, struct parse_why *why)
{
	const char *p = buf, *end = buf + len, *nl;
	char *line = NULL, *tok, *nline;
	size_t cap = 0, n;
	struct cls_prefix pfx;
	int rc = 0;

	*lines = 0;
	why->text[0] = '\0';
	while (p < end && !rc) {
		nl = memchr(p, '\n', end - p);
		n = (nl ? nl : end) - p;
		if (n >= cap) {
			/* One buffer for every line: files have millions. */
			cap = n + 256;
			nline = realloc(line, cap);
			if (!nline) {
				fail(why, "out of memory");
				rc = -ENOMEM;
				break;
			}
			line = nline;
		}
		++*lines;
		if (memchr(p, '\0', n)) {
			rc = fail(why, "NUL byte in the line");
			break;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl != NULL);
		rc = parse_route_line(line, &pfx, &tok, why);
		if (rc < 0 && !why->text[0])
			fail(why, "invalid line");
		else if (rc == 1)
			rc = route(arg, &pfx, tok); /* its error is its own */
	}
	free(line);
	return rc;
}

static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_dec(c) ||
	       c == '_' || c == '.' || c == '-';
}

int check_class_name(const char *s, struct parse_why *why)
{
	const char *c;
	__u32 id;

	if (!s || !*s)
		return fail(why, "class name is empty");
	if (strlen(s) > CLASS_NAME_MAX)
		return fail(why, "class name is longer than 31 characters");
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      s[0] == '_'))
		return fail(why, "class name must start with a letter or '_'");
	for (c = s; *c; c++)
		if (!is_name_char(*c))
			return fail(why, "class name may contain only letters, "
					 "digits, '_', '.' and '-'");
	/* Otherwise "class set ff" would be ambiguous. */
	if (!parse_classid(s, &id))
		return fail(why, "class name reads as a class id (hex)");
	return 0;
}
