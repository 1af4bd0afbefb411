// SPDX-License-Identifier: GPL-2.0-only
/*
 * GET /metrics over libmicrohttpd.  We open the listening socket ourselves
 * (so a bind error is an errno the caller can name) and hand it to the
 * library, whose event loop runs in one thread of ours: scrapes are
 * served one at a time, so the snapshot and the source need no locking,
 * and between two turns of the loop we close what conns.c says has had
 * its time.  The library's own timeout counts idle time only, which a
 * client sending a header line now and then resets.
 *
 * Memory is bounded by the limits: at most 2 * max_conns connections
 * (max_conns holding a slot, the rest on their way out), each with the
 * library's fixed per-connection pool, plus the bodies being sent (one
 * per connection at most).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "metrics/conns.h"
#include "metrics/exporter.h"
#include "metrics/prom.h"

#define METRICS_PATH	"/metrics"
#define ALLOWED_METHODS "GET, HEAD"
/* A burst of clients waits in the kernel rather than being dropped unseen. */
#define LISTEN_BACKLOG SOMAXCONN
/* Requests are a few hundred bytes; this also caps header size. */
#define CONN_MEMORY 32768

struct exporter {
	struct MHD_Daemon *daemon;
	struct metrics_source src;
	struct metrics_snapshot snap;
	struct MHD_Response *not_found, *not_allowed;
	struct conns conns;
	pthread_t loop;
	bool looping;
	int epoll_fd; /* the library's events */
	int wake_fd;  /* written once: the loop ends */
	unsigned long scrapes;
};

int exporter_parse_listen(const char *s, struct sockaddr_storage *ss,
			  socklen_t *len, const char **why)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *in = (struct sockaddr_in *)ss;
	char host[INET6_ADDRSTRLEN];
	const char *colon, *port;
	bool v6 = s[0] == '[';
	unsigned long p;
	size_t hlen;

	memset(ss, 0, sizeof(*ss));
	*why = "expected ADDR:PORT or [ADDR6]:PORT with a numeric address";
	colon = strrchr(s, ':');
	if (!colon)
		return -EINVAL;
	port = colon + 1;
	hlen = colon - s;
	if (v6) {
		if (hlen < 2 || s[hlen - 1] != ']')
			return -EINVAL;
		s++;
		hlen -= 2;
	} else if (memchr(s, ':', hlen)) {
		*why = "write an IPv6 address in brackets: [ADDR6]:PORT";
		return -EINVAL;
	}
	if (hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = '\0';
	p = strtoul(port, NULL, 10);
	if (!*port || strlen(port) > 5 ||
	    strspn(port, "0123456789") != strlen(port) || p < 1 || p > 65535) {
		*why = "port must be 1-65535";
		return -EINVAL;
	}
	if (!v6 && inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(p);
		*len = sizeof(*in);
	} else if (v6 && inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(p);
		*len = sizeof(*in6);
	} else {
		return -EINVAL;
	}
	*why = NULL;
	return 0;
}

static int listen_on(const struct sockaddr_storage *ss, socklen_t len)
{
	int fd, one = 1, err;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Restart at once, whatever connections are in TIME_WAIT. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (ss->ss_family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)ss, len) ||
	    listen(fd, LISTEN_BACKLOG)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static struct MHD_Response *text_response(const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);

	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
					"text/plain; charset=utf-8");
	return r;
}

