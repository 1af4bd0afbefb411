// SPDX-License-Identifier: GPL-2.0-only
/*
 * parse_classid, format_classid and check_class_name.  Every class id
 * printed must read back as itself; a class name must never read as a
 * class id; a refused name says why.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

#define SENTINEL 0xdeadbeefU

static void check_round_trip(const char *in, __u32 id)
{
	char text[CLASSID_STRLEN], again[CLASSID_STRLEN];
	__u32 back = SENTINEL;

	format_classid(id, text, sizeof(text));
	FUZZ_CHECK(!parse_classid(text, &back) && back == id,
		   "'%s': %#x prints as '%s', which reads as %#x", in, id, text,
		   back);
	format_classid(back, again, sizeof(again));
	FUZZ_CHECK(!strcmp(text, again), "'%s': prints '%s' then '%s'", in,
		   text, again);
}

static bool name_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '.' || c == '-');
}

static void check_name(const char *s)
{
	struct parse_why why;
	size_t len = strlen(s), i;
	bool chars_ok = len > 0;
	__u32 id;
	int err;

	for (i = 0; i < len && chars_ok; i++)
		chars_ok = name_char(s[i], i == 0);
	err = check_class_name(s, &why);
	if (err) {
		fuzz_check_why(s, err, why.text);
		/* Refused for a reason that holds. */
		FUZZ_CHECK(!chars_ok || len > CLASS_NAME_MAX ||
				   !parse_classid(s, &id),
			   "'%s': refused: %s", s, why.text);
		return;
	}
	FUZZ_CHECK(chars_ok && len <= CLASS_NAME_MAX,
		   "'%s': accepted as a class name", s);
	FUZZ_CHECK(parse_classid(s, &id), "'%s': a name that reads as %#x", s,
		   id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size);
	__u32 id = SENTINEL, raw;
	int err;

	err = parse_classid(s, &id);
	if (err) {
		FUZZ_CHECK(err == -EINVAL, "'%s': error %d", s, err);
		FUZZ_CHECK(id == SENTINEL, "'%s': refused, yet wrote %#x", s,
			   id);
	} else {
		check_round_trip(s, id);
	}
	check_name(s);

	/* Every 32-bit value, not only those the text reaches. */
	if (size >= sizeof(raw)) {
		memcpy(&raw, data, sizeof(raw));
		check_round_trip("(raw)", raw);
	}
	free(s);
	return 0;
}
