/* CSV text → one typed value of a sidecar (or inferred) column type
 * (interface.md "Sidecar schema": values fit exactly or fail). Leading and
 * trailing spaces are ignored for every non-text type. */
#include "config.h"

#include <errno.h>
#include <fenv.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pq_csv.h"
#include "pq_schema.h"
#include "util/pq_utf8.h"

/* Widest DECIMAL converted from text (bytes of two's complement). */
#define DECIMAL_MAX_BYTES 4096
/* Longest number text handed to strtod/strtof. */
#define NUMBER_MAX 1024

static void set_name(pq_cv_type *t, const pq_schema_element *el)
{
	static const char *const phys[] = {"BOOLEAN", "INT32", "INT64", "INT96",
					   "FLOAT", "DOUBLE", "BINARY", "FIXED_LEN_BYTE_ARRAY"};
	pq_buf b = PQ_BUF_INIT;
	if (pq_schema_annotation(el, &b) && !b.oom && b.len < sizeof t->name) {
		memcpy(t->name, b.p, b.len);
		t->name[b.len] = '\0';
	} else if (el->type == PQ_FIXED_LEN_BYTE_ARRAY) {
		snprintf(t->name, sizeof t->name, "FIXED_LEN_BYTE_ARRAY(%d)", (int)el->type_length);
	} else {
		snprintf(t->name, sizeof t->name, "%s",
			 el->type >= 0 && el->type < 8 ? phys[el->type] : "value");
	}
	pq_buf_free(&b);
}

static int32_t unit_of(const pq_time_unit_u *u)
{
	return u->has_MILLIS ? PQ_MILLIS : u->has_MICROS ? PQ_MICROS : u->has_NANOS ? PQ_NANOS : 0;
}

