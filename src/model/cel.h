/*
 * cel.h -- the CEL subset that DRA device selectors use.
 *
 * DeviceClass and ResourceClaim selectors are CEL expressions over one
 * device: `device.driver`, `device.attributes["domain"].name`,
 * `device.capacity["domain"].name`.  An expression is compiled once (to a
 * tree in an arena) and evaluated per device; evaluation allocates nothing
 * and the program is read-only, so several threads may evaluate it.
 *
 * Supported: literals (int, uint, double, string incl. raw and triple
 * quoted, bool, null, lists), `! - * / % + - < <= > >= == != in && || ?:`,
 * has(), size(), string .startsWith .endsWith .contains .matches,
 * quantity("40Gi") with .compareTo .isGreaterThan .isLessThan
 * .isInteger .asInteger, semver("1.2.3") (and version attributes) with
 * .compareTo .isGreaterThan .isLessThan .major .minor .patch, list
 * attributes with `in` and .includes().  `&&` and `||` absorb errors the
 * way CEL does (false && error is false).
 *
 * .matches uses POSIX extended regular expressions (regcomp), not RE2:
 * \d \w \s (and \D \W \S) are translated to bracket classes, but RE2 flag
 * groups (?i), non-greedy quantifiers, \b and \pN are refused with an error.
 * Like RE2's partial match, the pattern may match anywhere.
 *
 * Errors carry the expression's source position and the offset inside it:
 * "file:line:col: CEL: unsupported construct 'x' at offset 12".  A missing
 * attribute is a runtime error, as in Kubernetes; an unknown attribute
 * domain behaves as an empty map.
 */
#ifndef WASP_CEL_H
#define WASP_CEL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"

/* Attribute types of a device (resource.k8s.io DeviceAttribute). */
typedef enum wcel_atype {
	WCEL_A_INT,
	WCEL_A_BOOL,
	WCEL_A_STRING,
	WCEL_A_VERSION,
	WCEL_A_INTS,     /* list forms */
	WCEL_A_BOOLS,
	WCEL_A_STRINGS,
	WCEL_A_VERSIONS
} wcel_atype;

typedef struct wcel_attr {
	const char *domain;  /* resolved: "gpu.nvidia.com" (the driver's
				name for unqualified attributes)           */
	const char *name;
	int type;            /* wcel_atype                                  */
	int64_t i;           /* INT                                         */
	bool b;              /* BOOL                                        */
	const char *s;       /* STRING, VERSION                             */
	const int64_t *li;   /* INTS                                        */
	const bool *lb;      /* BOOLS                                       */
	const char **ls;     /* STRINGS, VERSIONS                           */
	int n;               /* list length                                 */
} wcel_attr;

typedef struct wcel_cap {
	const char *domain, *name;
	int64_t milli;       /* quantity in milli-units                      */
} wcel_cap;

/* What an expression sees of one device. */
typedef struct wcel_device {
	const char *driver;
	const wcel_attr *attrs;
	int nattrs;
	const wcel_cap *caps;
	int ncaps;
} wcel_device;

typedef struct wcel_prog wcel_prog;

/* Compile `expr` (NUL-terminated; copied into the arena).  `at` is where
 * the expression string starts in the input; errors are WASP_EINPUT at
 * that position with the offset in the message. */
int wcel_compile(wa_arena *a, const char *expr, wsrc at, wcel_prog **out,
		 wasp_error *err);

/* 1: the device matches, 0: it does not, -1: runtime error (err filled,
 * WASP_EINPUT with the expression's position).  A non-bool result is an
 * error. */
int wcel_eval(const wcel_prog *p, const wcel_device *d, wasp_error *err);

const char *wcel_text(const wcel_prog *p);

/* Semantic version comparison (semver 2.0 precedence; a leading "v" is
 * accepted).  Returns 0 and *cmp in {-1,0,1}, or -1 when a or b does not
 * parse. */
int wcel_semver_cmp(const char *a, const char *b, int *cmp);

#endif
