// SPDX-License-Identifier: GPL-2.0-only
/*
 * classifier sync: the route sync daemon (sync/) over the pinned maps.
 * The applier (sync/applier.h) turns the engine's calls into the maps
 * library's: synced routes one at a time, the whole synced set through
 * the route transaction (CLS_TXN_SYNCED: hand routes stay and win), and
 * the daemon's status into the state map, all under the pin-directory
 * lock, which the daemon takes per batch so the CLI keeps working.
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/log.h"
#include "sync/sync.h"

/* The engine's routes are passed through, field by field (see below). */
_Static_assert(sizeof(struct sync_route) == sizeof(struct cls_route) &&
		       offsetof(struct sync_route, class_idx) ==
			       offsetof(struct cls_route, class_idx),
	       "struct sync_route and struct cls_route differ");

#define NSEC 1000000000ULL
/* Routes converted at a time on their way into a transaction. */
#define ADD_CHUNK 1024

static int a_lock(void *ctx, unsigned int wait_ms)
{
	int err = cls_lock(ctx, wait_ms > INT_MAX ? INT_MAX : (int)wait_ms);

	/* who holds it, which the engine's errno line cannot say */
	if (err && *cls_open_error())
		pr_warn("sync: %s\n", cls_open_error());
	return err;
}

static int a_unlock(void *ctx)
{
	return cls_unlock(ctx);
}

static int a_set(void *ctx, const struct cls_prefix *p, __u32 class_idx)
{
	return cls_route_sync_set(ctx, p, class_idx);
}

static int a_del(void *ctx, const struct cls_prefix *p)
{
	return cls_route_sync_del(ctx, p);
}

static int a_swap_begin(void *ctx, void **txn)
{
	struct cls_txn *t;
	int err = cls_txn_begin(ctx, CLS_TXN_SYNCED, &t);

	*txn = err ? NULL : t;
	return err;
}

/* Copied, not cast: the two structs are distinct types to the compiler. */
static int a_swap_add(void *ctx, void *txn, const struct sync_route *r,
		      size_t n)
{
	struct cls_route buf[ADD_CHUNK];
	size_t i, k;
	int err = 0;

	(void)ctx;
	for (i = 0; i < n && !err; i += k) {
		for (k = 0; k < ADD_CHUNK && i + k < n; k++) {
			buf[k].prefix = r[i + k].prefix;
			buf[k].class_idx = r[i + k].class_idx;
			buf[k].flags = 0;
		}
		err = cls_txn_add(txn, buf, k);
	}
	return err;
}

/* Returns how many routes the new set left out for a hand route. */
static int a_swap_commit(void *ctx, void *txn)
{
	struct cls_txn_result res;
	int err = cls_txn_commit(txn, &res);

	(void)ctx;
	return err ? err : (int)res.shadowed;
}

static void a_swap_abort(void *ctx, void *txn)
{
	(void)ctx;
	cls_txn_abort(txn);
}

/* In place: each element rewritten as the type the engine reads. */
static int a_dump(void *ctx, int family, struct sync_route **out, size_t *n)
{
	struct cls_route *r, c;
	struct sync_route s;
	size_t i;
	int err = cls_route_dump(ctx, family, CLS_SRC_SYNCED, &r, n);

	if (err)
		return err;
	for (i = 0; i < *n; i++) {
		memcpy(&c, &r[i], sizeof(c));
		s.prefix = c.prefix;
		s.class_idx = c.class_idx;
		s.flags = 0;
		memcpy(&r[i], &s, sizeof(s));
	}
	*out = (struct sync_route *)r;
	return 0;
}

static int a_resolve(void *ctx, const char *tok, __u32 *class_idx)
{
	return cls_class_resolve(ctx, tok, class_idx);
}

/* The engine's reason words, as the state map records them. */
static const struct {
	const char *why;
	enum cls_resync_reason reason;
} reasons[] = {
	{"start", CLS_RESYNC_START},
	{"overrun", CLS_RESYNC_OVERRUN},
	{"lost event", CLS_RESYNC_OVERRUN},
	{"reload", CLS_RESYNC_RULES},
	{"classes changed", CLS_RESYNC_RULES},
	{"link down", CLS_RESYNC_LINK},
	{"link deleted", CLS_RESYNC_LINK},
	{"link renamed", CLS_RESYNC_LINK},
	{"address removed", CLS_RESYNC_ADDR},
	{"ambiguous replace", CLS_RESYNC_KERNEL},
	{"ambiguous delete", CLS_RESYNC_KERNEL},
	{"partial multipath delete", CLS_RESYNC_KERNEL},
	{"inconsistent ipv6 route", CLS_RESYNC_KERNEL},
	{"inconsistent ipv6 delete", CLS_RESYNC_KERNEL},
	{"changed during the dump", CLS_RESYNC_KERNEL},
	{"periodic", CLS_RESYNC_PERIODIC},
	{"routes changed by hand", CLS_RESYNC_HAND},
};

/* What is not named above is a retry: "retry", "lock failed", ... */
static enum cls_resync_reason reason_of(const char *why)
{
	size_t i;

