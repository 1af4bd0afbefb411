/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The exporter's connection slots: who holds one, since when.  A slot is
 * held for one exchange at a time, a request and its answer, and the
 * clock of an exchange starts at the accept or at the end of the answer
 * before, so that a client sending a header line now and then cannot
 * keep a slot longer than the timeout.  When every slot is held, a new
 * connection takes the slot of the exchange that started first: the
 * oldest waits longest, whoever opened the rest.  A leaf over plain
 * data: the exporter closes the connections it is told to.
 */
#ifndef CLS_METRICS_CONNS_H
#define CLS_METRICS_CONNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct conn {
	int fd;
	bool used;
	bool closing;	/* told to close; its slot is free */
	uint64_t start; /* ms: the current exchange began */
};

struct conns {
	struct conn *c;
	size_t cap;	  /* slots, and connections being closed */
	size_t max;	  /* slots */
	uint64_t timeout; /* ms an exchange may take */
	size_t held;	  /* used and not closing */
	unsigned long evicted, expired;
};

/* Room for max slots and as many connections on their way out. */
int conns_init(struct conns *s, size_t max, uint64_t timeout_ms);
void conns_free(struct conns *s);
/*
 * A connection comes in.  While a slot is free, NULL; when every slot is
 * held, the exchange that began first, which is to give its slot up:
 * mark it closing and close it.
 */
struct conn *conns_victim(struct conns *s);
/*
 * A connection came in; NULL if the room for those being closed is full
 * too (the server admits no more than cap connections).
 */
struct conn *conns_add(struct conns *s, int fd, uint64_t now);
void conns_del(struct conns *s, struct conn *c);
/* An answer is out: the next exchange starts now. */
void conns_restart(struct conn *c, uint64_t now);
/* Mark c closing (its slot is free from now on). */
void conns_close(struct conns *s, struct conn *c);
/* The next exchange past its time at now, or NULL. */
struct conn *conns_expired(struct conns *s, uint64_t now);
/* ms until the next exchange runs out of time, -1: none is held. */
int64_t conns_next_deadline(const struct conns *s, uint64_t now);

#endif
