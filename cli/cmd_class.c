// SPDX-License-Identifier: GPL-2.0-only
/* classifier class ... */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/class_queue.h"
#include "cli/class_rate.h"
#include "cli/class_shape.h"
#include "lib/parse.h"

static int bad_value(struct cli *c, const char *key, const char *val)
{
	cli_err(c, "invalid %s \"%s\"", key, val ? val : "");
	return -EINVAL;
}

/*
 * What a setting's value is: its usage, how it is parsed into the
 * field's bytes and written out.  NULL parse: a setting without a value.
 */
struct value_kind {
	const char *usage;
	size_t size;
	int (*parse)(const char *s, void *v);
	void (*text)(char *buf, size_t n, const void *v);
	void (*json)(struct json_writer *jw, const void *v);
};

static int parse_mark(const char *s, void *v)
{
	return parse_u32(s, v);
}

static void mark_text(char *buf, size_t n, const void *v)
{
	snprintf(buf, n, "0x%x", *(const __u32 *)v);
}

static void mark_json(struct json_writer *jw, const void *v)
{
	jw_uint(jw, *(const __u32 *)v);
}

static int parse_dscp_value(const char *s, void *v)
{
	return parse_dscp(s, v);
}

static void dscp_text(char *buf, size_t n, const void *v)
{
	snprintf(buf, n, "%u", *(const __u8 *)v);
}

static void dscp_json(struct json_writer *jw, const void *v)
{
	jw_uint(jw, *(const __u8 *)v);
}

/* A TX queue: what rtnetlink lets a device have (CLS_QUEUE_MAX). */
static int parse_queue(const char *s, void *v)
{
	__u32 q;

	if (parse_u32(s, &q) || q > CLS_QUEUE_MAX)
		return -EINVAL;
	*(__u16 *)v = q;
	return 0;
}

static void queue_text(char *buf, size_t n, const void *v)
{
	snprintf(buf, n, "%u", *(const __u16 *)v);
}

static void queue_json(struct json_writer *jw, const void *v)
{
	jw_uint(jw, *(const __u16 *)v);
}

static const struct value_kind mark_kind = {"N", sizeof(__u32), parse_mark,
					    mark_text, mark_json};
static const struct value_kind dscp_kind = {
	"{ 0-63 | EF | AF41 | CS1 ... }", sizeof(__u8), parse_dscp_value,
	dscp_text, dscp_json};
static const struct value_kind queue_kind = {"0-4095", sizeof(__u16),
					     parse_queue, queue_text,
					     queue_json};
static const struct value_kind no_value = {};

/*
 * A class's settings, one line each: the word that sets it (on the
 * command line and in `class list`), the word that turns it off (after
 * the word, or instead of it for a setting without a value), its JSON
 * key, its bit in cls.flags, what it takes, and where its value lives in
 * an entry (in cls or meta).  Parsing, `class list`, its JSON and the
 * usage follow from this table; the journal keeps a class's records
 * whole.  The classid and the name, which identify a class, are the
 * commands' own.
 */
struct class_field {
	const char *word, *off, *json;
	__u32 flag;
	const struct value_kind *kind;
	size_t at;
};

#define AT(member) offsetof(struct cls_class_entry, member)

static const struct class_field fields[] = {
	{"mark", "none", "mark", CLS_F_MARK, &mark_kind, AT(cls.mark)},
	{"dscp", "none", "dscp", CLS_F_DSCP, &dscp_kind, AT(cls.dscp)},
	{"drop", "pass", "drop", CLS_F_DROP, &no_value, 0},
	{"queue", "none", "queue", CLS_F_QUEUE, &queue_kind, AT(cls.queue)},
};

#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

static void *field_at(struct cls_class_entry *e, const struct class_field *f)
{
	return (char *)e + f->at;
}

static const void *field_of(const struct cls_class_entry *e,
			    const struct class_field *f)
{
	return (const char *)e + f->at;
}

/* The setting word w names (*off: w turns it off), or NULL. */
static const struct class_field *field_named(const char *w, bool *off)
{
	size_t i;

	for (i = 0; i < NR_FIELDS; i++) {
		*off = !fields[i].kind->parse && !strcmp(w, fields[i].off);
		if (*off || !strcmp(w, fields[i].word))
			return &fields[i];
	}
	return NULL;
}

