// SPDX-License-Identifier: GPL-2.0-only
/*
 * parse_route_line on one line.  Its IPv4 fast path must answer exactly as
 * the general path (split_args + parse_prefix) does; the properties of
 * each answer are in route_check.c.
 */
#include <stdlib.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/route_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = fuzz_cstr(data, size), *class_tok;
	struct cls_prefix p;
	struct parse_why why;

	fuzz_route_line(line, &p, &class_tok, &why);
	free(line);
	return 0;
}
