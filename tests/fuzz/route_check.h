/* SPDX-License-Identifier: GPL-2.0-only */
/* Checks on route file lines, shared by the line and the file harnesses. */
#ifndef CLS_FUZZ_ROUTE_CHECK_H
#define CLS_FUZZ_ROUTE_CHECK_H

#include "lib/parse.h"

/*
 * parse_route_line(line) with every property checked; line is a heap
 * string of exactly its length (fuzz_cstr).  Returns what the parser
 * returned, with *p and *class_tok (into line) when that is 1, and why
 * when it is negative.
 */
int fuzz_route_line(char *line, struct cls_prefix *p, char **class_tok,
		    struct parse_why *why);

#endif /* CLS_FUZZ_ROUTE_CHECK_H */