const char *pq_cv_type_of(const pq_schema_element *el, pq_cv_type *t)
{
	memset(t, 0, sizeof *t);
	const pq_logical_type *lt = &el->logicalType;
	bool has_lt = el->has_logicalType;
	t->physical = el->type;
	t->type_length = el->type_length;
	set_name(t, el);
	if (has_lt && lt->has_DECIMAL) {
		t->kind = PQ_CV_DECIMAL;
		t->precision = lt->DECIMAL.precision;
		t->scale = lt->DECIMAL.scale;
		if (el->type == PQ_FIXED_LEN_BYTE_ARRAY && el->type_length > DECIMAL_MAX_BYTES)
			return "DECIMAL wider than 4096 bytes cannot come from CSV";
		if (el->type == PQ_BYTE_ARRAY && t->precision > 9800)
			return "DECIMAL precision above 9800 cannot come from CSV";
		return NULL;
	}
	switch (el->type) {
	case PQ_BOOLEAN:
		t->kind = PQ_CV_BOOLEAN;
		return NULL;
	case PQ_INT32:
	case PQ_INT64: {
		bool i64 = el->type == PQ_INT64;
		if (has_lt && lt->has_DATE) {
			t->kind = PQ_CV_DATE;
			return NULL;
		}
		if (has_lt && (lt->has_TIME || lt->has_TIMESTAMP)) {
			const pq_timestamp_type *tt = lt->has_TIME ? &lt->TIME : &lt->TIMESTAMP;
			t->kind = lt->has_TIME ? PQ_CV_TIME : PQ_CV_TIMESTAMP;
			t->unit = unit_of(&tt->unit);
			t->utc = tt->isAdjustedToUTC;
			return t->unit ? NULL : "a time unit this build does not know";
		}
		int bits = i64 ? 64 : 32;
		bool sign = true;
		if (has_lt && lt->has_INTEGER) {
			bits = lt->INTEGER.bitWidth;
			sign = lt->INTEGER.isSigned;
		} else if (has_lt) {
			return "this annotation cannot come from CSV";
		}
		t->kind = PQ_CV_INT;
		t->is_unsigned = !sign;
		if (sign) {
			t->max = bits == 64 ? INT64_MAX : (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
			t->min = -t->max - 1;
		} else {
			t->umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
		}
		return NULL;
	}
	case PQ_FLOAT:
		t->kind = PQ_CV_FLOAT;
		return NULL;
	case PQ_DOUBLE:
		t->kind = PQ_CV_DOUBLE;
		return NULL;
	case PQ_BYTE_ARRAY:
		if (!has_lt && !el->has_converted_type) {
			t->kind = PQ_CV_BINARY;
			return NULL;
		}
		if (lt->has_STRING || lt->has_ENUM) {
			t->kind = PQ_CV_STRING;
			return NULL;
		}
		if (lt->has_JSON) {
			t->kind = PQ_CV_JSON;
			return NULL;
		}
		return "this annotation cannot come from CSV";
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (has_lt && lt->has_UUID) {
			t->kind = PQ_CV_UUID;
			return NULL;
		}
		if (has_lt && lt->has_FLOAT16) {
			t->kind = PQ_CV_FLOAT16;
			return NULL;
		}
		if (!has_lt && !el->has_converted_type) {
			t->kind = PQ_CV_FIXED;
			return NULL;
		}
		return "this annotation cannot come from CSV";
	case PQ_INT96:
		return "INT96 cannot come from CSV (use TIMESTAMP)";
	default:
		return "unknown physical type";
	}
}

/* ---- helpers ---------------------------------------------------------- */

static const char *article(const char *name)
{
	return strchr("AEIO", name[0]) ? "an" : "a";
}

static bool why_(char *why, size_t len, const char *fmt, ...) PQ_PRINTF(3, 4);

static bool why_(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

static bool not_a(const pq_cv_type *t, char *why, size_t len)
{
	return why_(why, len, "is not %s %s", article(t->name), t->name);
}

static bool out_of_range(const pq_cv_type *t, char *why, size_t len)
{
	return why_(why, len, "is out of range for %s", t->name);
}

/* [+-]?[0-9]+ (sidecar integers may carry a sign and leading zeros). */
static bool parse_int(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
		      char *why, size_t len)
{
	bool neg = false;
	size_t i = 0;
	if (n && (p[0] == '-' || p[0] == '+')) {
		neg = p[0] == '-';
		i++;
	}
	if (i == n)
		return not_a(t, why, len);
	uint64_t v = 0;
	bool over = false;
	for (; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return not_a(t, why, len);
		unsigned dgt = (unsigned)(p[i] - '0');
		if (v > (UINT64_MAX - dgt) / 10)
			over = true;
		else
			v = v * 10 + dgt;
	}
	if (over)
		return out_of_range(t, why, len);
	int64_t s;
	if (t->is_unsigned) {
		if ((neg && v) || v > t->umax)
			return out_of_range(t, why, len);
		/* Stored as the bits of the unsigned value. */
		s = t->physical == PQ_INT32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
	} else {
		uint64_t lim = neg ? (uint64_t)t->max + 1 : (uint64_t)t->max;
		if (v > lim)
			return out_of_range(t, why, len);
		s = !neg ? (int64_t)v : v == (uint64_t)t->max + 1 ? t->min : -(int64_t)v;
	}
	if (t->physical == PQ_INT32)
		out->v.i32 = (int32_t)s;
	else
		out->v.i64 = s;
	return true;
}

int pq_cv_number_shape(const uint8_t *p, size_t n, pq_cv_number *num)
{
	memset(num, 0, sizeof *num);
	size_t i = 0;
	if (n && (p[0] == '+' || p[0] == '-')) {
		num->plus = p[0] == '+';
		num->minus = p[0] == '-';
		i++;
	}
	/* nan, inf, infinity (any case) */
	size_t rest = n - i;
	uint8_t c0 = rest ? (uint8_t)(p[i] | 0x20) : 0;
	if ((c0 == 'n' || c0 == 'i') && /* only then the calls below */
	    ((rest == 3 && !strncasecmp((const char *)p + i, "nan", 3)) ||
	     (rest == 3 && !strncasecmp((const char *)p + i, "inf", 3)) ||
	     (rest == 8 && !strncasecmp((const char *)p + i, "infinity", 8)))) {
		num->special = true;
		return 1;
	}
	size_t int_start = i;
	while (i < n && p[i] >= '0' && p[i] <= '9') {
		if (p[i] != '0')
			num->nonzero = true;
		i++;
	}
	num->int_digits = i - int_start;
	num->leading_zero = num->int_digits > 1 && p[int_start] == '0';
	if (i < n && p[i] == '.') {
		num->dot = true;
		i++;
		size_t fs = i;
		while (i < n && p[i] >= '0' && p[i] <= '9') {
			if (p[i] != '0')
				num->nonzero = true;
			i++;
		}
		num->frac_digits = i - fs;
	}
	if (num->int_digits + num->frac_digits == 0)
		return 0;
	if (i < n && (p[i] == 'e' || p[i] == 'E')) {
		num->exp = true;
		i++;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			i++;
		size_t es = i;
		while (i < n && p[i] >= '0' && p[i] <= '9')
			i++;
		if (i == es)
			return 0;
	}
	return i == n ? 1 : 0;
}

bool pq_cv_strtod(const uint8_t *p, size_t n, bool single, double *d, float *f)
{
	char tmp[NUMBER_MAX + 1];
	if (n > NUMBER_MAX)
		return false;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	char *end;
	if (single)
		*f = strtof(tmp, &end);
	else
		*d = strtod(tmp, &end);
	return end == tmp + n;
}

/* A decimal of at most 15 digits without an exponent, as strtod gives it:
 * the digits are an exact integer below 2^53 and 10^frac (frac <= 22) is
 * exact too, so one IEEE division rounds correctly (Clinger's fast path). */
static bool fast_double(const uint8_t *p, size_t n, const pq_cv_number *num, double *out)
{
	static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
				       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	if (num->special || num->exp || num->int_digits + num->frac_digits > 15)
		return false;
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] >= '0' && p[i] <= '9')
			m = m * 10 + (uint64_t)(p[i] - '0');
	double d = (double)m / pow10[num->frac_digits];
	*out = num->minus ? -d : d;
	return true;
}

