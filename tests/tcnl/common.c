// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tcnl/common.h"

int passed, failed;

void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok)
		passed++;
	else
		failed++;
}

int sh(const char *cmd)
{
	char line[512];

	snprintf(line, sizeof(line), "%s >/dev/null 2>&1", cmd);
	return system(line);
}

int count_lines(const char *cmd, const char *needle)
{
	char line[1024];
	int n = 0;
	FILE *p;

	p = popen(cmd, "r");
	if (!p)
		return -errno;
	while (fgets(line, sizeof(line), p))
		n += strstr(line, needle) != NULL;
	pclose(p);
	return n;
}

int output_has(const char *cmd, const char *needle)
{
	int n = count_lines(cmd, needle);

	return n < 0 ? n : n > 0;
}