/* On with a value, or off (its bit clear, its bytes zero: off is zero). */
static int set_field(struct cli *c, struct cls_class_entry *e,
		     const struct class_field *f, const char *v, bool off)
{
	const struct value_kind *k = f->kind;

	if (k->parse && !strcmp(v, f->off))
		off = true;
	if (off) {
		e->cls.flags &= ~f->flag;
		memset(field_at(e, f), 0, k->size);
		return 0;
	}
	if (k->parse && k->parse(v, field_at(e, f)))
		return bad_value(c, f->word, v);
	e->cls.flags |= f->flag;
	return 0;
}

/* Apply "KEY VALUE ..." arguments to e; no map is touched. */
static int parse_class_args(struct cli *c, int argc, char **argv,
			    struct cls_class_entry *e, bool allow_classid,
			    struct class_shape_args *sa)
{
	const struct class_field *f;
	struct parse_why why;
	bool off;
	int i, err;

	for (i = 0; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		err = class_rate_parse(c, argc - i, argv + i, e);
		if (!err)
			err = class_shape_parse(c, argc - i, argv + i, e, sa);
		if (err < 0)
			return err;
		if (err > 0) {
			i += err - 1;
			continue;
		}
		f = field_named(k, &off);
		if (f && !f->kind->parse) {
			set_field(c, e, f, NULL, off);
			continue;
		}
		if (!v) {
			cli_err(c, "\"%s\" needs a value", k);
			return -EINVAL;
		}
		i++;
		if (f) {
			err = set_field(c, e, f, v, false);
			if (err)
				return err;
		} else if (!strcmp(k, "name")) {
			if (check_class_name(v, &why)) {
				cli_err(c, "invalid name \"%s\": %s", v,
					why.text);
				return -EINVAL;
			}
			snprintf(e->meta.name, sizeof(e->meta.name), "%s", v);
		} else if (!strcmp(k, "classid") && allow_classid) {
			if (!strcmp(v, "none") && e->idx != CLS_DEFAULT_CLASS) {
				cli_err(c, "only the default class can be without a classid");
				return -EINVAL;
			}
			if (!strcmp(v, "none")) {
				e->cls.classid = 0;
				e->cls.flags &= ~CLS_F_PRIORITY;
			} else if (parse_classid(v, &e->cls.classid) ||
				   e->cls.classid == 0xFFFFFFFFU ||
				   e->cls.classid == 0) {
				return bad_value(c, "classid", v);
			} else {
				e->cls.flags |= CLS_F_PRIORITY;
			}
		} else {
			cli_err(c, "unknown argument \"%s\"; try \"classifier class help\"",
				k);
			return -EINVAL;
		}
	}
	return 0;
}

/* Settings a newer build of this layout set, which this one cannot show. */
static __u32 unknown_flags(const struct cls_class_entry *e)
{
	return e->cls.flags & ~CLS_F_KNOWN;
}

/* Store e; the library keeps names and classids unique. */
static int store(struct cli *c, struct cls_class_entry *e, const char *tok)
{
	const struct cls_class_entry *other;
	char label[CLASSID_STRLEN];
	int err;

	err = class_queue_check_class(c, e);
	if (err)
		return err;
	err = cls_class_store(&c->maps, e);
	/* Every index in use: room made (maps/grow.c), once. */
	if (err == -ENOSPC && c->maps.cap < CLS_MAX_CLASSES) {
		err = cli_grow(c, c->maps.cap + 1);
		if (!err)
			err = cls_class_store(&c->maps, e);
	}
	if (err == -ENOSPC) {
		cli_err(c, "all %d classes are in use", CLS_MAX_CLASSES);
		return err;
	}
	if (err != -EEXIST)
		return err ? cli_errno(c, err, tok) : 0;
	other = cls_class_at(&c->maps, e->idx);
	if (!other)
		return cli_errno(c, err, tok);
	cls_class_label(other, label, sizeof(label));
	if (!strcmp(other->meta.name, e->meta.name) && e->meta.name[0])
		cli_err(c, "name \"%s\" is taken by class %s", e->meta.name,
			label);
	else
		cli_err(c, "class %s exists (use 'class set')", label);
	return err;
}

/* A class token on the command line, resolved, as its entry. */
static int find_class(struct cli *c, const char *tok,
		      struct cls_class_entry *e)
{
	const struct cls_class_entry *found;
	__u32 idx;
	int err;

	err = cli_get_class(c, tok, &idx);
	if (err)
		return err;
	found = cls_class_at(&c->maps, idx);
	if (!found)
		return cli_errno(c, -ENOENT, tok);
	*e = *found;
	return 0;
}