static bool parse_float(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
			char *why, size_t len)
{
	pq_cv_number num;
	if (!pq_cv_number_shape(p, n, &num))
		return not_a(t, why, len);
	bool single = t->kind == PQ_CV_FLOAT;
	double d = 0;
	float f = 0;
	if (!single && fast_double(p, n, &num, &d)) {
		out->v.f64 = d;
		return true;
	}
	if (!pq_cv_strtod(p, n, single, &d, &f))
		return not_a(t, why, len);
	double v = single ? (double)f : d;
	if (!num.special && (isinf(v) || (v == 0 && num.nonzero)))
		return out_of_range(t, why, len);
	if (single)
		out->v.f32 = f;
	else
		out->v.f64 = d;
	return true;
}

/* The decimal text's value compared with d (-1 below, 0 equal, 1 above),
 * from parsing it again rounded down and up. */
static int compare_exact(const uint8_t *p, size_t n, double d)
{
	double lo = d, hi = d;
	float f;
	int mode = fegetround();
	fesetround(FE_DOWNWARD);
	pq_cv_strtod(p, n, false, &lo, &f);
	fesetround(FE_UPWARD);
	pq_cv_strtod(p, n, false, &hi, &f);
	fesetround(mode);
	return lo < d ? -1 : hi > d ? 1 : 0;
}

/* IEEE half from decimal text, rounded once to nearest-even: through a
 * double, except when the double lies exactly halfway between two halves,
 * where the text decides which way (no double rounding). */
static bool parse_float16(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
			  char *why, size_t len)
{
	pq_cv_number num;
	double d;
	float f;
	if (!pq_cv_number_shape(p, n, &num) || !pq_cv_strtod(p, n, false, &d, &f))
		return not_a(t, why, len);
	uint16_t sign = signbit(d) ? 0x8000 : 0, bits;
	double a = fabs(d);
	if (isnan(d)) {
		bits = 0x7E00;
	} else if (isinf(d)) {
		if (!num.special)
			return out_of_range(t, why, len);
		bits = 0x7C00;
	} else {
		int e;
		frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1 */
		e -= 1;       /* a = 1.x * 2^e */
		if (e < -14)
			e = -14;  /* subnormal: steps of 2^-24 */
		double q = ldexp(a, 10 - e), r = nearbyint(q);
		if (q - floor(q) == 0.5) { /* halfway: the text decides */
			int cmp = compare_exact(p, n, d) * (sign ? -1 : 1);
			r = cmp > 0 ? ceil(q) : cmp < 0 ? floor(q) : r;
		}
		uint32_t m = (uint32_t)r;
		if (m >= 2048) { /* rounded up to the next binade */
			m >>= 1;
			e++;
		}
		if (m < 1024) /* subnormal (or zero) */
			bits = (uint16_t)m;
		else if (e + 15 >= 31)
			return out_of_range(t, why, len);
		else
			bits = (uint16_t)(((uint32_t)(e + 15) << 10) | (m - 1024));
		if (bits == 0 && num.nonzero)
			return out_of_range(t, why, len);
	}
	bits |= sign;
	out->scratch[0] = (uint8_t)(bits & 0xFF);
	out->scratch[1] = (uint8_t)(bits >> 8);
	out->p = out->scratch;
	out->n = 2;
	return true;
}

