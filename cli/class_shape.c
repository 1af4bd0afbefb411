// SPDX-License-Identifier: GPL-2.0-only
/*
 * A class's HTB shaping on the command line (cli/class_shape.h).  The
 * word is tc's own, `rate`: policing and pacing have theirs (`police
 * RATE`, `pace RATE`), and each rate word takes the `burst` after it, so
 * "police 10mbit burst 64kb rate 100mbit burst 15kb" gives each its own.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/class_shape.h"
#include "lib/tctree.h"
#include "lib/units.h"

static int bad(struct cli *c, const char *what, const char *v,
	       const struct parse_why *why)
{
	cli_err(c, "invalid %s \"%s\"%s%s", what, v ? v : "",
		why && why->text[0] ? ": " : "", why ? why->text : "");
	return -EINVAL;
}

static void shape_off(struct cls_class_entry *e)
{
	e->cls.flags &= ~CLS_F_SHAPE;
	memset(&e->meta.shape, 0, sizeof(e->meta.shape));
}

/* rate RATE [ ceil RATE ] [ burst SIZE ] [ cburst SIZE ], or rate none */
static int parse_rate_words(struct cli *c, int argc, char **argv,
			    struct cls_class_entry *e)
{
	struct cls_shape *sh = &e->meta.shape;
	struct parse_why why;
	bool ceil_given = false;
	int i;

	if (!strcmp(argv[1], "none")) {
		shape_off(e);
		return 2;
	}
	if (parse_rate(argv[1], &sh->rate, &why))
		return bad(c, "rate", argv[1], &why);
	for (i = 2; i + 1 < argc; i += 2) {
		const char *w = argv[i], *v = argv[i + 1];

		if (!strcmp(w, "ceil")) {
			if (parse_rate(v, &sh->ceil, &why))
				return bad(c, "ceil", v, &why);
			ceil_given = true;
		} else if (!strcmp(w, "burst")) {
			if (parse_size(v, &sh->burst, &why))
				return bad(c, "burst", v, &why);
		} else if (!strcmp(w, "cburst")) {
			if (parse_size(v, &sh->cburst, &why))
				return bad(c, "cburst", v, &why);
		} else {
			break;
		}
	}
	if (i < argc && i + 1 == argc &&
	    (!strcmp(argv[i], "ceil") || !strcmp(argv[i], "burst") ||
	     !strcmp(argv[i], "cburst"))) {
		cli_err(c, "\"%s\" needs a value", argv[i]);
		return -EINVAL;
	}
	if (!ceil_given && sh->ceil < sh->rate)
		sh->ceil = sh->rate;
	if (sh->ceil < sh->rate) {
		cli_err(c, "ceil must be at least the rate (%s)", argv[1]);
		return -EINVAL;
	}
	e->cls.flags |= CLS_F_SHAPE;
	return i;
}

int class_shape_parse(struct cli *c, int argc, char **argv,
		      struct cls_class_entry *e, struct class_shape_args *a)
{
	const char *w = argv[0], *v = argc > 1 ? argv[1] : NULL;
	enum tct_leaf leaf;
	__u32 prio;

	if (strcmp(w, "rate") && strcmp(w, "parent") && strcmp(w, "prio") &&
	    strcmp(w, "leaf") && strcmp(w, "ceil") && strcmp(w, "cburst"))
		return 0;
	if (!v) {
		cli_err(c, "\"%s\" needs a value", w);
		return -EINVAL;
	}
	a->given = true;
	if (!strcmp(w, "rate"))
		return parse_rate_words(c, argc, argv, e);
	if (!strcmp(w, "ceil") || !strcmp(w, "cburst")) {
		cli_err(c, "\"%s\" follows \"rate RATE\"", w);
		return -EINVAL;
	}
	if (!strcmp(w, "parent")) {
		a->parent = v;
		return 2;
	}
	if (!strcmp(w, "prio")) {
		if (parse_u32(v, &prio) || prio > TCT_MAX_PRIO) {
			cli_err(c, "prio must be 0-%u, not \"%s\"",
				TCT_MAX_PRIO, v);
			return -EINVAL;
		}
		e->meta.shape.prio = prio;
		return 2;
	}
	if (!strcmp(v, "default")) {
		e->meta.shape.leaf = TCT_LEAF_DEFAULT;
		return 2;
	}
	if (tct_leaf_parse(v, &leaf)) {
		cli_err(c, "leaf must be default or one of %s, not \"%s\"",
			tct_leaf_names(), v);
		return -EINVAL;
	}
	if (!tct_kernel_has(tct_leaf_name(leaf))) {
		cli_err(c, "leaf %s: this kernel has no %s qdisc", v, v);
		return -EOPNOTSUPP;
	}
	e->meta.shape.leaf = leaf;
	return 2;
}

