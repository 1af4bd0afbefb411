// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf_smoke: kernel-side smoke test for the 6.1 series, run inside the qemu
 * guest by vmtest.sh. No libbpf, no clang: the program is assembled here.
 *
 * The program is classifier's hot path in miniature (sched_cls):
 *   key = {32, ipv4 daddr}; class = LPM_TRIE[key] or 0;
 *   cpu = bpf_get_smp_processor_id();
 *   stats[cpu * NCLASS + class] += 1          (plain add, no atomics)
 *   return class;
 *
 *   bpf_smoke check        load, test-run crafted packets, verify classes and
 *                          counters, dump the JIT image and say whether the
 *                          CPU id was inlined
 *   bpf_smoke storm N      2 runners (pinned to CPU 0 and 1) test-run packets
 *                          while N flips of kernel.bpf_stats_enabled happen;
 *                          then every run must be in the counters
 *   bpf_smoke bench N      N lookups via BPF_PROG_TEST_RUN repeat, prints the
 *                          kernel's ns/run (emulated time under TCG)
 *
 * As /init (arm64 guest): check, a 200-flip storm, then /bpf_recur if there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf_insn.h"

#define NCLASS 8
#define NCPU 8

static int trie_fd, stats_fd, prog_fd;

static int map_create(int type, int ksz, int vsz, int n, int flags)
{
	union bpf_attr a = { .map_type = type, .key_size = ksz,
			     .value_size = vsz, .max_entries = n,
			     .map_flags = flags };
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int map_update(int fd, const void *k, const void *v)
{
	union bpf_attr a = { .map_fd = fd, .key = (uintptr_t)k,
			     .value = (uintptr_t)v };
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

static int map_lookup(int fd, const void *k, void *v)
{
	union bpf_attr a = { .map_fd = fd, .key = (uintptr_t)k,
			     .value = (uintptr_t)v };
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

struct lpm_key { uint32_t plen; uint8_t addr[4]; };

static void route(int plen, int a, int b, int c, int d, uint32_t cls)
{
	struct lpm_key k = { plen, { a, b, c, d } };

	if (map_update(trie_fd, &k, &cls)) {
		perror("route");
		exit(1);
	}
}

static int setup(void)
{
	static char log[65536];
	struct bpf_insn p[] = {
		LDX(BPF_W, 2, 1, offsetof(struct __sk_buff, data)),
		LDX(BPF_W, 3, 1, offsetof(struct __sk_buff, data_end)),
		MOV64_REG(4, 2),
		ADD64_IMM(4, 34),			/* eth + ipv4 header */
		MOV64_IMM(6, 0),			/* class = 0 */
		JGT_REG(4, 3, 10),			/* short: skip lookup */
		LDX(BPF_W, 5, 2, 30),			/* ip daddr */
		ST(BPF_W, 10, -8, 32),
		STX(BPF_W, 10, 5, -4),
		LD_MAP(1, trie_fd),
		MOV64_REG(2, 10),
		ADD64_IMM(2, -8),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 1),
		LDX(BPF_W, 6, 0, 0),
		/* idx = cpu * NCLASS + class */
		CALL(BPF_FUNC_get_smp_processor_id),
		MUL64_IMM(0, NCLASS),
		ADD64_REG(0, 6),
		STX(BPF_W, 10, 0, -12),
		LD_MAP(1, stats_fd),
		MOV64_REG(2, 10),
		ADD64_IMM(2, -12),
		CALL(BPF_FUNC_map_lookup_elem),
		JEQ_IMM(0, 0, 3),
		LDX(BPF_DW, 1, 0, 0),
		ADD64_IMM(1, 1),
		STX(BPF_DW, 0, 1, 0),
		MOV64_REG(0, 6),
		EXIT(),
	};
	union bpf_attr a = { 0 };

	trie_fd = map_create(BPF_MAP_TYPE_LPM_TRIE, sizeof(struct lpm_key), 4,
			     1024, BPF_F_NO_PREALLOC);
	stats_fd = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, NCPU * NCLASS, 0);
	if (trie_fd < 0 || stats_fd < 0) {
		perror("map_create");
		return -1;
	}
	/* re-encode the map fds now that we have them */
	p[9].imm = trie_fd;
	p[20].imm = stats_fd;
	a.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	a.insns = (uintptr_t)p;
	a.insn_cnt = sizeof(p) / sizeof(p[0]);
	a.license = (uintptr_t)"GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	prog_fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (prog_fd < 0) {
		fprintf(stderr, "prog load: %s\n%s\n", strerror(errno), log);
		return -1;
	}
	route(8, 10, 0, 0, 0, 1);
	route(16, 10, 1, 0, 0, 2);
	route(24, 10, 1, 2, 0, 3);
	route(32, 10, 1, 2, 3, 4);
	route(12, 172, 16, 0, 0, 5);
	return 0;
}

