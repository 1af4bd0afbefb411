// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "classifier.skel.h"
#include "queue_probe.skel.h"
#include "maps/maps.h"
#include "tests/prog/harness.h"

int fail(struct t *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Counters must land in one known CPU's slice: stay on the last allowed CPU,
 * so that a data path ignoring the CPU (writing slice 0) is caught.
 */
static int pin_to_one_cpu(struct fix *f)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	for (cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--)
		if (CPU_ISSET(cpu, &set))
			break;
	if (cpu < 0)
		return -ENODEV;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -errno;
	f->cpu = cpu;
	return 0;
}

static void *map_array(struct bpf_map *map, size_t value_size, size_t *len)
{
	long page = sysconf(_SC_PAGESIZE);
	void *mem;

	*len = (size_t)bpf_map__max_entries(map) * value_size;
	*len = (*len + page - 1) / page * page;
	mem = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   bpf_map__fd(map), 0);
	return mem == MAP_FAILED ? NULL : mem;
}

/* The IPv4 table as user space makes it: an inner map for table_v4. */
static int make_table(struct fix *f)
{
	long page = sysconf(_SC_PAGESIZE);
	void *mem;

	f->table = cls_map_create(cls_slot_spec(CLS_S_TABLE_V4),
				  TEST_DIR24_ENTRIES / CLS_DIR24_PER_ELEM);
	if (f->table < 0)
		return f->table;
	/* The contract: the mmap is a __u32[] whatever the value size. */
	f->dir24_len = (TEST_DIR24_ENTRIES * sizeof(__u32) + page - 1) / page *
		       page;
	mem = mmap(NULL, f->dir24_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   f->table, 0);
	if (mem == MAP_FAILED)
		return -errno;
	f->dir24 = mem;
	return 0;
}

static int map_arrays(struct fix *f)
{
	f->stats = map_array(f->skel->maps.stats, sizeof(struct cls_counter),
			     &f->stats_len);
	if (!f->stats)
		return -errno;
	f->rate_stats = map_array(f->skel->maps.rate_stats,
				  sizeof(struct cls_rate_counter),
				  &f->rate_stats_len);
	if (!f->rate_stats)
		return -errno;
	return make_table(f);
}

int fix_open(struct fix *f)
{
	int fds[CLS_NR_MAPS], id;
	const char *stray;
	int err;

	memset(f, 0, sizeof(*f));
	f->trie_v4 = -1;
	f->trie_v6 = -1;
	f->table = -1;
	f->table6 = -1;
	err = pin_to_one_cpu(f);
	if (err)
		goto out;
	f->ncpus = libbpf_num_possible_cpus();
	if (f->ncpus <= 0) {
		err = f->ncpus ? f->ncpus : -ENODEV;
		goto out;
	}
	f->skel = classifier_bpf__open();
	if (!f->skel) {
		err = -errno;
		goto out;
	}
	/* The programs' maps made as the library makes them, for FIX_CAP. */
	for (id = 0; id < CLS_NR_MAPS; id++)
		fds[id] =
			cls_map_specs[id].bpf
				? cls_map_create(&cls_map_specs[id],
						 cls_class_entries(id, FIX_CAP,
								   f->ncpus))
				: -1;
	err = cls_bind_maps(f->skel->obj, fds, &stray);
	for (id = 0; id < CLS_NR_MAPS; id++)
		if (fds[id] >= 0)
			close(fds[id]);
	if (err)
		goto out;
	f->skel->rodata->cls_class_cap = FIX_CAP;
	err = classifier_bpf__load(f->skel);
	if (err)
		goto out;
	err = map_arrays(f);
out:
	if (err)
		fix_close(f);
	return err;
}

static void drop_v6table(struct fix *f)
{
	__u32 zero = 0;

	bpf_map_delete_elem(bpf_map__fd(f->skel->maps.table_v6), &zero);
	if (f->table6_mem)
		munmap(f->table6_mem, f->table6_len);
	if (f->table6 >= 0)
		close(f->table6);
	f->table6_mem = NULL;
	f->table6 = -1;
}

