// SPDX-License-Identifier: GPL-2.0-only
/*
 * parse_prefix, parse_addr, format_prefix, prefix_contains.  The input is
 * one or two strings, A NUL B: A is parsed both ways and checked against
 * an independent reading of ip(8)'s syntax; if A and B are both prefixes,
 * prefix_contains(A, B) is checked bit by bit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

/* "LEN": decimal digits only, any number of them, value <= max. */
static bool ref_len(const char *s, int max, unsigned int *len)
{
	unsigned long v;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	s += strspn(s, "0"); /* "/033" is 33 */
	if (strlen(s) > 3)
		return false;
	v = strtoul(s, NULL, 10);
	*len = v;
	return v <= (unsigned long)max;
}

/* Whether ip(8) would take s as a prefix, with host bits clear. */
static bool ref_accepts(const char *s)
{
	char addr[64] = "";
	const char *slash = strchr(s, '/');
	size_t alen = slash ? (size_t)(slash - s) : strlen(s);
	bool v6 = memchr(s, ':', alen) != NULL;
	unsigned int len = v6 ? 128 : 32, i;
	__u8 bytes[16];

	if (alen >= sizeof(addr))
		return false;
	memcpy(addr, s, alen);
	addr[alen] = '\0';
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, bytes) != 1)
		return false;
	if (slash && !ref_len(slash + 1, v6 ? 128 : 32, &len))
		return false;
	for (i = len; i < (v6 ? 128U : 32U); i++)
		if (bytes[i / 8] & (0x80 >> (i % 8)))
			return false;
	return true;
}

static bool ref_contains(const struct cls_prefix *a, const struct cls_prefix *b)
{
	int i;

	if (a->family != b->family || a->len > b->len)
		return false;
	for (i = 0; i < a->len; i++)
		if ((a->addr[i / 8] ^ b->addr[i / 8]) & (0x80 >> (i % 8)))
			return false;
	return true;
}

/* The suggestion in "host bits set (did you mean X?)" must be a prefix. */
static void check_suggestion(const char *in, const char *why)
{
	static const char lead[] = "host bits set (did you mean ";
	struct cls_prefix p;
	char text[PREFIX_STRLEN];
	size_t n;

	if (strncmp(why, lead, strlen(lead)))
		return;
	n = strlen(why + strlen(lead));
	FUZZ_CHECK(n >= 2 && n - 2 < sizeof(text) &&
			   !strcmp(why + strlen(lead) + n - 2, "?)"),
		   "'%s': malformed reason '%s'", in, why);
	memcpy(text, why + strlen(lead), n - 2);
	text[n - 2] = '\0';
	FUZZ_CHECK(!parse_prefix(text, &p, NULL),
		   "'%s': suggests '%s', which is refused", in, text);
}

/* format_prefix into buffers of exactly the size it needs, and one less. */
static void check_format_space(const struct cls_prefix *p)
{
	char text[PREFIX_STRLEN];
	int n = format_prefix(p, text, sizeof(text));
	char *exact = malloc(n + 1), *short_buf = malloc(n);

	if (!exact || !short_buf)
		fuzz_fail("out of memory");
	FUZZ_CHECK(format_prefix(p, exact, n + 1) == n && !strcmp(exact, text),
		   "'%s': does not fit in %d bytes", text, n + 1);
	FUZZ_CHECK(format_prefix(p, short_buf, n) == -ENOSPC,
		   "'%s': no -ENOSPC in %d bytes", text, n);
	free(exact);
	free(short_buf);
}

/* Returns whether s is a prefix, in *p. */
static bool check_one(const char *s, struct cls_prefix *p)
{
	struct cls_prefix addr;
	struct parse_why why;
	int err, aerr;

	err = parse_prefix(s, p, &why);
	FUZZ_CHECK(!err == ref_accepts(s), "'%s': parse_prefix %s it", s,
		   err ? "refuses" : "accepts");
	if (err) {
		fuzz_check_why(s, err, why.text);
		check_suggestion(s, why.text);
		FUZZ_CHECK(parse_prefix(s, p, NULL) == err,
			   "'%s': another answer without why", s);
	} else {
		fuzz_check_prefix(s, p);
		check_format_space(p);
	}

	why.text[0] = '\0';
	aerr = parse_addr(s, &addr, &why);
	if (strchr(s, '/') || err) {
		/* An address is a prefix without '/', never a refused one. */
		FUZZ_CHECK(aerr, "'%s': parse_addr accepts it", s);
		fuzz_check_why(s, aerr, why.text);
	} else {
		FUZZ_CHECK(!aerr, "'%s': parse_addr refuses it: %s", s,
			   why.text);
		FUZZ_CHECK(!memcmp(&addr, p, sizeof(addr)),
			   "'%s': parse_addr and parse_prefix differ", s);
	}
	return !err;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *a = fuzz_cstr(data, size), *b = NULL;
	size_t alen = strlen(a);
	struct cls_prefix pa, pb;
	bool a_ok;

	a_ok = check_one(a, &pa);
	if (alen < size) {
		b = fuzz_cstr(data + alen + 1, size - alen - 1);
		if (check_one(b, &pb) && a_ok)
			FUZZ_CHECK(prefix_contains(&pa, &pb) ==
					   ref_contains(&pa, &pb),
				   "'%s' contains '%s': %d", a, b,
				   prefix_contains(&pa, &pb));
	}
	free(a);
	free(b);
	return 0;
}
