/*
 * quantity.c -- Kubernetes resource quantities as exact int64 milli-units.
 *
 * Grammar (as apimachinery's resource.Quantity, slightly stricter: at
 * least one digit is required and the exponent must be an integer):
 *   [+-] ( digits [. digits?] | . digits ) [ suffix ]
 *   suffix: n u m "" k M G T P E | Ki Mi Gi Ti Pi Ei | (e|E) [+-] digits
 *
 * The value is D * 2^b * 10^x where D is the significant digits as an
 * integer.  We multiply D by 2^b exactly in a decimal digit array (no
 * floating point, no 128-bit arithmetic), then shift by the decimal
 * exponent: the digits shifted out below a milli-unit only decide whether
 * to round the magnitude up, as MilliValue() rounds away from zero.
 */
#include "model/quantity.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Significant digits we accept.  Far more than int64 holds; what lies
 * beyond 19 significant digits only matters for rounding. */
#define WQ_MAX_DIGITS 256
/* Exponent magnitudes are saturated here: anything larger already
 * overflows (or rounds to one milli-unit). */
#define WQ_EXP_CAP 100000

static int fail(const char **why, const char *msg, int code)
{
	if (why)
		*why = msg;
	return code;
}

static bool isdig(char c)
{
	return c >= '0' && c <= '9';
}

/* Suffix -> decimal exponent and binary shift; false if unknown. */
static bool suffix_scale(const char *s, size_t n, int *dec, int *bin,
			 const char **why)
{
	*dec = 0;
	*bin = 0;
	if (n == 0)
		return true;
	if (n == 2 && s[1] == 'i') {
		static const char bins[] = "KMGTPE";
		const char *p = memchr(bins, s[0], 6);
		if (p) {
			*bin = 10 * (int)(p - bins + 1);
			return true;
		}
		*why = "unknown suffix";
		return false;
	}
	if (n == 1) {
		switch (s[0]) {
		case 'n': *dec = -9; return true;
		case 'u': *dec = -6; return true;
		case 'm': *dec = -3; return true;
		case 'k': *dec = 3; return true;
		case 'M': *dec = 6; return true;
		case 'G': *dec = 9; return true;
		case 'T': *dec = 12; return true;
		case 'P': *dec = 15; return true;
		case 'E': *dec = 18; return true;
		}
	}
	if (s[0] == 'e' || s[0] == 'E') {
		size_t i = 1;
		bool neg = false;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			neg = s[i++] == '-';
		if (i == n) {
			*why = "exponent without digits";
			return false;
		}
		int e = 0;
		for (; i < n; i++) {
			if (!isdig(s[i])) {
				*why = "bad exponent";
				return false;
			}
			if (e < WQ_EXP_CAP)
				e = e * 10 + (s[i] - '0');
		}
		*dec = neg ? -e : e;
		return true;
	}
	*why = "unknown suffix";
	return false;
}

