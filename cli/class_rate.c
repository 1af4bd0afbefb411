// SPDX-License-Identifier: GPL-2.0-only
/*
 * A class's rate on the command line: police RATE [ burst SIZE ]
 * [ over { drop | dscp DSCP | mark MARK } ]..., pace RATE [ burst SIZE ]
 * [ horizon TIME ] [ ce TIME ], and "police none" / "pace none"; as
 * `class list` prints it and as JSON.  Units are tc's (lib/units.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/class_rate.h"
#include "lib/tctree.h"
#include "lib/units.h"
#include "maps/rate.h"

/*
 * A policer's bucket: 200 ms at the rate (at least a GSO packet).  TCP
 * through a policer needs a bucket about as long as its retransmission
 * timeout (200 ms at least): 4 iperf3 flows at 100mbit got 5 % of the
 * rate with 10 ms, 43 % with 40 ms, 101 % with 160 ms (netns, veth).
 */
#define POLICE_BURST_MS	 200
#define POLICE_BURST_MIN (64 * 1024)
/*
 * Pacing: tens of ms of delay at most (fq's own horizon is 10 s), and
 * 10 ms of credit (at least two frames), so that a sender that pauses
 * (descheduled) gets the time back: without it a qemu guest's senders
 * got 3 % below the rate.
 */
#define PACE_BURST_MS	 10
#define PACE_BURST_MIN	 3028
#define PACE_HORIZON_NS	 (50ULL * 1000 * 1000)
#define PACE_HORIZON_MAX 0xffffffffULL /* 4.29 s: a 32-bit field */

static int bad(struct cli *c, const char *what, const char *v,
	       const struct parse_why *why)
{
	cli_err(c, "invalid %s \"%s\"%s%s", what, v ? v : "",
		why && why->text[0] ? ": " : "", why ? why->text : "");
	return -EINVAL;
}

static int police_over(struct cli *c, const char *w, const char *v,
		       struct cls_class_entry *e)
{
	if (!strcmp(w, "drop")) {
		e->cls.flags &= ~(CLS_F_OVER_DSCP | CLS_F_OVER_MARK);
		e->cls.over_dscp = 0;
		e->cls.over_mark = 0;
		return 1;
	}
	if (strcmp(w, "dscp") && strcmp(w, "mark")) {
		cli_err(c,
			"over takes drop, dscp DSCP or mark MARK, not \"%s\"",
			w);
		return -EINVAL;
	}
	if (!v) {
		cli_err(c, "\"over %s\" needs a value", w);
		return -EINVAL;
	}
	if (!strcmp(w, "dscp")) {
		if (parse_dscp(v, &e->cls.over_dscp))
			return bad(c, "over dscp", v, NULL);
		e->cls.flags |= CLS_F_OVER_DSCP;
	} else {
		if (parse_u32(v, &e->cls.over_mark))
			return bad(c, "over mark", v, NULL);
		e->cls.flags |= CLS_F_OVER_MARK;
	}
	return 2;
}

static void rate_off(struct cls_class_entry *e, __u32 flags)
{
	e->cls.flags &= ~flags;
	if (e->cls.flags & CLS_F_RATED)
		return;
	memset(&e->cls.rate, 0, sizeof(e->cls.rate));
	e->meta.rate_bps = 0;
}

int class_rate_parse(struct cli *c, int argc, char **argv,
		     struct cls_class_entry *e)
{
	bool pace = !strcmp(argv[0], "pace");
	__u64 bps, horizon = PACE_HORIZON_NS, ce = 0;
	bool burst_given = false;
	struct parse_why why;
	__u32 burst = 0;
	int i, n;

