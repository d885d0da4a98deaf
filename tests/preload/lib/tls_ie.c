/*
 * tls_ie.c — a library with initial-exec TLS (as libgomp or libGL have),
 * which must live in static TLS even when dlopen'ed after threads exist.
 * NWORDS sets its size: small (fits what weft keeps free under each task)
 * or big (more than that: the test's "big" mode).
 */
#ifndef NWORDS
#define NWORDS 8
#endif
#define IE __attribute__((tls_model("initial-exec")))

IE __thread int ie_val = 42;
IE __thread long ie_arr[NWORDS] = { 1, 2, 3, 4, 5, 6, 7, 8 };

/* 1 if this thread saw the initial values; then makes them its own. */
int ie_check(long id)
{
	int ok = ie_val == 42 && ie_arr[0] == 1 && ie_arr[7] == 8 && ie_arr[NWORDS - 1] ==
		 (NWORDS > 8 ? 0 : 8);
	ie_val = (int)id;
	ie_arr[NWORDS - 1] = id;
	return ok;
}

/* 1 if this thread still holds what it wrote. */
int ie_mine(long id)
{
	return ie_val == (int)id && ie_arr[NWORDS - 1] == id;
}