	if (!*why)
		return CLS_RESYNC_NONE;
	for (i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
		if (!strcmp(why, reasons[i].why))
			return reasons[i].reason;
	return CLS_RESYNC_RETRY;
}

static __u32 clamp_u32(__u64 v)
{
	return v > UINT32_MAX ? UINT32_MAX : v;
}

static int a_status(void *ctx, const struct sync_status *s)
{
	struct cls_sync_status cs = {
		.pid = s->running ? s->pid : 0,
		.routes = clamp_u32(s->routes_v4 + s->routes_v6),
		.shadowed = clamp_u32(s->shadowed),
		.errors = clamp_u32(s->errors),
		.started = s->started / NSEC,
		.last_resync = s->last_resync / NSEC,
		.last_reason = reason_of(s->last_resync_reason),
		.lag_us = s->lag_us,
		.events = s->events,
	};

	return cls_sync_status_set(ctx, &cs);
}

static int a_outside(void *ctx, struct sync_outside *o)
{
	struct cls_state s;
	int err = cls_state_read(ctx, &s), f;

	if (err)
		return err;
	o->class_gen = s.class_gen;
	for (f = 0; f < 2; f++) {
		o->hand[f] = s.routes[f][CLS_SRC_HAND];
		o->synced[f] = s.routes[f][CLS_SRC_SYNCED];
	}
	return 0;
}

static void maps_applier(struct cls_maps *m, struct sync_applier *a)
{
	*a = (struct sync_applier){
		.ctx = m,
		.lock = a_lock,
		.unlock = a_unlock,
		.set = a_set,
		.del = a_del,
		.swap_begin = a_swap_begin,
		.swap_add = a_swap_add,
		.swap_commit = a_swap_commit,
		.swap_abort = a_swap_abort,
		.dump = a_dump,
		.resolve = a_resolve,
		.status = a_status,
		.outside = a_outside,
	};
}

/* A daemon that runs on these pins already (its pid, alive, a classifier). */
static int other_daemon(struct cli *c, __u32 *pid)
{
	struct cls_state s;
	char path[64], comm[32] = "";
	FILE *f;
	int err = cls_state_read(&c->maps, &s);

	if (err)
		return cli_errno(c, err, "reading the sync status");
	*pid = s.sync.pid;
	if (!*pid || *pid == (__u32)getpid() || kill(*pid, 0))
		return 0;
	/* a pid the kernel gave to another program since is not ours */
	snprintf(path, sizeof(path), "/proc/%u/comm", *pid);
	f = fopen(path, "re");
	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	return !strncmp(comm, "classifier", 10);
}

static int sync_cmd(struct cli *c, int argc, char **argv)
{
	struct sync_options o = {
		.lock_wait_ms = c->wait_ms < 0 ? CLS_LOCK_WAIT_MS : c->wait_ms,
	};
	char why[SYNC_ERR_LEN];
	struct sync_applier a;
	__u32 pid = 0;
	int err, layout;

	if (argc >= 1 && !strcmp(argv[0], "config")) {
		if (argc < 2) {
			cli_err(c, "config needs a FILE");
			return -EINVAL;
		}
		o.config = argv[1];
		argc -= 2;
		argv += 2;
	}
	o.argc = argc;
	o.argv = argv;
	/* Bad rules change nothing: they are refused before the pins open. */
	err = sync_check_rules(&o, why);
	if (err) {
		cli_err(c, "%s", why);
		return err;
	}
	layout = cls_layout_of(c->root);
	if (!layout) {
		cli_err(c,
			"nothing set up under %s: add the classes the rules name first",
			c->root);
		return -ENOENT;
	}
	err = cli_maps_write(c);
	if (err)
		return err;
	err = other_daemon(c, &pid);
	if (err > 0) {
		cli_err(c, "another sync daemon (pid %u) follows these pins",
			pid);
		err = -EBUSY;
	}
	if (err)
		return err;
	err = cls_unlock(&c->maps);
	if (err)
		return cli_upkeep_failed(c, err);
	/* one line per event: resyncs, overruns, reloads, errors */
	if (log_get_level() < LOG_INFO)
		log_set_level(LOG_INFO);
	maps_applier(&c->maps, &a);
	err = sync_main(&o, &a);
	/* sync_main logged why; nothing more to say */
	return err;
}

static const struct cli_cmd sync_cmds[] = {
	CLI_CMD(NULL, sync_cmd, "[ config FILE ] [ RULE ]..."),
	{},
};

const struct cli_object cli_sync_obj = {
	.name = "sync",
	.cmds = sync_cmds,
	.help = "Daemon (foreground): keeps the synced routes equal to the kernel\n"
		"routes the rules select, following the kernel's routing tables.\n"
		"RULE := [ family inet|inet6 ] [ table ID|NAME|all ] [ protocol NAME ]\n"
		"        [ type TYPE ] [ metric N[-M] ] [ to PREFIX ] [ via PREFIX ]\n"
		"        [ dev NAME ] [ realm [SRC/]DST ] { class CLASS | ignore }\n"
		"SETTING := rcvbuf SIZE | resync INTERVAL|off\n"
		"The first matching rule decides; no table means main.  SIGHUP\n"
		"reads the rules again; SIGTERM stops and leaves the routes.\n"
		"See classifier-sync(8).\n",
};
