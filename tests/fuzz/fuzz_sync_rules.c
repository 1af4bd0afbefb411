// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sync rules file (sync/rules.c, what `classifier sync config FILE`
 * and SIGHUP read), as any bytes: lines of any length, quotes, comments,
 * NUL bytes, no final newline.  sync_rules_read() must:
 *  - answer 0 or a negative errno, and on an error say where: "NAME:LINE: "
 *    and a reason, the line being the first bad one;
 *  - have read the lines before that one as a file of just those lines
 *    reads: the same rules first, and no error;
 *  - on success, give rules that print (sync_rule_format()) as words
 *    that read back, on the command line's grammar, as the same rule.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/rules.h"
#include "tests/fuzz/fuzz.h"

#define NAME "f.conf"

static int read_rules(const uint8_t *data, size_t size, struct sync_rules *rs,
		      char *err)
{
	/* fmemopen() of zero bytes fails: an empty file is an empty stream */
	FILE *f = fmemopen(size ? (void *)data : (void *)"", size ? size : 1,
			   "r");
	int ret;

	if (!f)
		fuzz_fail("fmemopen: %s", strerror(errno));
	if (!size)
		fgetc(f);
	sync_rules_init(rs);
	err[0] = '\0';
	ret = sync_rules_read(rs, f, NAME, err, SYNC_ERR_LEN);
	fclose(f);
	return ret;
}

/* The rule's meaning: everything but where it came from and its index. */
static void check_same(const struct sync_rule *a, const struct sync_rule *b,
		       const char *text)
{
	struct sync_rule x = *a, y = *b;

	x.line = y.line = 0;
	x.class_idx = y.class_idx = 0;
	/* no table is table main, which the rule prints */
	x.sel |= SYNC_SEL_TABLE;
	y.sel |= SYNC_SEL_TABLE;
	FUZZ_CHECK(!memcmp(&x, &y, sizeof(x)),
		   "'%s' reads back as another rule", text);
}

static void check_round_trip(const struct sync_rule *r)
{
	char text[1024], buf[1024], *argv[64];
	char err[SYNC_ERR_LEN];
	struct sync_rules back;
	int n, argc, ret;

	n = sync_rule_format(r, text, sizeof(text));
	FUZZ_CHECK(n > 0 && (size_t)n == strlen(text),
		   "sync_rule_format: %d for a rule of line %u", n, r->line);
	memcpy(buf, text, n + 1);
	argc = split_args(buf, argv, 64);
	FUZZ_CHECK(argc > 0, "'%s' does not split into words", text);
	sync_rules_init(&back);
	ret = sync_rules_parse_args(&back, argc, argv, "command line", 0, err,
				    sizeof(err));
	FUZZ_CHECK(!ret, "'%s' does not read back: %s", text, err);
	FUZZ_CHECK(back.n == 1, "'%s' reads back as %zu rules", text, back.n);
	check_same(r, &back.rule[0], text);
	sync_rules_free(&back);
}

/* Where an error points: "f.conf:LINE: reason"; returns LINE. */
static unsigned long error_line(const char *err)
{
	char *end;
	unsigned long line;

	FUZZ_CHECK(!strncmp(err, NAME ":", strlen(NAME ":")),
		   "error '%s' does not name the file", err);
	line = strtoul(err + strlen(NAME ":"), &end, 10);
	FUZZ_CHECK(line > 0 && !strncmp(end, ": ", 2) && end[2],
		   "error '%s' names no line and reason", err);
	FUZZ_CHECK(!strchr(err, '\n'), "error '%s' is not one line", err);
	return line;
}

/* Where line n (1-based) starts in data, or size. */
static size_t line_start(const uint8_t *data, size_t size, unsigned long n)
{
	size_t off = 0;

	while (--n && off < size) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);

		off = nl ? (size_t)(nl - data) + 1 : size;
	}
	return off;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sync_rules rs, before;
	char err[SYNC_ERR_LEN], err2[SYNC_ERR_LEN];
	unsigned long line;
	size_t i, cut;
	int ret;

	ret = read_rules(data, size, &rs, err);
	FUZZ_CHECK(ret <= 0 && ret != -ENOMEM && ret != -EIO,
		   "sync_rules_read returned %d", ret);
	if (!ret) {
		FUZZ_CHECK(rs.n <= SYNC_RULES_MAX, "%zu rules", rs.n);
		for (i = 0; i < rs.n; i++)
			check_round_trip(&rs.rule[i]);
		sync_rules_free(&rs);
		return 0;
	}
	line = error_line(err);
	/* the lines before the bad one read as a file of their own */
	cut = line_start(data, size, line);
	FUZZ_CHECK(cut < size, "error at line %lu, past the end", line);
	FUZZ_CHECK(!read_rules(data, cut, &before, err2),
		   "the %lu lines before the error fail alone: %s", line - 1,
		   err2);
	/* the bad line itself may have added a rule before its error */
	FUZZ_CHECK(before.n <= rs.n && rs.n <= before.n + 1,
		   "%zu rules before the error, %zu read alone", rs.n,
		   before.n);
	for (i = 0; i < before.n; i++)
		FUZZ_CHECK(!memcmp(&before.rule[i], &rs.rule[i],
				   sizeof(rs.rule[i])),
			   "rule %zu differs read alone", i);
	sync_rules_free(&before);
	sync_rules_free(&rs);
	return 0;
}