static const char *label(const struct cls_class_entry *e, char *buf, size_t n)
{
	if (e->meta.name[0])
		snprintf(buf, n, "%s", e->meta.name);
	else
		cls_class_label(e, buf, n);
	return buf;
}

static unsigned int queue_of(const struct cls_class_entry *e)
{
	return (e->cls.classid >> 16) - 1;
}

/* The shaping class whose classid is handle, or NULL. */
static const struct cls_class_entry *by_handle(struct cli *c, __u32 handle)
{
	const struct cls_class_entry *all;
	size_t n, i;

	if (cls_classes(&c->maps, &all, &n))
		return NULL;
	for (i = 0; i < n; i++)
		if ((all[i].cls.flags & CLS_F_SHAPE) &&
		    all[i].cls.classid == handle)
			return &all[i];
	return NULL;
}

static bool has_children(struct cli *c, const struct cls_class_entry *e)
{
	const struct cls_class_entry *all;
	size_t n, i;

	if (!(e->cls.flags & CLS_F_SHAPE) || cls_classes(&c->maps, &all, &n))
		return false;
	for (i = 0; i < n; i++)
		if ((all[i].cls.flags & CLS_F_SHAPE) &&
		    all[i].meta.shape.parent == e->cls.classid &&
		    all[i].idx != e->idx)
			return true;
	return false;
}

/* Levels of shaping classes from e's parent up (0: under the root). */
static unsigned int depth_above(struct cli *c, __u32 parent)
{
	const struct cls_class_entry *p;
	unsigned int d = 0;

	while (parent && d <= TCT_MAX_DEPTH && (p = by_handle(c, parent))) {
		d++;
		parent = p->meta.shape.parent;
	}
	return d;
}

static int resolve_parent(struct cli *c, struct cls_class_entry *e,
			  const struct class_shape_args *a,
			  const struct cls_class_entry **parent)
{
	const struct cls_class_entry *p;
	__u32 idx;
	int err;

	*parent = NULL;
	if (!strcmp(a->parent, "none")) {
		e->meta.shape.parent = 0;
		return 0;
	}
	err = cli_get_class(c, a->parent, &idx);
	if (err)
		return err;
	p = cls_class_at(&c->maps, idx);
	if (!p || !(p->cls.flags & CLS_F_SHAPE)) {
		cli_err(c, "parent %s is not a shaping class (it has no rate)",
			a->parent);
		return -EINVAL;
	}
	if (p->idx == e->idx) {
		cli_err(c, "a class cannot be its own parent");
		return -EINVAL;
	}
	e->meta.shape.parent = p->cls.classid;
	*parent = p;
	return 0;
}

int class_shape_place(struct cli *c, struct cls_class_entry *e,
		      const struct cls_class_entry *old,
		      const struct class_shape_args *a)
{
	const struct cls_class_entry *parent = NULL;
	bool was = old && (old->cls.flags & CLS_F_SHAPE);
	__u32 minor = e->cls.classid & 0xffff;
	char l[CLS_NAME_MAX + CLASSID_STRLEN];
	struct cls_shape_dev devs[CLS_SHAPE_DEVS];
	unsigned int queue, queues;
	/* queue N given now, not the one classifier gave it before */
	bool asked = (e->cls.flags & CLS_F_QUEUE) &&
		     (!was || !(old->cls.flags & CLS_F_QUEUE) ||
		      e->cls.queue != old->cls.queue);
	int err;

	if (!(e->cls.flags & CLS_F_SHAPE)) {
		if (a->given &&
		    (a->parent || e->meta.shape.prio || e->meta.shape.leaf)) {
			cli_err(c, "parent, prio and leaf shape a class with a "
				   "rate (rate RATE)");
			return -EINVAL;
		}
		if (was && has_children(c, old)) {
			cli_err(c,
				"class %s is the parent of shaping classes; "
				"delete them first",
				label(old, l, sizeof(l)));
			return -EBUSY;
		}
		return 0;
	}
	if (e->idx == CLS_DEFAULT_CLASS) {
		cli_err(c, "the default class is each HTB's default class: it "
			   "takes no rate (shape dev DEV default RATE)");
		return -EINVAL;
	}
	if (minor < TCT_FIRST_MINOR) {
		cli_err(c,
			"minors 0-%x are the HTB's own (root, default): a "
			"shaping class's minor is %x-ffff",
			TCT_FIRST_MINOR - 1, TCT_FIRST_MINOR);
		return -EINVAL;
	}
	if (a->parent) {
		err = resolve_parent(c, e, a, &parent);
		if (err)
			return err;
	} else if (e->meta.shape.parent) {
		parent = by_handle(c, e->meta.shape.parent);
	}
	if (parent) {
		queue = queue_of(parent);
		if (asked && e->cls.queue != queue) {
			cli_err(c,
				"a class shares its parent's queue (%u), not "
				"queue %u",
				queue, e->cls.queue);
			return -EINVAL;
		}
	} else if (asked) {
		queue = e->cls.queue;
	} else if (was && !a->parent) {
		queue = queue_of(old);
	} else {
		err = cls_shape_queue_pick(&c->maps, e->meta.shape.rate,
					   &queue);
		if (err)
			return cli_errno(c, err, "choosing a queue");
	}
	queues =
		cls_shape_devs(&c->maps, devs) > 0 ? cls_shape_queues(devs) : 0;
	if (queues && queue >= queues) {
		cli_err(c, "queue %u: the shaped devices have %u queues", queue,
			queues);
		return -EINVAL;
	}
	if (was && queue != queue_of(old) && has_children(c, old)) {
		cli_err(c,
			"class %s has child classes, which share its queue: "
			"it cannot move to queue %u",
			label(old, l, sizeof(l)), queue);
		return -EBUSY;
	}
	/* HTB keeps a class's parent: another one is another class. */
	if (was && queue == queue_of(old) &&
	    e->meta.shape.parent != old->meta.shape.parent) {
		cli_err(c,
			"HTB cannot give class %s another parent: delete "
			"it and add it again",
			label(old, l, sizeof(l)));
		return -EINVAL;
	}
	if (depth_above(c, e->meta.shape.parent) + 1 >= TCT_MAX_DEPTH) {
		cli_err(c,
			"HTB nests %u levels at most, its root class "
			"included",
			TCT_MAX_DEPTH);
		return -EINVAL;
	}
	e->cls.classid = (queue + 1) << 16 | minor;
	/* Its packets go to its queue, whose HTB has the class. */
	e->cls.queue = queue;
	e->cls.flags |= CLS_F_PRIORITY | CLS_F_QUEUE;
	return 0;
}

