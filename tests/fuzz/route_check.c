// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/route_check.h"

/* What parse_route_line answers without its IPv4 fast path. */
static int general_path(char *line, struct cls_prefix *p, char **class_tok,
			struct parse_why *why)
{
	char *argv[3];
	int argc, err;

	argc = split_args(line, argv, 3);
	if (argc == -EINVAL) {
		snprintf(why->text, sizeof(why->text), "unterminated quote");
		return -EINVAL;
	}
	if (argc == 0)
		return 0;
	if (argc != 2) {
		snprintf(why->text, sizeof(why->text), "expected PREFIX CLASS");
		return -EINVAL;
	}
	err = parse_prefix(argv[0], p, why);
	if (err)
		return err;
	*class_tok = argv[1];
	return 1;
}

int fuzz_route_line(char *line, struct cls_prefix *p, char **class_tok,
		    struct parse_why *why)
{
	char *orig = fuzz_strdup(line), *copy = fuzz_strdup(line);
	char *ref_tok = NULL;
	struct cls_prefix ref_p;
	struct parse_why ref_why = {""};
	size_t len = strlen(line);
	int rc, ref;

	*class_tok = NULL;
	why->text[0] = '\0';
	rc = parse_route_line(line, p, class_tok, why);
	ref = general_path(copy, &ref_p, &ref_tok, &ref_why);

	FUZZ_CHECK(rc == ref, "'%s': returned %d, the general path %d", orig,
		   rc, ref);
	if (rc < 0) {
		fuzz_check_why(orig, rc, why->text);
		FUZZ_CHECK(!strcmp(why->text, ref_why.text),
			   "'%s': reason '%s', the general path's '%s'", orig,
			   why->text, ref_why.text);
	} else if (rc == 1) {
		fuzz_check_prefix(orig, p);
		FUZZ_CHECK(!memcmp(p, &ref_p, sizeof(ref_p)),
			   "'%s': a prefix the general path reads otherwise",
			   orig);
		FUZZ_CHECK(*class_tok >= line &&
				   *class_tok + strlen(*class_tok) <=
					   line + len,
			   "'%s': class token outside the line", orig);
		FUZZ_CHECK(!strcmp(*class_tok, ref_tok),
			   "'%s': class '%s', the general path's '%s'", orig,
			   *class_tok, ref_tok);
	} else {
		FUZZ_CHECK(rc == 0, "'%s': returned %d", orig, rc);
	}
	free(orig);
	free(copy);
	return rc;
}
