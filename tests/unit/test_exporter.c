// SPDX-License-Identifier: GPL-2.0-only
/*
 * The HTTP endpoint with a made-up source: address parsing, and (as root,
 * in a network namespace of its own) what it answers to GET, HEAD, other
 * methods and other paths, a failing source, IPv6, a port in use.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "metrics/exporter.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_parse_listen(void **state)
{
	static const struct {
		const char *s;
		int family;
		const char *addr;
		int port;
	} good[] = {
		{"127.0.0.1:9435", AF_INET, "127.0.0.1", 9435},
		{"0.0.0.0:1", AF_INET, "0.0.0.0", 1},
		{"[::1]:9435", AF_INET6, "::1", 9435},
		{"[::]:65535", AF_INET6, "::", 65535},
		{"[2001:db8::1]:80", AF_INET6, "2001:db8::1", 80},
	};
	static const char *const bad[] = {
		"",
		"9435",
		":9435",
		"127.0.0.1",
		"127.0.0.1:",
		"127.0.0.1:0",
		"127.0.0.1:65536",
		"127.0.0.1:-1",
		"127.0.0.1:+80",
		"127.0.0.1:80x",
		"127.0.0.1: 80",
		"localhost:9435",
		"::1:9435",
		"[::1]",
		"[::1]:",
		"[127.0.0.1]:80",
		"[::1:80",
		"1.2.3:80",
		"127.0.0.1:0009435",
	};
	struct sockaddr_storage ss;
	char buf[INET6_ADDRSTRLEN];
	const char *why;
	socklen_t len;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		assert_int_equal(
			exporter_parse_listen(good[i].s, &ss, &len, &why), 0);
		assert_int_equal(ss.ss_family, good[i].family);
		if (good[i].family == AF_INET) {
			struct sockaddr_in *in = (struct sockaddr_in *)&ss;

			assert_int_equal(len, sizeof(*in));
			inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf));
			assert_int_equal(ntohs(in->sin_port), good[i].port);
		} else {
			struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

			assert_int_equal(len, sizeof(*in6));
			inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof(buf));
			assert_int_equal(ntohs(in6->sin6_port), good[i].port);
		}
		assert_string_equal(buf, good[i].addr);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		if (exporter_parse_listen(bad[i], &ss, &len, &why) != -EINVAL)
			fail_msg("\"%s\" accepted", bad[i]);
		assert_non_null(why);
	}
}

/* The made-up state: one class; or an error, as with nothing pinned. */
static int source_err;
static int read_fake(void *ctx, struct metrics_snapshot *s)
{
	(void)ctx;
	if (source_err)
		return source_err;
	s->nr_classes = 1;
	s->classes[0].idx = 0;
	strcpy(s->classes[0].label, "default");
	strcpy(s->classes[0].name, "default");
	s->classes[0].dir[METRICS_EGRESS].packets = 4242;
	return 0;
}

static const struct metrics_source fake = {read_fake, NULL};