/* The exposition of a fresh snapshot; NULL only when out of memory. */
static struct MHD_Response *metrics_response(struct exporter *e)
{
	struct MHD_Response *r;
	char *body = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	f = open_memstream(&body, &len);
	if (!f)
		return NULL;
	err = e->src.read(e->src.ctx, &e->snap);
	err = err ? prom_write_down(f) : prom_write(f, &e->snap);
	if (fclose(f) || err) {
		free(body);
		return NULL;
	}
	r = MHD_create_response_from_buffer_with_free_callback(len, body, free);
	if (!r) {
		free(body);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				PROM_CONTENT_TYPE);
	__atomic_add_fetch(&e->scrapes, 1, __ATOMIC_RELAXED);
	return r;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **req_cls)
{
	static int headers_seen;
	struct exporter *e = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;

	(void)version;
	(void)upload_data;
	/*
	 * Refused at once, on the first call: a body that may follow is never
	 * read, and the library closes the connection after the answer.
	 */
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return MHD_queue_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
					  e->not_allowed);
	/*
	 * GET and HEAD are answered once the whole request is in (the call
	 * after the headers' with nothing more to read), so that the
	 * connection can be kept alive for the next scrape.
	 */
	if (!*req_cls) {
		*req_cls = &headers_seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* a body on a GET: ignored */
		return MHD_YES;
	}
	if (strcmp(url, METRICS_PATH))
		return MHD_queue_response(conn, MHD_HTTP_NOT_FOUND,
					  e->not_found);
	r = metrics_response(e);
	if (!r)
		return MHD_NO; /* the library drops the connection */
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The library sees the end of the stream and closes it as a client's. */
static void drop(struct exporter *e, struct conn *c)
{
	conns_close(&e->conns, c);
	shutdown(c->fd, SHUT_RDWR);
}

static enum MHD_Result admit(void *cls, const struct sockaddr *addr,
			     socklen_t len)
{
	struct exporter *e = cls;
	struct conn *victim = conns_victim(&e->conns);

	(void)addr;
	(void)len;
	if (victim)
		drop(e, victim);
	return MHD_YES;
}

static void connection_event(void *cls, struct MHD_Connection *mc, void **ctx,
			     enum MHD_ConnectionNotificationCode ev)
{
	const union MHD_ConnectionInfo *fd;
	struct exporter *e = cls;

