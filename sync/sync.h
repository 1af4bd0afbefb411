/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `classifier sync`: follow kernel routing tables and keep classifier's
 * synced routes equal to what the rules (sync/rules.h) select.  The
 * command calls sync_main() with the options it parsed and an applier
 * over the pinned maps (sync/applier.h).
 */
#ifndef CLS_SYNC_H
#define CLS_SYNC_H

#include <linux/types.h>

#include "sync/applier.h"
#include "sync/rules.h"

struct sync_options {
	const char *config; /* rules file, or NULL */
	int argc;	    /* rule words from the command line, which */
	char **argv;	    /* come before the file's rules */
	__u32 rcvbuf; /* event socket buffer; 0: the config's, or 32 MiB */
	unsigned int lock_wait_ms; /* how long a batch waits for the lock */
};

/*
 * The rules' words alone (classes are not resolved), so a command can
 * refuse bad rules before it opens anything: 0, or a negative errno and
 * err (SYNC_ERR_LEN bytes) naming the file and line.
 */
int sync_check_rules(const struct sync_options *o, char *err);

/*
 * Runs in the foreground until SIGTERM or SIGINT, which leave every
 * synced route in place (a restart changes nothing); SIGHUP re-reads the
 * rules (a bad file keeps the old rules).  Blocks SIGHUP, SIGTERM and
 * SIGINT in the calling thread.  Returns 0 after a signal, or a negative
 * errno when it cannot start (bad rules: one line naming the file and
 * line is logged, and nothing changed).
 */
int sync_main(const struct sync_options *o, const struct sync_applier *a);

#endif
