// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's loop: poll the rtnetlink socket and a signalfd; each
 * wake-up reads what is queued and commits it as one batch.  A resync
 * (start, overrun, reload, link down, ...) first reads the socket empty,
 * then dumps the selected tables on the same socket: the dumped routes
 * and the notifications of changes made meanwhile come in one queue, in
 * the kernel's order, and go into the resync as they come
 * (sync/rtsock.h, sync/engine.h).  For IPv4 tables it then compares the
 * routes each dump gave with the kernel's count (sync/kcount.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <linux/rtnetlink.h>

#include "lib/log.h"
#include "sync/engine.h"
#include "sync/kcount.h"
#include "sync/rtsock.h"
#include "sync/sync.h"

/* Messages read before the batch is committed, at most. */
#define BATCH_MAX  65536
#define MAX_TABLES 256
/* How often to look at what other processes changed (one map read). */
#define OUTSIDE_MS 1000

/* Routes a resync's dumps gave, per table (all types, wanted or not). */
struct dumped {
	__u32 table;
	unsigned long routes;
};

struct daemon {
	const struct sync_options *o;
	const struct sync_applier *a;
	struct sync_engine *e;
	struct rtsock ev;
	int sigfd;
	__u64 now; /* CLOCK_MONOTONIC ns of the current read */
	struct kroute *k;
	struct dumped dumped[MAX_TABLES];
	size_t ndumped;
	__u32 rcvbuf;	    /* what the event socket was given */
	__u32 resync_s;	    /* the rules' periodic resync; 0: none */
	__u64 periodic_due; /* CLOCK_MONOTONIC ns; 0: none */
	__u64 outside_due;
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Where the rules' file lines come from, for messages. */
static const char *rules_source(const struct daemon *d)
{
	return d->o->config ? d->o->config : "command line";
}

/* Command-line rules, then the file's; not resolved. */
static int read_rules(const struct sync_options *o, struct sync_rules *rs,
		      char *err)
{
	int ret = 0;

	sync_rules_init(rs);
	if (o->argc)
		ret = sync_rules_parse_args(rs, o->argc, o->argv,
					    "command line", 0, err,
					    SYNC_ERR_LEN);
	if (!ret && o->config)
		ret = sync_rules_load(rs, o->config, err, SYNC_ERR_LEN);
	if (!ret && !rs->n) {
		snprintf(err, SYNC_ERR_LEN,
			 "%s: no rules (a rule is e.g. \"table 100 realm 5 class 1:10\")",
			 o->config ? o->config : "command line");
		ret = -EINVAL;
	}
	if (ret)
		sync_rules_free(rs);
	return ret;
}

int sync_check_rules(const struct sync_options *o, char *err)
{
	struct sync_rules rs;
	int ret = read_rules(o, &rs, err);

	if (!ret)
		sync_rules_free(&rs);
	return ret;
}

/* The rules, resolved to class indices; what is wrong goes to err. */
static int load_rules(const struct daemon *d, struct sync_rules *rs, char *err)
{
	int ret = read_rules(d->o, rs, err);

	if (!ret)
		ret = sync_rules_resolve(rs, d->a->resolve, d->a->ctx,
					 rules_source(d), err, SYNC_ERR_LEN);
	if (ret)
		sync_rules_free(rs);
	return ret;
}

static void count_dumped(struct daemon *d, __u32 table)
{
	size_t i;

	for (i = 0; i < d->ndumped; i++)
		if (d->dumped[i].table == table)
			break;
	if (i == d->ndumped) {
		/* more tables than that: their counts go uncompared */
		if (i == MAX_TABLES)
			return;
		d->dumped[d->ndumped].table = table;
		d->dumped[d->ndumped++].routes = 0;
	}
	d->dumped[i].routes++;
}

static unsigned long dumped_routes(const struct daemon *d, __u32 table)
{
	size_t i;

	for (i = 0; i < d->ndumped; i++)
		if (d->dumped[i].table == table)
			return d->dumped[i].routes;
	return 0;
}

static int dump_route(void *ctx, const struct nlmsghdr *h)
{
	struct daemon *d = ctx;

	/* the kernel sends none; counted, and the dump goes on */
	if (kroute_decode(h, d->k)) {
		sync_engine_error(d->e, -EINVAL, "decoding a dumped route");
		return 0;
	}
	count_dumped(d, d->k->table);
	return sync_engine_resync_add(d->e, d->k);
}

static int event_msg(void *ctx, const struct nlmsghdr *h);

/* One table's dump (0: every table); the events meanwhile go in too. */
static int dump_table(struct daemon *d, int family, __u32 table)
{
	struct rtsock_dump r;
	int err;

	d->now = mono_ns();
	err = rtsock_dump_routes(&d->ev, family, table, dump_route, event_msg,
				 d, &r);
	if (r.overrun)
		sync_engine_overrun(d->e, mono_ns());
	if (r.intr)
		sync_engine_resync_dirty(d->e);
	if (err == -EMSGSIZE) {
		/* kernels before 6.10 say so of a route too long for a dump */
		pr_warn("sync: the kernel ended the dump of %s table %u early: a route does not fit a dump message (EMSGSIZE)\n",
			family == AF_INET ? "IPv4" : "IPv6", table);
		sync_engine_resync_partial(d->e, family, table);
		return 0;
	}
	return err;
}

/*
 * The kernel's count of each IPv4 table the rules want against what the
 * dumps gave: fewer dumped means the kernel ended a dump early without a
 * word (6.10 and later).  Only a dump during which nothing changed can be
 * compared; what changed between the dumps and the count is read first.
 */
static void check_counts(struct daemon *d)
{
	struct rtsock_read r;
	struct kcount kc;
	__u64 routes;
	size_t i;

	if (!sync_engine_resync_clean(d->e) || kcount_ipv4(&kc))
		return;
	d->now = mono_ns();
	rtsock_drain(&d->ev, SIZE_MAX, event_msg, d, &r);
	if (r.overrun)
		sync_engine_overrun(d->e, d->now);
	for (i = 0; i < kc.n && sync_engine_resync_clean(d->e); i++) {
		__u32 table = kc.t[i].table;

		if (!sync_rules_want(sync_engine_rules(d->e), AF_INET, table) ||
		    !kcount_get(&kc, table, &routes) ||
		    routes <= dumped_routes(d, table))
			continue;
		pr_warn("sync: the kernel ended the dump of IPv4 table %u early (%lu of %llu routes): a route does not fit a dump message\n",
			table, dumped_routes(d, table),
			(unsigned long long)routes);
		sync_engine_resync_partial(d->e, AF_INET, table);
	}
	kcount_free(&kc);
}

static int dump_family(struct daemon *d, int family)
{
	__u32 tables[MAX_TABLES];
	int n = sync_rules_tables(sync_engine_rules(d->e), family, tables,
				  MAX_TABLES),
	    err = 0, i;

	if (!n)
		return 0;
	d->ndumped = 0;
	if (n < 0 || !d->ev.strict)
		err = dump_table(d, family, 0);
	for (i = 0; !err && d->ev.strict && i < n; i++)
		err = dump_table(d, family, tables[i]);
	if (!err && family == AF_INET)
		check_counts(d);
	return err;
}

static void read_all(struct daemon *d);

static int resync(struct daemon *d, const char *reason)
{
	__u64 start;
	char why[32];
	int err;

	/* the reason lives in the engine, which the resync resets */
	snprintf(why, sizeof(why), "%s", reason);
	/*
	 * From an empty queue: after an overrun the kernel drops every
	 * notification, without another ENOBUFS, until a read finds the
	 * queue empty; a dump started before would lose what changes during
	 * it without a word.
	 */
	read_all(d);
	start = mono_ns();
	err = sync_engine_resync_begin(d->e);
	if (!err)
		err = dump_family(d, AF_INET);
	if (!err)
		err = dump_family(d, AF_INET6);
	if (err) {
		sync_engine_resync_abort(d->e, err, mono_ns());
		return err;
	}
	err = sync_engine_resync_end(d->e, why, start);
	/* the next periodic one counts from the end of any resync */
	d->periodic_due = d->resync_s ? mono_ns() + d->resync_s * 1000000000ULL
				      : 0;
	return err;
}

/* The rules' periodic resync interval: theirs, or the default. */
static void set_periodic(struct daemon *d, __u32 from_rules)
{
	__u32 s = from_rules ? from_rules : SYNC_RESYNC_DEFAULT;

	d->resync_s = s == SYNC_RESYNC_OFF ? 0 : s;
	if (d->resync_s)
		pr_info("sync: periodic resync every %u s\n", d->resync_s);
	else
		pr_info("sync: no periodic resync\n");
}

static void link_msg(struct daemon *d, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = nlmsg_data(h);
	const char *name = NULL;
	struct nlattr *a;
	int rem;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return;
	nla_for_each_attr(a, nlmsg_attrdata(h, sizeof(*ifi)),
			  nlmsg_attrlen(h, sizeof(*ifi)), rem)
	{
		if (nla_type(a) == IFLA_IFNAME && nla_len(a) > 0 &&
		    nla_len(a) <= IF_NAMESIZE &&
		    ((const char *)nla_data(a))[nla_len(a) - 1] == '\0')
			name = nla_data(a);
	}
	sync_engine_link(d->e, ifi->ifi_index, name, ifi->ifi_flags & IFF_UP,
			 h->nlmsg_type == RTM_DELLINK);
}

static int event_msg(void *ctx, const struct nlmsghdr *h)
{
	struct daemon *d = ctx;
	const struct ifaddrmsg *ifa;

	switch (h->nlmsg_type) {
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		if (kroute_decode(h, d->k)) {
			sync_engine_error(d->e, -EINVAL,
					  "decoding a route event");
			return 0;
		}
		sync_engine_route(d->e, h->nlmsg_type == RTM_DELROUTE,
				  h->nlmsg_flags, d->k, d->now);
		return 0;
	case RTM_NEWLINK:
	case RTM_DELLINK:
		link_msg(d, h);
		return 0;
	case RTM_DELADDR:
		ifa = nlmsg_data(h);
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifa)) &&
		    ifa->ifa_family == AF_INET)
			sync_engine_addr_gone(d->e);
		return 0;
	}
	return 0;
}

