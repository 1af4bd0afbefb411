/* SPDX-License-Identifier: GPL-2.0-only */
/* What the netlink tests share: one line a check, the tc command's view. */
#ifndef CLS_TCNL_COMMON_H
#define CLS_TCNL_COMMON_H

extern int passed, failed;

/* "ok   ..." or "FAIL ...", counted. */
void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cmd through the shell, its output thrown away: its exit status. */
int sh(const char *cmd);
/* How many lines of cmd's output contain needle (-errno). */
int count_lines(const char *cmd, const char *needle);
/* Does the output of cmd contain needle? */
int output_has(const char *cmd, const char *needle);

#endif