void fix_close(struct fix *f)
{
	if (f->stats)
		munmap(f->stats, f->stats_len);
	if (f->rate_stats)
		munmap(f->rate_stats, f->rate_stats_len);
	if (f->dir24)
		munmap(f->dir24, f->dir24_len);
	if (f->trie_v4 >= 0)
		close(f->trie_v4);
	if (f->trie_v6 >= 0)
		close(f->trie_v6);
	if (f->table >= 0)
		close(f->table);
	if (f->skel)
		drop_v6table(f);
	classifier_bpf__destroy(f->skel);
	memset(f, 0, sizeof(*f));
	f->trie_v4 = -1;
	f->trie_v6 = -1;
	f->table = -1;
	f->table6 = -1;
}

/*
 * The way user space is meant to do it: a fresh trie in generation 0's
 * slot, generation 1's empty.
 */
static int install_trie(int outer_fd, enum cls_slotted slot, int *fd)
{
	__u32 zero = 0, one = 1;
	int trie, err;

	trie = cls_map_create(cls_slot_spec(slot), 0);
	if (trie < 0)
		return trie;
	if (bpf_map_delete_elem(outer_fd, &one) && errno != ENOENT)
		return -errno;
	if (bpf_map_update_elem(outer_fd, &zero, &trie, BPF_ANY)) {
		err = -errno;
		close(trie);
		return err;
	}
	if (*fd >= 0)
		close(*fd);
	*fd = trie;
	return 0;
}

static int reset_classes(struct fix *f)
{
	int fd = bpf_map__fd(f->skel->maps.classes);
	int clocks = bpf_map__fd(f->skel->maps.rate_state);
	struct cls_class cls = {.flags = CLS_F_VALID | CLS_F_PRIORITY};
	struct cls_rate_state full = {};
	__u32 i;

	for (i = 0; i < TEST_CLASSES; i++) {
		cls.classid = test_classid(i);
		if (bpf_map_update_elem(fd, &i, &cls, BPF_ANY) ||
		    bpf_map_update_elem(clocks, &i, &full, BPF_ANY))
			return -errno;
	}
	return 0;
}

/*
 * What steering tests touch: queues 0-7 without a CPU, no cpumap entry,
 * this CPU's steer counters zero.
 */
static int reset_steer(struct fix *f)
{
	struct cls_counter zc = {};
	__u32 k, zero = 0, idx;
	int cpu;

	for (k = 0; k < 8; k++)
		if (bpf_map_update_elem(bpf_map__fd(f->skel->maps.queue_cpu),
					&k, &zero, BPF_ANY))
			return -errno;
	for (cpu = 0; cpu < f->ncpus; cpu++)
		if (bpf_map_delete_elem(bpf_map__fd(f->skel->maps.cpumap),
					&cpu) &&
		    errno != ENOENT)
			return -errno;
	for (k = 0; k < 8 + CLS_STEER_R_MAX; k++) {
		idx = f->cpu * CLS_STEER_STRIDE +
		      (k < 8 ? k : CLS_STEER_REASON_BASE + k - 8);
		if (bpf_map_update_elem(bpf_map__fd(f->skel->maps.steer_stats),
					&idx, &zc, BPF_ANY))
			return -errno;
	}
	return 0;
}

struct cls_counter steer_counter(const struct t *t, __u32 slot)
{
	__u32 idx = t->f->cpu * CLS_STEER_STRIDE + slot;
	struct cls_counter c = {};

	bpf_map_lookup_elem(bpf_map__fd(t->f->skel->maps.steer_stats), &idx,
			    &c);
	return c;
}