/* Read what is queued, a batch at most, and commit it; whether more is. */
static bool read_events(struct daemon *d)
{
	struct rtsock_read r;
	int err;

	d->now = mono_ns();
	err = rtsock_drain(&d->ev, BATCH_MAX, event_msg, d, &r);
	if (r.overrun)
		sync_engine_overrun(d->e, d->now);
	if (err)
		sync_engine_error(d->e, err, "reading route events");
	/* a message too long even to keep: what it said is lost */
	if (err == -EMSGSIZE)
		sync_engine_want_resync(d->e, "lost event", 0, d->now);
	/* what was read before an error is applied all the same */
	sync_engine_commit(d->e);
	return r.more;
}

/* Read and commit until the queue is empty. */
static void read_all(struct daemon *d)
{
	while (read_events(d))
		;
}

/* The event socket's buffer: the option, else the rules' setting. */
static void set_rcvbuf(struct daemon *d, __u32 from_rules)
{
	__u32 want = d->o->rcvbuf ? d->o->rcvbuf
		     : from_rules ? from_rules
				  : SYNC_RCVBUF_DEFAULT;
	int got = 0, err;

	if (want == d->rcvbuf)
		return;
	err = rtsock_set_rcvbuf(&d->ev, want, &got);
	if (err) {
		sync_engine_error(d->e, err, "setting the event buffer");
		return;
	}
	d->rcvbuf = want;
	/* the kernel reports twice what it grants */
	if ((__u32)got / 2 < want)
		pr_warn("sync: event buffer %d bytes, not %u: net.core.rmem_max caps it without CAP_NET_ADMIN\n",
			got / 2, want);
	else
		pr_info("sync: event buffer %u bytes\n", want);
}

