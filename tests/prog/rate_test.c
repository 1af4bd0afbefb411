// SPDX-License-Identifier: GPL-2.0-only
/*
 * BPF_PROG_TEST_RUN tests of the policer and the pacer (xdp_tc/rate.h)
 * with the test's own timestamps (tests/prog/rate_test.bpf.c): burst,
 * rate, idle credit, reset, the cost arithmetic against user space's,
 * departure times, the horizon, CE, and the clock under two CPUs at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "tests/prog/rate_test.h" /* before the skeleton: its types */
#include "rate_test.skel.h"
#include "maps/rate.h"
#include "tests/prog/pkt.h"

#define T0	 1000000000000ULL /* the test's now: 1000 s after boot */
#define LEN	 1000
#define ECN_ECT0 0x02
#define ECN_CE	 0x03

struct rt {
	struct rate_test_bpf *skel;
	char why[256];
};

static int rfail(struct rt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int rfail(struct rt *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return -1;
}

#define RCHECK(t, cond, ...)                                                   \
	do {                                                                   \
		if (!(cond))                                                   \
			return rfail(t, __VA_ARGS__);                          \
	} while (0)

static int reset(struct rt *t)
{
	int fd = bpf_map__fd(t->skel->maps.clocks);
	__u64 zero = 0;
	__u32 k;

	for (k = 0; k < 4; k++)
		if (bpf_map_update_elem(fd, &k, &zero, BPF_ANY))
			return -errno;
	memset(&t->skel->bss->args, 0, sizeof(t->skel->bss->args));
	memset(&t->skel->bss->counts, 0, sizeof(t->skel->bss->counts));
	t->skel->bss->args.len = LEN;
	t->skel->bss->args.now = T0;
	return 0;
}

static int set_rate(struct rt *t, __u64 bps, __u32 burst, __u32 horizon,
		    __u32 ce)
{
	if (cls_rate_set(&t->skel->bss->args.rate, bps, burst, horizon, ce))
		return rfail(t, "rate %llu refused", (unsigned long long)bps);
	return 0;
}

static __u64 clock_of(struct rt *t, __u32 k)
{
	__u64 v = 0;

	/* on CLOCK_MONOTONIC's scale (0 stays 0: a full bucket) */
	bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.clocks), &k, &v);
	return v ? v - CLS_RATE_EPOCH : 0;
}

struct shot {
	int verdict;
	struct __sk_buff skb;
	struct pkt out;
};

/* The packet through prog repeat times; ctx tstamp in, skb out. */
static int shoot(struct rt *t, struct bpf_program *prog, const struct pkt *p,
		 __u64 tstamp, __u32 repeat, struct shot *s)
{
	struct __sk_buff in = {.tstamp = tstamp};
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = p->buf,
		    .data_size_in = p->len, .data_out = s->out.buf,
		    .data_size_out = sizeof(s->out.buf), .ctx_in = &in,
		    .ctx_size_in = sizeof(in), .ctx_out = &s->skb,
		    .ctx_size_out = sizeof(s->skb), .repeat = repeat);

	memset(s, 0, sizeof(*s));
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &o))
		return rfail(t, "test run: %s", strerror(errno));
	s->verdict = (int)o.retval;
	s->out.len = o.data_size_out;
	return 0;
}

static int v4(struct rt *t, struct pkt *p, __u8 tos)
{
	pkt_eth(p, NULL, 0, PKT_ETH_P_IP);
	if (pkt_ipv4(p, "192.0.2.1", "198.51.100.1", tos))
		return rfail(t, "packet");
	return 0;
}

/* Runs the policer n times at the args' now; returns how many passed. */
static long police_n(struct rt *t, __u32 n)
{
	__u64 before = t->skel->bss->counts.passed;
	struct shot s;
	struct pkt p;

	if (v4(t, &p, 0) || shoot(t, t->skel->progs.police, &p, 0, n, &s))
		return -1;
	return (long)(t->skel->bss->counts.passed - before);
}

/* 1 Gbit/s: 8 ns a byte, 8000 ns a 1000-byte packet. */
#define GBIT_BPS 125000000ULL
#define COST	 8000ULL

