/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Streaming JSON writer for -j / -p output: the writer tracks nesting and
 * places commas, so callers only say what comes next.
 */
#ifndef CLS_JSON_H
#define CLS_JSON_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>

struct json_writer;

/* Several top-level values are written one per line (JSON Lines). */
struct json_writer *jw_new(FILE *f, bool pretty); /* NULL on ENOMEM */
void jw_destroy(struct json_writer **jw);	  /* ends with a newline */

void jw_start_object(struct json_writer *jw);
void jw_end_object(struct json_writer *jw);
void jw_start_array(struct json_writer *jw);
void jw_end_array(struct json_writer *jw);
void jw_name(struct json_writer *jw, const char *name);

/* Escapes " \ and control characters; UTF-8 passes through. */
void jw_string(struct json_writer *jw, const char *s);
void jw_uint(struct json_writer *jw, __u64 v);
void jw_int(struct json_writer *jw, __s64 v);
void jw_bool(struct json_writer *jw, bool v);
void jw_null(struct json_writer *jw);

void jw_string_field(struct json_writer *jw, const char *name, const char *s);
void jw_uint_field(struct json_writer *jw, const char *name, __u64 v);
void jw_int_field(struct json_writer *jw, const char *name, __s64 v);
void jw_bool_field(struct json_writer *jw, const char *name, bool v);

#endif