/* A new class of classid tok, its packets' priority that classid. */
static int new_class(struct cli *c, const char *tok, struct cls_class_entry *e)
{
	memset(e, 0, sizeof(*e));
	e->idx = CLS_CLASS_NEW;
	if (parse_classid(tok, &e->cls.classid))
		return bad_value(c, "classid", tok);
	if (e->cls.classid == 0 || e->cls.classid == 0xFFFFFFFFU) {
		cli_err(c, "classid %s cannot name a class", tok);
		return -EINVAL;
	}
	e->cls.flags = CLS_F_VALID | CLS_F_PRIORITY;
	return 0;
}

/* class add and class replace: CLASSID [ name NAME ] [ ACTION ]... */
static int class_new(struct cli *c, int argc, char **argv, bool replace)
{
	struct cls_class_entry e;
	__u32 idx;
	int err;
	struct class_shape_args sa = {};

	if (argc < 1) {
		cli_err(c, "expected CLASSID");
		return -EINVAL;
	}
	err = new_class(c, argv[0], &e);
	if (!err)
		err = parse_class_args(c, argc - 1, argv + 1, &e, false, &sa);
	if (!err)
		err = cli_maps_write(c);
	if (err)
		return err;
	/* replace: the class with this classid gets exactly these settings. */
	if (replace && !cls_class_resolve(&c->maps, argv[0], &idx))
		e.idx = idx;
	/* Never silently drop what a newer build set: it cannot be said. */
	if (e.idx != CLS_CLASS_NEW &&
	    unknown_flags(cls_class_at(&c->maps, e.idx))) {
		cli_err(c,
			"class %s has settings this classifier does not know "
			"(flags %#x, set by a newer one): change it with that "
			"classifier, or delete it first",
			argv[0], unknown_flags(cls_class_at(&c->maps, e.idx)));
		return -EPERM;
	}
	err = class_shape_place(
		c, &e,
		e.idx == CLS_CLASS_NEW ? NULL : cls_class_at(&c->maps, e.idx),
		&sa);
	return err ? err : store(c, &e, argv[0]);
}

static int class_add(struct cli *c, int argc, char **argv)
{
	return class_new(c, argc, argv, false);
}

static int class_replace(struct cli *c, int argc, char **argv)
{
	return class_new(c, argc, argv, true);
}

static int class_set(struct cli *c, int argc, char **argv)
{
	struct cls_class_entry e, old;
	struct class_shape_args sa = {};
	int err;

	if (argc < 1) {
		cli_err(c, "expected CLASSID or NAME");
		return -EINVAL;
	}
	err = cli_maps_write(c);
	if (!err)
		err = find_class(c, argv[0], &e);
	old = e;
	if (!err)
		err = parse_class_args(c, argc - 1, argv + 1, &e, true, &sa);
	if (!err)
		err = class_shape_place(c, &e, &old, &sa);
	return err ? err : store(c, &e, argv[0]);
}

static int class_del(struct cli *c, int argc, char **argv)
{
	struct cls_class_entry e;
	__u32 used;
	int err;

	if (argc != 1) {
		cli_err(c, "expected CLASSID or NAME");
		return -EINVAL;
	}
	err = cli_maps_write(c);
	if (!err)
		err = find_class(c, argv[0], &e);
	if (!err)
		err = class_shape_del_check(c, &e);
	if (err)
		return err;
	err = cls_class_del(&c->maps, e.idx, &used);
	if (err == -EPERM) {
		cli_err(c, "the default class cannot be deleted");
		return -EINVAL;
	}
	if (err == -EBUSY) {
		cli_err(c, "class %s is used by %u route(s); delete them first",
			argv[0], used);
		return err;
	}
	return err ? cli_errno(c, err, argv[0]) : 0;
}

/*
 * The classes of a file as `class list` prints them, one a line:
 * [class] { CLASSID [ name NAME ] | default [ classid CLASSID ] }
 * [ ACTION ]...; '#' starts a comment.  *line[i] is e[i]'s line number.
 */
struct class_file {
	struct cls_class_entry *e;
	size_t *line, n, cap;
	size_t default_at; /* its position in e; n: no line gave it */
};

