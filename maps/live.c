// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generation packets use (cls_config.gen) and the maps in its slots.
 * A handle caches the live inner maps; the cache is dropped when the
 * handle publishes another generation or takes the lock (another process
 * may have published one meanwhile).  Readers without the lock may race a
 * publish: a slot emptied under them is looked up again.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

void cls_live_forget(struct cls_maps *m)
{
	int s;

	cls_table_unmap(&m->table);
	cls_table6_unmap(&m->table6);
	for (s = 0; s < CLS_NR_SLOTTED; s++) {
		if (m->live[s] >= 0)
			close(m->live[s]);
		m->live[s] = -1;
	}
	m->gen_known = false;
}

int cls_live_gen(struct cls_maps *m, __u32 *gen)
{
	struct cls_config cfg;
	int err;

	if (!m->gen_known) {
		err = cls_config_read(m, &cfg);
		if (err)
			return err;
		m->gen = cfg.gen & (CLS_GENERATIONS - 1);
		m->gen_known = true;
	}
	*gen = m->gen;
	return 0;
}

int cls_slot_get(struct cls_maps *m, enum cls_slotted s, __u32 gen)
{
	LIBBPF_OPTS(bpf_get_fd_by_id_opts, o,
		    .open_flags = m->read_only ? BPF_F_RDONLY : 0);
	__u32 id;
	int fd;

	if (bpf_map_lookup_elem(m->fd[cls_slot_map(s)], &gen, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id_opts(id, &o);
	return fd < 0 ? -errno : fd;
}

int cls_slot_set(struct cls_maps *m, enum cls_slotted s, __u32 gen, int fd)
{
	return bpf_map_update_elem(m->fd[cls_slot_map(s)], &gen, &fd, BPF_ANY)
		       ? -errno
		       : 0;
}

int cls_slot_clear(struct cls_maps *m, enum cls_slotted s, __u32 gen)
{
	if (bpf_map_delete_elem(m->fd[cls_slot_map(s)], &gen) &&
	    errno != ENOENT)
		return -errno;
	return 0;
}

/* The map in the slot, checked: a pin of ours must hold maps of ours. */
static int get_checked(struct cls_maps *m, enum cls_slotted s, __u32 gen)
{
	char why[256];
	int fd, err;

	fd = cls_slot_get(m, s, gen);
	if (fd < 0)
		return fd;
	err = cls_map_check(fd, cls_slot_spec(s), NULL, why, sizeof(why));
	if (err) {
		cls_set_error("slot %u of %s: %s", gen,
			      cls_map_specs[cls_slot_map(s)].name, why);
		close(fd);
		return err;
	}
	return fd;
}

int cls_live_fd(struct cls_maps *m, enum cls_slotted s)
{
	__u32 gen;
	int fd, err, tries;

	if (m->live[s] >= 0)
		return m->live[s];
	for (tries = 0; tries < 3; tries++) {
		err = cls_live_gen(m, &gen);
		if (err)
			return err;
		fd = get_checked(m, s, gen);
		if (fd >= 0) {
			m->live[s] = fd;
			return fd;
		}
		if (fd != -ENOENT || s == CLS_S_TABLE_V4 || s == CLS_S_TABLE_V6)
			return fd;
		/* A trie slot is empty only while a publish moves on. */
		m->gen_known = false;
	}
	return -ENOENT;
}

int cls_live_table(struct cls_maps *m)
{
	int fd;

	if (m->table.fd >= 0)
		return 0;
	fd = cls_live_fd(m, CLS_S_TABLE_V4);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	return cls_table_map(&m->table, fd);
}

int cls_table6_format_set(struct cls_maps *m, __u32 gen, __u8 format)
{
	struct cls_config cfg;
	int err = cls_config_read(m, &cfg);

	if (err)
		return err;
	cfg.table6_format[gen] = format;
	return cls_config_write(m, &cfg);
}

/*
 * A table in a format this build does not know (a newer build wrote it)
 * is none to us: a reader leaves it alone; a writer takes it out of its
 * slot before it changes routes the table would then not show, and the
 * upkeep at the end of the change builds one in our format.
 */
static int table6_foreign(struct cls_maps *m, __u8 format)
{
	int err;

	if (!m->locked)
		return 0;
	err = cls_slot_clear(m, CLS_S_TABLE_V6, m->gen);
	if (err)
		return err;
	close(m->live[CLS_S_TABLE_V6]);
	m->live[CLS_S_TABLE_V6] = -1;
	m->table6_format = 0;
	cls_notify(m,
		   "took out an IPv6 table in format %u, which this classifier "
		   "does not know (it writes format %u); the trie answers until "
		   "a table is built",
		   format, MBT6_FORMAT);
	return 0;
}

int cls_live_table6(struct cls_maps *m)
{
	struct cls_config cfg;
	__u8 *format = &m->table6_format;
	int fd, err;

	if (m->table6.fd >= 0)
		return 0;
	*format = 0;
	fd = cls_live_fd(m, CLS_S_TABLE_V6);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	err = cls_config_read(m, &cfg);
	if (err)
		return err;
	*format = cfg.table6_format[m->gen];
	if (!mbt6_format_known(*format))
		return table6_foreign(m, *format);
	if (*format < MBT6_FORMAT && m->locked) {
		/*
		 * An older build's table: ours to read, but a change may add
		 * nodes its programs do not know.  Those must see a format
		 * they do not know first (and ask the trie), and be done
		 * with the table.
		 */
		*format = cfg.table6_format[m->gen] = MBT6_FORMAT;
		err = cls_config_write(m, &cfg);
		if (!err)
			err = cls_wait_for_programs(m);
		if (err)
			return err;
	}
	return cls_table6_map(&m->table6, fd, *format);
}

int cls_wait_for_programs(struct cls_maps *m)
{
	int fd, err;
	__u32 gen;

	/*
	 * An update of a map-in-map slot returns only after an RCU grace
	 * period (maybe_wait_bpf_programs()): writing the live IPv4 trie
	 * into its own slot is our user-space synchronize_rcu().
	 */
	err = cls_live_gen(m, &gen);
	if (err)
		return err;
	fd = cls_slot_get(m, CLS_S_TRIE_V4, gen);
	if (fd < 0)
		return fd;
	err = cls_slot_set(m, CLS_S_TRIE_V4, gen, fd);
	close(fd);
	return err;
}
