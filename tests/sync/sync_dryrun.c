// SPDX-License-Identifier: GPL-2.0-only
/*
 * sync_dryrun: the sync daemon (sync_main, real netlink, real kernel
 * tables) over the in-memory applier, for tests and benchmarks until
 * `classifier sync` drives the pinned maps.  It shows what would be
 * synced; it does not classify anything.
 *
 *   sync_dryrun [-v] [--state FILE | --status FILE] [--changes] [--null]
 *               [--rcvbuf SIZE] [--class NAME=CLASSID]...
 *               [--hand PREFIX=CLASS]... [config FILE] [RULE...]
 *
 * --state FILE   after every batch that changed something, FILE holds
 *                every route, "PREFIX CLASSID synced|hand", sorted (IPv4
 *                first), and FILE.status the daemon's status, "key value"
 *                lines; both replaced atomically (rename)
 * --status FILE  the status file alone (benchmarks: no route list)
 * --changes      one line per change on stdout, "SECONDS.NANOS set PREFIX
 *                CLASSID" / "... del PREFIX" / "... swap N" (CLOCK_REALTIME)
 * --null         keep no routes (what the daemon alone costs in memory)
 * --class        a class name the rules may use (classids resolve as such)
 * --hand         a route "added by hand" before the daemon starts
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "lib/parse.h"
#include "sync/sync.h"
#include "tests/sync/mem_applier.h"

struct dryrun {
	struct mem_applier m;
	const char *state;
	char status[4100];
	bool changes;
	bool dirty;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: sync_dryrun [-v] [--state FILE | --status FILE] [--changes] [--null]\n"
		"                   [--rcvbuf SIZE] [--class NAME=CLASSID]...\n"
		"                   [--hand PREFIX=CLASS]... [config FILE] [RULE...]\n");
	exit(2);
}

static void on_change(void *ctx, const char *op, const struct cls_prefix *p,
		      __u32 class_idx)
{
	struct dryrun *d = ctx;
	char pfx[PREFIX_STRLEN], cls[CLASSID_STRLEN];
	struct timespec ts;

	d->dirty = true;
	if (!d->changes)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (!strcmp(op, "swap")) {
		printf("%ld.%09ld swap %u\n", (long)ts.tv_sec, ts.tv_nsec,
		       class_idx);
	} else {
		format_prefix(p, pfx, sizeof(pfx));
		format_classid(class_idx, cls, sizeof(cls));
		if (!strcmp(op, "set"))
			printf("%ld.%09ld set %s %s\n", (long)ts.tv_sec,
			       ts.tv_nsec, pfx, cls);
		else
			printf("%ld.%09ld del %s\n", (long)ts.tv_sec,
			       ts.tv_nsec, pfx);
	}
	fflush(stdout);
}

/* Write path through path.tmp and a rename, so readers see all or nothing. */
static FILE *open_tmp(const char *path, char *tmp, size_t n)
{
	if ((size_t)snprintf(tmp, n, "%s.tmp", path) >= n)
		return NULL;
	return fopen(tmp, "w");
}

static void close_tmp(FILE *f, const char *tmp, const char *path)
{
	if (fclose(f) || rename(tmp, path))
		pr_warn("sync_dryrun: writing %s: %s\n", path, strerror(errno));
}

static void write_routes(struct dryrun *d)
{
	static const int fams[2] = {AF_INET, AF_INET6};
	char tmp[4096], pfx[PREFIX_STRLEN], cls[CLASSID_STRLEN];
	struct sync_route *r;
	size_t n, i;
	FILE *f = open_tmp(d->state, tmp, sizeof(tmp));
	int fi;

	if (!f)
		return;
	for (fi = 0; fi < 2; fi++) {
		if (mem_applier_all(&d->m, fams[fi], false, &r, &n))
			continue;
		for (i = 0; i < n; i++) {
			__u32 idx;
			bool hand;

			mem_applier_get(&d->m, &r[i].prefix, &idx, &hand);
			format_prefix(&r[i].prefix, pfx, sizeof(pfx));
			format_classid(r[i].class_idx, cls, sizeof(cls));
			fprintf(f, "%s %s %s\n", pfx, cls,
				hand ? "hand" : "synced");
		}
		free(r);
	}
	close_tmp(f, tmp, d->state);
}