static int class_file_line(struct cli *c, struct class_file *f, int argc,
			   char **argv, size_t lineno)
{
	struct class_shape_args sa = {};
	struct cls_class_entry e = {};
	void *ne, *nl;
	int err;

	if (argc && !strcmp(argv[0], "class")) {
		argc--;
		argv++;
	}
	if (!argc) {
		cli_err(c, "expected CLASSID or default");
		return -EINVAL;
	}
	if (!strcmp(argv[0], "default")) {
		if (f->default_at < f->n) {
			cli_err(c, "the default class again (line %zu)",
				f->line[f->default_at]);
			return -EINVAL;
		}
		e.idx = CLS_DEFAULT_CLASS;
		e.cls.flags = CLS_F_VALID;
	} else if ((err = new_class(c, argv[0], &e))) {
		return err;
	}
	err = parse_class_args(c, argc - 1, argv + 1, &e,
			       e.idx == CLS_DEFAULT_CLASS, &sa);
	if (err)
		return err;
	/* A shaping class's tree follows it: class add and set place it. */
	if (sa.given) {
		cli_err(c, "shaping settings are not loaded by class load yet "
			   "(use class add or class set)");
		return -EOPNOTSUPP;
	}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 1024;
		ne = realloc(f->e, f->cap * sizeof(*f->e));
		if (ne)
			f->e = ne;
		nl = realloc(f->line, f->cap * sizeof(*f->line));
		if (nl)
			f->line = nl;
		if (!ne || !nl)
			return cli_errno(c, -ENOMEM, "reading classes");
	}
	if (e.idx == CLS_DEFAULT_CLASS)
		f->default_at = f->n;
	f->line[f->n] = lineno;
	f->e[f->n++] = e;
	return 0;
}

/* Every line of buf parsed; errors say FILE:LINE. */
static int class_file_parse(struct cli *c, const char *file, char *buf,
			    size_t len, struct class_file *f)
{
	char where[sizeof(c->where)], *line, *next, *argv[64];
	size_t lineno = 0;
	int argc, err = 0;

	memcpy(where, c->where, sizeof(where));
	f->default_at = SIZE_MAX;
	for (line = buf; !err && line < buf + len; line = next) {
		next = memchr(line, '\n', buf + len - line);
		next = next ? next + 1 : buf + len;
		lineno++;
		snprintf(c->where, sizeof(c->where), "%s%s:%zu: ", where, file,
			 lineno);
		if (memchr(line, '\0', next - line)) {
			cli_err(c, "NUL byte in the line");
			err = -EINVAL;
			break;
		}
		if (next[-1] == '\n')
			next[-1] = '\0';
		argc = split_args(line, argv, sizeof(argv) / sizeof(argv[0]));
		if (argc < 0) {
			cli_err(c, argc == -E2BIG ? "too many arguments"
						  : "unterminated quote");
			err = argc;
		} else if (argc > 0) {
			err = class_file_line(c, f, argc, argv, lineno);
		}
	}
	memcpy(c->where, where, sizeof(where));
	if (!err && !f->n) {
		cli_err(c, "%s: no classes in it", file);
		err = -ENODATA;
	}
	return err;
}

/* What cls_class_load() refused, in one line. */
static int class_load_failed(struct cli *c, const char *file,
			     const struct class_file *f,
			     const struct cls_class_load_result *r, int err)
{
	const struct cls_class_entry *e = &f->e[r->dup[0]], *o;
	char label[CLASSID_STRLEN], pfx[64], gone[CLASSID_STRLEN] = "?";

	switch (err) {
	case -EEXIST:
		/* The default class no line gave: its name is taken. */
		if (!f->line[r->dup[1]]) {
			cls_class_label(e, label, sizeof(label));
			cli_err(c,
				"%s:%zu: class %s: name \"%s\" is the default "
				"class's",
				file, f->line[r->dup[0]], label, e->meta.name);
			return err;
		}
		e = &f->e[r->dup[1]];
		cls_class_label(e, label, sizeof(label));
		cli_err(c, "%s:%zu: class %s: its %s is also on line %zu", file,
			f->line[r->dup[1]], label,
			e->cls.classid == f->e[r->dup[0]].cls.classid &&
					e->idx != CLS_DEFAULT_CLASS
				? "classid"
				: "name",
			f->line[r->dup[0]]);
		return err;
	case -EBUSY:
		format_prefix(&r->example.prefix, pfx, sizeof(pfx));
		o = cls_class_at(&c->maps, r->example.class_idx);
		if (o)
			cls_class_label(o, gone, sizeof(gone));
		cli_err(c,
			"%s: %u route(s) use classes it does not have (%s "
			"class %s, for one); load routes without them first",
			file, r->routes, pfx, gone);
		return err;
	case -ENOSPC:
		cli_err(c, "%s: %zu classes: more than the %d there can be",
			file, f->n, CLS_MAX_CLASSES);
		return err;
	case -EOPNOTSUPP:
		cli_err(c,
			"%s: classes with shaping settings are there, and class "
			"load does not change shaping classes yet (use class "
			"set and class del)",
			file);
		return err;
	case -EPERM:
		cls_class_label(e, label, sizeof(label));
		cli_err(c,
			"%s:%zu: class %s has settings this classifier does "
			"not know (set by a newer one): change it with that "
			"classifier, or delete it first",
			file, f->line[r->dup[0]], label);
		return err;
	}
	return cli_errno(c, err, "loading the classes");
}

