// SPDX-License-Identifier: GPL-2.0-only
/* The state and config maps, the journal, and the crash points. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "maps/internal.h"

/* Per thread: an exporter thread may open pins beside the sync daemon. */
static __thread char open_error[512];

void cls_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(open_error, sizeof(open_error), fmt, ap);
	va_end(ap);
}

const char *cls_open_error(void)
{
	return open_error;
}

void cls_notify(struct cls_maps *m, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	if (!m->notify)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	m->notify(m->notify_ctx, line);
}

int cls_state_read(struct cls_maps *m, struct cls_state *s)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->fd[CLS_M_STATE], &zero, s) ? -errno : 0;
}

int cls_state_write(struct cls_maps *m, const struct cls_state *s)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->fd[CLS_M_STATE], &zero, s, BPF_ANY)
		       ? -errno
		       : 0;
}

int cls_config_read(struct cls_maps *m, struct cls_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(m->fd[CLS_M_CONFIG], &zero, cfg) ? -errno
								    : 0;
}

int cls_config_write(struct cls_maps *m, const struct cls_config *cfg)
{
	__u32 zero = 0;

	return bpf_map_update_elem(m->fd[CLS_M_CONFIG], &zero, cfg, BPF_ANY)
		       ? -errno
		       : 0;
}

int cls_state_for_change(struct cls_maps *m, struct cls_state *s)
{
	int err;

	if (!m->locked)
		return -ENOLCK;
	err = cls_state_read(m, s);
	return !err && s->journal.op != CLS_OP_NONE ? -EALREADY : err;
}

int cls_journal_begin(struct cls_maps *m, struct cls_state *s, enum cls_op op)
{
	s->journal.op = op;
	s->journal.phase = 0;
	s->journal.pid = getpid();
	return cls_state_write(m, s);
}

int cls_journal_end(struct cls_maps *m, struct cls_state *s)
{
	memset(&s->journal, 0, sizeof(s->journal));
	return cls_state_write(m, s);
}

int cls_sync_status_set(struct cls_maps *m, const struct cls_sync_status *st)
{
	struct cls_state s;
	int err;

	if (!m->locked)
		return -ENOLCK;
	err = cls_state_read(m, &s);
	if (err)
		return err;
	s.sync = *st;
	return cls_state_write(m, &s);
}

bool cls_sync_running(const struct cls_sync_status *s)
{
	return s->pid && (!kill(s->pid, 0) || errno == EPERM);
}

#ifdef CLS_FAULT_INJECT
/*
 * $CLS_FAULT_STEP=N: die at the N-th step of this process, as a kill -9
 * would.  $CLS_FAULT_LOG=FILE: append each step's name (to list them).
 */
void cls_step(const char *what)
{
	static long left = -1;
	const char *env, *log;
	FILE *f;

	if (left < 0) {
		env = getenv("CLS_FAULT_STEP");
		left = env ? strtol(env, NULL, 10) : 0;
	}
	log = getenv("CLS_FAULT_LOG");
	if (log && (f = fopen(log, "a"))) {
		fprintf(f, "%s\n", what);
		fclose(f);
	}
	if (left > 0 && --left == 0)
		kill(getpid(), SIGKILL);
}

int cls_fail(const char *what)
{
	static long left = -1;
	const char *env = getenv("CLS_FAULT_FAIL"), *n;

	if (!env || strcmp(env, what))
		return 0;
	if (left < 0) {
		n = getenv("CLS_FAULT_FAILS");
		left = n ? strtol(n, NULL, 10) : 1;
	}
	return left > 0 && left-- ? -EIO : 0;
}
#endif