static int police_burst_then_rate(struct rt *t)
{
	struct rate_args *a = &t->skel->bss->args;
	long n;

	if (set_rate(t, GBIT_BPS, 10 * LEN, 0, 0))
		return -1;
	/* A full bucket of 10 packets, and one more takes it below zero. */
	n = police_n(t, 20);
	RCHECK(t, n == 11, "%ld of 20 passed on a full bucket, want 11", n);
	a->now += COST;
	n = police_n(t, 5);
	RCHECK(t, n == 1, "%ld passed one packet time later, want 1", n);
	a->now += COST / 2;
	n = police_n(t, 5);
	RCHECK(t, n == 0, "%ld passed half a packet time later, want 0", n);
	a->now += COST / 2;
	n = police_n(t, 5);
	RCHECK(t, n == 1, "%ld passed at the next packet time, want 1", n);
	return 0;
}

static int police_idle_credit_is_the_burst(struct rt *t)
{
	struct rate_args *a = &t->skel->bss->args;
	long n;

	if (set_rate(t, GBIT_BPS, 10 * LEN, 0, 0) || police_n(t, 20) != 11)
		return rfail(t, "first burst");
	a->now += 3600ULL * 1000000000;
	n = police_n(t, 100);
	RCHECK(t, n == 11, "%ld passed after an hour idle, want the burst (11)",
	       n);
	return 0;
}

/* A second after boot, a bucket 10 s long is still full (CLS_RATE_EPOCH). */
static int police_full_bucket_soon_after_boot(struct rt *t)
{
	long n;

	t->skel->bss->args.now = 1000000000;
	if (set_rate(t, 1000, 10 * LEN, 0, 0))
		return -1;
	n = police_n(t, 20);
	RCHECK(t, n == 11, "%ld of 20 passed 1 s after boot, want 11", n);
	return 0;
}

static int police_zeroed_clock_is_a_full_bucket(struct rt *t)
{
	int fd = bpf_map__fd(t->skel->maps.clocks);
	__u64 zero = 0;
	__u32 k = 0;
	long n;

	if (set_rate(t, GBIT_BPS, 10 * LEN, 0, 0) || police_n(t, 20) != 11)
		return rfail(t, "first burst");
	RCHECK(t, police_n(t, 5) == 0, "an empty bucket passed packets");
	if (bpf_map_update_elem(fd, &k, &zero, BPF_ANY))
		return rfail(t, "zero clock: %s", strerror(errno));
	n = police_n(t, 20);
	RCHECK(t, n == 11, "%ld passed after a reset, want 11", n);
	return 0;
}

static int police_holds_2x_to_rate(struct rt *t)
{
	struct rate_args *a = &t->skel->bss->args;
	const __u32 n = 100000;
	long passed;

	/* Offered at twice the rate: a packet every half packet time. */
	if (set_rate(t, GBIT_BPS, 10 * LEN, 0, 0))
		return -1;
	t->skel->bss->counts.shared_now = T0;
	a->step = COST / 2;
	passed = police_n(t, n);
	RCHECK(t, passed == n / 2 + 10 || passed == n / 2 + 11,
	       "%ld of %u passed at 2x the rate, want %u + the burst", passed,
	       n, n / 2);
	return 0;
}

/* The data path's cost of a packet is user space's, and near exact. */
static int police_cost_agrees_at_every_rate(struct rt *t)
{
	static const __u64 rates[] = {
		1,	  1250,	      1250000,	      12500000,
		GBIT_BPS, 1250000000, 12500000000ULL, 1000000000000ULL};
	static const __u32 lens[] = {64, 1514, 65536};
	int fd = bpf_map__fd(t->skel->maps.clocks);
	__u64 zero = 0, got, want;
	double exact;
	size_t i, j;
	__u32 k = 0;

	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			if (set_rate(t, rates[i], 0, 0, 0))
				return -1;
			t->skel->bss->args.len = lens[j];
			bpf_map_update_elem(fd, &k, &zero, BPF_ANY);
			if (police_n(t, 1) != 1)
				return rfail(t, "first packet over");
			/* burst 0: the clock was now, now it is now + cost */
			got = clock_of(t, 0) - T0;
			want = cls_rate_ns(&t->skel->bss->args.rate, lens[j]);
			exact = lens[j] * 1e9 / rates[i];
			RCHECK(t, got == want,
			       "rate %llu len %u: program %llu ns, user space "
			       "%llu",
			       (unsigned long long)rates[i], lens[j],
			       (unsigned long long)got,
			       (unsigned long long)want);
			RCHECK(t,
			       got - exact <= 0.5 + exact / (1ULL << 31) &&
				       exact - got <=
					       0.5 + exact / (1ULL << 31),
			       "rate %llu len %u: %llu ns, exact %.3f",
			       (unsigned long long)rates[i], lens[j],
			       (unsigned long long)got, exact);
		}
	}
	return 0;
}