/* class load FILE: the whole class set replaced by the file's. */
static int class_load(struct cli *c, int argc, char **argv)
{
	struct cls_class_load_result res;
	struct class_file f = {};
	size_t len;
	char *buf;
	int err;

	if (argc != 1) {
		cli_err(c, "expected FILE");
		return -EINVAL;
	}
	err = cli_read_input(c, argv[0], CLI_INPUT_MAX, &buf, &len);
	if (err)
		return err;
	err = class_file_parse(c, argv[0], buf, len, &f);
	free(buf);
	/* No line for the default class: it keeps no settings. */
	if (!err && f.default_at == SIZE_MAX)
		err = class_file_line(c, &f, 1, (char *[]){"default"}, 0);
	if (!err)
		err = cli_maps_write(c);
	/* What store() checks of a class with a queue, for each. */
	for (size_t i = 0; !err && i < f.n; i++)
		if (f.e[i].cls.flags & CLS_F_QUEUE)
			err = class_queue_check_class(c, &f.e[i]);
	if (!err && f.n > c->maps.cap)
		err = cli_grow(c, f.n);
	if (!err) {
		err = cls_class_load(&c->maps, f.e, f.n, &res);
		if (err)
			err = class_load_failed(c, argv[0], &f, &res, err);
	}
	free(f.e);
	free(f.line);
	return err;
}

/* " mark 0x20 dscp 46 drop": the settings that are on, as they are set. */
static void action_text(const struct cls_class_entry *e, char *buf, size_t n)
{
	char val[64];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_FIELDS && len < n; i++) {
		const struct class_field *f = &fields[i];

		if (!(e->cls.flags & f->flag))
			continue;
		val[0] = '\0';
		if (f->kind->text)
			f->kind->text(val, sizeof(val), field_of(e, f));
		len += snprintf(buf + len, n - len, " %s%s%s", f->word,
				*val ? " " : "", val);
	}
	if (len < n)
		class_rate_text(e, buf + len, n - len);
	len = strlen(buf);
	if (len < n)
		class_shape_text(e, buf + len, n - len);
	len = strlen(buf);
	if (len < n && unknown_flags(e))
		snprintf(buf + len, n - len,
			 " # and settings this classifier does not know "
			 "(flags %#x)",
			 unknown_flags(e));
}

static void class_json(struct json_writer *jw, const struct cls_class_entry *e)
{
	char buf[CLASSID_STRLEN];
	size_t i;

	jw_start_object(jw);
	jw_uint_field(jw, "index", e->idx);
	cls_class_label(e, buf, sizeof(buf));
	jw_string_field(jw, "class", buf);
	jw_string_field(jw, "name", e->meta.name);
	if (e->cls.flags & CLS_F_PRIORITY) {
		format_classid(e->cls.classid, buf, sizeof(buf));
		jw_string_field(jw, "priority", buf);
	} else {
		jw_name(jw, "priority");
		jw_null(jw);
	}
	for (i = 0; i < NR_FIELDS; i++) {
		const struct class_field *f = &fields[i];
		bool on = e->cls.flags & f->flag;

		if (!f->kind->json) {
			jw_bool_field(jw, f->json, on);
			continue;
		}
		jw_name(jw, f->json);
		if (on)
			f->kind->json(jw, field_of(e, f));
		else
			jw_null(jw);
	}
	class_rate_json(jw, e);
	class_shape_json(jw, e);
	jw_uint_field(jw, "unknown_flags", unknown_flags(e));
	jw_end_object(jw);
}

