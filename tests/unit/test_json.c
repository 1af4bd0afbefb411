// SPDX-License-Identifier: GPL-2.0-only
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lib/json.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct capture {
	FILE *f;
	char *buf;
	size_t len;
	struct json_writer *jw;
};

static struct json_writer *open_capture(struct capture *c, bool pretty)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	c->jw = jw_new(c->f, pretty);
	assert_non_null(c->jw);
	return c->jw;
}

/* Destroys the writer, checks what it wrote, frees everything. */
static void expect_output(struct capture *c, const char *want)
{
	jw_destroy(&c->jw);
	assert_null(c->jw);
	assert_int_equal(fclose(c->f), 0);
	assert_string_equal(c->buf, want);
	free(c->buf);
}

static void test_compact_object(void **state)
{
	struct capture c;
	struct json_writer *jw = open_capture(&c, false);

	(void)state;
	jw_start_object(jw);
	jw_uint_field(jw, "a", 1);
	jw_name(jw, "b");
	jw_start_array(jw);
	jw_uint(jw, 1);
	jw_uint(jw, 2);
	jw_end_array(jw);
	jw_end_object(jw);
	expect_output(&c, "{\"a\":1,\"b\":[1,2]}\n");
}

static void test_scalars(void **state)
{
	struct capture c;
	struct json_writer *jw = open_capture(&c, false);

	(void)state;
	jw_start_object(jw);
	jw_string_field(jw, "s", "x");
	jw_uint_field(jw, "u", UINT64_MAX);
	jw_int_field(jw, "i", INT64_MIN);
	jw_int_field(jw, "p", 42);
	jw_bool_field(jw, "t", true);
	jw_bool_field(jw, "f", false);
	jw_name(jw, "n");
	jw_null(jw);
	jw_string_field(jw, "z", NULL);
	jw_end_object(jw);
	expect_output(&c, "{\"s\":\"x\",\"u\":18446744073709551615,"
			  "\"i\":-9223372036854775808,\"p\":42,"
			  "\"t\":true,\"f\":false,\"n\":null,\"z\":null}\n");
}

static void test_escaping(void **state)
{
	static const struct {
		const char *in;
		const char *want;
	} cases[] = {
		{"", "\"\""},
		{"plain", "\"plain\""},
		{"a\"b", "\"a\\\"b\""},
		{"a\\b", "\"a\\\\b\""},
		{"\n\t\r\b\f", "\"\\n\\t\\r\\b\\f\""},
		{"\x01", "\"\\u0001\""},
		{"x\x1fy", "\"x\\u001fy\""},
		{"\x7f", "\"\x7f\""},
		{"/", "\"/\""},
		{"caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\""},
		{"\"\\\"", "\"\\\"\\\\\\\"\""},
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct capture c;
		struct json_writer *jw = open_capture(&c, false);
		char want[64];

		jw_string(jw, cases[i].in);
		snprintf(want, sizeof(want), "%s\n", cases[i].want);
		expect_output(&c, want);
	}
}

static void test_key_escaping(void **state)
{
	struct capture c;
	struct json_writer *jw = open_capture(&c, false);

	(void)state;
	jw_start_object(jw);
	jw_uint_field(jw, "a\"\n", 1);
	jw_end_object(jw);
	expect_output(&c, "{\"a\\\"\\n\":1}\n");
}

static void test_nested(void **state)
{
	struct capture c;
	struct json_writer *jw = open_capture(&c, false);

	(void)state;
	jw_start_array(jw);
	jw_start_array(jw);
	jw_end_array(jw);
	jw_start_object(jw);
	jw_end_object(jw);
	jw_start_array(jw);
	jw_start_object(jw);
	jw_name(jw, "a");
	jw_start_array(jw);
	jw_end_array(jw);
	jw_name(jw, "b");
	jw_start_object(jw);
	jw_int_field(jw, "c", -1);
	jw_end_object(jw);
	jw_end_object(jw);
	jw_start_object(jw);
	jw_end_object(jw);
	jw_end_array(jw);
	jw_end_array(jw);
	expect_output(&c, "[[],{},[{\"a\":[],\"b\":{\"c\":-1}},{}]]\n");
}

static void test_pretty(void **state)
{
	struct capture c;
	struct json_writer *jw = open_capture(&c, true);

	(void)state;
	jw_start_object(jw);
	jw_string_field(jw, "name", "web");
	jw_name(jw, "ids");
	jw_start_array(jw);
	jw_uint(jw, 1);
	jw_uint(jw, 2);
	jw_end_array(jw);
	jw_name(jw, "empty");
	jw_start_object(jw);
	jw_end_object(jw);
	jw_name(jw, "none");
	jw_start_array(jw);
	jw_end_array(jw);
	jw_name(jw, "list");
	jw_start_array(jw);
	jw_start_object(jw);
	jw_bool_field(jw, "a", true);
	jw_end_object(jw);
	jw_end_array(jw);
	jw_end_object(jw);
	expect_output(&c, "{\n"
			  "  \"name\": \"web\",\n"
			  "  \"ids\": [\n"
			  "    1,\n"
			  "    2\n"
			  "  ],\n"
			  "  \"empty\": {},\n"
			  "  \"none\": [],\n"
			  "  \"list\": [\n"
			  "    {\n"
			  "      \"a\": true\n"
			  "    }\n"
			  "  ]\n"
			  "}\n");
}

static void test_destroy_closes_open_levels(void **state)
{
	struct capture c;
	struct json_writer *jw = open_capture(&c, false);

	(void)state;
	jw_start_object(jw);
	jw_name(jw, "a");
	jw_start_array(jw);
	jw_uint(jw, 1);
	expect_output(&c, "{\"a\":[1]}\n");
}

static void test_empty_writer(void **state)
{
	struct capture c;
	struct json_writer *none = NULL;

	(void)state;
	open_capture(&c, false);
	expect_output(&c, "");
	jw_destroy(&none);
	jw_destroy(NULL);
}

/* Too deep: the subtree becomes null, and the document stays valid. */
static void test_depth_limit(void **state)
{
	const int levels = 40, kept = 32;
	char want[128];
	struct capture c;
	struct json_writer *jw = open_capture(&c, false);
	int i, n = 0;

	(void)state;
	for (i = 0; i < levels; i++)
		jw_start_array(jw);
	jw_uint(jw, 7);
	for (i = 0; i < levels; i++)
		jw_end_array(jw);
	jw_uint(jw, 8);

	for (i = 0; i < kept; i++)
		want[n++] = '[';
	n += sprintf(want + n, "null");
	for (i = 0; i < kept; i++)
		want[n++] = ']';
	sprintf(want + n, "\n8\n");
	expect_output(&c, want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact_object),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_key_escaping),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_destroy_closes_open_levels),
		cmocka_unit_test(test_empty_writer),
		cmocka_unit_test(test_depth_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
