// SPDX-License-Identifier: GPL-2.0-only
/* classifier class ... */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

static void class_usage(FILE *f)
{
	fprintf(f,
		"Usage: classifier class add CLASSID [ name NAME ] [ ACTION ]...\n"
		"       classifier class set { CLASSID | NAME | default }\n"
		"                            [ classid CLASSID ] [ name NAME ] [ ACTION ]...\n"
		"       classifier class del { CLASSID | NAME }\n"
		"       classifier class list\n"
		"CLASSID: tc class handle MAJ:MIN (hex, as tc parses it); packets\n"
		"         of the class get skb->priority = CLASSID, so an HTB qdisc\n"
		"         with handle MAJ: puts them in that class directly.\n"
		"ACTION:  mark N | mark none | dscp { 0-63 | EF | AF41 | CS1 ... }\n"
		"         | dscp none | drop | pass\n"
		"The default class (packets no route matches) is \"default\";\n"
		"it sets no priority unless given one (classid CLASSID; \"classid\n"
		"none\" takes it away). Setting another class's classid renames it.\n");
}

void class_label(const struct cls_class_entry *e, char *buf, size_t n)
{
	if (e->idx == CLS_DEFAULT_CLASS)
		snprintf(buf, n, "default");
	else
		format_classid(e->cls.classid, buf, n);
}

static int bad_value(struct cli *c, const char *key, const char *val)
{
	cli_err(c, "invalid %s \"%s\"", key, val ? val : "");
	return -EINVAL;
}

/* Apply "KEY VALUE ..." arguments to e; no map is touched. */
static int parse_class_args(struct cli *c, int argc, char **argv,
			    struct cls_class_entry *e, bool allow_classid)
{
	const char *why = NULL;
	int i;