int fix_reset(struct fix *f)
{
	struct t t = {.f = f};
	int err;

	err = install_trie(bpf_map__fd(f->skel->maps.trie_v4), CLS_S_TRIE_V4,
			   &f->trie_v4);
	if (!err)
		err = install_trie(bpf_map__fd(f->skel->maps.trie_v6),
				   CLS_S_TRIE_V6, &f->trie_v6);
	if (!err)
		err = reset_classes(f);
	memset(&f->cfg, 0, sizeof(f->cfg));
	f->cfg.layout = CLS_LAYOUT_VERSION;
	if (!err)
		err = set_stats_on(&t, 1);
	if (!err)
		err = use_table(&t, -1);
	drop_v6table(f);
	while (f->n_dirty)
		f->dir24[f->dir24_dirty[--f->n_dirty]] = 0;
	if (!err)
		err = route_add(&t, TEST_DECOY_V4 "/32", TEST_DECOY_CLASS);
	if (!err)
		err = route_add(&t, TEST_DECOY_V6 "/128", TEST_DECOY_CLASS);
	if (!err)
		err = route_add(&t, TEST_DECOY_L3_V4 "/32", TEST_DECOY_CLASS);
	if (!err)
		err = route_add(&t, TEST_DECOY_L3_V6 "/128", TEST_DECOY_CLASS);
	memset(f->stats, 0, f->stats_len);
	memset(f->rate_stats, 0, f->rate_stats_len);
	if (!err)
		err = reset_steer(f);
	return err;
}

int route_add(struct t *t, const char *prefix, __u32 idx)
{
	struct cls_v6_key key = {};
	char addr[INET6_ADDRSTRLEN];
	const char *slash = strchr(prefix, '/');
	int v6 = strchr(prefix, ':') != NULL;
	int fd = v6 ? t->f->trie_v6 : t->f->trie_v4;
	__u32 val;

	if (!slash || (size_t)(slash - prefix) >= sizeof(addr))
		return fail(t, "bad prefix %s", prefix);
	memcpy(addr, prefix, slash - prefix);
	addr[slash - prefix] = '\0';
	key.prefixlen = atoi(slash + 1);
	if (inet_pton(v6 ? AF_INET6 : AF_INET, addr, key.addr) != 1)
		return fail(t, "bad prefix %s", prefix);
	/* cls_v4_key is a prefix of cls_v6_key's layout. */
	val = cls_route_value(idx, key.prefixlen, 0);
	if (bpf_map_update_elem(fd, &key, &val, BPF_ANY))
		return fail(t, "route %s: %s", prefix, strerror(errno));
	return 0;
}

int class_set(struct t *t, __u32 idx, const struct cls_class *cls)
{
	if (bpf_map_update_elem(bpf_map__fd(t->f->skel->maps.classes), &idx,
				cls, BPF_ANY))
		return fail(t, "class %u: %s", idx, strerror(errno));
	return 0;
}

static int write_config(struct t *t)
{
	__u32 zero = 0;

	if (bpf_map_update_elem(bpf_map__fd(t->f->skel->maps.config), &zero,
				&t->f->cfg, BPF_ANY))
		return fail(t, "config: %s", strerror(errno));
	return 0;
}

int set_stats_on(struct t *t, __u32 on)
{
	t->f->cfg.stats_on = on;
	return write_config(t);
}

int set_gen(struct t *t, __u32 gen)
{
	t->f->cfg.gen = gen;
	return write_config(t);
}

int v6table(struct t *t, struct mbt6 *m)
{
	return v6table_of(t, m, false);
}

int v6table_of(struct t *t, struct mbt6 *m, bool wide)
{
	/* Whole elements, as maps/table6.c sizes its maps. */
	size_t entries = mbt6_elems(TEST_V6TABLE_UNITS, wide) * MBT6_PER_ELEM;
	struct fix *f = t->f;
	__u32 zero = 0;
	void *mem;

	drop_v6table(f);
	f->table6 = cls_map_create(cls_slot_spec(CLS_S_TABLE_V6),
				   entries / MBT6_PER_ELEM);
	if (f->table6 < 0)
		return fail(t, "IPv6 table: %s", strerror(-f->table6));
	f->table6_len = entries * sizeof(__u32);
	mem = mmap(NULL, f->table6_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		   f->table6, 0);
	if (mem == MAP_FAILED)
		return fail(t, "IPv6 table mmap: %s", strerror(errno));
	f->table6_mem = mem;
	if (mbt6_view(m, mem, entries, wide))
		return fail(t, "IPv6 table view");
	mbt6_clear(m);
	if (bpf_map_update_elem(bpf_map__fd(f->skel->maps.table_v6), &zero,
				&f->table6, BPF_ANY))
		return fail(t, "IPv6 table slot: %s", strerror(errno));
	return set_table6_format(t, 0, wide ? MBT6_FORMAT_WIDE : MBT6_FORMAT);
}