static unsigned char pkt[64];

static void mkpkt(int a, int b, int c, int d)
{
	memset(pkt, 0, sizeof(pkt));
	pkt[12] = 0x08;			/* ethertype ipv4 */
	pkt[14] = 0x45;
	pkt[30] = a; pkt[31] = b; pkt[32] = c; pkt[33] = d;
}

static int run(int repeat, uint32_t *retval, uint32_t *ns)
{
	union bpf_attr a = { 0 };

	a.test.prog_fd = prog_fd;
	a.test.data_in = (uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	a.test.repeat = repeat;
	if (sys_bpf(BPF_PROG_TEST_RUN, &a))
		return -1;
	*retval = a.test.retval;
	if (ns)
		*ns = a.test.duration;
	return 0;
}

static uint64_t counters_total(uint64_t per_class[NCLASS])
{
	uint64_t v, t = 0;
	uint32_t i;

	memset(per_class, 0, NCLASS * sizeof(uint64_t));
	for (i = 0; i < NCPU * NCLASS; i++) {
		if (map_lookup(stats_fd, &i, &v))
			continue;
		per_class[i % NCLASS] += v;
		t += v;
	}
	return t;
}

static int dump_jit(void)
{
	static unsigned char img[8192];
	static struct bpf_insn x[256];
	struct bpf_prog_info info = { 0 };
	union bpf_attr a = { 0 };
	unsigned int i, inl = 0, helper_id_kept = 0;

	info.jited_prog_len = sizeof(img);
	info.jited_prog_insns = (uintptr_t)img;
	info.xlated_prog_len = sizeof(x);
	info.xlated_prog_insns = (uintptr_t)x;
	a.info.bpf_fd = prog_fd;
	a.info.info_len = sizeof(info);
	a.info.info = (uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a)) {
		perror("get_info");
		return -1;
	}
	printf("jited_len %u xlated_len %u\n", info.jited_prog_len,
	       info.xlated_prog_len);
	printf("JIT:");
	for (i = 0; i < info.jited_prog_len && i < sizeof(img); i++)
		printf("%s%02x", i % 16 ? " " : "\nJIT: ", img[i]);
	printf("\n");
#if defined(__x86_64__)
	for (i = 0; i + 3 < info.jited_prog_len; i++)
		if (img[i] == 0x65 && img[i + 1] == 0x8b && img[i + 2] == 0x04 &&
		    img[i + 3] == 0x25)
			inl++;
#elif defined(__aarch64__)
	for (i = 0; i + 3 < info.jited_prog_len; i += 4) {
		uint32_t w;

		memcpy(&w, img + i, 4);
		if ((w & 0xffffffe0) == 0xd5384100)	/* mrs xN, sp_el0 */
			inl++;
	}
#endif
	for (i = 0; i < info.xlated_prog_len / sizeof(x[0]); i++)
		if (x[i].code == (BPF_JMP | BPF_CALL) &&
		    x[i].imm == BPF_FUNC_get_smp_processor_id)
			helper_id_kept++;
	printf("cpu-id inline (x86 gs:cpu_number load / arm64 mrs sp_el0): %s\n",
	       inl ? "yes" : "no");
	printf("xlated call keeps helper id 8: %s\n", helper_id_kept ? "yes" : "no");
	return 0;
}

static int check(void)
{
	static const struct { int a, b, c, d; uint32_t cls; } t[] = {
		{ 10, 1, 2, 3, 4 }, { 10, 1, 2, 9, 3 }, { 10, 1, 9, 9, 2 },
		{ 10, 9, 9, 9, 1 }, { 172, 17, 1, 1, 5 }, { 172, 32, 1, 1, 0 },
		{ 192, 168, 0, 1, 0 },
	};
	uint64_t per[NCLASS], total;
	unsigned int i, fails = 0;
	uint32_t r;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		mkpkt(t[i].a, t[i].b, t[i].c, t[i].d);
		if (run(10, &r, NULL)) {
			perror("test_run");
			return 1;
		}
		printf("lookup %d.%d.%d.%d -> class %u (want %u) %s\n", t[i].a,
		       t[i].b, t[i].c, t[i].d, r, t[i].cls,
		       r == t[i].cls ? "ok" : "WRONG");
		fails += r != t[i].cls;
	}
	total = counters_total(per);
	printf("counters: total %llu (want %u)\n", (unsigned long long)total,
	       (unsigned int)(10 * (sizeof(t) / sizeof(t[0]))));
	if (total != 10 * (sizeof(t) / sizeof(t[0])))
		fails++;
	if (dump_jit())
		fails++;
	printf("SMOKE %s\n", fails ? "FAIL" : "PASS");
	return !!fails;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	sched_setaffinity(0, sizeof(s), &s);
}