static void reload(struct daemon *d)
{
	char err[SYNC_ERR_LEN], what[SYNC_ERR_LEN + 40];
	struct sync_rules rs;
	__u32 rcvbuf, resync_s;

	pr_info("sync: reload: reading the rules again\n");
	if (load_rules(d, &rs, err)) {
		snprintf(what, sizeof(what),
			 "reload: %s; the rules in force stay", err);
		sync_engine_error(d->e, 0, what);
		sync_engine_status_push(d->e);
		return;
	}
	rcvbuf = rs.rcvbuf;
	resync_s = rs.resync_s;
	if (sync_engine_set_rules(d->e, &rs)) {
		sync_engine_error(d->e, -ENOMEM, "reload");
		sync_engine_want_resync(d->e, "reload", 0, mono_ns());
		return;
	}
	set_rcvbuf(d, rcvbuf);
	set_periodic(d, resync_s);
	resync(d, "reload");
}

/* Returns 1 to stop. */
static int signal_msg(struct daemon *d)
{
	struct signalfd_siginfo si;

	if (read(d->sigfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGHUP) {
		reload(d);
		return 0;
	}
	pr_info("sync: stop (%s): %llu routes stay synced\n",
		strsignal(si.ssi_signo),
		(unsigned long long)(sync_engine_status(d->e)->routes_v4 +
				     sync_engine_status(d->e)->routes_v6));
	return 1;
}

static __u64 earliest(__u64 a, __u64 b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

static int poll_timeout(const struct daemon *d)
{
	__u64 due = sync_engine_resync_due(d->e, NULL), now;

	due = earliest(earliest(due, d->periodic_due), d->outside_due);
	if (!due)
		return -1;
	now = mono_ns();
	return due <= now ? 0 : (int)((due - now + 999999) / 1000000);
}

/* What the timers say is due: another look outside, a resync. */
static void timers(struct daemon *d)
{
	__u64 now = mono_ns(), due;
	const char *reason;

	if (d->outside_due <= now) {
		sync_engine_check_outside(d->e, rules_source(d), now);
		d->outside_due = now + OUTSIDE_MS * 1000000ULL;
	}
	due = sync_engine_resync_due(d->e, &reason);
	if (due && due <= now) {
		/*
		 * What queued while a batch was applied may show the tables
		 * are not quiet yet: read it before deciding.
		 */
		read_all(d);
		due = sync_engine_resync_due(d->e, &reason);
		if (due && due <= mono_ns())
			resync(d, reason);
	} else if (!due && d->periodic_due && d->periodic_due <= now) {
		resync(d, "periodic");
	}
}

static int run(struct daemon *d)
{
	struct pollfd p[2] = {
		{.fd = d->ev.fd, .events = POLLIN},
		{.fd = d->sigfd, .events = POLLIN},
	};

	d->outside_due = mono_ns() + OUTSIDE_MS * 1000000ULL;
	for (;;) {
		if (poll(p, 2, poll_timeout(d)) < 0 && errno != EINTR)
			return -errno;
		if ((p[1].revents & POLLIN) && signal_msg(d))
			return 0;
		/* an overrun shows as POLLERR; the read reports it */
		if (p[0].revents & (POLLIN | POLLERR))
			read_events(d);
		timers(d);
	}
}

static int setup(struct daemon *d)
{
	char why[SYNC_ERR_LEN];
	struct sync_rules rs;
	sigset_t mask;
	__u32 rcvbuf, resync_s;
	int err;

	err = load_rules(d, &rs, why);
	if (err) {
		pr_warn("sync: %s\n", why);
		return err;
	}
	rcvbuf = rs.rcvbuf;
	resync_s = rs.resync_s;
	err = sync_engine_new(d->a, d->o->lock_wait_ms, &d->e);
	if (!err)
		err = sync_engine_set_rules(d->e, &rs);
	if (err) {
		sync_rules_free(&rs);
		return err;
	}
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -errno;
	d->sigfd = signalfd(-1, &mask, SFD_CLOEXEC);
	if (d->sigfd < 0)
		return -errno;
	/* one decoded route at a time, reused: KROUTE_MAX_NH nexthops */
	d->k = malloc(sizeof(*d->k));
	if (!d->k)
		return -ENOMEM;
	/* subscribe before the first dump: no change can fall between */
	err = rtsock_listen(&d->ev);
	if (err) {
		pr_warn("sync: cannot listen to route events: %s\n",
			strerror(-err));
		return err;
	}
	pr_info("sync: start: %zu rules%s%s\n", sync_engine_rules(d->e)->n,
		d->o->config ? " from " : "", d->o->config ? d->o->config : "");
	set_rcvbuf(d, rcvbuf);
	set_periodic(d, resync_s);
	return 0;
}

int sync_main(const struct sync_options *o, const struct sync_applier *a)
{
	struct daemon d = {.o = o, .a = a, .sigfd = -1, .ev = {.fd = -1}};
	int err;

	err = setup(&d);
	if (!err) {
		/* a failed first resync is retried by the loop, as any other */
		resync(&d, "start");
		err = run(&d);
		sync_engine_status(d.e)->running = 0;
		sync_engine_status_push(d.e);
	}
	sync_engine_free(d.e);
	free(d.k);
	rtsock_close(&d.ev);
	if (d.sigfd >= 0)
		close(d.sigfd);
	return err;
}
