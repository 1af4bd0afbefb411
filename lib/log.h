/* SPDX-License-Identifier: GPL-2.0-only */
/* Levelled logging for user space; libbpf's messages go one level lower. */
#ifndef CLS_LOG_H
#define CLS_LOG_H

enum log_level {
	LOG_WARN = 0,
	LOG_INFO,
	LOG_DEBUG,
};

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
void log_set_prefix(const char *prefix);
/* Route libbpf's output through us: its warnings become our info, etc. */
void log_setup_libbpf(void);

void logging_print(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define pr_warn(fmt, ...) logging_print(LOG_WARN, fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...) logging_print(LOG_INFO, fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) logging_print(LOG_DEBUG, fmt, ##__VA_ARGS__)

#endif
