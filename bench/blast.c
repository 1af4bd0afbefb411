// SPDX-License-Identifier: GPL-2.0-only
/*
 * UDP blaster: sends to a list of IPv4 destinations round-robin with
 * sendmmsg for a fixed time, pinned to one CPU, and reports packets, wall
 * time and the thread's CPU time.  With -p PROG_ID it holds
 * BPF_ENABLE_STATS for the run and reports the kernel's run_cnt and
 * run_time_ns deltas for that program.
 *   blast -f DESTS [-t SECONDS] [-c CPU] [-p PROG_ID] [-S SRC]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define BATCH	64
#define PAYLOAD 18 /* 60-byte frames */

static double clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int read_dests(const char *path, struct sockaddr_in **out, size_t *n)
{
	char line[64];
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	struct sockaddr_in *d = NULL, *nd;

	*n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nd = realloc(d, cap * sizeof(*d));
			if (!nd) {
				fclose(f);
				free(d);
				return -ENOMEM;
			}
			d = nd;
		}
		memset(&d[*n], 0, sizeof(d[*n]));
		d[*n].sin_family = AF_INET;
		d[*n].sin_port = htons(9);
		if (inet_pton(AF_INET, line, &d[*n].sin_addr) != 1)
			continue;
		(*n)++;
	}
	fclose(f);
	*out = d;
	return *n ? 0 : -EINVAL;
}

static int prog_stats(int fd, __u64 *cnt, __u64 *ns)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*cnt = info.run_cnt;
	*ns = info.run_time_ns;
	return 0;
}

int main(int argc, char **argv)
{
	struct mmsghdr msgs[BATCH];
	struct iovec iov = {};
	struct sockaddr_in *d = NULL, src = {.sin_family = AF_INET};
	char payload[PAYLOAD] = {0};
	const char *file = NULL, *srcaddr = NULL;
	double secs = 1, w0, c0, w1, c1;
	__u64 sent = 0, errs = 0, cnt0 = 0, rt0 = 0, cnt1 = 0, rt1 = 0;
	int cpu = -1, prog_id = 0, prog_fd = -1, stats_fd = -1, opt, s, i, r;
	size_t n, next = 0;
	cpu_set_t set;

	while ((opt = getopt(argc, argv, "f:t:c:p:S:")) != -1) {
		switch (opt) {
		case 'f':
			file = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'c':
			cpu = atoi(optarg);
			break;
		case 'p':
			prog_id = atoi(optarg);
			break;
		case 'S':
			srcaddr = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!file || read_dests(file, &d, &n))
		goto usage;
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("blast: affinity");
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0) {
		perror("blast: socket");
		return 1;
	}
	if (srcaddr && (inet_pton(AF_INET, srcaddr, &src.sin_addr) != 1 ||
			bind(s, (struct sockaddr *)&src, sizeof(src)))) {
		perror("blast: bind");
		return 1;
	}
	if (prog_id) {
		prog_fd = bpf_prog_get_fd_by_id(prog_id);
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (prog_fd < 0 || stats_fd < 0 ||
		    prog_stats(prog_fd, &cnt0, &rt0)) {
			perror("blast: prog stats");
			return 1;
		}
	}
	iov.iov_base = payload;
	iov.iov_len = sizeof(payload);
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < BATCH; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
		msgs[i].msg_hdr.msg_namelen = sizeof(*d);
	}
	w0 = clock_ns(CLOCK_MONOTONIC);
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	do {
		for (i = 0; i < BATCH; i++) {
			msgs[i].msg_hdr.msg_name = &d[next];
			next = next + 1 == n ? 0 : next + 1;
		}
		r = sendmmsg(s, msgs, BATCH, 0);
		if (r < 0) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				perror("blast: sendmmsg");
				return 1;
			}
			errs++;
			continue;
		}
		sent += r;
	} while (clock_ns(CLOCK_MONOTONIC) - w0 < secs * 1e9);
	w1 = clock_ns(CLOCK_MONOTONIC);
	c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (prog_fd >= 0 && prog_stats(prog_fd, &cnt1, &rt1))
		perror("blast: prog stats");
	printf("{\"packets\":%llu,\"wall_ns\":%.0f,\"cpu_ns\":%.0f,"
	       "\"send_errors\":%llu,\"prog_run_cnt\":%llu,"
	       "\"prog_run_time_ns\":%llu}\n",
	       (unsigned long long)sent, w1 - w0, c1 - c0,
	       (unsigned long long)errs, (unsigned long long)(cnt1 - cnt0),
	       (unsigned long long)(rt1 - rt0));
	if (stats_fd >= 0)
		close(stats_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	close(s);
	free(d);
	return sent ? 0 : 1;
usage:
	fprintf(stderr, "usage: blast -f DESTS [-t SECONDS] [-c CPU] "
			"[-p PROG_ID] [-S SRC]\n");
	return 2;
}