/* Plain decimal text → unscaled integer, two's complement big-endian in w
 * bytes at out (w = 0: minimal BYTE_ARRAY length, returned in *used). */
static bool parse_decimal(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
			  pq_buf *big, char *why, size_t len)
{
	pq_cv_number num;
	if (!pq_cv_number_shape(p, n, &num) || num.special || num.exp)
		return not_a(t, why, len);
	if (num.frac_digits > (size_t)t->scale)
		return why_(why, len, "has more than %d fraction digit%s for %s", (int)t->scale,
			    t->scale == 1 ? "" : "s", t->name);
	size_t i = (num.plus || num.minus) ? 1 : 0, int_end = i + num.int_digits;
	while (i < int_end && p[i] == '0')
		i++; /* leading zeros are not significant */
	if ((int_end - i) + (size_t)t->scale > (size_t)t->precision)
		return out_of_range(t, why, len);
	/* The digits of the unscaled value, then padding zeros. */
	size_t frac_at = int_end + (num.dot ? 1 : 0);
	size_t ndig = (int_end - i) + (size_t)t->scale;
	if (t->physical == PQ_INT32 || t->physical == PQ_INT64) {
		int64_t v = 0; /* precision <= 18: no overflow */
		for (size_t k = i; k < int_end; k++)
			v = v * 10 + (p[k] - '0');
		for (size_t k = 0; k < (size_t)t->scale; k++)
			v = v * 10 + (k < num.frac_digits ? p[frac_at + k] - '0' : 0);
		if (num.minus)
			v = -v;
		if (t->physical == PQ_INT32)
			out->v.i32 = (int32_t)v;
		else
			out->v.i64 = v;
		return true;
	}
	/* Wide: multiply-add into a big-endian magnitude of w bytes. */
	size_t w = t->physical == PQ_FIXED_LEN_BYTE_ARRAY ? (size_t)t->type_length
							  : ndig * 416 / 1000 + 2;
	uint8_t *m = out->scratch;
	if (w > sizeof out->scratch) {
		big->len = 0;
		if (!pq_buf_grow(big, w))
			return why_(why, len, "is too large to convert (out of memory)");
		m = big->p;
	}
	memset(m, 0, w);
	size_t nint = int_end - i;
	for (size_t k = 0; k < ndig; k++) {
		size_t fk = k - nint;
		unsigned carry = k < nint ? (unsigned)(p[i + k] - '0')
			       : fk < num.frac_digits ? (unsigned)(p[frac_at + fk] - '0') : 0;
		for (size_t b = w; b-- > 0;) {
			unsigned x = m[b] * 10u + carry;
			m[b] = (uint8_t)x;
			carry = x >> 8;
		}
	}
	if (num.minus) {
		unsigned carry = 1;
		for (size_t b = w; b-- > 0;) {
			unsigned x = (uint8_t)~m[b] + carry;
			m[b] = (uint8_t)x;
			carry = x >> 8;
		}
	}
	size_t skip = 0;
	if (t->physical == PQ_BYTE_ARRAY) /* drop redundant sign bytes */
		while (skip + 1 < w && ((m[skip] == 0 && !(m[skip + 1] & 0x80)) ||
					(m[skip] == 0xFF && (m[skip + 1] & 0x80))))
			skip++;
	out->p = m + skip;
	out->n = w - skip;
	return true;
}

