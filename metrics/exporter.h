/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Prometheus HTTP endpoint: GET /metrics over libmicrohttpd, one
 * thread, a fresh snapshot per scrape.  Anything else gets a clean 404 or
 * 405.  Connections are bounded in number (in total and per client
 * address), in memory and in time: each exchange, a request and its
 * answer, gets timeout_s from the accept or the previous answer, and when
 * every slot is held a new connection takes the slot of the exchange that
 * began first (metrics/conns.h), so that no client can keep a scrape out.
 */
#ifndef CLS_METRICS_EXPORTER_H
#define CLS_METRICS_EXPORTER_H

#include <sys/socket.h>

#include "metrics/snapshot.h"

#define EXPORTER_DEFAULT_LISTEN "127.0.0.1:9435"

struct exporter_opts {
	const char *listen;	/* "ADDR:PORT", "[ADDR6]:PORT"; NULL: default */
	unsigned int max_conns; /* 0: EXPORTER_MAX_CONNS */
	unsigned int max_conns_per_ip; /* 0: EXPORTER_MAX_CONNS_PER_IP */
	unsigned int timeout_s;	       /* per exchange; 0: default */
};
#define EXPORTER_MAX_CONNS	  32
#define EXPORTER_MAX_CONNS_PER_IP 8
#define EXPORTER_TIMEOUT_S	  10

/*
 * "127.0.0.1:9435", "[::1]:9435" (numeric addresses only: nothing is
 * resolved).  0, or -EINVAL with *why set to a reason for a person.
 */
int exporter_parse_listen(const char *s, struct sockaddr_storage *ss,
			  socklen_t *len, const char **why);

struct exporter;
/*
 * Listen and serve from a thread of its own; returns once the
 * socket listens, so a daemon with a main loop of its own (the sync
 * daemon) serves metrics beside it and calls exporter_stop() on its way
 * out.  That thread inherits the caller's signal mask: block the signals
 * the main loop handles first.  src->read is called from that thread
 * only, one scrape at a time: it must not share a struct cls_maps with
 * the caller (metrics_collect_pinned() opens its own).
 * -EINVAL (bad address), -EADDRINUSE, ... or 0.
 */
int exporter_start(const struct exporter_opts *o,
		   const struct metrics_source *src, struct exporter **out);
void exporter_stop(struct exporter *e);
/* Scrapes answered so far (for tests and the front end's log). */
unsigned long exporter_scrapes(const struct exporter *e);

/*
 * exporter_start(), then wait for SIGTERM or SIGINT (blocked meanwhile in
 * the calling thread and in the server's), then stop.  0 after a signal,
 * or what exporter_start() returned.
 */
int exporter_run(const struct exporter_opts *o,
		 const struct metrics_source *src);

#endif
