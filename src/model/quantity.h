/*
 * quantity.h -- Kubernetes resource quantities as exact integers.
 *
 * Every quantity is held in milli-units in an int64 ("100m" = 100,
 * "1" = 1000, "64Gi" = 68719476736000).  Parsing is exact: decimal and
 * binary suffixes (n u m k M G T P E, Ki Mi Gi Ti Pi Ei), decimal
 * exponents (2e3, 1E-3), fractions ("1.5"), signs.  A value finer than a
 * milli-unit is rounded up to the next milli-unit, as Kubernetes'
 * MilliValue() does.  Nothing goes through floating point.
 */
#ifndef WASP_QUANTITY_H
#define WASP_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

#define WQ_MAX INT64_MAX

enum wq_status {
	WQ_OK = 0,
	WQ_SYNTAX,   /* not a quantity                   */
	WQ_RANGE     /* does not fit int64 milli-units   */
};

/* Parse s[0..len) into *milli.  On failure *why (may be NULL) gets a short
 * static description ("unknown suffix 'X'", "too large", ...). */
int wq_parse(const char *s, size_t len, int64_t *milli, const char **why);

/* Format milli-units canonically into buf: whole numbers plain ("8"),
 * fractions as milli ("1500m"); for resource names that are byte counts
 * (memory, ephemeral-storage, hugepages-*) the shortest exact spelling,
 * binary suffix first ("64Gi", "1T" for 10^12, "1536").  wq_parse reads
 * every output back to the same value.  Returns buf. */
char *wq_format(int64_t milli, int bytes_like, char *buf, size_t size);

/* True for memory, ephemeral-storage, hugepages-* and the like. */
int wq_is_bytes_resource(const char *name);

#endif
