// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/rtnetlink.h>

#include "sync/rtnames.h"
#include "sync/rules.h"

#define MAX_WORDS  64
#define RCVBUF_MIN 4096U
#define RCVBUF_MAX (1U << 30)

/* Where a message points and the buffer it goes to. */
struct where {
	const char *name;  /* file, or "command line" */
	unsigned int line; /* 0: no line */
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 2, 3))) static int bad(const struct where *w,
						     const char *fmt, ...)
{
	size_t off = 0;
	va_list ap;
	int n;

	if (!w->errlen)
		return -EINVAL;
	n = w->line ? snprintf(w->err, w->errlen, "%s:%u: ", w->name, w->line)
		    : snprintf(w->err, w->errlen, "%s: ", w->name);
	if (n > 0)
		off = (size_t)n < w->errlen ? (size_t)n : w->errlen - 1;
	va_start(ap, fmt);
	vsnprintf(w->err + off, w->errlen - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

void sync_rules_init(struct sync_rules *rs)
{
	memset(rs, 0, sizeof(*rs));
}

void sync_rules_free(struct sync_rules *rs)
{
	free(rs->rule);
	sync_rules_init(rs);
}

static int push_rule(struct sync_rules *rs, const struct sync_rule *r,
		     const struct where *w)
{
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? rs->cap * 2 : 16;
		struct sync_rule *n;

		if (rs->n >= SYNC_RULES_MAX)
			return bad(w, "more than %d rules", SYNC_RULES_MAX);
		n = realloc(rs->rule, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		rs->rule = n;
		rs->cap = cap;
	}
	rs->rule[rs->n++] = *r;
	if (r->sel & SYNC_SEL_DEV)
		rs->uses_dev = true;
	if (r->sel & SYNC_SEL_NEXTHOP)
		rs->uses_nexthop = true;
	return 0;
}

struct unit {
	char suffix;
	__u64 mul;
};

/* A number with an optional one-letter unit from units (ending with 0). */
static int parse_scaled(const char *s, const struct unit *units, __u64 *v)
{
	char num[24];
	size_t n = strlen(s);
	__u64 mul = 1, x;

	if (!n || n >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, n + 1);
	for (; units->suffix; units++) {
		if (num[n - 1] == units->suffix) {
			mul = units->mul;
			num[n - 1] = '\0';
			break;
		}
	}
	if (parse_u64(num, &x) || x > UINT64_MAX / mul)
		return -EINVAL;
	*v = x * mul;
	return 0;
}

/* "4096", "64k", "32M", "1G" (powers of 1024). */
static int parse_size(const char *s, __u32 *v)
{
	static const struct unit units[] = {
		{'k', 1ULL << 10}, {'K', 1ULL << 10}, {'m', 1ULL << 20},
		{'M', 1ULL << 20}, {'g', 1ULL << 30}, {'G', 1ULL << 30},
		{0, 0},
	};
	__u64 x;

	if (parse_scaled(s, units, &x) || x < RCVBUF_MIN || x > RCVBUF_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

/* "600", "90s", "10m", "2h", or "off": the periodic resync's interval. */
static int parse_interval(const char *s, __u32 *sec)
{
	static const struct unit units[] = {
		{'s', 1}, {'m', 60}, {'h', 3600}, {0, 0},
	};
	__u64 x;

	if (!strcmp(s, "off")) {
		*sec = SYNC_RESYNC_OFF;
		return 0;
	}
	if (parse_scaled(s, units, &x) || x < SYNC_RESYNC_MIN ||
	    x > SYNC_RESYNC_MAX)
		return -EINVAL;
	*sec = x;
	return 0;
}

/* "N" or "N-M" */
static int parse_range(const char *s, __u32 *lo, __u32 *hi)
{
	const char *dash = strchr(s, '-');
	char buf[24];

	if (!dash)
		return parse_u32(s, lo) ? -EINVAL : (*hi = *lo, 0);
	if ((size_t)(dash - s) >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, dash - s);
	buf[dash - s] = '\0';
	if (parse_u32(buf, lo) || parse_u32(dash + 1, hi) || *lo > *hi)
		return -EINVAL;
	return 0;
}

/* "DST" or "SRC/DST", 16 bits each, as RTA_FLOW holds them. */
static int parse_realm(const char *s, __u32 *realm)
{
	const char *slash = strchr(s, '/');
	__u32 src = 0, dst;
	char buf[16];

	if (slash) {
		if ((size_t)(slash - s) >= sizeof(buf))
			return -EINVAL;
		memcpy(buf, s, slash - s);
		buf[slash - s] = '\0';
		if (parse_u32(buf, &src) || src > 0xffff)
			return -EINVAL;
		s = slash + 1;
	}
	if (parse_u32(s, &dst) || dst > 0xffff)
		return -EINVAL;
	*realm = src << 16 | dst;
	return 0;
}

static int parse_family(const char *s, int *family)
{
	if (!strcmp(s, "inet") || !strcmp(s, "ipv4"))
		*family = AF_INET;
	else if (!strcmp(s, "inet6") || !strcmp(s, "ipv6"))
		*family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

/*
 * An interface name the kernel would take (dev_valid_name()): 1 to 15
 * bytes, not "." or "..", no '/', ':' or white space.
 */
static bool ifname_ok(const char *s)
{
	const char *c;

	if (!*s || strlen(s) >= IF_NAMESIZE || !strcmp(s, ".") ||
	    !strcmp(s, ".."))
		return false;
	for (c = s; *c; c++)
		if (*c == '/' || *c == ':' || isspace((unsigned char)*c))
			return false;
	return true;
}

static bool class_word_ok(const char *s)
{
	__u32 classid;

	if (strlen(s) > CLASS_NAME_MAX)
		return false;
	return !parse_classid(s, &classid) || !check_class_name(s, NULL);
}

struct selector {
	const char *word;
	const char *alias;
	enum sync_sel sel;
};

static const struct selector selectors[] = {
	{"family", NULL, SYNC_SEL_FAMILY},
	{"table", NULL, SYNC_SEL_TABLE},
	{"protocol", "proto", SYNC_SEL_PROTOCOL},
	{"type", NULL, SYNC_SEL_TYPE},
	{"metric", "priority", SYNC_SEL_METRIC},
	{"preference", NULL, SYNC_SEL_METRIC},
	{"to", NULL, SYNC_SEL_TO},
	{"via", "gateway", SYNC_SEL_VIA},
	{"dev", "oif", SYNC_SEL_DEV},
	{"realm", "realms", SYNC_SEL_REALM},
};

static const struct selector *find_selector(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(selectors) / sizeof(selectors[0]); i++)
		if (!strcmp(w, selectors[i].word) ||
		    (selectors[i].alias && !strcmp(w, selectors[i].alias)))
			return &selectors[i];
	return NULL;
}

static int parse_selector(struct sync_rule *r, const struct selector *s,
			  const char *word, const char *v,
			  const struct where *w)
{
	struct parse_why why;

	if (r->sel & s->sel)
		return bad(w, "%s given twice in one rule", s->word);
	r->sel |= s->sel;
	switch (s->sel) {
	case SYNC_SEL_FAMILY:
		if (parse_family(v, &r->family))
			return bad(w, "family \"%s\": inet or inet6", v);
		return 0;
	case SYNC_SEL_TABLE:
		if (!strcmp(v, "all")) {
			r->table = SYNC_TABLE_ALL;
			return 0;
		}
		if (rt_table_parse(v, &r->table))
			return bad(w,
				   "table \"%s\": a number 1-4294967295, main, local, default or all",
				   v);
		return 0;
	case SYNC_SEL_PROTOCOL:
		if (rt_proto_parse(v, &r->protocol))
			return bad(w,
				   "protocol \"%s\": a number 0-255 or a name such as bird, bgp, static, kernel",
				   v);
		return 0;
	case SYNC_SEL_TYPE:
		if (rt_type_parse(v, &r->type))
			return bad(w,
				   "type \"%s\": unicast, blackhole, unreachable or prohibit",
				   v);
		if (r->type != RTN_UNICAST && r->type != RTN_BLACKHOLE &&
		    r->type != RTN_UNREACHABLE && r->type != RTN_PROHIBIT)
			return bad(w,
				   "type %s: only unicast, blackhole, unreachable and prohibit routes are synced",
				   v);
		return 0;
	case SYNC_SEL_METRIC:
		if (parse_range(v, &r->metric_lo, &r->metric_hi))
			return bad(w,
				   "%s \"%s\": a number, or a range N-M with N <= M",
				   word, v);
		return 0;
	case SYNC_SEL_TO:
		if (parse_prefix(v, &r->to, &why))
			return bad(w, "to \"%s\": %s", v, why.text);
		return 0;
	case SYNC_SEL_VIA:
		if (parse_prefix(v, &r->via, &why))
			return bad(w, "%s \"%s\": %s", word, v, why.text);
		return 0;
	case SYNC_SEL_DEV:
		if (!ifname_ok(v))
			return bad(w, "%s \"%s\": not an interface name", word,
				   v);
		strcpy(r->dev, v);
		return 0;
	case SYNC_SEL_REALM:
		if (parse_realm(v, &r->realm))
			return bad(w, "%s \"%s\": a realm 0-65535, or SRC/DST",
				   word, v);
		return 0;
	}
	return bad(w, "internal error: selector %s", word);
}

/* The family a rule's selectors imply, or a conflict between them. */
static int settle_family(struct sync_rule *r, const struct where *w)
{
	if ((r->sel & SYNC_SEL_TO) && r->family && r->family != r->to.family)
		return bad(w, "to %s prefix in a family %s rule",
			   r->to.family == AF_INET ? "an IPv4" : "an IPv6",
			   r->family == AF_INET ? "inet" : "inet6");
	if (r->sel & SYNC_SEL_TO)
		r->family = r->to.family;
	if ((r->sel & SYNC_SEL_REALM) && r->family == AF_INET6)
		return bad(w, "realm: IPv6 routes have no realm (match them by table)");
	if (r->sel & SYNC_SEL_REALM)
		r->family = AF_INET;
	return 0;
}

static int parse_setting(struct sync_rules *rs, const char *word,
			 const char *v, const struct where *w)
{
	if (!strcmp(word, "rcvbuf")) {
		if (parse_size(v, &rs->rcvbuf))
			return bad(w,
				   "rcvbuf \"%s\": a size 4k-1G (suffix k, M or G)",
				   v);
		return 0;
	}
	if (parse_interval(v, &rs->resync_s))
		return bad(w,
			   "resync \"%s\": an interval %us-%uh (suffix s, m or h), or off",
			   v, SYNC_RESYNC_MIN, SYNC_RESYNC_MAX / 3600);
	return 0;
}

static void rule_init(struct sync_rule *r, unsigned int line)
{
	memset(r, 0, sizeof(*r));
	r->table = RT_TABLE_MAIN;
	r->type = RTN_UNICAST;
	r->line = line;
}

/*
 * Words to rules.  one_rule: a file line, which holds one rule or one
 * setting and nothing after it.
 */
static int parse_words(struct sync_rules *rs, int argc, char **argv,
		       bool one_rule, const struct where *w)
{
	struct sync_rule r;
	bool started = false;
	int i, err;

	rule_init(&r, w->line);
	for (i = 0; i < argc; i++) {
		const char *word = argv[i];
		const struct selector *s;

		if (!strcmp(word, "rcvbuf") || !strcmp(word, "resync")) {
			if (started)
				return bad(w, "%s is a setting, not part of a rule",
					   word);
			if (i + 1 >= argc)
				return bad(w, "%s needs a value", word);
			err = parse_setting(rs, word, argv[++i], w);
			if (err)
				return err;
			if (one_rule && i + 1 < argc)
				return bad(w,
					   "\"%s\" after %s: one setting a line",
					   argv[i + 1], word);
			continue;
		}
		if (!strcmp(word, "class") || !strcmp(word, "ignore")) {
			if (word[0] == 'c') {
				if (i + 1 >= argc)
					return bad(w, "class needs a classid or a class name");
				if (!class_word_ok(argv[++i]))
					return bad(
						w,
						"class \"%s\": not a classid (1:10) or a class name",
						argv[i]);
				strcpy(r.class_tok, argv[i]);
			} else {
				r.ignore = true;
			}
			err = settle_family(&r, w);
			if (!err)
				err = push_rule(rs, &r, w);
			if (err)
				return err;
			if (one_rule && i + 1 < argc)
				return bad(w,
					   "\"%s\" after the rule's %s: one rule a line",
					   argv[i + 1], word);
			rule_init(&r, w->line);
			started = false;
			continue;
		}
		s = find_selector(word);
		if (!s)
			return bad(w, "unknown word \"%s\"", word);
		if (i + 1 >= argc)
			return bad(w, "%s needs a value", word);
		err = parse_selector(&r, s, word, argv[++i], w);
		if (err)
			return err;
		started = true;
	}
	if (started)
		return bad(w, "rule has no action: end it with \"class CLASS\" or \"ignore\"");
	return 0;
}

int sync_rules_parse_args(struct sync_rules *rs, int argc, char **argv,
			  const char *where, unsigned int line, char *err,
			  size_t errlen)
{
	struct where w = {where, line, err, errlen};

	return parse_words(rs, argc, argv, false, &w);
}

int sync_rules_read(struct sync_rules *rs, FILE *f, const char *name, char *err,
		    size_t errlen)
{
	struct where w = {name, 0, err, errlen};
	char *line = NULL, *argv[MAX_WORDS];
	size_t cap = 0;
	ssize_t len;
	int ret = 0, argc;

	while ((len = getline(&line, &cap, f)) >= 0) {
		w.line++;
		/* split_args() would end the line there, silently */
		if (memchr(line, '\0', len)) {
			ret = bad(&w, "NUL byte in the line");
			goto out;
		}
		argc = split_args(line, argv, MAX_WORDS);
		if (argc == -E2BIG) {
			ret = bad(&w, "more than %d words", MAX_WORDS);
			goto out;
		}
		if (argc < 0) {
			ret = bad(&w, "unterminated quote");
			goto out;
		}
		ret = parse_words(rs, argc, argv, true, &w);
		if (ret)
			goto out;
	}
	if (ferror(f)) {
		ret = -EIO;
		snprintf(err, errlen, "%s: read error", name);
	}
out:
	free(line);
	return ret;
}

int sync_rules_load(struct sync_rules *rs, const char *path, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "re");
	int ret;

	if (!f) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		return ret;
	}
	ret = sync_rules_read(rs, f, path, err, errlen);
	fclose(f);
	return ret;
}

int sync_rules_resolve(struct sync_rules *rs,
		       int (*resolve)(void *ctx, const char *tok, __u32 *idx),
		       void *ctx, const char *where, char *err, size_t errlen)
{
	size_t i;
	int ret;

	for (i = 0; i < rs->n; i++) {
		struct sync_rule *r = &rs->rule[i];
		/* command-line rules come first, with no line */
		struct where w = {r->line ? where : "command line", r->line,
				  err, errlen};

		if (r->ignore)
			continue;
		ret = resolve(ctx, r->class_tok, &r->class_idx);
		if (ret == -ENOENT)
			return bad(&w,
				   "class \"%s\": no such class (see classifier class list)",
				   r->class_tok);
		if (ret)
			return bad(&w, "class \"%s\": %s", r->class_tok,
				   strerror(-ret));
	}
	return 0;
}

static bool nh_matches(const struct sync_rule *r, const struct kroute_nh *nh,
		       sync_ifname_fn ifname, void *ctx)
{
	if ((r->sel & SYNC_SEL_VIA) &&
	    (!nh->gw.family || !prefix_contains(&r->via, &nh->gw)))
		return false;
	if ((r->sel & SYNC_SEL_REALM) && nh->realm != r->realm)
		return false;
	if (r->sel & SYNC_SEL_DEV) {
		const char *name = nh->oif ? ifname(ctx, nh->oif) : NULL;

		if (!name || strcmp(name, r->dev))
			return false;
	}
	return true;
}

static bool rule_matches(const struct sync_rule *r, const struct kroute *k,
			 sync_ifname_fn ifname, void *ctx)
{
	unsigned int i;

	if ((r->family && r->family != k->dst.family) ||
	    (r->table != SYNC_TABLE_ALL && r->table != k->table) ||
	    r->type != k->type ||
	    ((r->sel & SYNC_SEL_PROTOCOL) && r->protocol != k->protocol) ||
	    ((r->sel & SYNC_SEL_METRIC) &&
	     (k->priority < r->metric_lo || k->priority > r->metric_hi)) ||
	    ((r->sel & SYNC_SEL_TO) && !prefix_contains(&r->to, &k->dst)))
		return false;
	if (!(r->sel & SYNC_SEL_NEXTHOP))
		return true;
	for (i = 0; i < k->nr_nh; i++)
		if (nh_matches(r, &k->nh[i], ifname, ctx))
			return true;
	return false;
}

int sync_rules_match(const struct sync_rules *rs, const struct kroute *r,
		     sync_ifname_fn ifname, void *ctx)
{
	size_t i;

	for (i = 0; i < rs->n; i++)
		if (rule_matches(&rs->rule[i], r, ifname, ctx))
			return i;
	return -1;
}

bool sync_rules_want(const struct sync_rules *rs, int family, __u32 table)
{
	size_t i;

	for (i = 0; i < rs->n; i++) {
		const struct sync_rule *r = &rs->rule[i];

		if ((!r->family || r->family == family) &&
		    (r->table == SYNC_TABLE_ALL || r->table == table))
			return true;
	}
	return false;
}

int sync_rules_tables(const struct sync_rules *rs, int family, __u32 *tables,
		      size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < rs->n; i++) {
		const struct sync_rule *r = &rs->rule[i];

		if (r->family && r->family != family)
			continue;
		if (r->table == SYNC_TABLE_ALL)
			return -1;
		for (j = 0; j < n && tables[j] != r->table; j++)
			;
		if (j < n)
			continue;
		if (n == max)
			return -1;
		tables[n++] = r->table;
	}
	return n;
}

/* Appends to buf at *off, never past n; the result is always terminated. */
__attribute__((format(printf, 4, 5))) static void
put(char *buf, size_t n, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*off >= n)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *off, n - *off, fmt, ap);
	va_end(ap);
	if (k > 0)
		*off += k;
}

