// SPDX-License-Identifier: GPL-2.0-only
/* The exporter's connection slots (conns.h); tens of them: plain scans. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/conns.h"

int conns_init(struct conns *s, size_t max, uint64_t timeout_ms)
{
	memset(s, 0, sizeof(*s));
	s->cap = 2 * max;
	s->c = calloc(s->cap, sizeof(*s->c));
	if (!s->c)
		return -ENOMEM;
	s->max = max;
	s->timeout = timeout_ms;
	return 0;
}

void conns_free(struct conns *s)
{
	free(s->c);
	s->c = NULL;
}

/* The held slot whose exchange began first. */
static struct conn *oldest(const struct conns *s)
{
	struct conn *best = NULL;
	size_t i;

	for (i = 0; i < s->cap; i++)
		if (s->c[i].used && !s->c[i].closing &&
		    (!best || s->c[i].start < best->start))
			best = &s->c[i];
	return best;
}

struct conn *conns_victim(struct conns *s)
{
	struct conn *c = s->held < s->max ? NULL : oldest(s);

	s->evicted += c != NULL;
	return c;
}

struct conn *conns_add(struct conns *s, int fd, uint64_t now)
{
	size_t i;

	for (i = 0; i < s->cap; i++)
		if (!s->c[i].used) {
			s->c[i] = (struct conn){
				.fd = fd, .used = true, .start = now};
			s->held++;
			return &s->c[i];
		}
	return NULL;
}

void conns_close(struct conns *s, struct conn *c)
{
	if (c->closing)
		return;
	c->closing = true;
	s->held--;
}

void conns_del(struct conns *s, struct conn *c)
{
	conns_close(s, c);
	memset(c, 0, sizeof(*c));
}

void conns_restart(struct conn *c, uint64_t now)
{
	c->start = now;
}

struct conn *conns_expired(struct conns *s, uint64_t now)
{
	struct conn *c = oldest(s);

	if (!c || now - c->start < s->timeout)
		return NULL;
	s->expired++;
	return c;
}

int64_t conns_next_deadline(const struct conns *s, uint64_t now)
{
	struct conn *c = oldest(s);

	if (!c)
		return -1;
	return now - c->start >= s->timeout
		       ? 0
		       : (int64_t)(c->start + s->timeout - now);
}
