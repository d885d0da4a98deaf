/*
 * criterion_tsan.c — lets criterion start under ThreadSanitizer.
 *
 * Criterion's sandbox (BoxFort, src/arena.c) maps its shared arena at a
 * random address in [0x2000_0000_0000, 0x6000_0000_0000), drawn with
 * rand_r, and gives up after 10 draws that land on something mapped.
 * Under TSan nearly all of that range is TSan's own shadow or a protected
 * gap, so the runner dies with "Could not initialize inheritable arena:
 * Resource temporarily unavailable" (Snaipe/Criterion#274, open).  In the
 * TSan build only, this rand_r (the executable's definition wins over
 * libc's for libcriterion too) draws from the part of the range that is
 * application memory to TSan (0x5640_0000_0000 to 0x5680_0000_0000, above
 * where PIE binaries load).  Nothing of weft or of the tests calls rand_r.
 */
#ifdef __SANITIZE_THREAD__
#include <stdlib.h>

int rand_r(unsigned *seed)
{
	/* BoxFort: base = 0x2000_0000_0000 + (r & 0x3fffff) * 16 MiB. */
	*seed = *seed * 1103515245u + 12345u;
	return (int)(0x364000u + ((*seed >> 8) & 0x3fffu));
}
#endif