int set_table6_format(struct t *t, __u32 gen, __u8 format)
{
	t->f->cfg.table6_format[gen] = format;
	return write_config(t);
}

int use_table(struct t *t, int gen)
{
	int fd = bpf_map__fd(t->f->skel->maps.table_v4);
	__u32 g;

	for (g = 0; g < CLS_GENERATIONS; g++) {
		if ((int)g == gen) {
			if (bpf_map_update_elem(fd, &g, &t->f->table, BPF_ANY))
				return fail(t, "table slot %u: %s", g,
					    strerror(errno));
		} else if (bpf_map_delete_elem(fd, &g) && errno != ENOENT) {
			return fail(t, "table slot %u: %s", g, strerror(errno));
		}
	}
	return 0;
}

int dir24_set(struct t *t, __u32 idx, __u32 val)
{
	struct fix *f = t->f;

	if (idx >= TEST_DIR24_ENTRIES)
		return fail(t, "dir24 entry %u out of the map", idx);
	if (f->n_dirty == TEST_DIR24_DIRTY_MAX)
		return fail(t, "too many dir24 entries for one test");
	f->dir24_dirty[f->n_dirty++] = idx;
	f->dir24[idx] = val;
	return 0;
}

int drop_route_table(struct t *t, int family)
{
	struct bpf_map *outer = family == 6 ? t->f->skel->maps.trie_v6
					    : t->f->skel->maps.trie_v4;
	__u32 zero = 0;

	if (bpf_map_delete_elem(bpf_map__fd(outer), &zero))
		return fail(t, "empty slot 0: %s", strerror(errno));
	return 0;
}

/* The link header, and the decoy on the other side of the packet. */
static const char *mk_start(struct t *t, struct pkt *p, __u16 proto)
{
	bool v4 = proto == PKT_ETH_P_IP;

	if (!hook_is_l3(t))
		pkt_eth(p, NULL, 0, proto);
	else
		pkt_l3(p);
	if (t->hook == HOOK_TC_L3)
		return v4 ? TEST_DECOY_L3_V4 : TEST_DECOY_L3_V6;
	return v4 ? TEST_DECOY_V4 : TEST_DECOY_V6;
}

int mk_v4(struct t *t, struct pkt *p, const char *addr, __u8 tos)
{
	const char *decoy = mk_start(t, p, PKT_ETH_P_IP);
	int err;

	if (hook_by_dst(t))
		err = pkt_ipv4(p, decoy, addr, tos);
	else
		err = pkt_ipv4(p, addr, decoy, tos);
	return err ? fail(t, "build v4 %s: %s", addr, strerror(-err)) : 0;
}

int mk_v6(struct t *t, struct pkt *p, const char *addr, __u8 tclass,
	  const __u8 *exts, int n_ext)
{
	const char *decoy = mk_start(t, p, PKT_ETH_P_IPV6);
	int err;

	if (hook_by_dst(t))
		err = pkt_ipv6(p, decoy, addr, tclass, exts, n_ext);
	else
		err = pkt_ipv6(p, addr, decoy, tclass, exts, n_ext);
	return err ? fail(t, "build v6 %s: %s", addr, strerror(-err)) : 0;
}

int pass_verdict(const struct t *t)
{
	return hook_is_tc(t) ? -1 : XDP_PASS;
}

static struct bpf_program *hook_prog(const struct t *t)
{
	switch (t->hook) {
	case HOOK_TC:
		return t->f->skel->progs.cls_egress;
	case HOOK_TC_L3:
		return t->f->skel->progs.cls_egress_l3;
	case HOOK_XDP_L3:
		return t->f->skel->progs.cls_ingress_l3;
	case HOOK_STEER:
		return t->f->skel->progs.cls_steer;
	default:
		return t->f->skel->progs.cls_ingress;
	}
}