	if (ev == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (*ctx)
			conns_del(&e->conns, *ctx);
		*ctx = NULL;
		return;
	}
	fd = MHD_get_connection_info(mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	*ctx = fd ? conns_add(&e->conns, fd->connect_fd, now_ms()) : NULL;
	if (!*ctx && fd) /* no room: the library's limit keeps it */
		shutdown(fd->connect_fd, SHUT_RDWR);
}

/* An answer is out; on a kept-alive connection the next exchange starts. */
static void answered(void *cls, struct MHD_Connection *mc, void **req_cls,
		     enum MHD_RequestTerminationCode how)
{
	const union MHD_ConnectionInfo *i =
		MHD_get_connection_info(mc, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	(void)cls;
	(void)req_cls;
	(void)how;
	if (i && i->socket_context)
		conns_restart(i->socket_context, now_ms());
}

/* The library's timeout, or the next exchange's, whichever comes first. */
static int loop_wait_ms(struct exporter *e)
{
	MHD_UNSIGNED_LONG_LONG lib;
	int64_t ours = conns_next_deadline(&e->conns, now_ms());

	if (MHD_get_timeout(e->daemon, &lib) == MHD_YES &&
	    (ours < 0 || lib < (MHD_UNSIGNED_LONG_LONG)ours))
		ours = lib;
	return ours > INT32_MAX ? INT32_MAX : (int)ours;
}

static void *loop(void *arg)
{
	struct exporter *e = arg;
	struct pollfd p[2] = {{.fd = e->epoll_fd, .events = POLLIN},
			      {.fd = e->wake_fd, .events = POLLIN}};
	struct conn *c;

	for (;;) {
		if (poll(p, 2, loop_wait_ms(e)) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (MHD_run(e->daemon) != MHD_YES)
			break;
		while ((c = conns_expired(&e->conns, now_ms())))
			drop(e, c);
	}
	return NULL;
}

static void destroy(struct exporter *e)
{
	if (e->looping) {
		eventfd_write(e->wake_fd, 1);
		pthread_join(e->loop, NULL);
	}
	/* From here on the library runs in this thread only. */
	if (e->daemon)
		MHD_stop_daemon(e->daemon);
	if (e->wake_fd >= 0)
		close(e->wake_fd);
	conns_free(&e->conns);
	if (e->not_found)
		MHD_destroy_response(e->not_found);
	if (e->not_allowed)
		MHD_destroy_response(e->not_allowed);
	metrics_snapshot_free(&e->snap);
	free(e);
}

int exporter_start(const struct exporter_opts *o,
		   const struct metrics_source *src, struct exporter **out)
{
	unsigned int timeout = o->timeout_s ?: EXPORTER_TIMEOUT_S;
	unsigned int flags = MHD_USE_EPOLL;
	const union MHD_DaemonInfo *ep;
	struct sockaddr_storage ss;
	struct exporter *e;
	const char *why;
	socklen_t len;
	int err, fd;

	*out = NULL;
	err = exporter_parse_listen(o->listen ?: EXPORTER_DEFAULT_LISTEN, &ss,
				    &len, &why);
	if (err)
		return err;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->src = *src;
	e->wake_fd = eventfd(0, EFD_CLOEXEC);
	if (e->wake_fd < 0) {
		err = -errno;
		goto err;
	}
	err = conns_init(&e->conns, o->max_conns ?: EXPORTER_MAX_CONNS,
			 timeout * 1000ULL);
	if (!err)
		err = metrics_snapshot_init(&e->snap);
	if (err)
		goto err;
	e->not_found = text_response(
		"not found: the metrics are at " METRICS_PATH "\n");
	e->not_allowed = text_response("method not allowed: only GET and "
				       "HEAD\n");
	if (!e->not_found || !e->not_allowed ||
	    MHD_add_response_header(e->not_allowed, MHD_HTTP_HEADER_ALLOW,
				    ALLOWED_METHODS) != MHD_YES) {
		err = -ENOMEM;
		goto err;
	}
	fd = listen_on(&ss, len);
	if (fd < 0) {
		err = fd;
		goto err;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* The slots are ours (admit); the library's limit leaves room for
	 * the connections being closed. */
	e->daemon = MHD_start_daemon(
		flags, 0, admit, e, answer, e, MHD_OPTION_LISTEN_SOCKET, fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)e->conns.cap,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		o->max_conns_per_ip ?: EXPORTER_MAX_CONNS_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
		MHD_OPTION_NOTIFY_CONNECTION, connection_event, e,
		MHD_OPTION_NOTIFY_COMPLETED, answered, e,
		/* RFC 9112: no Host in 1.1, bad header lines: 400 */
		MHD_OPTION_STRICT_FOR_CLIENT, 1, MHD_OPTION_END);
	if (!e->daemon) {
		close(fd);
		err = -EIO;
		goto err;
	}
	ep = MHD_get_daemon_info(e->daemon, MHD_DAEMON_INFO_EPOLL_FD);
	if (!ep) {
		err = -EIO;
		goto err;
	}
	e->epoll_fd = ep->epoll_fd;
	err = -pthread_create(&e->loop, NULL, loop, e);
	if (err)
		goto err;
	e->looping = true;
	*out = e;
	return 0;
err:
	destroy(e);
	return err;
}

void exporter_stop(struct exporter *e)
{
	if (e)
		destroy(e);
}

unsigned long exporter_scrapes(const struct exporter *e)
{
	return __atomic_load_n(&e->scrapes, __ATOMIC_RELAXED);
}

int exporter_run(const struct exporter_opts *o,
		 const struct metrics_source *src)
{
	sigset_t stop, old;
	struct exporter *e;
	int err, sig;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	/* Before the server's thread exists, so that it inherits the mask. */
	err = -pthread_sigmask(SIG_BLOCK, &stop, &old);
	if (err)
		return err;
	err = exporter_start(o, src, &e);
	if (!err) {
		while (sigwait(&stop, &sig))
			;
		exporter_stop(e);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}
