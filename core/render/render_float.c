/* Shortest round-trip formatting of DOUBLE, FLOAT and FLOAT16, laid out as
 * JavaScript's Number.prototype.toString (ECMA-262 Number::toString).
 *
 * Method. glibc's printf("%.*e") rounds the exact binary value correctly
 * (to nearest, ties to even), so for p digits it yields the p-digit decimal
 * closest to x. The decimals that read back as x form an interval around x;
 * when x's neighbours are equally far (all but the powers of two) the
 * closest p-digit decimal lies in it whenever any p-digit decimal does. So
 * we take the smallest p whose correctly rounded p-digit string reads back.
 * At a power of two the gap below x is half the gap above: the closest
 * candidate may fall below the interval while the next one up is inside,
 * so that one is tried too. Ties at equal distance go to the even digit,
 * as printf does.
 *
 * Shortcuts. Any decimal of at most 15 (6, 3) significant digits survives
 * the trip decimal -> binary -> decimal at 53 (24, 11) bits for normal
 * numbers (Matula: 10^p < 2^(q-1)). So if some string of <= 15 digits reads
 * back as x, it equals the 15-digit rounding of x with zeros stripped: for
 * normal x the search starts at 15 (6, 3) digits. Integers below 2^53
 * (2^24, 2^11) need all their digits and are written directly.
 *
 * Reading back: strtod / strtof are correctly rounded in glibc. For halves
 * the decimal is compared exactly, in integers, with the half's rounding
 * interval. Candidate strings are built as "DIGITSe-EXP", without a
 * decimal point, so the locale does not matter.
 *
 * Speed. The printf search costs 1-4 us a value; for doubles and floats
 * of ordinary magnitude (about 1e-5 to 1e22) an exact 128-bit integer
 * version of the same search (exact_shortest) gives the identical result
 * in about 0.1-0.2 us, and defers to the printf search outside its range. */
#include "config.h"

#include "pq_render.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fwidth { FW_64, FW_32, FW_16 };

/* A decimal d[0..k) * 10^(e - k + 1): d[0] is the digit of 10^e. */
typedef struct digits {
	char d[24];
	int k;
	int e;
} digits;

/* The correctly rounded p significant digits of x > 0. */
static void round_digits(double x, int p, digits *g)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.*e", p - 1, x);
	int k = 0;
	const char *s = tmp;
	for (; *s && *s != 'e'; s++)
		if (*s >= '0' && *s <= '9' && k < (int)sizeof g->d)
			g->d[k++] = *s;
	g->k = k;
	g->e = *s == 'e' ? (int)strtol(s + 1, NULL, 10) : 0;
}

/* The next p-digit decimal above g. */
static void bump(digits *g)
{
	int i = g->k - 1;
	while (i >= 0 && g->d[i] == '9')
		g->d[i--] = '0';
	if (i >= 0) {
		g->d[i]++;
	} else { /* 99..9 -> 100..0 */
		g->d[0] = '1';
		g->e++;
	}
}

static double parse_double(const digits *g, bool single)
{
	char s[48];
	memcpy(s, g->d, (size_t)g->k);
	snprintf(s + g->k, sizeof s - (size_t)g->k, "e%d", g->e - g->k + 1);
	int saved = errno; /* strtod reports over/underflow in errno */
	double r = single ? (double)strtof(s, NULL) : strtod(s, NULL);
	errno = saved;
	return r;
}

/* ---- IEEE half ------------------------------------------------------- */

double pq_half_to_double(uint16_t h)
{
	int ex = (h >> 10) & 0x1F;
	int m = h & 0x3FF;
	double v;
	if (ex == 0x1F)
		v = m ? NAN : INFINITY;
	else if (ex == 0)
		v = ldexp(m, -24);
	else
		v = ldexp(m + 1024, ex - 25);
	return (h & 0x8000) ? -v : v;
}

static const uint64_t pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
	10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
	100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

/* Compares s * 10^t with k * 2^f exactly. Only used for halves: there
 * s < 10^5, t in [-13, 4], k < 2^13, f in [-27, 15], and both sides,
 * brought to integers, stay below 2^60. */
