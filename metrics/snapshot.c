// SPDX-License-Identifier: GPL-2.0-only
/* The snapshot's storage: classes and attachments as they come. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/snapshot.h"

int metrics_snapshot_init(struct metrics_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	return metrics_snapshot_reserve_classes(s, 1);
}

/* Grown to what the classes need, never shrunk: a view reads many. */
int metrics_snapshot_reserve_classes(struct metrics_snapshot *s, size_t n)
{
	struct metrics_class *c;

	if (n <= s->class_cap)
		return 0;
	c = realloc(s->classes, n * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + s->class_cap, 0, (n - s->class_cap) * sizeof(*c));
	s->classes = c;
	s->class_cap = n;
	return 0;
}

void metrics_snapshot_free(struct metrics_snapshot *s)
{
	free(s->classes);
	free(s->att);
	free(s->prog);
	memset(s, 0, sizeof(*s));
}

int metrics_snapshot_reserve_att(struct metrics_snapshot *s, size_t n)
{
	struct metrics_attachment *a;
	struct metrics_prog *p;

	if (n <= s->att_cap)
		return 0;
	a = realloc(s->att, n * sizeof(*a));
	if (!a)
		return -ENOMEM;
	s->att = a;
	p = realloc(s->prog, n * sizeof(*p));
	if (!p)
		return -ENOMEM;
	s->prog = p;
	s->att_cap = n;
	return 0;
}