/*
 * A word as split_args() reads it back: quoted where it holds what would
 * end or quote it ('#', quotes); '"' itself goes in single quotes.
 */
static void put_word(char *buf, size_t n, size_t *off, const char *w)
{
	const char *c;

	if (!strpbrk(w, "#'\"")) {
		put(buf, n, off, "%s", w);
		return;
	}
	for (c = w; *c;) {
		size_t run = strcspn(c, "\"");

		if (run) {
			put(buf, n, off, "\"%.*s\"", (int)run, c);
			c += run;
		} else {
			put(buf, n, off, "'\"'");
			c++;
		}
	}
}

int sync_rule_format(const struct sync_rule *r, char *buf, size_t n)
{
	char name[RT_NAME_STRLEN], pfx[PREFIX_STRLEN];
	size_t off = 0;

	if (!n)
		return -ENOSPC;
	buf[0] = '\0';
	if (r->sel & SYNC_SEL_FAMILY)
		put(buf, n, &off, "family %s ",
		    r->family == AF_INET ? "inet" : "inet6");
	if (r->table == SYNC_TABLE_ALL)
		put(buf, n, &off, "table all ");
	else
		put(buf, n, &off, "table %s ",
		    rt_table_name(r->table, name, sizeof(name)));
	if (r->sel & SYNC_SEL_PROTOCOL)
		put(buf, n, &off, "protocol %s ",
		    rt_proto_name(r->protocol, name, sizeof(name)));
	if (r->sel & SYNC_SEL_TYPE)
		put(buf, n, &off, "type %s ",
		    rt_type_name(r->type, name, sizeof(name)));
	if ((r->sel & SYNC_SEL_METRIC) && r->metric_lo == r->metric_hi)
		put(buf, n, &off, "metric %u ", r->metric_lo);
	else if (r->sel & SYNC_SEL_METRIC)
		put(buf, n, &off, "metric %u-%u ", r->metric_lo, r->metric_hi);
	if ((r->sel & SYNC_SEL_TO) &&
	    format_prefix(&r->to, pfx, sizeof(pfx)) > 0)
		put(buf, n, &off, "to %s ", pfx);
	if ((r->sel & SYNC_SEL_VIA) &&
	    format_prefix(&r->via, pfx, sizeof(pfx)) > 0)
		put(buf, n, &off, "via %s ", pfx);
	if (r->sel & SYNC_SEL_DEV) {
		put(buf, n, &off, "dev ");
		put_word(buf, n, &off, r->dev);
		put(buf, n, &off, " ");
	}
	if ((r->sel & SYNC_SEL_REALM) && r->realm > 0xffff)
		put(buf, n, &off, "realm %u/%u ", r->realm >> 16,
		    r->realm & 0xffff);
	else if (r->sel & SYNC_SEL_REALM)
		put(buf, n, &off, "realm %u ", r->realm);
	if (r->ignore)
		put(buf, n, &off, "ignore");
	else
		put(buf, n, &off, "class %s", r->class_tok);
	return off < n ? (int)off : -ENOSPC;
}
