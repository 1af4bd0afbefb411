// SPDX-License-Identifier: GPL-2.0-only
/*
 * split_args.  The first byte picks max (0..8), the rest is the line.
 * Words must lie inside the line, in order, without overlap; argv[argc]
 * is NULL when there is room; a line without quotes splits as strtok()
 * splits its text before the first '#'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"

#define MAX_ARGS 8

/* split_args for a line without quotes, written another way. */
static int ref_split(const char *line, char words[][4096], int max)
{
	char *copy = fuzz_strdup(line), *tok, *save;
	int n = 0;

	copy[strcspn(copy, "#")] = '\0';
	for (tok = strtok_r(copy, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max) {
			n = -E2BIG;
			break;
		}
		snprintf(words[n++], sizeof(words[0]), "%s", tok);
	}
	free(copy);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char want[MAX_ARGS][4096];
	char *argv[MAX_ARGS + 1], *line, *orig, *prev_end;
	int max, argc, ref = 0, i;
	size_t len;

	if (size < 1)
		return 0;
	max = data[0] % (MAX_ARGS + 1);
	line = fuzz_cstr(data + 1, size - 1);
	orig = fuzz_strdup(line);
	len = strlen(line);
	argv[max] = (char *)1; /* must stay: past max */
	if (!strpbrk(line, "\"'") && len < sizeof(want[0]))
		ref = ref_split(line, want, max);

	argc = split_args(line, argv, max);
	FUZZ_CHECK(argc == -EINVAL || argc == -E2BIG ||
			   (argc >= 0 && argc <= max),
		   "'%s' (max %d): returned %d", orig, max, argc);
	FUZZ_CHECK(argv[max] == (char *)1, "'%s': wrote argv[%d]", orig, max);
	if (argc == -EINVAL)
		FUZZ_CHECK(strpbrk(orig, "\"'"), "'%s': -EINVAL, no quote",
			   orig);
	if (!strpbrk(orig, "\"'") && len < sizeof(want[0]))
		FUZZ_CHECK(argc == ref, "'%s' (max %d): %d words, want %d",
			   orig, max, argc, ref);
	prev_end = line;
	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		FUZZ_CHECK(argv[i] >= prev_end && argv[i] + n <= line + len,
			   "'%s': word %d outside the line or overlapping",
			   orig, i);
		prev_end = argv[i] + n + 1;
		FUZZ_CHECK(ref <= 0 || !strcmp(argv[i], want[i]),
			   "'%s': word %d is '%s', want '%s'", orig, i, argv[i],
			   want[i]);
	}
	if (argc >= 0 && argc < max)
		FUZZ_CHECK(!argv[argc], "'%s': argv[%d] not NULL", orig, argc);
	free(line);
	free(orig);
	return 0;
}