static void on_status(void *ctx, const struct sync_status *s)
{
	struct dryrun *d = ctx;
	char tmp[4200];
	FILE *f;

	if (d->state && d->dirty)
		write_routes(d);
	d->dirty = false;
	if (!d->status[0])
		return;
	f = open_tmp(d->status, tmp, sizeof(tmp));
	if (!f)
		return;
	fprintf(f,
		"running %u\n"
		"routes_v4 %llu\n"
		"routes_v6 %llu\n"
		"shadowed %llu\n"
		"kernel_routes %llu\n"
		"events %llu\n"
		"changes %llu\n"
		"resyncs %llu\n"
		"overruns %llu\n"
		"errors %llu\n"
		"last_resync_reason %s\n"
		"last_resync_ms %u\n"
		"lag_us %u\n"
		"lag_max_us %u\n",
		s->running, (unsigned long long)s->routes_v4,
		(unsigned long long)s->routes_v6,
		(unsigned long long)s->shadowed,
		(unsigned long long)s->kernel_routes,
		(unsigned long long)s->events, (unsigned long long)s->changes,
		(unsigned long long)s->resyncs, (unsigned long long)s->overruns,
		(unsigned long long)s->errors, s->last_resync_reason,
		s->last_resync_ms, s->lag_us, s->lag_max_us);
	close_tmp(f, tmp, d->status);
}

/* "NAME=VALUE" split in place. */
static char *split_eq(char *s)
{
	char *eq = strchr(s, '=');

	if (!eq)
		usage();
	*eq = '\0';
	return eq + 1;
}

static __u32 class_of(struct dryrun *d, const char *tok)
{
	struct sync_applier a;
	__u32 idx;

	mem_applier_ops(&d->m, &a);
	if (a.resolve(a.ctx, tok, &idx)) {
		fprintf(stderr, "sync_dryrun: class %s: unknown\n", tok);
		exit(2);
	}
	return idx;
}

int main(int argc, char **argv)
{
	static struct dryrun d;
	struct sync_options o = {0};
	struct sync_applier a;
	int i, err;
	__u64 v;

	mem_applier_init(&d.m);
	d.m.on_change = on_change;
	d.m.on_status = on_status;
	d.m.hook_ctx = &d;
	log_set_level(LOG_INFO);
	log_set_prefix("sync_dryrun");
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *opt = argv[i];
		char *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(opt, "-v")) {
			log_set_level(LOG_DEBUG);
			continue;
		}
		if (!strcmp(opt, "--changes")) {
			d.changes = true;
			continue;
		}
		if (!strcmp(opt, "--null")) {
			d.m.null = true;
			continue;
		}
		if (!val)
			usage();
		i++;
		if (!strcmp(opt, "--state") || !strcmp(opt, "--status")) {
			bool routes = !strcmp(opt, "--state");

			if (strlen(val) > sizeof(d.status) - 8)
				usage();
			snprintf(d.status, sizeof(d.status),
				 routes ? "%s.status" : "%s", val);
			if (routes)
				d.state = val;
		} else if (!strcmp(opt, "--rcvbuf")) {
			if (parse_u64(val, &v) || v < 1 || v > (1U << 30))
				usage();
			o.rcvbuf = v;
		} else if (!strcmp(opt, "--class")) {
			char *id = split_eq(val);
			__u32 classid;

			if (parse_classid(id, &classid) ||
			    mem_applier_class(&d.m, val, classid))
				usage();
		} else if (!strcmp(opt, "--hand")) {
			char *cls = split_eq(val);
			struct cls_prefix p;

			if (parse_prefix(val, &p, NULL) ||
			    mem_applier_hand(&d.m, &p, class_of(&d, cls)))
				usage();
			d.dirty = true;
		} else {
			usage();
		}
	}
	if (i + 1 < argc && !strcmp(argv[i], "config")) {
		o.config = argv[i + 1];
		i += 2;
	}
	o.argc = argc - i;
	o.argv = argv + i;
	mem_applier_ops(&d.m, &a);
	err = sync_main(&o, &a);
	mem_applier_free(&d.m);
	return err ? 1 : 0;
}