/* ---- pacing ---- */

static int pace_one(struct rt *t, __u8 tos, __u64 tstamp, struct shot *s)
{
	struct pkt p;

	if (v4(t, &p, tos))
		return -1;
	return shoot(t, t->skel->progs.pace, &p, tstamp, 1, s);
}

static int pace_spaces_departures(struct rt *t)
{
	struct shot s;
	int k;

	if (set_rate(t, GBIT_BPS, 0, 1000000000, 0))
		return -1;
	for (k = 0; k < 5; k++) {
		if (pace_one(t, 0, 0, &s))
			return -1;
		RCHECK(t, s.verdict == 0, "packet %d dropped", k);
		if (!k) {
			RCHECK(t, s.skb.tstamp == 0,
			       "the first packet got a departure time %llu",
			       (unsigned long long)s.skb.tstamp);
			continue;
		}
		RCHECK(t, s.skb.tstamp == T0 + k * COST,
		       "packet %d leaves at now + %lld, want now + %llu", k,
		       (long long)(s.skb.tstamp - T0),
		       (unsigned long long)(k * COST));
	}
	RCHECK(t, t->skel->bss->counts.later == 4, "%llu delayed, want 4",
	       (unsigned long long)t->skel->bss->counts.later);
	return 0;
}

static int pace_horizon_drops_and_keeps_clock(struct rt *t)
{
	struct shot s;
	__u64 clock;
	int k;

	/* Departures now .. now + 5 packet times are within the horizon. */
	if (set_rate(t, GBIT_BPS, 0, 5 * COST, 0))
		return -1;
	for (k = 0; k <= 5; k++) {
		if (pace_one(t, 0, 0, &s))
			return -1;
		RCHECK(t, s.verdict == 0, "packet %d (now + %llu) dropped", k,
		       (unsigned long long)(k * COST));
	}
	clock = clock_of(t, 0);
	if (pace_one(t, 0, 0, &s))
		return -1;
	RCHECK(t, s.verdict == 2, "a departure past the horizon passed");
	RCHECK(t, clock_of(t, 0) == clock, "a dropped packet moved the clock");
	RCHECK(t, t->skel->bss->counts.over == 1, "drops counted %llu",
	       (unsigned long long)t->skel->bss->counts.over);
	t->skel->bss->args.now += COST;
	if (pace_one(t, 0, 0, &s))
		return -1;
	RCHECK(t, s.verdict == 0 && s.skb.tstamp == T0 + 6 * COST,
	       "one packet time later: verdict %d, departure now + %lld",
	       s.verdict, (long long)(s.skb.tstamp - T0));
	return 0;
}

static int pace_ce_above_threshold(struct rt *t)
{
	const struct pkt *o;
	struct shot s;
	int k;

	if (set_rate(t, GBIT_BPS, 0, 1000000000, 2 * COST))
		return -1;
	/* Delays 0, 1 and 2 packet times: not above the threshold. */
	for (k = 0; k < 3; k++) {
		if (pace_one(t, ECN_ECT0, 0, &s))
			return -1;
		RCHECK(t, (s.out.buf[15] & 3) == ECN_ECT0,
		       "packet %d delayed %d packet times marked", k, k);
	}
	if (pace_one(t, ECN_ECT0, 0, &s))
		return -1;
	o = &s.out;
	RCHECK(t, (o->buf[15] & 3) == ECN_CE, "3 packet times late: ECN %d",
	       o->buf[15] & 3);
	RCHECK(t, pkt_ipv4_csum(o->buf + 14, 20) == 0,
	       "the IPv4 checksum is wrong after CE");
	/* Not ECN-capable: delayed, never marked, not counted. */
	if (pace_one(t, 0, 0, &s))
		return -1;
	RCHECK(t, (s.out.buf[15] & 3) == 0 && s.verdict == 0,
	       "a not-ECT packet was marked or dropped");
	RCHECK(t, t->skel->bss->counts.ce == 1, "%llu marked, want 1",
	       (unsigned long long)t->skel->bss->counts.ce);
	return 0;
}