static int run_prog_n(struct t *t, struct bpf_program *prog,
		      const struct pkt *p, __u32 repeat, struct run *r);

int run_pkt(struct t *t, const struct pkt *p, struct run *r)
{
	return run_pkt_n(t, p, 1, r);
}

int run_pkt_n(struct t *t, const struct pkt *p, __u32 repeat, struct run *r)
{
	return run_prog_n(t, hook_prog(t), p, repeat, r);
}

static int run_prog_n(struct t *t, struct bpf_program *prog,
		      const struct pkt *p, __u32 repeat, struct run *r)
{
	struct __sk_buff skb_in = {};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->buf,
		    .data_size_in = p->len, .data_out = r->out.buf,
		    .data_size_out = sizeof(r->out.buf), .repeat = repeat);
	int err;

	memset(r, 0, sizeof(*r));
	if (hook_is_tc(t)) {
		opts.ctx_in = &skb_in;
		opts.ctx_size_in = sizeof(skb_in);
		opts.ctx_out = &r->skb;
		opts.ctx_size_out = sizeof(r->skb);
	}
	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts)) {
		err = -errno;
		fail(t, "test run: %s", strerror(-err));
		return err;
	}
	r->verdict = (int)opts.retval;
	r->out.len = opts.data_size_out;
	r->out.l3_off = p->l3_off;
	return 0;
}

/*
 * The probe's programs (tests/prog/queue_probe.bpf.c) on the fixture's
 * maps: only the wrapper of the hook's program is loaded.
 */
int run_pkt_queue(struct t *t, const struct pkt *p, struct run *r,
		  __u32 *queue_mapping)
{
	struct bpf_program *prog, *want;
	struct queue_probe_bpf *probe;
	int fds[CLS_NR_MAPS], id, err;
	const char *stray;

	if (!hook_is_tc(t))
		return fail(t, "queue probe: tc hooks only");
	probe = queue_probe_bpf__open();
	if (!probe)
		return fail(t, "queue probe: open: %s", strerror(errno));
	want = hook_is_l3(t) ? probe->progs.queue_of_egress_l3
			     : probe->progs.queue_of_egress;
	bpf_object__for_each_program (prog, probe->obj)
		bpf_program__set_autoload(prog, prog == want);
	for (id = 0; id < CLS_NR_MAPS; id++) {
		struct bpf_map *m = bpf_object__find_map_by_name(
			t->f->skel->obj, cls_map_specs[id].name);

		fds[id] = m ? bpf_map__fd(m) : -ENOENT;
	}
	err = cls_bind_maps(probe->obj, fds, &stray);
	if (!err)
		err = queue_probe_bpf__load(probe);
	if (err) {
		fail(t, "queue probe: load: %s", strerror(-err));
		goto out;
	}
	err = run_prog_n(t, want, p, 1, r);
	*queue_mapping = r->skb.cb[0];
out:
	queue_probe_bpf__destroy(probe);
	return err;
}

struct cls_counter counter(const struct t *t, int cpu, __u32 slot)
{
	return t->f->stats[(size_t)cpu * CLS_STATS_STRIDE(FIX_CAP) + slot];
}

__u32 class_slot(const struct t *t, __u32 idx)
{
	return (hook_is_tc(t) ? CLS_STATS_EGRESS_BASE
			      : CLS_STATS_INGRESS_BASE(FIX_CAP)) +
	       idx;
}

struct cls_counter class_counter(const struct t *t, int cpu, __u32 idx)
{
	return counter(t, cpu, class_slot(t, idx));
}

/* Packets counted to any class by this test's hook. */
__u64 class_packets(const struct t *t, int cpu)
{
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < FIX_CAP; i++)
		sum += class_counter(t, cpu, i).packets;
	return sum;
}

/* The same for the other hook. */
__u64 other_hook_packets(const struct t *t, int cpu)
{
	__u32 base = hook_is_tc(t) ? CLS_STATS_INGRESS_BASE(FIX_CAP)
				   : CLS_STATS_EGRESS_BASE;
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < FIX_CAP; i++)
		sum += counter(t, cpu, base + i).packets;
	return sum;
}