static int cmp_dec_bin(uint64_t s, int t, uint64_t k, int f)
{
	uint64_t a = s, b = k;
	if (t >= 0)
		a *= pow10_u64[t];
	else
		b *= pow10_u64[-t];
	if (f >= 0)
		b <<= f;
	else
		a <<= -f;
	return a < b ? -1 : a > b;
}

/* Does decimal g round (to nearest, ties to even) to the positive finite
 * half h? */
static bool half_reads_back(const digits *g, uint16_t h)
{
	int ex = (h >> 10) & 0x1F;
	uint64_t m = h & 0x3FF;
	uint64_t sig = ex ? m + 1024 : m;
	int f = (ex ? ex : 1) - 25; /* h = sig * 2^f */
	uint64_t s = 0;
	for (int i = 0; i < g->k; i++)
		s = s * 10 + (uint64_t)(g->d[i] - '0');
	int t = g->e - g->k + 1;
	int c_hi = cmp_dec_bin(s, t, 2 * sig + 1, f - 1);
	int c_lo = (m == 0 && ex > 1) ? cmp_dec_bin(s, t, 4 * sig - 1, f - 2)
				      : cmp_dec_bin(s, t, 2 * sig - 1, f - 1);
	if (c_lo > 0 && c_hi < 0)
		return true;
	return (c_lo == 0 || c_hi == 0) && (m & 1) == 0;
}

/* ---- exact integer path ---------------------------------------------- */

/* The same answer as the printf search below, in 128-bit integers and
 * about ten times faster: x = m * 2^e exactly, the correctly rounded
 * p-digit decimal is round_half_even(m * 2^e * 10^k) with k = p - 1 - E,
 * and it reads back when it lies inside x's rounding interval (on its edge
 * only when m is even). When a quantity would not fit in 128 bits (very
 * small or very large x, subnormals) this path declines and the printf
 * search runs. */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;
#define U128_MAX (~(u128)0)

static bool p10_128(int i, u128 *r)
{
	if (i < 0 || i > 38)
		return false;
	*r = i <= 19 ? (u128)pow10_u64[i] : (u128)pow10_u64[19] * pow10_u64[i - 19];
	return true;
}

static bool mul_ok(u128 *a, u128 b)
{
	if (b && *a > U128_MAX / b)
		return false;
	*a *= b;
	return true;
}

/* Shifts, keeping the result below 2^127 (so doubling it cannot wrap). */
static bool shl_ok(u128 *a, int s)
{
	if (s >= 127 || *a > (U128_MAX >> 1) >> s)
		return false;
	*a <<= s;
	return true;
}

/* Sign of n * 10^t - b * 2^f; 2 when out of range. */
static int cmp_exact(uint64_t n, int t, u128 b, int f)
{
	u128 a = n, p;
	if (!p10_128(t >= 0 ? t : -t, &p) || !mul_ok(t >= 0 ? &a : &b, p))
		return 2;
	if (!shl_ok(f >= 0 ? &b : &a, f >= 0 ? f : -f))
		return 2;
	return a < b ? -1 : a > b;
}

/* Does n * 10^t round to m * 2^e? 1 yes, 0 no, -1 out of range. The
 * interval is (4m - 2, 4m + 2) * 2^(e-2), or (4m - 1, ...) below a power
 * of two. */
static int exact_reads_back(uint64_t n, int t, uint64_t m, int e, bool asym)
{
	int c_hi = cmp_exact(n, t, (u128)4 * m + 2, e - 2);
	int c_lo = cmp_exact(n, t, (u128)4 * m - (asym ? 1 : 2), e - 2);
	if (c_hi == 2 || c_lo == 2)
		return -1;
	if (c_lo > 0 && c_hi < 0)
		return 1;
	return (c_lo == 0 || c_hi == 0) && (m & 1) == 0;
}

/* The correctly rounded p digits n of m * 2^e, ties to even, as
 * n * 10^(*Ep - p + 1). *E is x's own decimal exponent (10^E <= x <
 * 10^(E+1)): an estimate on entry, corrected here from the unrounded
 * quotient. *Ep is E, or E + 1 when rounding carried into a new digit
 * (99.96 -> 100.0). *below: the decimal is less than x. */
