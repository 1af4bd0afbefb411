// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

void fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

char *fuzz_cstr(const uint8_t *data, size_t size)
{
	size_t n = strnlen((const char *)data, size);
	char *s = malloc(n + 1);

	if (!s)
		fuzz_fail("out of memory");
	memcpy(s, data, n);
	s[n] = '\0';
	return s;
}

char *fuzz_strdup(const char *s)
{
	return fuzz_cstr((const uint8_t *)s, strlen(s));
}

static bool host_bits_clear(const struct cls_prefix *p)
{
	int bits = p->family == AF_INET ? 32 : 128;
	int i;

	for (i = 0; i < 16; i++) {
		int keep = p->len - i * 8;
		__u8 mask;

		if (i * 8 >= bits)
			mask = 0;
		else if (keep >= 8)
			continue;
		else
			mask = keep <= 0 ? 0 : (__u8)(0xff << (8 - keep));
		if (p->addr[i] & ~mask)
			return false;
	}
	return true;
}

void fuzz_check_prefix(const char *in, const struct cls_prefix *p)
{
	char text[PREFIX_STRLEN], again_text[PREFIX_STRLEN];
	struct cls_prefix again;
	struct parse_why why;
	int n;

	FUZZ_CHECK(p->family == AF_INET || p->family == AF_INET6,
		   "'%s': family %d", in, p->family);
	FUZZ_CHECK(p->len <= (p->family == AF_INET ? 32 : 128),
		   "'%s': length %u", in, p->len);
	FUZZ_CHECK(host_bits_clear(p), "'%s': accepted with host bits set", in);
	FUZZ_CHECK(prefix_contains(p, p), "'%s': does not contain itself", in);
	n = format_prefix(p, text, sizeof(text));
	FUZZ_CHECK(n > 0 && (size_t)n == strlen(text),
		   "'%s': format_prefix returned %d", in, n);
	/* What we print must read back as the same prefix, and print alike. */
	FUZZ_CHECK(!parse_prefix(text, &again, &why),
		   "'%s': its canonical form '%s' is refused: %s", in, text,
		   why.text);
	FUZZ_CHECK(!memcmp(p, &again, sizeof(again)),
		   "'%s': '%s' reads back as another prefix", in, text);
	format_prefix(&again, again_text, sizeof(again_text));
	FUZZ_CHECK(!strcmp(text, again_text), "'%s': prints '%s' then '%s'", in,
		   text, again_text);
}

void fuzz_check_why(const char *in, int err, const char *why)
{
	FUZZ_CHECK(err == -EINVAL, "'%s': error %d, want -EINVAL", in, err);
	FUZZ_CHECK(why && *why, "'%s': refused without a reason", in);
	FUZZ_CHECK(!strchr(why, '\n'), "'%s': reason '%s' is not one line", in,
		   why);
}
