// SPDX-License-Identifier: GPL-2.0-only
/*
 * Class tokens -> indices for commands that resolve many (route load,
 * -batch): the classes are read once and searched in memory, sorted by
 * classid and by name.  Class changes drop the index.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "lib/parse.h"

struct class_index {
	struct cls_class_entry *e; /* sorted by classid */
	struct cls_class_entry **by_name;
	size_t n;
};

static int cmp_classid(const void *a, const void *b)
{
	__u32 x = ((const struct cls_class_entry *)a)->cls.classid;
	__u32 y = ((const struct cls_class_entry *)b)->cls.classid;

	return x < y ? -1 : x > y;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp((*(struct cls_class_entry *const *)a)->meta.name,
		      (*(struct cls_class_entry *const *)b)->meta.name);
}

void cli_classes_changed(struct cli *c)
{
	if (!c->classes)
		return;
	free(c->classes->e);
	free(c->classes->by_name);
	free(c->classes);
	c->classes = NULL;
}

static int build(struct cli *c)
{
	struct class_index *x = calloc(1, sizeof(*x));
	size_t i;
	int err;

	if (!x)
		return -ENOMEM;
	err = cls_class_dump(&c->maps, &x->e, &x->n);
	if (!err) {
		x->by_name = calloc(x->n ? x->n : 1, sizeof(*x->by_name));
		if (!x->by_name)
			err = -ENOMEM;
	}
	if (err) {
		free(x->e);
		free(x);
		return err;
	}
	/* The default class has no classid to be found by. */
	if (x->n && x->e[0].idx == CLS_DEFAULT_CLASS)
		x->e[0].cls.classid = 0;
	qsort(x->e, x->n, sizeof(*x->e), cmp_classid);
	for (i = 0; i < x->n; i++)
		x->by_name[i] = &x->e[i];
	qsort(x->by_name, x->n, sizeof(*x->by_name), cmp_name);
	c->classes = x;
	return 0;
}

int cli_class_index(struct cli *c)
{
	return c->classes ? 0 : build(c);
}

int cli_class_resolve(struct cli *c, const char *tok, __u32 *idx)
{
	struct cls_class_entry key = {}, *kp = &key, **byn, *hit;
	int err;

	if (!c->classes && (err = build(c)))
		return err;
	if (!check_class_name(tok, NULL)) {
		snprintf(key.meta.name, sizeof(key.meta.name), "%s", tok);
		byn = bsearch(&kp, c->classes->by_name, c->classes->n,
			      sizeof(*byn), cmp_name);
		hit = byn ? *byn : NULL;
	} else {
		if (parse_classid(tok, &key.cls.classid))
			return -EINVAL;
		hit = key.cls.classid ?
			      bsearch(&key, c->classes->e, c->classes->n,
				      sizeof(key), cmp_classid) :
			      NULL;
	}
	if (!hit)
		return -ENOENT;
	*idx = hit->idx;
	return 0;
}