int class_shape_del_check(struct cli *c, const struct cls_class_entry *e)
{
	char l[CLS_NAME_MAX + CLASSID_STRLEN];

	if (!has_children(c, e))
		return 0;
	cli_err(c,
		"class %s is the parent of shaping classes; delete them "
		"first",
		label(e, l, sizeof(l)));
	return -EBUSY;
}

void class_shape_text(const struct cls_class_entry *e, char *buf, size_t n)
{
	const struct cls_shape *sh = &e->meta.shape;
	char r[UNITS_STRLEN], x[UNITS_STRLEN];
	size_t len;

	buf[0] = '\0';
	if (!(e->cls.flags & CLS_F_SHAPE))
		return;
	format_rate(sh->rate, r, sizeof(r));
	len = snprintf(buf, n, " rate %s", r);
	if (len < n && sh->ceil != sh->rate) {
		format_rate(sh->ceil, x, sizeof(x));
		len += snprintf(buf + len, n - len, " ceil %s", x);
	}
	if (len < n && sh->burst) {
		format_size(sh->burst, x, sizeof(x));
		len += snprintf(buf + len, n - len, " burst %s", x);
	}
	if (len < n && sh->cburst) {
		format_size(sh->cburst, x, sizeof(x));
		len += snprintf(buf + len, n - len, " cburst %s", x);
	}
	if (len < n && sh->parent) {
		format_classid(sh->parent, x, sizeof(x));
		len += snprintf(buf + len, n - len, " parent %s", x);
	}
	if (len < n && sh->prio)
		len += snprintf(buf + len, n - len, " prio %u", sh->prio);
	if (len < n && sh->leaf)
		snprintf(buf + len, n - len, " leaf %s",
			 tct_leaf_name(sh->leaf));
}

void class_shape_json(struct json_writer *jw, const struct cls_class_entry *e)
{
	const struct cls_shape *sh = &e->meta.shape;
	char id[CLASSID_STRLEN];

	jw_name(jw, "shape");
	if (!(e->cls.flags & CLS_F_SHAPE)) {
		jw_null(jw);
		return;
	}
	jw_start_object(jw);
	jw_uint_field(jw, "queue", queue_of(e));
	jw_uint_field(jw, "rate_bytes_per_sec", sh->rate);
	jw_uint_field(jw, "ceil_bytes_per_sec", sh->ceil);
	jw_uint_field(jw, "burst_bytes",
		      sh->burst ? sh->burst : tct_default_burst(sh->rate));
	jw_uint_field(jw, "cburst_bytes",
		      sh->cburst ? sh->cburst : tct_default_burst(sh->ceil));
	jw_name(jw, "parent");
	if (sh->parent) {
		format_classid(sh->parent, id, sizeof(id));
		jw_string(jw, id);
	} else {
		jw_null(jw);
	}
	jw_uint_field(jw, "prio", sh->prio);
	jw_string_field(jw, "leaf",
			sh->leaf ? tct_leaf_name(sh->leaf) : "default");
	jw_end_object(jw);
}
