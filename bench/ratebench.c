// SPDX-License-Identifier: GPL-2.0-only
/*
 * ratebench: what a class's rate costs the real cls_egress and
 * cls_ingress, by BPF_PROG_TEST_RUN (the kernel's ns per run), side by
 * side in one run, rounds interleaved:
 *   unrated      the class with no rate (the baseline)
 *   police       policed, every packet within the rate (a CAS each)
 *   police_over  policed, every packet over it (a read, a drop)
 *   pace         paced, every packet given a departure (tc only)
 * each on one CPU, and (_2cpu) on two CPUs at once into the same class
 * (the clock's cache line going back and forth).  One JSON object a line.
 *
 *   ratebench [--rounds N] [--repeat N]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "maps/maps.h"
#include "maps/rate.h"

enum kase { UNRATED, POLICE, POLICE_OVER, PACE, K_MAX };
static const char *const kase_name[K_MAX] = {"unrated", "police", "police_over",
					     "pace"};

struct ctx {
	struct classifier_bpf *skel;
	__u8 pkt[128];
	__u32 len;
	__u32 repeat;
};

/* Ethernet + IPv4 + UDP to 10.1.2.3, 100 bytes. */
static void build_pkt(struct ctx *c)
{
	__u8 *p = c->pkt;

	memset(p, 0, sizeof(c->pkt));
	p[12] = 0x08;
	p[14] = 0x45;
	p[16] = 0;
	p[17] = 86;
	p[22] = 64;
	p[23] = 17;
	inet_pton(AF_INET, "192.0.2.1", p + 26);
	inet_pton(AF_INET, "10.1.2.3", p + 30);
	c->len = 100;
}

static int setup(struct ctx *c)
{
	struct cls_config cfg = {.stats_on = 1, .layout = CLS_LAYOUT_VERSION};
	/* the destination (tc) and the source (XDP) both in class 1 */
	struct cls_v4_key key = {.prefixlen = 8, .addr = {10}};
	struct cls_v4_key src = {.prefixlen = 24, .addr = {192, 0, 2}};
	const char *stray;
	__u32 zero = 0, val = cls_route_value(1, 8, 0);
	int trie, err;

	c->skel = classifier_bpf__open();
	if (!c->skel)
		return -errno;
	err = cls_bind_maps(c->skel->obj, NULL, &stray);
	if (!err)
		err = classifier_bpf__load(c->skel);
	if (err)
		return err;
	trie = cls_map_create(cls_slot_spec(CLS_S_TRIE_V4), 0);
	if (trie < 0)
		return trie;
	if (bpf_map_update_elem(trie, &key, &val, BPF_ANY) ||
	    bpf_map_update_elem(trie, &src, &val, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(c->skel->maps.trie_v4), &zero,
				&trie, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(c->skel->maps.config), &zero, &cfg,
				BPF_ANY))
		return -errno;
	build_pkt(c);
	return 0;
}

/* Class 1 as the case wants it, its clocks full. */
static int set_class(struct ctx *c, enum kase k)
{
	struct cls_class cls = {.classid = 0x10010,
				.flags = CLS_F_VALID | CLS_F_PRIORITY};
	struct cls_rate_state full = {};
	__u32 idx = 1;

	if (k == POLICE || k == POLICE_OVER) {
		cls.flags |= CLS_F_POLICE;
		/* 8 Tbit/s: always within; 1 byte/s, no burst: always over */
		cls_rate_set(&cls.rate, k == POLICE ? 1000000000000ULL : 1, 0,
			     0, 0);
	} else if (k == PACE) {
		cls.flags |= CLS_F_PACE;
		/* every packet later than the last, none past the horizon */
		cls_rate_set(&cls.rate, 1000000000000ULL, 0, 0xffffffffU, 0);
	}
	if (bpf_map_update_elem(bpf_map__fd(c->skel->maps.classes), &idx, &cls,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(c->skel->maps.rate_state), &idx,
				&full, BPF_ANY))
		return -errno;
	return 0;
}

struct runner {
	struct ctx *c;
	int prog_fd;
	bool tc;
	int cpu;
	__u32 ns;
	int err;
};

static void *run(void *arg)
{
	struct runner *r = arg;
	struct __sk_buff skb = {};
	__u8 out[128];
	cpu_set_t set;
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = r->c->pkt,
		    .data_size_in = r->c->len, .data_out = out,
		    .data_size_out = sizeof(out), .repeat = r->c->repeat);

	if (r->tc) {
		o.ctx_in = &skb;
		o.ctx_size_in = sizeof(skb);
	}
	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	r->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!r->err && bpf_prog_test_run_opts(r->prog_fd, &o))
		r->err = -errno;
	r->ns = o.duration;
	return NULL;
}

/* ns per run on ncpu CPUs at once (each CPU's own figure, averaged). */
static int measure(struct ctx *c, bool tc, int ncpu, double *ns)
{
	struct bpf_program *p =
		tc ? c->skel->progs.cls_egress : c->skel->progs.cls_ingress;
	struct runner r[2];
	pthread_t th[2];
	int i;

	for (i = 0; i < ncpu; i++) {
		r[i] = (struct runner){c, bpf_program__fd(p), tc, i, 0, 0};
		if (pthread_create(&th[i], NULL, run, &r[i]))
			return -errno;
	}
	*ns = 0;
	for (i = 0; i < ncpu; i++) {
		pthread_join(th[i], NULL);
		if (r[i].err)
			return r[i].err;
		*ns += (double)r[i].ns / ncpu;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ctx c = {.repeat = 1000000};
	int rounds = 9, round, k, cpus, hook, err, i;
	double ns = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--repeat"))
			c.repeat = atoi(argv[i + 1]);
	}
	if (i != argc || rounds < 1 || !c.repeat) {
		fprintf(stderr, "usage: ratebench [--rounds N] [--repeat N]\n");
		return 2;
	}
	err = setup(&c);
	if (err) {
		fprintf(stderr, "ratebench: load: %s\n", strerror(-err));
		return 1;
	}
	for (round = 0; round < rounds; round++) {
		for (i = 0; i < K_MAX * 4; i++) {
			/* rotate the order each round */
			int j = (i + round) % (K_MAX * 4);

			k = j % K_MAX;
			hook = j / K_MAX % 2; /* 0: tc, 1: xdp */
			cpus = 1 + j / (2 * K_MAX);
			if (k == PACE && hook)
				continue;
			err = set_class(&c, k);
			if (!err)
				err = measure(&c, !hook, cpus, &ns);
			if (err) {
				fprintf(stderr, "ratebench: %s: %s\n",
					kase_name[k], strerror(-err));
				return 1;
			}
			printf("{\"bench\":\"rates\",\"round\":%d,\"hook\":"
			       "\"%s\",\"case\":\"%s\",\"cpus\":%d,"
			       "\"ns\":%.1f}\n",
			       round, hook ? "xdp" : "tc", kase_name[k], cpus,
			       ns);
			fflush(stdout);
		}
	}
	classifier_bpf__destroy(c.skel);
	return 0;
}