static int class_list(struct cli *c, int argc, char **argv)
{
	const struct cls_class_entry *e;
	struct json_writer *jw;
	char label[CLASSID_STRLEN], act[256];
	size_t n, i;
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_classes(&c->maps, &e, &n);
	if (err)
		return cli_errno(c, err, "reading classes");
	if (c->json) {
		jw = cli_json(c);
		if (!jw)
			return -ENOMEM;
		jw_start_array(jw);
		for (i = 0; i < n; i++)
			class_json(jw, &e[i]);
		jw_end_array(jw);
		jw_destroy(&jw);
		return 0;
	}
	for (i = 0; i < n; i++) {
		cls_class_label(&e[i], label, sizeof(label));
		action_text(&e[i], act, sizeof(act));
		if (e[i].idx == CLS_DEFAULT_CLASS &&
		    (e[i].cls.flags & CLS_F_PRIORITY)) {
			char id[CLASSID_STRLEN];

			format_classid(e[i].cls.classid, id, sizeof(id));
			printf("class default classid %s%s\n", id, act);
			continue;
		}
		printf("class %s%s%s%s\n", label,
		       e[i].meta.name[0] && e[i].idx ? " name " : "",
		       e[i].idx ? e[i].meta.name : "", act);
	}
	return 0;
}

/* "ACTION:  mark N | mark none | ...", from the table, wrapped. */
static void class_actions_usage(FILE *f)
{
	char one[96];
	size_t i, col = 0;

	fputs("ACTION:  ", f);
	for (i = 0; i < 2 * NR_FIELDS; i++) {
		const struct class_field *fl = &fields[i / 2];
		bool off = i % 2;

		if (!fl->kind->parse)
			snprintf(one, sizeof(one), "%s",
				 off ? fl->off : fl->word);
		else
			snprintf(one, sizeof(one), "%s %s", fl->word,
				 off ? fl->off : fl->kind->usage);
		if (col && col + strlen(one) + 3 > 62) {
			fputs("\n        ", f);
			col = 0;
		}
		col += fprintf(f, "%s%s", i ? " | " : "", one);
	}
	fputc('\n', f);
}

static const struct cli_cmd class_cmds[] = {
	CLI_CMD("add", class_add, "CLASSID [ name NAME ] [ ACTION ]..."),
	CLI_CMD("replace", class_replace, "CLASSID [ name NAME ] [ ACTION ]..."),
	CLI_CMD("set", class_set, "{ CLASSID | NAME | default }\n"
	  "                            [ classid CLASSID ] [ name NAME ] [ ACTION ]...", .alias = "change"),
	CLI_CMD("del", class_del, "{ CLASSID | NAME }", .alias = "delete"),
	CLI_CMD("list", class_list, NULL, .flags = CLI_DEFAULT, .alias = "show"),
	CLI_CMD("load", class_load, "FILE"),
	{},
};

const struct cli_object cli_class_obj = {
	.name = "class",
	.cmds = class_cmds,
	.help = "CLASSID: tc class handle MAJ:MIN (hex, as tc parses it); packets\n"
		"         of the class get skb->priority = CLASSID, so an HTB qdisc\n"
		"         with handle MAJ: puts them in that class directly.\n"
		"replace adds the class or gives an existing one exactly these\n"
		"settings (for configuration files applied again and again).\n"
		"The default class (packets no route matches) is \"default\";\n"
		"it sets no priority unless given one (classid CLASSID; \"classid\n"
		"none\" takes it away). Setting another class's classid renames it.\n"
		"load replaces every class by the lines of FILE ('-': standard\n"
		"input), as 'class list' prints them: a classid that stays keeps\n"
		"its routes and counters; one that goes must have no routes.\n"
		"A class set by a newer classifier may hold settings this one\n"
		"does not know: list shows that, set keeps them, replace refuses.\n"
		"queue N: the class's packets go to TX queue N (for an mq root\n"
		"         with an HTB per queue, major N+1); past the device's\n"
		"         queue count it wraps; XPS and a connected socket's\n"
		"         cached queue come first (classifier(8), NOTES).\n"
		"RATE:    police RATE [ burst SIZE ] [ over { drop | dscp DSCP |\n"
		"         mark MARK } ]...: packets over RATE are dropped (default\n"
		"         burst: 200ms at RATE, at least 64kb), or at tc egress get\n"
		"         the over DSCP/mark instead (XDP drops them);\n"
		"         pace RATE [ burst SIZE ] [ horizon TIME ] [ ce TIME ]:\n"
		"         departure times for fq at tc egress; a packet that would\n"
		"         wait past the horizon (default 50ms) is dropped, one that\n"
		"         waits more than ce is marked CE if ECN-capable (default\n"
		"         off); default burst 10ms at RATE, at least 3028b;\n"
		"         police none, pace none. Units as tc's: 100mbit,\n"
		"         64kb, 20ms. A new rate starts with a full bucket.\n",
	.more_help = class_actions_usage,
};