/*
 * A timestamp that is not a mono delivery time (a receive time, as
 * test runs give) is not a departure: a forwarded packet's stamp must
 * not send it past the horizon.
 */
static int pace_ignores_a_stamp_that_is_not_a_departure(struct rt *t)
{
	struct shot s;

	if (set_rate(t, GBIT_BPS, 0, 5 * COST, 0))
		return -1;
	if (pace_one(t, 0, T0 + 1000000000, &s))
		return -1;
	RCHECK(t, s.verdict == 0, "dropped by a receive timestamp");
	RCHECK(t, t->skel->bss->counts.last_depart == T0,
	       "departure now + %lld, want now",
	       (long long)(t->skel->bss->counts.last_depart - T0));
	return 0;
}

static int pace_burst_sends_an_idle_class_at_once(struct rt *t)
{
	struct shot s;
	int k;

	if (set_rate(t, GBIT_BPS, 3 * LEN, 1000000000, 0))
		return -1;
	for (k = 0; k < 4; k++) {
		if (pace_one(t, 0, 0, &s))
			return -1;
		RCHECK(t, s.skb.tstamp == 0, "packet %d of the burst delayed",
		       k);
	}
	if (pace_one(t, 0, 0, &s))
		return -1;
	RCHECK(t, s.skb.tstamp == T0 + COST,
	       "after the burst: departure now + %lld, want now + %llu",
	       (long long)(s.skb.tstamp - T0), (unsigned long long)COST);
	return 0;
}

/* ---- two CPUs on one clock ---- */

struct runner {
	struct rt *t;
	struct bpf_program *prog;
	int cpu;
	__u32 repeat;
	int err;
};

static void *run_on_cpu(void *arg)
{
	struct runner *r = arg;
	cpu_set_t set;
	struct shot s;
	struct pkt p;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	r->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!r->err)
		r->err = v4(r->t, &p, 0) ||
			 shoot(r->t, r->prog, &p, 0, r->repeat, &s);
	return NULL;
}

