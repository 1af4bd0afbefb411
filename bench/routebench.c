// SPDX-License-Identifier: GPL-2.0-only
/*
 * In-process costs of the maps library against a loaded classifier (pinned
 * maps under BPFFS, as the CLI leaves them): a dump of the IPv4 trie, a
 * full IPv4 table rebuild (cls_table_rebuild: dump, a new table filled and
 * published) and single route adds and deletes (cls_route_set /
 * cls_route_del, which journal the change and repaint the table).  The
 * prefixes it adds lie in 10.0.0.0/8, which bench/gen.c never uses, and it
 * deletes each again.  One JSON object per line.
 *   routebench BPFFS OPS BUILDS
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "maps/maps.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void table_line(struct cls_maps *m, const char *when)
{
	struct cls_table_info t;

	if (cls_table_info(m, &t))
		return;
	printf("{\"part\":\"lib_table\",\"when\":\"%s\",\"groups\":%u,"
	       "\"used\":%u,\"ask_trie\":%u}\n",
	       when, t.groups, t.used, t.ask_trie);
}

static int builds(struct cls_maps *m, int reps)
{
	struct cls_route *r;
	double t0, t1, t2;
	size_t n;
	int i, err = 0;

	for (i = 0; i < reps && !err; i++) {
		t0 = now_ns();
		err = cls_route_dump(m, AF_INET, CLS_SRC_ALL, &r, &n);
		if (err)
			break;
		t1 = now_ns();
		err = cls_table_rebuild(m);
		t2 = now_ns();
		free(r);
		printf("{\"part\":\"lib\",\"op\":\"dump_v4\",\"n\":%zu,"
		       "\"ns\":%.0f}\n",
		       n, t1 - t0);
		printf("{\"part\":\"lib\",\"op\":\"table_rebuild\",\"n\":%zu,"
		       "\"ns\":%.0f}\n",
		       n, t2 - t1);
	}
	return err;
}

/* Op i: a /32, /24 or /16 inside 10.0.0.0/8, added then deleted. */
static void prefix_of(int i, struct cls_prefix *p)
{
	static const unsigned int lens[] = {32, 24, 16};
	unsigned int len = lens[i % 3];
	__u32 a;

	if (len == 32)
		a = 0x0a010000 | (i & 0xffff);
	else if (len == 24)
		a = 0x0a400000 | (i & 0x3fff) << 8;
	else
		a = 0x0a800000 | (i & 0x7f) << 16;
	a = htonl(a);
	memset(p, 0, sizeof(*p));
	p->family = AF_INET;
	p->len = len;
	memcpy(p->addr, &a, 4);
}

static int updates(struct cls_maps *m, int ops)
{
	struct cls_prefix p;
	double t0, t1, t2;
	int i, err = 0;

	for (i = 0; i < ops && !err; i++) {
		prefix_of(i, &p);
		t0 = now_ns();
		err = cls_route_set(m, &p, 1, CLS_ROUTE_ADD);
		t1 = now_ns();
		if (!err)
			err = cls_route_del(m, &p);
		t2 = now_ns();
		if (!err)
			printf("{\"part\":\"lib\",\"op\":\"route_update\","
			       "\"len\":%u,\"ns\":%.0f}\n"
			       "{\"part\":\"lib\",\"op\":\"route_delete\","
			       "\"len\":%u,\"ns\":%.0f}\n",
			       p.len, t1 - t0, p.len, t2 - t1);
	}
	return err;
}

int main(int argc, char **argv)
{
	struct cls_maps m;
	int err;

	if (argc != 4) {
		fprintf(stderr, "usage: routebench BPFFS OPS BUILDS\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The lock, as every writer takes it. */
	err = cls_open(&m, &(struct cls_open_opts){ .bpffs = argv[1],
						    .write = true,
						    .wait_ms = -1 });
	if (err) {
		fprintf(stderr, "routebench: %s: %s %s\n", argv[1],
			strerror(-err), cls_open_error());
		return 1;
	}
	table_line(&m, "before");
	err = updates(&m, atoi(argv[2]));
	if (!err)
		err = builds(&m, atoi(argv[3]));
	if (!err)
		table_line(&m, "after");
	if (err)
		fprintf(stderr, "routebench: %s\n", strerror(-err));
	cls_close(&m);
	return err ? 1 : 0;
}
