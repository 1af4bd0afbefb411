// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a reader by group may do with the pins (maps/share.c), run with
 * the exporter's credentials:
 *
 *   pin_access ROOT     ROOT: <bpffs>/classifier
 *
 * every map pin opens read-only and its first element reads; a write
 * through that fd is refused (EPERM), a read-write open too (EACCES),
 * and so is opening a link or program pin of an attachment.  Prints one
 * line per check, exits 1 at the first that fails.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>

static int failed;

static void check(int ok, const char *what, const char *name)
{
	printf("%s %s %s%s%s\n", ok ? "ok" : "FAIL", what, name, ok ? "" : ": ",
	       ok ? "" : strerror(errno));
	failed |= !ok;
}

static void map_pin(const char *dir, const char *name)
{
	LIBBPF_OPTS(bpf_obj_get_opts, ro, .file_flags = BPF_F_RDONLY);
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char path[4096];
	void *key, *val;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	errno = 0;
	check(bpf_obj_get(path) < 0 && errno == EACCES,
	      "read-write open refused:", name);
	fd = bpf_obj_get_opts(path, &ro);
	check(fd >= 0, "read-only open:", name);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return;
	key = calloc(1, info.key_size);
	val = calloc(1, info.value_size);
	if (!key || !val)
		exit(2);
	/*
	 * Arrays have element 0; a trie, a slot, or the cpumap entry of a
	 * CPU no queue is steered to, may be empty.
	 */
	if (info.type != BPF_MAP_TYPE_LPM_TRIE)
		check(!bpf_map_lookup_elem(fd, key, val) ||
			      (errno == ENOENT &&
			       (info.type == BPF_MAP_TYPE_ARRAY_OF_MAPS ||
				info.type == BPF_MAP_TYPE_CPUMAP)),
		      "element read:", name);
	errno = 0;
	check(bpf_map_update_elem(fd, key, val, BPF_ANY) && errno == EPERM,
	      "write refused:", name);
	free(key);
	free(val);
}

static void attachment_pins(const char *root, const char *sub)
{
	char dir[4096], path[8192];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/%s", root, sub);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		errno = 0;
		check(bpf_obj_get(path) < 0 && errno == EACCES,
		      "attachment's pin refused:", de->d_name);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	char dir[4096];
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: pin_access ROOT\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/maps", argv[1]);
	d = opendir(dir);
	check(d != NULL, "list", dir);
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			map_pin(dir, de->d_name);
			n++;
		}
	if (d)
		closedir(d);
	check(n > 0, "map pins found in", dir);
	attachment_pins(argv[1], "links");
	attachment_pins(argv[1], "tc");
	return failed;
}
