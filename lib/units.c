// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lib/units.h"

struct unit {
	const char *name;
	/* value = number * mul / div */
	__u64 mul;
	__u64 div;
};

static const struct unit rate_units[] = {
	{"", 1, 8},
	{"bit", 1, 8},
	{"kbit", 1000, 8},
	{"mbit", 1000000, 8},
	{"gbit", 1000000000, 8},
	{"tbit", 1000000000000ULL, 8},
	{"kibit", 1ULL << 10, 8},
	{"mibit", 1ULL << 20, 8},
	{"gibit", 1ULL << 30, 8},
	{"tibit", 1ULL << 40, 8},
	{"bps", 1, 1},
	{"kbps", 1000, 1},
	{"mbps", 1000000, 1},
	{"gbps", 1000000000, 1},
	{"tbps", 1000000000000ULL, 1},
	{"kibps", 1ULL << 10, 1},
	{"mibps", 1ULL << 20, 1},
	{"gibps", 1ULL << 30, 1},
	{"tibps", 1ULL << 40, 1},
	{NULL, 0, 0},
};

static const struct unit size_units[] = {
	{"", 1, 1},
	{"b", 1, 1},
	{"k", 1ULL << 10, 1},
	{"kb", 1ULL << 10, 1},
	{"m", 1ULL << 20, 1},
	{"mb", 1ULL << 20, 1},
	{"g", 1ULL << 30, 1},
	{"gb", 1ULL << 30, 1},
	{"kbit", 1ULL << 10, 8},
	{"mbit", 1ULL << 20, 8},
	{"gbit", 1ULL << 30, 8},
	{NULL, 0, 0},
};

static const struct unit time_units[] = {
	{"", 1000, 1},		 {"s", 1000000000, 1}, {"sec", 1000000000, 1},
	{"secs", 1000000000, 1}, {"ms", 1000000, 1},   {"msec", 1000000, 1},
	{"msecs", 1000000, 1},	 {"us", 1000, 1},      {"usec", 1000, 1},
	{"usecs", 1000, 1},	 {"ns", 1, 1},	       {"nsec", 1, 1},
	{"nsecs", 1, 1},	 {NULL, 0, 0},
};

static int fail(struct parse_why *why, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parse_why *why, int err, const char *fmt, ...)
{
	va_list ap;

	if (why) {
		va_start(ap, fmt);
		vsnprintf(why->text, sizeof(why->text), fmt, ap);
		va_end(ap);
	}
	return err;
}

/*
 * "DIGITS[.DIGITS]UNIT" -> number * unit, rounded down, exactly (no
 * floating point): at most 9 fraction digits and 19 integer digits.
 */
static int parse_units(const char *s, const struct unit *units, __u64 max,
		       __u64 *out, const char *what, struct parse_why *why)
{
	unsigned __int128 whole = 0, frac = 0, scale = 1, v;
	const char *c = s;
	int digits = 0;
	size_t i;

	if (!s || !*s)
		return fail(why, -EINVAL, "missing %s", what);
	for (; *c >= '0' && *c <= '9'; c++, digits++)
		if (digits < 20)
			whole = whole * 10 + (*c - '0');
	if (*c == '.') {
		for (c++; *c >= '0' && *c <= '9'; c++, digits++)
			if (scale < 1000000000) {
				frac = frac * 10 + (*c - '0');
				scale *= 10;
			}
	}
	if (!digits)
		return fail(why, -EINVAL, "%s needs a number first", what);
	if (digits > 19 + 9 || whole > ~0ULL)
		return fail(why, -ERANGE, "%s too large", what);
	for (i = 0; units[i].name; i++)
		if (!strcasecmp(c, units[i].name))
			break;
	if (!units[i].name)
		return fail(why, -EINVAL, "unknown unit \"%s\"", c);
	v = (whole * scale + frac) * units[i].mul / (scale * units[i].div);
	if (v > max)
		return fail(why, -ERANGE, "%s too large", what);
	*out = (__u64)v;
	return 0;
}

int parse_rate(const char *s, __u64 *bytes_per_sec, struct parse_why *why)
{
	__u64 v;
	int err;

	err = parse_units(s, rate_units, RATE_MAX_BPS, &v, "rate", why);
	if (err)
		return err;
	if (!v)
		return fail(why, -ERANGE, "rate below 8bit");
	*bytes_per_sec = v;
	return 0;
}

int parse_size(const char *s, __u32 *bytes, struct parse_why *why)
{
	__u64 v;
	int err;

	err = parse_units(s, size_units, 0xffffffffULL, &v, "size", why);
	if (!err)
		*bytes = v;
	return err;
}

int parse_time(const char *s, __u64 *ns, struct parse_why *why)
{
	return parse_units(s, time_units, ~0ULL, ns, "time", why);
}

/* The first of units (largest first) that divides v exactly, else the last. */
static void format_units(__u64 v, const struct unit *units, size_t n_units,
			 char *buf, size_t n)
{
	size_t i = n_units - 1;

	if (v) {
		for (i = 0; i + 1 < n_units; i++)
			if (v % units[i].mul == 0)
				break;
	}
	snprintf(buf, n, "%llu%s", (unsigned long long)(v / units[i].mul),
		 units[i].name);
}

void format_rate(__u64 bytes_per_sec, char *buf, size_t n)
{
	static const struct unit bits[] = {
		{"tbit", 1000000000000ULL, 1},
		{"gbit", 1000000000, 1},
		{"mbit", 1000000, 1},
		{"kbit", 1000, 1},
		{"bit", 1, 1},
	};

	/* Every rate is a whole number of bytes, hence of bits. */
	format_units(bytes_per_sec * 8, bits, sizeof(bits) / sizeof(bits[0]),
		     buf, n);
}

void format_size(__u32 bytes, char *buf, size_t n)
{
	static const struct unit sizes[] = {
		{"gb", 1ULL << 30, 1},
		{"mb", 1ULL << 20, 1},
		{"kb", 1ULL << 10, 1},
		{"b", 1, 1},
	};

	format_units(bytes, sizes, sizeof(sizes) / sizeof(sizes[0]), buf, n);
}

void format_time(__u64 ns, char *buf, size_t n)
{
	static const struct unit times[] = {
		{"s", 1000000000, 1},
		{"ms", 1000000, 1},
		{"us", 1000, 1},
		{"ns", 1, 1},
	};

	format_units(ns, times, sizeof(times) / sizeof(times[0]), buf, n);
}
