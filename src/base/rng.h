/*
 * rng.h -- splitmix64, the one small PRNG of the modules that need noise
 * (the generator, the ILP's rounding heuristic, the greedy's seeded
 * restarts).  A pure function of a caller-owned state: runs repeat
 * exactly on any platform and any thread count.
 */
#ifndef WASP_RNG_H
#define WASP_RNG_H

#include <stdint.h>

/* The next value of the stream in *s. */
static inline uint64_t wrng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1), from the top 53 bits. */
static inline double wrng_unit(uint64_t *s)
{
	return (double)(wrng_next(s) >> 11) * 0x1.0p-53;
}

#endif
