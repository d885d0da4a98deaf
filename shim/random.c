/*
 * random.c — glibc's random-number and temporary-name functions.
 *
 * Each may reach glibc's getrandom, which from glibc 2.41 on takes a
 * per-thread vDSO state at a thread's first call, every signal blocked
 * while it reads TLS: in trap mode these calls run pinned until the task
 * has one (sched/stack/tls.c: wt_tls_pin_rng); then they go straight to libc.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

#include "shim.h"

/* The call, pinned while its task has no getrandom state: TAKES says
 * whether the call surely gives it one. */
#define RNG_PINNED(takes, call)                           \
	({                                                \
		wt_real_init();                           \
		struct wt_pin p_ = wt_tls_pin_rng(takes); \
		__typeof__(call) pr_ = call;              \
		wt_tls_unpin(p_);                         \
		pr_;                                      \
	})
#define FIRST_PINNED(call) RNG_PINNED(true, call)

WT_EXPORT ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	return FIRST_PINNED(real.getrandom(buf, len, flags));
}

WT_EXPORT int getentropy(void *buf, size_t len)
{
	return RNG_PINNED(false, real.getentropy(buf, len));
}

WT_EXPORT uint32_t arc4random(void)
{
	return FIRST_PINNED(real.arc4random());
}

WT_EXPORT void arc4random_buf(void *buf, size_t len)
{
	wt_real_init();
	struct wt_pin p = wt_tls_pin_rng(true);
	real.arc4random_buf(buf, len);
	wt_tls_unpin(p);
}

WT_EXPORT uint32_t arc4random_uniform(uint32_t bound)
{
	return FIRST_PINNED(real.arc4random_uniform(bound));
}

WT_EXPORT int mkstemp(char *tmpl)
{
	return FIRST_PINNED(real.mkstemp(tmpl));
}

WT_EXPORT int mkstemp64(char *tmpl)
{
	return FIRST_PINNED(real.mkstemp64(tmpl));
}

WT_EXPORT int mkostemp(char *tmpl, int flags)
{
	return FIRST_PINNED(real.mkostemp(tmpl, flags));
}

WT_EXPORT int mkostemp64(char *tmpl, int flags)
{
	return FIRST_PINNED(real.mkostemp64(tmpl, flags));
}

WT_EXPORT int mkstemps(char *tmpl, int suffixlen)
{
	return FIRST_PINNED(real.mkstemps(tmpl, suffixlen));
}

WT_EXPORT int mkstemps64(char *tmpl, int suffixlen)
{
	return FIRST_PINNED(real.mkstemps64(tmpl, suffixlen));
}

WT_EXPORT int mkostemps(char *tmpl, int suffixlen, int flags)
{
	return FIRST_PINNED(real.mkostemps(tmpl, suffixlen, flags));
}

WT_EXPORT int mkostemps64(char *tmpl, int suffixlen, int flags)
{
	return FIRST_PINNED(real.mkostemps64(tmpl, suffixlen, flags));
}

WT_EXPORT char *mkdtemp(char *tmpl)
{
	return FIRST_PINNED(real.mkdtemp(tmpl));
}

WT_EXPORT char *mktemp(char *tmpl)
{
	return FIRST_PINNED(real.mktemp(tmpl));
}

WT_EXPORT FILE *tmpfile(void)
{
	return RNG_PINNED(false, real.tmpfile());
}

WT_EXPORT FILE *tmpfile64(void)
{
	return RNG_PINNED(false, real.tmpfile64());
}

WT_EXPORT char *tempnam(const char *dir, const char *prefix)
{
	return FIRST_PINNED(real.tempnam(dir, prefix));
}

WT_EXPORT char *tmpnam(char s[L_tmpnam])
{
	return FIRST_PINNED(real.tmpnam(s));
}

WT_EXPORT char *tmpnam_r(char s[L_tmpnam])
{
	return FIRST_PINNED(real.tmpnam_r(s));
}
