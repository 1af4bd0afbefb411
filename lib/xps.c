// SPDX-License-Identifier: GPL-2.0-only
/* A device's TX queues and XPS, from sysfs (lib/xps.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xps.h"

#define SYS_NET "/sys/class/net"

/* The first line of a sysfs file, without its newline; -errno. */
static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f))
		err = ferror(f) ? -errno : -ENODATA;
	fclose(f);
	if (err)
		return err;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Is SYS_NET/ifname the device ifindex of this namespace? */
static int same_device(const char *ifname, int ifindex)
{
	char path[512], buf[32];

	if (strchr(ifname, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), SYS_NET "/%s/ifindex", ifname);
	if (read_line(path, buf, sizeof(buf)))
		return -ENOENT;
	return atoi(buf) == ifindex ? 0 : -ENOENT;
}

/* A CPU or queue mask as sysfs writes it ("00000000,00000003"): zero? */
static int mask_is_zero(const char *s)
{
	for (; *s; s++)
		if (isxdigit((unsigned char)*s) && *s != '0')
			return 0;
	return 1;
}

/* The numbers of ifname's tx-N queue directories, one call each. */
static int each_tx_queue(const char *ifname,
			 int (*fn)(const char *ifname, const char *q, void *arg),
			 void *arg)
{
	char path[512];
	struct dirent *d;
	int err = 0, n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), SYS_NET "/%s/queues", ifname);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!err && (d = readdir(dir)))
		if (!strncmp(d->d_name, "tx-", 3)) {
			n++;
			if (fn)
				err = fn(ifname, d->d_name, arg);
		}
	closedir(dir);
	return err ? err : n;
}

struct xps_why {
	char *buf;
	size_t n;
};

/*
 * A queue's XPS masks.  A single-queue device has none to read
 * (ENOENT): the kernel picks no queue there, so XPS cannot apply.
 */
static int queue_xps(const char *ifname, const char *q, void *arg)
{
	static const char *const files[] = {"xps_cpus", "xps_rxqs"};
	struct xps_why *w = arg;
	char path[512], buf[1024];
	size_t i;
	int err;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), SYS_NET "/%s/queues/%s/%s",
			 ifname, q, files[i]);
		err = read_line(path, buf, sizeof(buf));
		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		if (!mask_is_zero(buf)) {
			snprintf(w->buf, w->n, "%s of %s is %s", files[i], q,
				 buf);
			return -EBUSY;
		}
	}
	return 0;
}

int xps_check(const char *ifname, int ifindex, char *why, size_t n)
{
	struct xps_why w = {why, n};
	int err;

	if (n)
		why[0] = '\0';
	err = same_device(ifname, ifindex);
	if (err)
		return err;
	err = each_tx_queue(ifname, queue_xps, &w);
	return err < 0 ? err : 0;
}

int tx_queue_count(const char *ifname, int ifindex)
{
	int err = same_device(ifname, ifindex);

	return err ? err : each_tx_queue(ifname, NULL, NULL);
}
