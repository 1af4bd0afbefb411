// SPDX-License-Identifier: GPL-2.0-only
/* The snapshot's storage: classes sized once, attachments as they come. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/snapshot.h"

int metrics_snapshot_init(struct metrics_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	s->classes = calloc(CLS_MAX_CLASSES, sizeof(*s->classes));
	return s->classes ? 0 : -ENOMEM;
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