/* One request on a fresh connection; the whole answer, NUL-terminated. */
static char *request(int family, const char *req)
{
	struct sockaddr_storage ss = {};
	struct timeval tv = {5, 0};
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	assert_non_null(buf);
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(9435);
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(9435);
		in6->sin6_addr = in6addr_loopback;
	}
	fd = socket(family, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	assert_int_equal(connect(fd, (struct sockaddr *)&ss, sizeof(ss)), 0);
	assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	shutdown(fd, SHUT_WR);
	while ((n = read(fd, buf + len, cap - len - 1)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

static bool in_own_netns;

/* Root only: a network namespace with lo up, so port 9435 is ours. */
static int own_netns(void **state)
{
	struct ifreq ifr = {};
	int fd;

	(void)state;
	if (unshare(CLONE_NEWNET))
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	strcpy(ifr.ifr_name, "lo");
	if (fd >= 0 && !ioctl(fd, SIOCGIFFLAGS, &ifr)) {
		ifr.ifr_flags |= IFF_UP;
		in_own_netns = !ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The server a test started; stopped by the teardown even on failure. */
static struct exporter *running;

static struct exporter *start(const char *listen)
{
	struct exporter_opts o = {.listen = listen};

	if (!in_own_netns)
		skip();
	assert_int_equal(exporter_start(&o, &fake, &running), 0);
	return running;
}

static int stop(void **state)
{
	(void)state;
	exporter_stop(running);
	running = NULL;
	source_err = 0;
	return 0;
}

static void test_get_metrics(void **state)
{
	struct exporter *e = start(NULL);
	char *r;

	(void)state;
	r = request(AF_INET, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
			     "Connection: close\r\n\r\n");
	assert_int_equal(strncmp(r, "HTTP/1.1 200 ", 13), 0);
	assert_non_null(strstr(r,
			       "\r\nContent-Type: text/plain; version=0.0.4; "
			       "charset=utf-8\r\n"));
	assert_non_null(strstr(r, "\r\n\r\n# HELP classifier_up "));
	assert_non_null(strstr(r, "\nclassifier_up 1\n"));
	assert_non_null(strstr(r, "{class=\"default\",name=\"default\","
				  "direction=\"egress\"} 4242\n"));
	free(r);
	/* query strings are not part of the path */
	r = request(AF_INET, "GET /metrics?x=1 HTTP/1.0\r\n\r\n");
	assert_int_equal(strncmp(r, "HTTP/1.1 200 ", 13), 0);
	free(r);
	assert_int_equal(exporter_scrapes(e), 2);
}

static void test_head_has_no_body(void **state)
{
	char *r;

	(void)state;
	start(NULL);
	r = request(AF_INET, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n"
			     "Connection: close\r\n\r\n");
	assert_int_equal(strncmp(r, "HTTP/1.1 200 ", 13), 0);
	assert_null(strstr(r, "classifier_up"));
	free(r);
}

static void test_other_methods_405(void **state)
{
	static const char *const methods[] = {"POST",	 "PUT",	  "DELETE",
					      "OPTIONS", "PATCH", "BREW"};
	struct exporter *e = start(NULL);
	char req[128], *r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(methods); i++) {
		snprintf(req, sizeof(req),
			 "%s /metrics HTTP/1.1\r\nHost: x\r\n"
			 "Content-Length: 3\r\nConnection: close\r\n\r\nabc",
			 methods[i]);
		r = request(AF_INET, req);
		if (strncmp(r, "HTTP/1.1 405 ", 13))
			fail_msg("%s: %.40s", methods[i], r);
		assert_non_null(strstr(r, "\r\nAllow: GET, HEAD\r\n"));
		assert_null(strstr(r, "classifier_up"));
		free(r);
	}
	assert_int_equal(exporter_scrapes(e), 0);
}

static void test_other_paths_404(void **state)
{
	static const char *const paths[] = {
		"/",	    "/metrics/",    "/metricsx",
		"/Metrics", "/favicon.ico", "/../metrics"};
	struct exporter *e = start(NULL);
	char req[128], *r;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		snprintf(req, sizeof(req),
			 "GET %s HTTP/1.1\r\nHost: x\r\nConnection: "
			 "close\r\n\r\n",
			 paths[i]);
		r = request(AF_INET, req);
		if (strncmp(r, "HTTP/1.1 404 ", 13))
			fail_msg("%s: %.40s", paths[i], r);
		free(r);
	}
	assert_int_equal(exporter_scrapes(e), 0);
}

static void test_malformed_400(void **state)
{
	static const struct {
		const char *req;
		bool closed; /* no request line to answer: just closed */
	} cases[] = {
		{"GET\r\n\r\n", true},
		{"\x01\x02\x03\r\n\r\n", true},
		{"GET /metrics HTTP/1.1\r\n\r\n", false}, /* no Host */
		{"GET /metrics HTTP/1.1\r\nHost: x\r\nno colon\r\n\r\n", false},
	};
	struct exporter *e = start(NULL);
	size_t i;
	char *r;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = request(AF_INET, cases[i].req);
		if (cases[i].closed ? *r != '\0'
				    : strncmp(r, "HTTP/1.1 400 ", 13))
			fail_msg("request %zu: \"%.40s\"", i, r);
		free(r);
	}
	assert_int_equal(exporter_scrapes(e), 0);
	/* and it still serves */
	free(request(AF_INET, "GET /metrics HTTP/1.0\r\n\r\n"));
	assert_int_equal(exporter_scrapes(e), 1);
}

static void test_source_error_is_up_0(void **state)
{
	char *r;

	(void)state;
	start(NULL);
	source_err = -ENOENT;
	r = request(AF_INET, "GET /metrics HTTP/1.0\r\n\r\n");
	assert_int_equal(strncmp(r, "HTTP/1.1 200 ", 13), 0);
	assert_non_null(strstr(r, "\nclassifier_up 0\n"));
	assert_null(strstr(r, "classifier_class_packets_total"));
	free(r);
}

static void test_ipv6(void **state)
{
	char *r;

	(void)state;
	start("[::1]:9435");
	r = request(AF_INET6, "GET /metrics HTTP/1.1\r\nHost: x\r\n"
			      "Connection: close\r\n\r\n");
	assert_int_equal(strncmp(r, "HTTP/1.1 200 ", 13), 0);
	free(r);
}

static void test_port_in_use(void **state)
{
	struct exporter_opts o = {.listen = "127.0.0.1:9435"};
	struct exporter *e2;

	(void)state;
	start(NULL);
	assert_int_equal(exporter_start(&o, &fake, &e2), -EADDRINUSE);
	assert_null(e2);
	stop(NULL);
	/* and free again at once after a stop */
	start(NULL);
}

static void test_bad_address(void **state)
{
	struct exporter_opts o = {.listen = "localhost:9435"};
	struct exporter *e;

	(void)state;
	assert_int_equal(exporter_start(&o, &fake, &e), -EINVAL);
	assert_null(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_listen),
		cmocka_unit_test(test_bad_address),
		cmocka_unit_test_teardown(test_get_metrics, stop),
		cmocka_unit_test_teardown(test_head_has_no_body, stop),
		cmocka_unit_test_teardown(test_other_methods_405, stop),
		cmocka_unit_test_teardown(test_other_paths_404, stop),
		cmocka_unit_test_teardown(test_malformed_400, stop),
		cmocka_unit_test_teardown(test_source_error_is_up_0, stop),
		cmocka_unit_test_teardown(test_ipv6, stop),
		cmocka_unit_test_teardown(test_port_in_use, stop),
	};

	return cmocka_run_group_tests_name("exporter", tests, own_netns, NULL);
}
