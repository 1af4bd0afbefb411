// SPDX-License-Identifier: GPL-2.0-only
/* classifier class ... */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

static int bad_value(struct cli *c, const char *key, const char *val)
{
	cli_err(c, "invalid %s \"%s\"", key, val ? val : "");
	return -EINVAL;
}

/* Apply "KEY VALUE ..." arguments to e; no map is touched. */
static int parse_class_args(struct cli *c, int argc, char **argv,
			    struct cls_class_entry *e, bool allow_classid)
{
	struct parse_why why;
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
					why.text);
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

/* Store e; the library keeps names and classids unique. */
static int store(struct cli *c, struct cls_class_entry *e, const char *tok)
{
	const struct cls_class_entry *other;
	char label[CLASSID_STRLEN];
	int err;

	err = cls_class_store(&c->maps, e);
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

/* class add and class replace: CLASSID [ name NAME ] [ ACTION ]... */
static int class_new(struct cli *c, int argc, char **argv, bool replace)
{
	struct cls_class_entry e = { .idx = CLS_CLASS_NEW };
	__u32 idx;
	int err;

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
	/* replace: the class with this classid gets exactly these settings. */
	if (replace && !cls_class_resolve(&c->maps, argv[0], &idx))
		e.idx = idx;
	return store(c, &e, argv[0]);
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
	const struct cls_class_entry *e;
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
		action_text(&e[i].cls, act, sizeof(act));
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

static const struct cli_cmd class_cmds[] = {
	CLI_CMD("add", class_add, "CLASSID [ name NAME ] [ ACTION ]..."),
	CLI_CMD("replace", class_replace, "CLASSID [ name NAME ] [ ACTION ]..."),
	CLI_CMD("set", class_set, "{ CLASSID | NAME | default }\n"
	  "                            [ classid CLASSID ] [ name NAME ] [ ACTION ]...", .alias = "change"),
	CLI_CMD("del", class_del, "{ CLASSID | NAME }", .alias = "delete"),
	CLI_CMD("list", class_list, NULL, .flags = CLI_DEFAULT, .alias = "show"),
	{},
};

const struct cli_object cli_class_obj = {
	.name = "class",
	.cmds = class_cmds,
	.help = "CLASSID: tc class handle MAJ:MIN (hex, as tc parses it); packets\n"
		"         of the class get skb->priority = CLASSID, so an HTB qdisc\n"
		"         with handle MAJ: puts them in that class directly.\n"
		"ACTION:  mark N | mark none | dscp { 0-63 | EF | AF41 | CS1 ... }\n"
		"         | dscp none | drop | pass\n"
		"replace adds the class or gives an existing one exactly these\n"
		"settings (for configuration files applied again and again).\n"
		"The default class (packets no route matches) is \"default\";\n"
		"it sets no priority unless given one (classid CLASSID; \"classid\n"
		"none\" takes it away). Setting another class's classid renames it.\n",
};