static int hexval(uint8_t c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool parse_uuid(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
		       char *why, size_t len)
{
	if (n != 36)
		return not_a(t, why, len);
	size_t o = 0;
	for (size_t i = 0; i < 36;) {
		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (p[i] != '-')
				return not_a(t, why, len);
			i++;
			continue;
		}
		int hi = hexval(p[i]), lo = hexval(p[i + 1]);
		if (hi < 0 || lo < 0)
			return not_a(t, why, len);
		out->scratch[o++] = (uint8_t)(hi << 4 | lo);
		i += 2;
	}
	out->p = out->scratch;
	out->n = 16;
	return true;
}

static bool fraction_fits(const pq_cv_type *t, const pq_cv_ts *ts, char *why, size_t len)
{
	int maxd = t->unit == PQ_MILLIS ? 3 : t->unit == PQ_MICROS ? 6 : 9;
	if (ts->frac_digits > maxd)
		return why_(why, len, "has more than %d fraction digits for %s", maxd, t->name);
	if (ts->has_offset && !t->utc)
		return why_(why, len, "has a UTC offset but %s is not UTC-adjusted", t->name);
	return true;
}

static bool parse_time(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
		       char *why, size_t len)
{
	pq_cv_ts ts;
	if (t->kind == PQ_CV_TIME ? !pq_cv_parse_time(p, n, &ts) : !pq_cv_parse_ts(p, n, &ts))
		return not_a(t, why, len);
	if (!fraction_fits(t, &ts, why, len))
		return false;
	int64_t v;
	if (t->kind == PQ_CV_TIME) {
		/* Time of day in UTC: the offset wraps around midnight. */
		int64_t s = ((ts.secs - ts.offset_s) % 86400 + 86400) % 86400;
		pq_cv_ts day = {.secs = s, .frac = ts.frac};
		if (!pq_cv_ts_value(&day, t->unit, &v))
			return out_of_range(t, why, len);
		if (t->unit == PQ_MILLIS)
			out->v.i32 = (int32_t)v;
		else
			out->v.i64 = v;
		return true;
	}
	if (!pq_cv_ts_value(&ts, t->unit, &v))
		return out_of_range(t, why, len);
	out->v.i64 = v;
	return true;
}

bool pq_cv_parse(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
		 pq_buf *big, char *why, size_t len)
{
	size_t bad;
	out->p = NULL;
	out->n = 0;
	switch (t->kind) {
	case PQ_CV_STRING:
	case PQ_CV_JSON:
		if ((bad = pq_utf8_first_invalid(p, n)) != n)
			return why_(why, len, "is not valid UTF-8 (byte 0x%02x at offset %zu) for %s",
				    p[bad], bad, t->name);
		if (t->kind == PQ_CV_JSON && !pq_cv_json_valid(p, n))
			return why_(why, len, "is not valid JSON");
		out->p = p;
		out->n = n;
		return true;
	case PQ_CV_BINARY:
		out->p = p;
		out->n = n;
		return true;
	case PQ_CV_FIXED:
		if (n != (size_t)t->type_length)
			return why_(why, len, "is not %d bytes long for %s", (int)t->type_length,
				    t->name);
		out->p = p;
		out->n = n;
		return true;
	default:
		break;
	}
	pq_cv_trim(&p, &n);
	switch (t->kind) {
	case PQ_CV_BOOLEAN:
		if (n == 4 && !strncasecmp((const char *)p, "true", 4))
			out->v.b = 1;
		else if (n == 5 && !strncasecmp((const char *)p, "false", 5))
			out->v.b = 0;
		else
			return not_a(t, why, len);
		return true;
	case PQ_CV_INT:
		return parse_int(t, p, n, out, why, len);
	case PQ_CV_FLOAT:
	case PQ_CV_DOUBLE:
		return parse_float(t, p, n, out, why, len);
	case PQ_CV_DATE: {
		pq_cv_ts ts;
		if (n != 10 || !pq_cv_parse_ts(p, n, &ts))
			return not_a(t, why, len);
		out->v.i32 = (int32_t)ts.days;
		return true;
	}
	case PQ_CV_TIME:
	case PQ_CV_TIMESTAMP:
		return parse_time(t, p, n, out, why, len);
	case PQ_CV_FLOAT16:
		return parse_float16(t, p, n, out, why, len);
	case PQ_CV_DECIMAL:
		return parse_decimal(t, p, n, out, big, why, len);
	case PQ_CV_UUID:
		return parse_uuid(t, p, n, out, why, len);
	default:
		return not_a(t, why, len);
	}
}
