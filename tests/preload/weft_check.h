/*
 * weft_check.h — every preload test starts with weft_check_loaded().
 *
 * Under the test runner's weft pass (WEFT_EXPECT=1) it fails the test unless
 * libweft.so is really mapped into the process: a test that passes without
 * the thing under test is worthless.  Natively (WEFT_EXPECT unset) it does
 * nothing, so the same program gives the native reference output.
 */
#ifndef WEFT_CHECK_H
#define WEFT_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int weft_loaded(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (strstr(line, "libweft.so")) {
			found = 1;
			break;
		}
	fclose(f);
	return found;
}

static inline void weft_check_loaded(void)
{
	const char *e = getenv("WEFT_EXPECT");
	if (e && *e == '1' && !weft_loaded()) {
		fprintf(stderr, "test: WEFT_EXPECT=1 but libweft.so is not loaded\n");
		exit(99);
	}
}
#endif