int wq_parse(const char *s, size_t len, int64_t *milli, const char **why)
{
	size_t i = 0;
	bool neg = false;

	if (!s || len == 0)
		return fail(why, "empty quantity", WQ_SYNTAX);
	if (s[0] == '+' || s[0] == '-')
		neg = s[i++] == '-';

	/* Mantissa: integer and fraction digits. */
	size_t ib = i;
	while (i < len && isdig(s[i]))
		i++;
	size_t ie = i, fb = i, fe = i;
	if (i < len && s[i] == '.') {
		fb = ++i;
		while (i < len && isdig(s[i]))
			i++;
		fe = i;
	}
	if (ie == ib && fe == fb)
		return fail(why, "no digits", WQ_SYNTAX);

	int dec, bin;
	const char *sw = NULL;
	if (!suffix_scale(s + i, len - i, &dec, &bin, &sw))
		return fail(why, sw, WQ_SYNTAX);

	/* Significant digits, most significant first; leading zeros dropped,
	 * trailing zeros folded into the exponent. */
	unsigned char d[WQ_MAX_DIGITS + 20];
	size_t nd = 0;
	long x = dec + 3; /* decimal exponent of the last digit, in milli */
	for (size_t k = ib; k < fe; k++) {
		if (k == ie)
			continue; /* the '.' (or nothing when ie == fe) */
		if (k >= fb)
			x--;
		int v = s[k] - '0';
		if (nd == 0 && v == 0)
			continue;
		if (nd == WQ_MAX_DIGITS)
			return fail(why, "too many digits", WQ_SYNTAX);
		d[nd++] = (unsigned char)v;
	}
	while (nd > 0 && d[nd - 1] == 0) {
		nd--;
		x++;
	}
	if (nd == 0) {
		*milli = 0;
		return WQ_OK;
	}

	/* d *= 2^bin, in base 10 (b <= 2^60, so digit * b + carry fits). */
	if (bin) {
		uint64_t b = (uint64_t)1 << bin, carry = 0;
		for (size_t k = nd; k-- > 0;) {
			uint64_t t = d[k] * b + carry;
			d[k] = (unsigned char)(t % 10);
			carry = t / 10;
		}
		unsigned char head[24];
		size_t nh = 0;
		while (carry) {
			head[nh++] = (unsigned char)(carry % 10);
			carry /= 10;
		}
		memmove(d + nh, d, nd);
		for (size_t k = 0; k < nh; k++)
			d[k] = head[nh - 1 - k];
		nd += nh;
	}

	/* Integer part: the first nd + x digits (x < 0), or all digits
	 * followed by x zeros; the rest rounds the magnitude up. */
	long nint = (long)nd + x;
	bool frac = false;
	if (x < 0) {
		for (long k = nint < 0 ? 0 : nint; k < (long)nd; k++)
			if (d[k]) {
				frac = true;
				break;
			}
	}
	if (nint > 19)
		return fail(why, "too large", WQ_RANGE);
	uint64_t v = 0;
	for (long k = 0; k < nint; k++) {
		int dig = k < (long)nd ? d[k] : 0;
		if (v > (UINT64_MAX - (uint64_t)dig) / 10)
			return fail(why, "too large", WQ_RANGE);
		v = v * 10 + (uint64_t)dig;
	}
	if (frac)
		v++;
	if (v > (uint64_t)INT64_MAX)
		return fail(why, "too large", WQ_RANGE);
	*milli = neg ? -(int64_t)v : (int64_t)v;
	return WQ_OK;
}

int wq_is_bytes_resource(const char *name)
{
	if (!name)
		return 0;
	if (!strncmp(name, "hugepages-", 10))
		return 1;
	/* The part after a domain prefix: memory, ephemeral-storage,
	 * storage, and vendor names such as example.com/gpu-memory. */
	const char *slash = strrchr(name, '/');
	const char *base = slash ? slash + 1 : name;
	size_t n = strlen(base);
	static const char *const tails[] = {"memory", "storage"};
	for (size_t k = 0; k < 2; k++) {
		size_t t = strlen(tails[k]);
		if (n >= t && !strcmp(base + n - t, tails[k]))
			return 1;
	}
	return 0;
}

char *wq_format(int64_t milli, int bytes_like, char *buf, size_t size)
{
	if (!buf || !size)
		return buf;
	/* Magnitude in uint64 so INT64_MIN is safe. */
	uint64_t m = milli < 0 ? (uint64_t)0 - (uint64_t)milli : (uint64_t)milli;
	const char *sign = milli < 0 ? "-" : "";
	if (m % 1000) {
		snprintf(buf, size, "%s%llum", sign, (unsigned long long)m);
		return buf;
	}
	uint64_t u = m / 1000;
	if (bytes_like && u) {
		/* The shortest exact spelling: binary suffix, decimal
		 * suffix or plain ("64Gi", "1T", "1536"). */
		static const char *const bsfx[] = {"Ki", "Mi", "Gi", "Ti",
						   "Pi", "Ei"};
		static const char *const dsfx[] = {"k", "M", "G", "T", "P",
						   "E"};
		char best[32], cand[32];
		snprintf(best, sizeof best, "%s%llu", sign,
			 (unsigned long long)u);
		for (int k = 5; k >= 0; k--) {
			uint64_t unit = (uint64_t)1 << (10 * (k + 1));
			if (u % unit == 0) {
				snprintf(cand, sizeof cand, "%s%llu%s", sign,
					 (unsigned long long)(u / unit),
					 bsfx[k]);
				if (strlen(cand) < strlen(best))
					strcpy(best, cand);
				break;
			}
		}
		uint64_t unit = 1000000000000000000ULL;
		for (int k = 5; k >= 0; k--, unit /= 1000) {
			if (u % unit == 0) {
				snprintf(cand, sizeof cand, "%s%llu%s", sign,
					 (unsigned long long)(u / unit),
					 dsfx[k]);
				if (strlen(cand) < strlen(best))
					strcpy(best, cand);
				break;
			}
		}
		snprintf(buf, size, "%s", best);
		return buf;
	}
	snprintf(buf, size, "%s%llu", sign, (unsigned long long)u);
	return buf;
}
