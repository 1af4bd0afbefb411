// SPDX-License-Identifier: GPL-2.0-only
#include <inttypes.h>
#include <stdlib.h>

#include "lib/json.h"

#define JW_MAX_DEPTH 32

struct json_writer {
	FILE *f;
	bool pretty;
	bool after_name; /* a key was written; the value needs no separator */
	bool wrote;	 /* anything at all, so destroy knows to end the line */
	int depth;
	int skipped; /* containers opened past JW_MAX_DEPTH, not written */
	bool first[JW_MAX_DEPTH + 1]; /* nothing yet at this level */
	char close[JW_MAX_DEPTH + 1]; /* '}' or ']' for each open level */
};

struct json_writer *jw_new(FILE *f, bool pretty)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (!jw)
		return NULL;
	jw->f = f;
	jw->pretty = pretty;
	jw->first[0] = true;
	return jw;
}

static void newline_indent(struct json_writer *jw, int depth)
{
	int i;

	putc('\n', jw->f);
	for (i = 0; i < depth; i++)
		fputs("  ", jw->f);
}

/* Separator and layout before a key, or before a value that has no key. */
static void begin_item(struct json_writer *jw)
{
	if (jw->after_name) {
		jw->after_name = false;
		return;
	}
	if (!jw->first[jw->depth])
		putc(jw->depth ? ',' : '\n', jw->f);
	if (jw->pretty && jw->depth)
		newline_indent(jw, jw->depth);
	jw->first[jw->depth] = false;
	jw->wrote = true;
}

static void put_escaped(FILE *f, const char *s)
{
	const unsigned char *c;

	putc('"', f);
	for (c = (const unsigned char *)s; *c; c++) {
		switch (*c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			/* Bytes >= 0x80 are UTF-8 and legal as they are. */
			if (*c < 0x20)
				fprintf(f, "\\u%04x", *c);
			else
				putc(*c, f);
		}
	}
	putc('"', f);
}

/*
 * Past JW_MAX_DEPTH the writer puts null in place of the subtree rather
 * than write JSON that cannot be read back; its contents and ends are
 * dropped.
 */
static void start(struct json_writer *jw, char open, char close)
{
	if (jw->skipped) {
		jw->skipped++;
		return;
	}
	if (jw->depth == JW_MAX_DEPTH) {
		begin_item(jw);
		fputs("null", jw->f);
		jw->skipped = 1;
		return;
	}
	begin_item(jw);
	putc(open, jw->f);
	jw->depth++;
	jw->first[jw->depth] = true;
	jw->close[jw->depth] = close;
}

static void end(struct json_writer *jw)
{
	if (jw->skipped) {
		jw->skipped--;
		return;
	}
	if (!jw->depth)
		return;
	if (jw->pretty && !jw->first[jw->depth])
		newline_indent(jw, jw->depth - 1);
	putc(jw->close[jw->depth], jw->f);
	jw->depth--;
}

void jw_start_object(struct json_writer *jw)
{
	start(jw, '{', '}');
}

void jw_end_object(struct json_writer *jw)
{
	end(jw);
}

void jw_start_array(struct json_writer *jw)
{
	start(jw, '[', ']');
}

void jw_end_array(struct json_writer *jw)
{
	end(jw);
}

void jw_destroy(struct json_writer **jw)
{
	if (!jw || !*jw)
		return;
	(*jw)->skipped = 0;
	/* An error path may bail out mid-document; still leave valid JSON. */
	while ((*jw)->depth)
		end(*jw);
	if ((*jw)->wrote)
		putc('\n', (*jw)->f);
	fflush((*jw)->f);
	free(*jw);
	*jw = NULL;
}

void jw_name(struct json_writer *jw, const char *name)
{
	if (jw->skipped)
		return;
	begin_item(jw);
	put_escaped(jw->f, name);
	fputs(jw->pretty ? ": " : ":", jw->f);
	jw->after_name = true;
}

/* Scalars share one path for skipping and separators. */
static bool begin_value(struct json_writer *jw)
{
	if (jw->skipped)
		return false;
	begin_item(jw);
	return true;
}

void jw_string(struct json_writer *jw, const char *s)
{
	if (!begin_value(jw))
		return;
	if (s)
		put_escaped(jw->f, s);
	else
		fputs("null", jw->f);
}

void jw_uint(struct json_writer *jw, __u64 v)
{
	if (begin_value(jw))
		fprintf(jw->f, "%" PRIu64, (uint64_t)v);
}

void jw_int(struct json_writer *jw, __s64 v)
{
	if (begin_value(jw))
		fprintf(jw->f, "%" PRId64, (int64_t)v);
}

void jw_bool(struct json_writer *jw, bool v)
{
	if (begin_value(jw))
		fputs(v ? "true" : "false", jw->f);
}

void jw_null(struct json_writer *jw)
{
	if (begin_value(jw))
		fputs("null", jw->f);
}

void jw_string_field(struct json_writer *jw, const char *name, const char *s)
{
	jw_name(jw, name);
	jw_string(jw, s);
}

void jw_uint_field(struct json_writer *jw, const char *name, __u64 v)
{
	jw_name(jw, name);
	jw_uint(jw, v);
}

void jw_int_field(struct json_writer *jw, const char *name, __s64 v)
{
	jw_name(jw, name);
	jw_int(jw, v);
}

void jw_bool_field(struct json_writer *jw, const char *name, bool v)
{
	jw_name(jw, name);
	jw_bool(jw, v);
}