/* Two CPUs run prog repeat times each, at the same time. */
static int on_two_cpus(struct rt *t, struct bpf_program *prog, __u32 repeat)
{
	struct runner r[2];
	pthread_t th[2];
	int i, cpus[2], n = 0;
	cpu_set_t online;

	CPU_ZERO(&online);
	for (i = 0; i < CPU_SETSIZE && n < 2; i++) {
		CPU_ZERO(&online);
		CPU_SET(i, &online);
		if (sched_setaffinity(0, sizeof(online), &online) == 0)
			cpus[n++] = i;
	}
	if (n < 2)
		return rfail(t, "needs two CPUs, found %d", n);
	for (i = 0; i < 2; i++) {
		r[i] = (struct runner){t, prog, cpus[i], repeat, 0};
		if (pthread_create(&th[i], NULL, run_on_cpu, &r[i]))
			return rfail(t, "thread: %s", strerror(errno));
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	return r[0].err || r[1].err ? rfail(t, "a runner failed") : 0;
}

/*
 * Two CPUs police one class on one timeline at twice its rate.  No more
 * passes than the rate allows over the time the clock ran, plus the
 * burst: each passed packet moved the class's clock by its cost.
 * The same run with the racy policer shows what lost updates let
 * through (printed, as it depends on how the CPUs interleave).
 */
static long police_two_cpus(struct rt *t, struct bpf_program *prog,
			    __u32 repeat, __u64 *span)
{
	int fd = bpf_map__fd(t->skel->maps.clocks);
	__u64 zero = 0;
	__u32 k = 0;

	bpf_map_update_elem(fd, &k, &zero, BPF_ANY);
	memset(&t->skel->bss->counts, 0, sizeof(t->skel->bss->counts));
	t->skel->bss->counts.shared_now = T0;
	t->skel->bss->args.step = COST / 2;
	if (on_two_cpus(t, prog, repeat))
		return -1;
	*span = t->skel->bss->counts.shared_now - T0;
	return (long)t->skel->bss->counts.passed;
}

static int police_two_cpus_hold_the_rate(struct rt *t)
{
	const __u32 repeat = 200000;
	long passed, racy, most;
	__u64 span;

	if (set_rate(t, GBIT_BPS, 10 * LEN, 0, 0))
		return -1;
	passed = police_two_cpus(t, t->skel->progs.police, repeat, &span);
	if (passed < 0)
		return -1;
	RCHECK(t, span == 2ULL * repeat * (COST / 2),
	       "the shared clock ran %llu ns", (unsigned long long)span);
	most = (long)(span / COST) + 11;
	RCHECK(t, passed <= most, "%ld passed, the rate allows %ld", passed,
	       most);
	RCHECK(t, passed >= most - most / 100,
	       "%ld passed, the rate allows %ld: more than 1%% lost", passed,
	       most);
	racy = police_two_cpus(t, t->skel->progs.police_racy, repeat, &span);
	printf("     two CPUs at 2x: %ld passed of %ld allowed; without "
	       "atomics %ld (%+.2f%%)\n",
	       passed, most, racy, 100.0 * (racy - most) / most);
	return 0;
}

/* Two CPUs pace one class: every packet moves the clock by its cost. */
static int pace_two_cpus_lose_no_update(struct rt *t)
{
	const __u32 repeat = 100000;
	__u64 want = T0 + 2ULL * repeat * COST;

	if (set_rate(t, GBIT_BPS, 0, 0xffffffffU, 0))
		return -1;
	t->skel->bss->args.now = T0;
	if (on_two_cpus(t, t->skel->progs.pace, repeat))
		return -1;
	RCHECK(t, t->skel->bss->counts.passed == 2ULL * repeat,
	       "%llu of %u paced",
	       (unsigned long long)t->skel->bss->counts.passed, 2 * repeat);
	RCHECK(t, clock_of(t, 0) == want,
	       "the clock is at now + %lld ns, want now + %llu (%lld lost)",
	       (long long)(clock_of(t, 0) - T0),
	       (unsigned long long)(want - T0),
	       (long long)(want - clock_of(t, 0)) / (long long)COST);
	return 0;
}

struct rate_case {
	const char *name;
	int (*fn)(struct rt *t);
};

#define RT(fn)                                                                 \
	{                                                                      \
#fn, fn                                                        \
	}
static const struct rate_case cases[] = {
	RT(police_burst_then_rate),
	RT(police_idle_credit_is_the_burst),
	RT(police_zeroed_clock_is_a_full_bucket),
	RT(police_full_bucket_soon_after_boot),
	RT(police_holds_2x_to_rate),
	RT(police_cost_agrees_at_every_rate),
	RT(pace_spaces_departures),
	RT(pace_horizon_drops_and_keeps_clock),
	RT(pace_ce_above_threshold),
	RT(pace_ignores_a_stamp_that_is_not_a_departure),
	RT(pace_burst_sends_an_idle_class_at_once),
	RT(police_two_cpus_hold_the_rate),
	RT(pace_two_cpus_lose_no_update),
};

int rate_tests_run(int *passed, int *failed)
{
	struct rt t = {};
	cpu_set_t saved;
	size_t i;
	int err;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -errno;
	t.skel = rate_test_bpf__open_and_load();
	if (!t.skel)
		return -errno;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		t.why[0] = '\0';
		err = reset(&t);
		if (err)
			rfail(&t, "reset: %s", strerror(-err));
		else
			err = cases[i].fn(&t);
		sched_setaffinity(0, sizeof(saved), &saved);
		if (err) {
			printf("FAIL rate_%s: %s\n", cases[i].name, t.why);
			(*failed)++;
		} else {
			printf("ok rate_%s\n", cases[i].name);
			(*passed)++;
		}
	}
	rate_test_bpf__destroy(t.skel);
	return 0;
}
