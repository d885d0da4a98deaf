/*
 * tls_gd.c — a library with global-dynamic TLS (the default for a shared
 * library's __thread): dlopen'ed, each thread's block is allocated at its
 * first access (__tls_get_addr) and freed when the thread ends.
 */
__thread long gd_arr[64] = { 7, 6, 5, 4, 3, 2, 1 };

/* 1 if this thread saw the initial values; then makes them its own. */
int gd_check(long id)
{
	int ok = gd_arr[0] == 7 && gd_arr[6] == 1 && gd_arr[63] == 0;
	gd_arr[0] = id;
	gd_arr[63] = id;
	return ok;
}

/* 1 if this thread still holds what it wrote. */
int gd_mine(long id)
{
	return gd_arr[0] == id && gd_arr[63] == id;
}
