/*
 * redirect.h — criterion's stderr capture for tests that read what the
 * runtime prints, without swallowing a sanitizer's report: in the TSan and
 * ASan builds reports go to a copy of the real stderr, taken first.
 */
#ifndef WEFT_UNIT_REDIRECT_H
#define WEFT_UNIT_REDIRECT_H

#include <criterion/redirect.h>
#include <stdint.h>
#include <unistd.h>
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

static inline void redirect_stderr(void)
{
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
	__sanitizer_set_report_fd((void *)(intptr_t)dup(2));
#endif
	cr_redirect_stderr();
}

#endif
