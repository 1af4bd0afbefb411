// SPDX-License-Identifier: GPL-2.0-only
/*
 * What one random cache line costs on this machine, by working-set size:
 * a dependent chase through a random cycle of N lines spread over a 128 MiB
 * buffer of 4 KiB pages (the kernel maps BPF arrays with 4 KiB pages too).
 * Each step waits for the previous load, so the time per step is the
 * latency of a line that is (or is not) still in cache.  64k destinations
 * spread over a big DIR-24-8 table touch about 64k such lines.
 *
 *   memlat [LINES...]   one JSON object per size
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define SPAN  (128UL << 20)
#define LINE  64
#define STEPS 4000000UL

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* ns per step of a chase through n distinct random lines of buf. */
static double chase(char *buf, size_t n)
{
	size_t lines = SPAN / LINE, i, *pick;
	uint8_t *used = calloc(lines, 1);
	volatile size_t sink;
	size_t at;
	double t0;

	pick = malloc(n * sizeof(*pick));
	if (!used || !pick) {
		free(used);
		free(pick);
		return -1;
	}
	for (i = 0; i < n;) {
		size_t l = next_rand() % lines;

		if (!used[l]) {
			used[l] = 1;
			pick[i++] = l * LINE;
		}
	}
	for (i = 0; i < n; i++)
		*(size_t *)(buf + pick[i]) = pick[(i + 1) % n];
	at = pick[0];
	for (i = 0; i < n; i++) /* one lap to warm what fits */
		at = *(size_t *)(buf + at);
	t0 = now_ns();
	for (i = 0; i < STEPS; i++)
		at = *(size_t *)(buf + at);
	sink = at;
	(void)sink;
	free(used);
	free(pick);
	return (now_ns() - t0) / STEPS;
}

int main(int argc, char **argv)
{
	static const size_t dflt[] = { 1024, 16384, 20480, 24576, 65536,
				       1048576 };
	char *buf;
	int i, n = argc > 1 ? argc - 1 : (int)(sizeof(dflt) / sizeof(*dflt));

	buf = mmap(NULL, SPAN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("memlat: mmap");
		return 1;
	}
	madvise(buf, SPAN, MADV_NOHUGEPAGE);
	memset(buf, 1, SPAN);
	for (i = 0; i < n; i++) {
		size_t lines = argc > 1 ? strtoul(argv[i + 1], NULL, 0) : dflt[i];
		double ns;

		if (!lines || lines > SPAN / LINE) {
			fprintf(stderr, "memlat: %s: 1..%lu lines\n",
				argv[i + 1], SPAN / LINE);
			return 1;
		}
		ns = chase(buf, lines);
		if (ns < 0) {
			fprintf(stderr, "memlat: %s\n", strerror(ENOMEM));
			return 1;
		}
		printf("{\"part\":\"memlat\",\"lines\":%zu,\"kib\":%zu,"
		       "\"ns\":%.1f}\n",
		       lines, lines * LINE / 1024, ns);
	}
	return 0;
}
