/* DATE, TIME, TIMESTAMP, INT96, INTERVAL and UUID as text.
 *
 * Dates are proleptic Gregorian with astronomical year numbering (year 0
 * exists, 1 BC = 0000, 4714 BC = -4713): at least four digits, a sign only
 * outside 0000-9999 (`+10000`, `-0001`). All arithmetic uses floor
 * division on the remainder, never multiplying back, so every int64 input
 * is exact and cannot overflow. */
#include "config.h"

#include "pq_render.h"
#define PQ_RENDER_INTERNAL
#include "render_internal.h"

#include <string.h>

/* floor(a / b) and a - b * floor(a / b) for b > 0, without overflow. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b < 0) ? q - 1 : q;
}

static int64_t floor_mod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return r < 0 ? r + b : r;
}

/* Writes v (>= 0) with at least width digits, zero-padded. */
static char *put_padded(char *o, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*o++ = tmp[--n];
	return o;
}

/* Days since 1970-01-01 to civil year, month, day. The calendar repeats
 * every 400 years (146097 days); counting from 0000-03-01 puts the leap
 * day last in each year, so month lengths follow a fixed pattern
 * (153 days per 5 months from March). */
static void civil_from_days(int64_t days, int64_t *y, int *m, int *d)
{
	/* 0000-03-01 is day -719468; split before shifting to stay in range. */
	int64_t era = floor_div(days, 146097);
	int64_t z = floor_mod(days, 146097) + 719468;
	era += floor_div(z, 146097);
	int64_t doe = floor_mod(z, 146097);                          /* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365; /* [0, 399] */
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);      /* [0, 365] */
	int64_t mp = (5 * doy + 2) / 153;                           /* [0, 11], March = 0 */
	*d = (int)(doy - (153 * mp + 2) / 5 + 1);
	*m = (int)(mp < 10 ? mp + 3 : mp - 9);
	*y = yoe + era * 400 + (*m <= 2);
}

static char *put_date(char *o, int64_t days)
{
	int64_t y;
	int m, d;
	civil_from_days(days, &y, &m, &d);
	if (y >= 0 && y <= 9999) { /* the common case, two digits at a time */
		o = pq_put2(o, (unsigned)(y / 100));
		o = pq_put2(o, (unsigned)(y % 100));
		*o++ = '-';
		o = pq_put2(o, (unsigned)m);
		*o++ = '-';
		return pq_put2(o, (unsigned)d);
	}
	if (y < 0) {
		*o++ = '-';
		o = put_padded(o, (uint64_t)0 - (uint64_t)y, 4);
	} else {
		if (y > 9999)
			*o++ = '+';
		o = put_padded(o, (uint64_t)y, 4);
	}
	*o++ = '-';
	o = put_padded(o, (uint64_t)m, 2);
	*o++ = '-';
	return put_padded(o, (uint64_t)d, 2);
}

/* HH:MM:SS for a second of the day in [0, 86400). */
static char *put_hms(char *o, int64_t sod)
{
	o = pq_put2(o, (unsigned)(sod / 3600));
	*o++ = ':';
	o = pq_put2(o, (unsigned)(sod / 60 % 60));
	*o++ = ':';
	return pq_put2(o, (unsigned)(sod % 60));
}

/* `.fraction` of frac (in [0, 10^digits)) without trailing zeros; nothing
 * when zero. */
static char *put_fraction(char *o, int64_t frac, int digits)
{
	if (frac == 0)
		return o;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	*o++ = '.';
	return put_padded(o, (uint64_t)frac, digits);
}

static int unit_digits(int32_t unit)
{
	switch (unit) {
	case PQ_MILLIS: return 3;
	case PQ_MICROS: return 6;
	case PQ_NANOS: return 9;
	default: return 0;
	}
}

static const int64_t pow10_i64[10] = {1, 10, 100, 1000, 10000, 100000, 1000000,
				      10000000, 100000000, 1000000000};

static size_t finish(char *buf, char *o, bool utc)
{
	if (utc)
		*o++ = 'Z';
	*o = '\0';
	return (size_t)(o - buf);
}

size_t pq_format_date(int64_t days, char *buf)
{
	return finish(buf, put_date(buf, days), false);
}

size_t pq_format_time(int64_t v, int32_t unit, bool utc, char *buf)
{
	int digits = unit_digits(unit);
	if (!digits)
		return pq_format_i64(v, buf);
	int64_t per_sec = pow10_i64[digits];
	/* 24:00:00 itself is in range (interface.md: 0-24 h inclusive). */
	if (v < 0 || v / per_sec > 86400 || (v / per_sec == 86400 && v % per_sec))
		return pq_format_i64(v, buf);
	char *o = put_hms(buf, v / per_sec);
	o = put_fraction(o, v % per_sec, digits);
	return finish(buf, o, utc);
}

size_t pq_format_timestamp(int64_t v, int32_t unit, bool utc, char *buf)
{
	int digits = unit_digits(unit);
	if (!digits)
		return pq_format_i64(v, buf);
	int64_t per_sec = pow10_i64[digits];
	int64_t secs = floor_div(v, per_sec);
	int64_t frac = floor_mod(v, per_sec);
	char *o = put_date(buf, floor_div(secs, 86400));
	*o++ = 'T';
	o = put_hms(o, floor_mod(secs, 86400));
	o = put_fraction(o, frac, digits);
	return finish(buf, o, utc);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* Nanoseconds of the day (signed, may carry into days) and the Julian day
 * number (unsigned; 2440588 is 1970-01-01), combined in days, not in one
 * 64-bit nanosecond count, which would overflow. */
size_t pq_format_int96(const uint8_t p[12], char *buf)
{
	const int64_t ns_per_day = 86400 * (int64_t)1000000000;
	uint64_t u = (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
	int64_t nanos;
	memcpy(&nanos, &u, sizeof nanos); /* two's complement reinterpretation */
	int64_t days = (int64_t)le32(p + 8) - 2440588 + floor_div(nanos, ns_per_day);
	int64_t nod = floor_mod(nanos, ns_per_day);
	char *o = put_date(buf, days);
	*o++ = 'T';
	o = put_hms(o, nod / 1000000000);
	o = put_fraction(o, nod % 1000000000, 9);
	return finish(buf, o, false);
}

size_t pq_format_interval(const uint8_t p[12], char *buf)
{
	uint32_t ms = le32(p + 8);
	char *o = buf;
	*o++ = 'P';
	o = put_padded(o, le32(p), 1);
	*o++ = 'M';
	o = put_padded(o, le32(p + 4), 1);
	*o++ = 'D';
	*o++ = 'T';
	o = put_padded(o, ms / 1000, 1);
	o = put_fraction(o, ms % 1000, 3);
	*o++ = 'S';
	return finish(buf, o, false);
}

size_t pq_format_uuid(const uint8_t p[16], char *buf)
{
	static const char hex[] = "0123456789abcdef";
	char *o = buf;
	for (int i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		*o++ = hex[p[i] >> 4];
		*o++ = hex[p[i] & 15];
	}
	return finish(buf, o, false);
}