static int storm(int flips)
{
	int pipefd[2], i, fd, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t per[NCLASS], total, want = 0, n;
	volatile int dummy = 0;
	pid_t kids[2];

	if (ncpu > 2)
		ncpu = 2;
	if (pipe(pipefd))
		return 1;
	counters_total(per);
	for (i = 0; i < ncpu; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			uint32_t r;
			uint64_t runs = 0;
			int ppid_fd = pipefd[0];

			pin(i);
			fcntl(ppid_fd, F_SETFL, O_NONBLOCK);
			mkpkt(10, 1, 2, i);
			for (;;) {
				char c;

				if (run(100, &r, NULL))
					_exit(2);
				runs += 100;
				if (r != 3)
					_exit(3);
				if (read(ppid_fd, &c, 1) == 1)
					break;
			}
			printf("runner cpu%d: %llu runs\n", i,
			       (unsigned long long)runs);
			fflush(stdout);
			/* report the count through the exit path: write it */
			fd = open("/tmp/storm.count", O_WRONLY | O_APPEND | O_CREAT, 0600);
			dprintf(fd, "%llu\n", (unsigned long long)runs);
			close(fd);
			_exit(0);
		}
	}
	fd = open("/proc/sys/kernel/bpf_stats_enabled", O_WRONLY);
	if (fd < 0) {
		perror("bpf_stats_enabled");
		return 1;
	}
	for (i = 0; i < flips; i++) {
		if (pwrite(fd, i % 2 ? "0" : "1", 1, 0) != 1) {
			perror("flip");
			return 1;
		}
		dummy++;
		if ((i + 1) % 100 == 0)
			printf("flips: %d\n", i + 1);
	}
	pwrite(fd, "0", 1, 0);
	close(fd);
	printf("flips: %d done\n", flips);
	for (i = 0; i < ncpu; i++)
		if (write(pipefd[1], "x", 1) != 1)
			return 1;
	for (i = 0; i < ncpu; i++) {
		int st;

		waitpid(kids[i], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("runner %d failed (status %d)\n", i, st);
			return 1;
		}
	}
	{
		FILE *f = fopen("/tmp/storm.count", "r");
		unsigned long long v;

		while (f && fscanf(f, "%llu", &v) == 1)
			want += v;
		if (f)
			fclose(f);
	}
	total = counters_total(per);
	n = per[3];
	printf("storm: runs %llu, class-3 counter %llu, total %llu -> %s\n",
	       (unsigned long long)want, (unsigned long long)n,
	       (unsigned long long)total, n == want ? "consistent" : "MISMATCH");
	printf("STORM %s\n", n == want ? "PASS" : "FAIL");
	return n != want;
}

static int bench(int n)
{
	uint32_t r, ns;

	mkpkt(10, 1, 2, 3);		/* deepest route: /32 */
	if (run(n, &r, &ns))
		return 1;
	printf("bench: %d runs, class %u, %u ns/run (as the guest clock sees it)\n",
	       n, r, ns);
	return 0;
}

/* Used as /init of an initramfs that holds nothing else (arm64 guest). */
static int as_init(void)
{
	int fails = 0;
	pid_t p;

	mount("proc", "/proc", "proc", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	printf("VMTEST BEGIN bpf_smoke as init\n");
	p = fork();
	if (p == 0)
		_exit(setup() ? 1 : check());
	waitpid(p, &fails, 0);
	p = fork();
	if (p == 0)
		_exit(setup() ? 1 : storm(200));
	waitpid(p, &p, 0);
	fails |= p;
	/* the trampoline recursion test, when vmtest.sh put it next to us */
	if (access("/bpf_recur", X_OK) == 0) {
		p = fork();
		if (p == 0) {
			execl("/bpf_recur", "bpf_recur", "100", (char *)NULL);
			_exit(127);
		}
		waitpid(p, &p, 0);
		fails |= p;
	}
	printf("VMTEST RESULT %s\n", fails ? "FAIL" : "PASS");
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getpid() == 1)
		return as_init();
	if (argc < 2)
		goto usage;
	if (setup())
		return 1;
	if (!strcmp(argv[1], "check"))
		return check();
	if (!strcmp(argv[1], "storm"))
		return storm(argc > 2 ? atoi(argv[2]) : 1000);
	if (!strcmp(argv[1], "bench"))
		return bench(argc > 2 ? atoi(argv[2]) : 100000);
usage:
	fprintf(stderr, "usage: bpf_smoke check|storm [flips]|bench [runs]\n");
	return 2;
}
