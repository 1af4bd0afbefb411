// SPDX-License-Identifier: GPL-2.0-only
/*
 * parse_u32, parse_u64 and parse_dscp against a reference written another
 * way (the C library's strtoull and a table of DSCP names), and printed
 * values read back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/fuzz/fuzz.h"

/* 0 with *v, -EINVAL for anything but [0x]digits, -ERANGE past max. */
static int ref_unsigned(const char *s, unsigned long long max,
			unsigned long long *v)
{
	const char *digits = s;
	int base = 10;
	char *end;

	if (!strncasecmp(s, "0x", 2)) {
		base = 16;
		digits += 2;
	}
	if (!*digits ||
	    strspn(digits, base == 16 ? "0123456789abcdefABCDEF"
				      : "0123456789") != strlen(digits))
		return -EINVAL;
	errno = 0;
	*v = strtoull(digits, &end, base);
	if (errno == ERANGE || *v > max)
		return -ERANGE;
	return 0;
}

static void check_u64(const char *s)
{
	unsigned long long want = 0;
	__u64 v = 0;
	char text[32];
	int err = parse_u64(s, &v), ref = ref_unsigned(s, ~0ULL, &want);

	FUZZ_CHECK(err == ref, "'%s': parse_u64 %d, want %d", s, err, ref);
	if (err)
		return;
	FUZZ_CHECK(v == want, "'%s': parse_u64 %llu, want %llu", s,
		   (unsigned long long)v, want);
	snprintf(text, sizeof(text), "%#llx", want);
	FUZZ_CHECK(!parse_u64(text, &v) && v == want, "'%s' refused", text);
}

static void check_u32(const char *s)
{
	unsigned long long want = 0;
	__u32 v = 0xdeadbeef;
	int err = parse_u32(s, &v), ref = ref_unsigned(s, 0xffffffffU, &want);

	FUZZ_CHECK(err == ref, "'%s': parse_u32 %d, want %d", s, err, ref);
	if (err)
		FUZZ_CHECK(v == 0xdeadbeef, "'%s': refused, yet wrote %u", s,
			   v);
	else
		FUZZ_CHECK(v == want, "'%s': parse_u32 %u, want %llu", s, v,
			   want);
}

/* -1: not a DSCP. */
static int ref_dscp(const char *s)
{
	static const struct {
		const char *name;
		int dscp;
	} names[] = {
		{"cs0", 0},   {"cs1", 8},   {"cs2", 16},  {"cs3", 24},
		{"cs4", 32},  {"cs5", 40},  {"cs6", 48},  {"cs7", 56},
		{"af11", 10}, {"af12", 12}, {"af13", 14}, {"af21", 18},
		{"af22", 20}, {"af23", 22}, {"af31", 26}, {"af32", 28},
		{"af33", 30}, {"af41", 34}, {"af42", 36}, {"af43", 38},
		{"ef", 46},   {"va", 44},   {"le", 1},
	};
	unsigned long long v;
	size_t i;

	if (*s >= '0' && *s <= '9')
		return ref_unsigned(s, 63, &v) ? -1 : (int)v;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].dscp;
	return -1;
}

static void check_dscp(const char *s)
{
	__u8 d = 0xff;
	int err = parse_dscp(s, &d), want = ref_dscp(s);

	if (want < 0) {
		FUZZ_CHECK(err == -EINVAL, "'%s': parse_dscp %d (%u)", s, err,
			   d);
		return;
	}
	FUZZ_CHECK(!err && d == want, "'%s': parse_dscp %d (%u), want %d", s,
		   err, d, want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);

	check_u64(s);
	check_u32(s);
	check_dscp(s);
	free(s);
	return 0;
}