	for (i = 0; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "drop")) {
			e->cls.flags |= CLS_F_DROP;
			continue;
		}
		if (!strcmp(k, "pass")) {
			e->cls.flags &= ~CLS_F_DROP;
			continue;
		}
		if (!v) {
			cli_err(c, "\"%s\" needs a value", k);
			return -EINVAL;
		}
		i++;
		if (!strcmp(k, "name")) {
			if (check_class_name(v, &why)) {
				cli_err(c, "invalid name \"%s\": %s", v,
					why ? why : "bad name");
				return -EINVAL;
			}
			snprintf(e->meta.name, sizeof(e->meta.name), "%s", v);
		} else if (!strcmp(k, "mark")) {
			if (!strcmp(v, "none"))
				e->cls.flags &= ~CLS_F_MARK;
			else if (parse_u32(v, &e->cls.mark))
				return bad_value(c, "mark", v);
			else
				e->cls.flags |= CLS_F_MARK;
		} else if (!strcmp(k, "dscp")) {
			if (!strcmp(v, "none"))
				e->cls.flags &= ~CLS_F_DSCP;
			else if (parse_dscp(v, &e->cls.dscp))
				return bad_value(c, "dscp", v);
			else
				e->cls.flags |= CLS_F_DSCP;
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

static int check_unique(struct cli *c, const struct cls_class_entry *e)
{
	struct cls_class_entry *all;
	size_t n, i;
	int err;

	err = cls_class_dump(&c->maps, &all, &n);
	if (err)
		return cli_errno(c, err, "reading classes");
	for (i = 0; i < n && !err; i++) {
		char label[CLASSID_STRLEN];

		if (all[i].idx == e->idx)
			continue;
		class_label(&all[i], label, sizeof(label));
		if (e->meta.name[0] && !strcmp(all[i].meta.name, e->meta.name)) {
			cli_err(c, "name \"%s\" is taken by class %s",
				e->meta.name, label);
			err = -EEXIST;
		} else if (e->idx != CLS_DEFAULT_CLASS &&
			   all[i].idx != CLS_DEFAULT_CLASS &&
			   all[i].cls.classid == e->cls.classid) {
			cli_err(c, "class %s exists (use 'class set')", label);
			err = -EEXIST;
		}
	}
	free(all);
	return err;
}

static int class_add(struct cli *c, int argc, char **argv)
{
	struct cls_class_entry e = {};
	int err, idx;

	if (argc < 1) {
		cli_err(c, "expected CLASSID");
		return -EINVAL;
	}
	if (parse_classid(argv[0], &e.cls.classid))
		return bad_value(c, "classid", argv[0]);
	if (e.cls.classid == 0 || e.cls.classid == 0xFFFFFFFFU) {
		cli_err(c, "classid %s cannot name a class", argv[0]);
		return -EINVAL;
	}
	e.cls.flags = CLS_F_VALID | CLS_F_PRIORITY;
	err = parse_class_args(c, argc - 1, argv + 1, &e, false);
	if (!err)
		err = cli_maps_write(c);
	if (err)
		return err;
	idx = cls_class_alloc(&c->maps);
	if (idx == -ENOSPC) {
		cli_err(c, "all %d classes are in use", CLS_MAX_CLASSES);
		return idx;
	}
	if (idx < 0)
		return cli_errno(c, idx, "reading classes");
	e.idx = idx;
	err = check_unique(c, &e);
	if (!err && (err = cls_class_store(&c->maps, &e)))
		cli_errno(c, err, argv[0]);
	cli_classes_changed(c);
	return err;
}

static int find_class(struct cli *c, const char *tok,
		      struct cls_class_entry *e)
{
	int err = cls_class_find(&c->maps, tok, e);

	if (err == -ENOENT || err == -EINVAL)
		cli_err(c, "unknown class \"%s\" (see 'classifier class list')",
			tok);
	else if (err)
		cli_errno(c, err, "reading classes");
	return err;
}

static int class_set(struct cli *c, int argc, char **argv)
{
	struct cls_class_entry e;
	int err;

	if (argc < 1) {
		cli_err(c, "expected CLASSID or NAME");
		return -EINVAL;
	}
	err = cli_maps_write(c);
	if (!err)
		err = find_class(c, argv[0], &e);
	if (!err)
		err = parse_class_args(c, argc - 1, argv + 1, &e, true);
	if (!err)
		err = check_unique(c, &e);
	if (!err && (err = cls_class_store(&c->maps, &e)))
		cli_errno(c, err, argv[0]);
	cli_classes_changed(c);
	return err;
}

static int class_del(struct cli *c, int argc, char **argv)
{
	struct cls_class_entry e;
	int err, used;

	if (argc != 1) {
		cli_err(c, "expected CLASSID or NAME");
		return -EINVAL;
	}
	err = cli_maps_write(c);
	if (!err)
		err = find_class(c, argv[0], &e);
	if (err)
		return err;
	if (e.idx == CLS_DEFAULT_CLASS) {
		cli_err(c, "the default class cannot be deleted");
		return -EINVAL;
	}
	used = cls_route_count_class(&c->maps, e.idx);
	if (used < 0)
		return cli_errno(c, used, "reading routes");
	if (used) {
		cli_err(c, "class %s is used by %d route(s); delete them first",
			argv[0], used);
		return -EBUSY;
	}
	err = cls_class_clear(&c->maps, e.idx);
	cli_classes_changed(c);
	return err ? cli_errno(c, err, argv[0]) : 0;
}

static void action_text(const struct cls_class *cls, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	if (cls->flags & CLS_F_MARK)
		len += snprintf(buf + len, n - len, " mark 0x%x", cls->mark);
	if (len < n && (cls->flags & CLS_F_DSCP))
		len += snprintf(buf + len, n - len, " dscp %u", cls->dscp);
	if (len < n && (cls->flags & CLS_F_DROP))
		snprintf(buf + len, n - len, " drop");
}

static void class_json(struct json_writer *jw, const struct cls_class_entry *e)
{
	char buf[CLASSID_STRLEN];

	jw_start_object(jw);
	jw_uint_field(jw, "index", e->idx);
	class_label(e, buf, sizeof(buf));
	jw_string_field(jw, "class", buf);
	jw_string_field(jw, "name", e->meta.name);
	if (e->cls.flags & CLS_F_PRIORITY) {
		format_classid(e->cls.classid, buf, sizeof(buf));
		jw_string_field(jw, "priority", buf);
	} else {
		jw_name(jw, "priority");
		jw_null(jw);
	}
	jw_name(jw, "mark");
	if (e->cls.flags & CLS_F_MARK)
		jw_uint(jw, e->cls.mark);
	else
		jw_null(jw);
	jw_name(jw, "dscp");
	if (e->cls.flags & CLS_F_DSCP)
		jw_uint(jw, e->cls.dscp);
	else
		jw_null(jw);
	jw_bool_field(jw, "drop", e->cls.flags & CLS_F_DROP);
	jw_end_object(jw);
}

static int class_list(struct cli *c, int argc, char **argv)
{
	struct cls_class_entry *e;
	struct json_writer *jw;
	char label[CLASSID_STRLEN], act[96];
	size_t n, i;
	int err;

	(void)argv;
	if (cli_no_args(c, argc))
		return -EINVAL;
	err = cli_maps_read(c);
	if (err)
		return err;
	err = cls_class_dump(&c->maps, &e, &n);
	if (err)
		return cli_errno(c, err, "reading classes");
	if (c->json) {
		jw = cli_json(c);
		if (jw) {
			jw_start_array(jw);
			for (i = 0; i < n; i++)
				class_json(jw, &e[i]);
			jw_end_array(jw);
			jw_destroy(&jw);
		}
	} else {
		for (i = 0; i < n; i++) {
			class_label(&e[i], label, sizeof(label));
			action_text(&e[i].cls, act, sizeof(act));
			if (e[i].idx == CLS_DEFAULT_CLASS &&
			    (e[i].cls.flags & CLS_F_PRIORITY)) {
				char id[CLASSID_STRLEN];

				format_classid(e[i].cls.classid, id,
					       sizeof(id));
				printf("class default classid %s%s\n", id, act);
				continue;
			}
			printf("class %s%s%s%s\n", label,
			       e[i].meta.name[0] && e[i].idx ? " name " : "",
			       e[i].idx ? e[i].meta.name : "", act);
		}
	}
	free(e);
	return 0;
}

int do_class(struct cli *c, int argc, char **argv)
{
	const char *verb = argc ? argv[0] : "list";

	if (argc)
		argc--, argv++;
	if (is_help(verb) || (argc && is_help(argv[0]))) {
		class_usage(stdout);
		return 0;
	}
	if (matches(verb, "add")) {
		c->cmd = "class add";
		return class_add(c, argc, argv);
	}
	if (matches(verb, "set") || !strcmp(verb, "change")) {
		c->cmd = "class set";
		return class_set(c, argc, argv);
	}
	if (matches(verb, "delete")) {
		c->cmd = "class del";
		return class_del(c, argc, argv);
	}
	if (matches(verb, "list") || matches(verb, "show")) {
		c->cmd = "class list";
		return class_list(c, argc, argv);
	}
	cli_err(c, "unknown command \"%s\"; try \"classifier class help\"",
		verb);
	return -EINVAL;
}