static bool exact_round(uint64_t m, int e, int p, int *E, uint64_t *n, int *Ep, bool *below)
{
	for (int tries = 0; tries < 4; tries++) {
		int k = p - 1 - *E;
		u128 num = m, den = 1, pk;
		if (!p10_128(k >= 0 ? k : -k, &pk))
			return false;
		if (k >= 0) {
			if (!mul_ok(&num, pk))
				return false;
		} else {
			den = pk;
		}
		if (!shl_ok(e >= 0 ? &num : &den, e >= 0 ? e : -e))
			return false;
		u128 q = num / den, r = num % den;
		if (q >= pow10_u64[p]) {
			(*E)++;
			continue;
		}
		if (q < pow10_u64[p - 1]) {
			(*E)--;
			continue;
		}
		bool up = 2 * r > den || (2 * r == den && (q & 1));
		q += up;
		*Ep = *E;
		if (q == pow10_u64[p]) {
			q /= 10;
			(*Ep)++;
		}
		*n = (uint64_t)q;
		*below = !up && r != 0;
		return true;
	}
	return false;
}

static void set_digits(uint64_t n, int E, digits *g)
{
	char tmp[24];
	size_t len = pq_format_u64(n, tmp);
	memcpy(g->d, tmp, len);
	g->k = (int)len;
	g->e = E;
	while (g->k > 1 && g->d[g->k - 1] == '0')
		g->k--;
}

/* x = m * 2^e > 0; false when out of range (then use shortest()). */
static bool exact_shortest(uint64_t m, int e, bool asym, int pmin, int pmax, double x,
			   digits *g)
{
	int E = (int)floor(log10(x));
	for (int p = pmin; p <= pmax; p++) {
		uint64_t n;
		int Ep;
		bool below;
		if (!exact_round(m, e, p, &E, &n, &Ep, &below))
			return false;
		int rb = exact_reads_back(n, Ep - p + 1, m, e, asym);
		if (rb < 0)
			return false;
		if (rb) {
			set_digits(n, Ep, g);
			return true;
		}
		if (asym && below) { /* the candidate above, see the top */
			int E2 = Ep;
			if (++n == pow10_u64[p]) {
				n /= 10;
				E2++;
			}
			rb = exact_reads_back(n, E2 - p + 1, m, e, asym);
			if (rb < 0)
				return false;
			if (rb) {
				set_digits(n, E2, g);
				return true;
			}
		}
	}
	return false;
}
#else
static bool exact_shortest(uint64_t m, int e, bool asym, int pmin, int pmax, double x,
			   digits *g)
{
	(void)m, (void)e, (void)asym, (void)pmin, (void)pmax, (void)x, (void)g;
	return false;
}
#endif

/* ---- search ---------------------------------------------------------- */

static bool reads_back(enum fwidth w, const digits *g, double x, uint16_t h)
{
	switch (w) {
	case FW_64: return parse_double(g, false) == x;
	case FW_32: return parse_double(g, true) == x;
	case FW_16: return half_reads_back(g, h);
	}
	return false;
}

/* Shortest digits of x > 0 (finite; h its half bits for FW_16), digits
 * tried from pmin to pmax; asym: x is a power of two above the smallest
 * normal, with a narrower gap below. */
static void shortest(enum fwidth w, double x, uint16_t h, bool asym, int pmin, int pmax,
		     digits *g)
{
	for (int p = pmin; p <= pmax; p++) {
		round_digits(x, p, g);
		if (reads_back(w, g, x, h))
			goto strip;
		if (asym && parse_double(g, false) < x) {
			bump(g);
			if (reads_back(w, g, x, h))
				goto strip;
		}
	}
	round_digits(x, pmax, g); /* max_digits10 always reads back */
strip:
	while (g->k > 1 && g->d[g->k - 1] == '0')
		g->k--;
}

/* Integer x in [1, 2^53): its own digits, trailing zeros stripped. */
static void integer_digits(uint64_t v, digits *g)
{
	char tmp[24];
	size_t n = pq_format_u64(v, tmp);
	memcpy(g->d, tmp, n);
	g->k = (int)n;
	g->e = (int)n - 1;
	while (g->k > 1 && g->d[g->k - 1] == '0')
		g->k--;
}

static size_t put_uint(char *o, unsigned v)
{
	char tmp[12];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		o[i] = tmp[n - 1 - i];
	return n;
}

/* ECMA-262 Number::toString layout; with n = e + 1 (value = 0.d * 10^n):
 * k <= n <= 21: digits then zeros; 0 < n <= 21: a point inside;
 * -6 < n <= 0: 0.000digits; otherwise d.ddde+-x. */
