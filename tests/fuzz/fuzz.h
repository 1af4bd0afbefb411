/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the libFuzzer harnesses share.  A harness is one file,
 * tests/fuzz/fuzz_NAME.c, defining LLVMFuzzerTestOneInput; it checks
 * properties that must hold for every input and calls fuzz_fail() when one
 * does not, so that libFuzzer saves the input as a crash.
 */
#ifndef CLS_FUZZ_H
#define CLS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints what broke and aborts: libFuzzer keeps the input. */
void fuzz_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

#define FUZZ_CHECK(cond, ...)                                                  \
	do {                                                                   \
		if (!(cond))                                                   \
			fuzz_fail(__VA_ARGS__);                                \
	} while (0)

/*
 * The input up to its first NUL, in a heap block of exactly that length
 * plus the terminator, so that AddressSanitizer sees any read past the
 * end of the string.  Free it with free().
 */
char *fuzz_cstr(const uint8_t *data, size_t size);
/* strdup() that cannot fail. */
char *fuzz_strdup(const char *s);

/* An accepted prefix is canonical: length in range, no host bits. */
void fuzz_check_prefix(const char *in, const struct cls_prefix *p);
/* A refused input names why: a non-empty reason. */
void fuzz_check_why(const char *in, int err, const char *why);

#endif /* CLS_FUZZ_H */