	if (!pace && strcmp(argv[0], "police"))
		return 0;
	if (argc < 2) {
		cli_err(c, "\"%s\" needs a rate (or none)", argv[0]);
		return -EINVAL;
	}
	if (!strcmp(argv[1], "none")) {
		rate_off(e, pace ? CLS_F_PACE
				 : CLS_F_POLICE | CLS_F_OVER_DSCP |
					    CLS_F_OVER_MARK);
		if (!pace) {
			e->cls.over_dscp = 0;
			e->cls.over_mark = 0;
		}
		return 2;
	}
	if (parse_rate(argv[1], &bps, &why))
		return bad(c, "rate", argv[1], &why);
	if (e->cls.flags & (pace ? CLS_F_POLICE : CLS_F_PACE)) {
		cli_err(c,
			"a class is policed or paced, not both (\"%s none\" "
			"first)",
			pace ? "police" : "pace");
		return -EINVAL;
	}
	if (!pace)
		police_over(c, "drop", NULL, e);
	for (i = 2; i < argc; i += n) {
		const char *w = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		__u64 t;

		n = 2;
		if (!strcmp(w, "burst") && v) {
			if (parse_size(v, &burst, &why))
				return bad(c, "burst", v, &why);
			burst_given = true;
		} else if (!pace && !strcmp(w, "over") && v) {
			n = police_over(c, v, i + 2 < argc ? argv[i + 2] : NULL,
					e);
			if (n < 0)
				return n;
			n++;
		} else if (pace &&
			   (!strcmp(w, "horizon") || !strcmp(w, "ce")) && v) {
			if (parse_time(v, &t, &why))
				return bad(c, w, v, &why);
			if (t > PACE_HORIZON_MAX || (!t && *w == 'h')) {
				cli_err(c, "%s must be 1ns to 4s, not \"%s\"",
					w, v);
				return -ERANGE;
			}
			*(*w == 'h' ? &horizon : &ce) = t;
		} else if (!strcmp(w, "burst") || !strcmp(w, "over") ||
			   !strcmp(w, "horizon") || !strcmp(w, "ce")) {
			if (!v) {
				cli_err(c, "\"%s\" needs a value", w);
				return -EINVAL;
			}
			cli_err(c, "\"%s\" is not a setting of %s", w, argv[0]);
			return -EINVAL;
		} else {
			break; /* the next setting of the class */
		}
	}
	if (pace && !tct_kernel_has("fq")) {
		cli_err(c, "pace needs the fq qdisc, which this kernel does "
			   "not have (CONFIG_NET_SCH_FQ)");
		return -EOPNOTSUPP;
	}
	if (!burst_given) {
		__u64 b = bps * (pace ? PACE_BURST_MS : POLICE_BURST_MS) / 1000;
		__u64 least = pace ? PACE_BURST_MIN : POLICE_BURST_MIN;

		burst = b < least ? least : b > 0xffffffffULL ? 0xffffffffU : b;
	}
	if (cls_rate_set(&e->cls.rate, bps, burst, pace ? horizon : 0,
			 pace ? ce : 0))
		return bad(c, "rate", argv[1], NULL);
	e->meta.rate_bps = bps;
	e->cls.flags |= pace ? CLS_F_PACE : CLS_F_POLICE;
	return i;
}

void class_rate_text(const struct cls_class_entry *e, char *buf, size_t n)
{
	char r[UNITS_STRLEN], b[UNITS_STRLEN], h[UNITS_STRLEN];
	const struct cls_class *k = &e->cls;
	size_t len;

	buf[0] = '\0';
	if (!(k->flags & CLS_F_RATED))
		return;
	format_rate(e->meta.rate_bps, r, sizeof(r));
	format_size(k->rate.burst, b, sizeof(b));
	if (k->flags & CLS_F_PACE) {
		format_time(k->rate.horizon_ns, h, sizeof(h));
		len = snprintf(buf, n, " pace %s burst %s horizon %s", r, b, h);
		if (k->rate.ce_ns && len < n) {
			format_time(k->rate.ce_ns, h, sizeof(h));
			snprintf(buf + len, n - len, " ce %s", h);
		}
		return;
	}
	len = snprintf(buf, n, " police %s burst %s", r, b);
	if (len < n && (k->flags & CLS_F_OVER_DSCP))
		len += snprintf(buf + len, n - len, " over dscp %u",
				k->over_dscp);
	if (len < n && (k->flags & CLS_F_OVER_MARK))
		snprintf(buf + len, n - len, " over mark 0x%x", k->over_mark);
}

void class_rate_json(struct json_writer *jw, const struct cls_class_entry *e)
{
	const struct cls_class *k = &e->cls;

	jw_name(jw, "police");
	if (k->flags & CLS_F_POLICE) {
		jw_start_object(jw);
		jw_uint_field(jw, "rate_bytes_per_sec", e->meta.rate_bps);
		jw_uint_field(jw, "burst_bytes", k->rate.burst);
		jw_name(jw, "over_dscp");
		if (k->flags & CLS_F_OVER_DSCP)
			jw_uint(jw, k->over_dscp);
		else
			jw_null(jw);
		jw_name(jw, "over_mark");
		if (k->flags & CLS_F_OVER_MARK)
			jw_uint(jw, k->over_mark);
		else
			jw_null(jw);
		jw_end_object(jw);
	} else {
		jw_null(jw);
	}
	jw_name(jw, "pace");
	if (k->flags & CLS_F_PACE) {
		jw_start_object(jw);
		jw_uint_field(jw, "rate_bytes_per_sec", e->meta.rate_bps);
		jw_uint_field(jw, "burst_bytes", k->rate.burst);
		jw_uint_field(jw, "horizon_ns", k->rate.horizon_ns);
		jw_uint_field(jw, "ce_ns", k->rate.ce_ns);
		jw_end_object(jw);
	} else {
		jw_null(jw);
	}
}