static size_t js_layout(bool neg, const digits *g, char *buf)
{
	char *o = buf;
	int k = g->k, n = g->e + 1;
	if (neg)
		*o++ = '-';
	if (k <= n && n <= 21) {
		memcpy(o, g->d, (size_t)k);
		o += k;
		memset(o, '0', (size_t)(n - k));
		o += n - k;
	} else if (0 < n && n <= 21) {
		memcpy(o, g->d, (size_t)n);
		o += n;
		*o++ = '.';
		memcpy(o, g->d + n, (size_t)(k - n));
		o += k - n;
	} else if (-6 < n && n <= 0) {
		*o++ = '0';
		*o++ = '.';
		memset(o, '0', (size_t)-n);
		o += -n;
		memcpy(o, g->d, (size_t)k);
		o += k;
	} else {
		*o++ = g->d[0];
		if (k > 1) {
			*o++ = '.';
			memcpy(o, g->d + 1, (size_t)(k - 1));
			o += k - 1;
		}
		*o++ = 'e';
		*o++ = g->e < 0 ? '-' : '+';
		o += put_uint(o, (unsigned)(g->e < 0 ? -g->e : g->e));
	}
	*o = '\0';
	return (size_t)(o - buf);
}

static size_t special(const char *s, char *buf)
{
	size_t n = strlen(s);
	memcpy(buf, s, n + 1);
	return n;
}

size_t pq_format_double(double d, char *buf)
{
	if (isnan(d))
		return special("NaN", buf);
	if (isinf(d))
		return special(d < 0 ? "-Infinity" : "Infinity", buf);
	if (d == 0)
		return special(signbit(d) ? "-0" : "0", buf);
	bool neg = d < 0;
	double x = fabs(d);
	digits g;
	if (x < 9007199254740992.0 && x == floor(x)) {
		integer_digits((uint64_t)x, &g);
	} else {
		uint64_t bits;
		memcpy(&bits, &x, sizeof bits);
		uint64_t ex = bits >> 52, mant = bits & ((1ull << 52) - 1);
		bool asym = mant == 0 && ex > 1;
		if (!ex || !exact_shortest(mant | 1ull << 52, (int)ex - 1075, asym, 15, 17, x, &g))
			shortest(FW_64, x, 0, asym, ex ? 15 : 1, 17, &g);
	}
	return js_layout(neg, &g, buf);
}

size_t pq_format_float(float f, char *buf)
{
	if (isnan(f))
		return special("NaN", buf);
	if (isinf(f))
		return special(f < 0 ? "-Infinity" : "Infinity", buf);
	if (f == 0)
		return special(signbit(f) ? "-0" : "0", buf);
	bool neg = f < 0;
	float xf = fabsf(f);
	digits g;
	if (xf < 16777216.0f && xf == floorf(xf)) {
		integer_digits((uint64_t)xf, &g);
	} else {
		uint32_t bits;
		memcpy(&bits, &xf, sizeof bits);
		uint32_t ex = bits >> 23, mant = bits & ((1u << 23) - 1);
		bool asym = mant == 0 && ex > 1;
		if (!ex || !exact_shortest(mant | 1u << 23, (int)ex - 150, asym, 6, 9, (double)xf, &g))
			shortest(FW_32, (double)xf, 0, asym, ex ? 6 : 1, 9, &g);
	}
	return js_layout(neg, &g, buf);
}

size_t pq_format_float16(uint16_t h, char *buf)
{
	unsigned ex = (h >> 10) & 0x1F, m = h & 0x3FF;
	bool neg = (h & 0x8000) != 0;
	if (ex == 0x1F)
		return special(m ? "NaN" : neg ? "-Infinity" : "Infinity", buf);
	if (ex == 0 && m == 0)
		return special(neg ? "-0" : "0", buf);
	uint16_t ah = (uint16_t)(h & 0x7FFF);
	double x = pq_half_to_double(ah);
	digits g;
	if (x < 2048.0 && x == floor(x))
		integer_digits((uint64_t)x, &g);
	else
		shortest(FW_16, x, ah, m == 0 && ex > 1, ex ? 3 : 1, 5, &g);
	return js_layout(neg, &g, buf);
}
