// SPDX-License-Identifier: GPL-2.0-only
/*
 * A route file, as a buffer of any bytes: lines of any length, CRLF, NUL
 * bytes inside lines (a line holding one is refused), no newline at the
 * end.  parse_route_buf() is the reader under test, the one `route load`
 * runs (cli/route_file.c).  The harness walks the same buffer line by line
 * on its own, checks each line (route_check.c), and wants from the reader
 * the routes of the lines before the first bad one, in order, and that
 * line's number and reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/route_check.h"

#define NUL_WHY "NUL byte in the line"

struct route {
	struct cls_prefix p;
	char *class_tok;
};

struct outcome {
	struct route *routes;
	size_t n_routes;
	size_t err_line; /* 1-based; 0: every line was good */
	char why[160];
};

/* The reader under test is the CLI's: lib/parse.c's parse_route_buf(). */
static int got_route(void *arg, const struct cls_prefix *p, char *class_tok)
{
	struct outcome *out = arg;

	out->routes[out->n_routes].p = *p;
	out->routes[out->n_routes++].class_tok = fuzz_strdup(class_tok);
	return 0;
}

static void read_routes(const char *buf, size_t len, struct outcome *out)
{
	struct parse_why why;
	size_t lines;
	int rc = parse_route_buf(buf, len, got_route, out, &lines, &why);

	FUZZ_CHECK(rc <= 0 && rc != -ENOMEM, "reader returned %d", rc);
	if (rc < 0) {
		out->err_line = lines;
		snprintf(out->why, sizeof(out->why), "%s", why.text);
	}
}

/* A line ending in CR reads as it does without it. */
static void check_cr(const char *line, int rc, const struct route *r)
{
	size_t n = strlen(line);
	struct cls_prefix p;
	struct parse_why why;
	char *cut, *tok;
	int cut_rc;

	if (!n || line[n - 1] != '\r')
		return;
	cut = fuzz_strdup(line);
	cut[n - 1] = '\0';
	cut_rc = fuzz_route_line(cut, &p, &tok, &why);
	FUZZ_CHECK(cut_rc == rc, "'%s': %d with its CR, %d without", cut, rc,
		   cut_rc);
	if (rc == 1)
		FUZZ_CHECK(!memcmp(&p, &r->p, sizeof(p)) &&
				   !strcmp(tok, r->class_tok),
			   "'%s': another route without its CR", cut);
	free(cut);
}

/* The expected outcome, one line at a time; a NUL byte makes a bad line. */
static void walk_lines(const uint8_t *data, size_t size, struct outcome *want)
{
	size_t off = 0, line_no = 0;

	while (off < size) {
		const uint8_t *nl = memchr(data + off, '\n', size - off);
		size_t n = (nl ? (size_t)(nl - data) : size) - off;
		char *line = fuzz_cstr(data + off, n);
		char *orig = fuzz_strdup(line);
		struct parse_why why = {NUL_WHY};
		struct route r;
		int rc = -EINVAL;

		off += n + (nl != NULL);
		line_no++;
		if (strlen(line) == n)
			rc = fuzz_route_line(line, &r.p, &r.class_tok, &why);
		if (rc < 0) {
			want->err_line = line_no;
			snprintf(want->why, sizeof(want->why), "%s", why.text);
		} else if (rc == 1) {
			r.class_tok = fuzz_strdup(r.class_tok);
			want->routes[want->n_routes++] = r;
		}
		if (strlen(line) == n)
			check_cr(orig, rc, &r);
		free(line);
		free(orig);
		if (rc < 0)
			break;
	}
}

static void free_outcome(struct outcome *o)
{
	size_t i;

	for (i = 0; i < o->n_routes; i++)
		free(o->routes[i].class_tok);
	free(o->routes);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct outcome want = {0}, got = {0};
	size_t i;

	/* At most one route per line, and at most size + 1 lines. */
	want.routes = calloc(size + 1, sizeof(*want.routes));
	got.routes = calloc(size + 1, sizeof(*got.routes));
	if (!want.routes || !got.routes)
		fuzz_fail("out of memory");
	walk_lines(data, size, &want);
	read_routes((const char *)data, size, &got);

	FUZZ_CHECK(got.err_line == want.err_line,
		   "error at line %zu, want line %zu", got.err_line,
		   want.err_line);
	FUZZ_CHECK(!strcmp(got.why, want.why), "reason '%s', want '%s'",
		   got.why, want.why);
	FUZZ_CHECK(got.n_routes == want.n_routes, "%zu routes, want %zu",
		   got.n_routes, want.n_routes);
	for (i = 0; i < got.n_routes; i++)
		FUZZ_CHECK(!memcmp(&got.routes[i].p, &want.routes[i].p,
				   sizeof(got.routes[i].p)) &&
				   !strcmp(got.routes[i].class_tok,
					   want.routes[i].class_tok),
			   "route %zu differs", i);
	free_outcome(&want);
	free_outcome(&got);
	return 0;
}
