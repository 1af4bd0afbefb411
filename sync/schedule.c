// SPDX-License-Identifier: GPL-2.0-only
#include <stdio.h>
#include <string.h>

#include "lib/log.h"
#include "sync/schedule.h"

#define MS 1000000ULL

/* The earliest a resync may start: spaced from the last one. */
static __u64 not_before(const struct schedule *s)
{
	__u64 gap = SYNC_RESYNC_HOLDOFF_MS * MS;

	if (!s->last_end)
		return 0;
	if (s->last_end - s->last_start > gap)
		gap = s->last_end - s->last_start;
	return s->last_end + gap;
}

void schedule_want(struct schedule *s, const char *reason,
		   unsigned int delay_ms, __u64 now_ns)
{
	__u64 due = now_ns + delay_ms * MS;

	if (!due)
		due = 1;
	if (s->due && s->due <= due)
		return;
	if (!s->due)
		pr_info("sync: resync wanted: %s\n", reason);
	s->due = due;
	snprintf(s->reason, sizeof(s->reason), "%s", reason);
}

void schedule_settle(struct schedule *s, const char *reason, __u64 now_ns)
{
	if (s->settle_since)
		return;
	pr_info("sync: resync wanted once the tables are quiet: %s\n", reason);
	s->settle_since = now_ns ? now_ns : 1;
	snprintf(s->settle_reason, sizeof(s->settle_reason), "%s", reason);
}

void schedule_activity(struct schedule *s, __u64 now_ns)
{
	if (now_ns > s->last_activity)
		s->last_activity = now_ns;
}

__u64 schedule_due(const struct schedule *s, const char **reason)
{
	__u64 due = s->due, quiet, hold = not_before(s);
	const char *why = s->reason;

	if (s->settle_since) {
		quiet = s->last_activity + SYNC_QUIET_MS * MS;
		if (quiet > s->settle_since + SYNC_SETTLE_MAX_MS * MS)
			quiet = s->settle_since + SYNC_SETTLE_MAX_MS * MS;
		if (!due || quiet < due) {
			due = quiet;
			why = s->settle_reason;
		}
	}
	if (reason)
		*reason = why;
	if (!due)
		return 0;
	return due < hold ? hold : due;
}

void schedule_begin(struct schedule *s, __u64 now_ns)
{
	s->due = 0;
	s->settle_since = 0;
	s->last_start = now_ns;
}

void schedule_end(struct schedule *s, __u64 now_ns)
{
	s->last_end = now_ns;
}
