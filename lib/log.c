// SPDX-License-Identifier: GPL-2.0-only
#include <stdarg.h>
#include <stdio.h>

#include <bpf/libbpf.h>

#include "lib/log.h"

static enum log_level log_level = LOG_WARN;
static const char *log_prefix = "classifier";

void log_set_level(enum log_level level)
{
	log_level = level;
}

enum log_level log_get_level(void)
{
	return log_level;
}

void log_set_prefix(const char *prefix)
{
	log_prefix = prefix;
}

static void vlog(enum log_level level, const char *fmt, va_list ap)
{
	if (level > log_level)
		return;
	if (log_prefix)
		fprintf(stderr, "%s: ", log_prefix);
	vfprintf(stderr, fmt, ap);
}

void logging_print(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, fmt, ap);
	va_end(ap);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	enum log_level ours = level == LIBBPF_WARN ? LOG_INFO : LOG_DEBUG;

	if (ours > log_level)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void log_setup_libbpf(void)
{
	libbpf_set_print(libbpf_print);
}
