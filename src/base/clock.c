/*
 * clock.c -- the monotonic clock (clock.h).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "base/clock.h"

#include <time.h>

double wb_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