__u64 reason_packets(const struct t *t, int cpu)
{
	__u64 sum = 0;
	__u32 i;

	for (i = 0; i < CLS_REASON_SLOTS; i++)
		sum += counter(t, cpu, CLS_STATS_REASON_BASE(FIX_CAP) + i)
			       .packets;
	return sum;
}

struct cls_rate_counter rate_counter(const struct t *t, __u32 idx)
{
	__u32 hook = t->hook == HOOK_XDP ? CLS_RATE_INGRESS : CLS_RATE_EGRESS;

	return t->f->rate_stats[(size_t)t->f->cpu *
					CLS_RATE_STATS_STRIDE(FIX_CAP) +
				hook * FIX_CAP + idx];
}

int expect_class(struct t *t, const struct pkt *p, __u32 idx)
{
	int cpu = t->f->cpu;
	struct cls_counter before = class_counter(t, cpu, idx), after;
	__u64 classes = class_packets(t, cpu);
	__u64 reasons = reason_packets(t, cpu);
	struct run r;

	if (run_pkt(t, p, &r))
		return -1;
	CHECK(t, r.verdict == pass_verdict(t), "verdict %d, want pass %d",
	      r.verdict, pass_verdict(t));
	CHECK(t, reason_packets(t, cpu) == reasons,
	      "a reason was counted for a good packet");
	after = class_counter(t, cpu, idx);
	CHECK(t, after.packets == before.packets + 1,
	      "class %u counted %llu packets, want 1", idx,
	      (unsigned long long)(after.packets - before.packets));
	CHECK(t, after.bytes == before.bytes + p->len,
	      "class %u counted %llu bytes, want %zu", idx,
	      (unsigned long long)(after.bytes - before.bytes), p->len);
	CHECK(t, class_packets(t, cpu) == classes + 1,
	      "another class was counted too");
	if (hook_is_tc(t))
		CHECK(t, r.skb.priority == test_classid(idx),
		      "priority %#x, want %#x", r.skb.priority,
		      test_classid(idx));
	return 0;
}

int expect_reason(struct t *t, const struct pkt *p, enum cls_reason reason)
{
	__u32 slot = CLS_STATS_REASON_BASE(FIX_CAP) + reason;
	int cpu = t->f->cpu;
	struct cls_counter before = counter(t, cpu, slot), after;
	__u64 classes = class_packets(t, cpu);
	__u64 reasons = reason_packets(t, cpu);
	struct run r;

	if (run_pkt(t, p, &r))
		return -1;
	CHECK(t, r.verdict == pass_verdict(t), "verdict %d, want pass %d",
	      r.verdict, pass_verdict(t));
	after = counter(t, cpu, slot);
	CHECK(t,
	      after.packets == before.packets + 1 &&
		      after.bytes == before.bytes + p->len,
	      "reason %d counted %llu packets %llu bytes, want 1 and %zu",
	      reason, (unsigned long long)(after.packets - before.packets),
	      (unsigned long long)(after.bytes - before.bytes), p->len);
	CHECK(t, reason_packets(t, cpu) == reasons + 1,
	      "another reason was counted too");
	CHECK(t, class_packets(t, cpu) == classes,
	      "an unclassified packet was counted in a class");
	CHECK(t, r.out.len == p->len && !memcmp(r.out.buf, p->buf, p->len),
	      "the packet was changed");
	if (hook_is_tc(t))
		CHECK(t, !r.skb.priority && !r.skb.mark,
		      "priority %#x mark %#x, want untouched", r.skb.priority,
		      r.skb.mark);
	return 0;
}

static int print_prog(struct bpf_program *prog)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -errno;
	printf("%s: verified_insns=%u xlated=%u jited=%u\n",
	       bpf_program__name(prog), info.verified_insns,
	       info.xlated_prog_len, info.jited_prog_len);
	return 0;
}

int print_verifier_stats(struct fix *f)
{
	struct bpf_program *prog;
	int err;

	bpf_object__for_each_program (prog, f->skel->obj) {
		err = print_prog(prog);
		if (err)
			return err;
	}
	return 0;
}
