/* Dates, times and timestamps in CSV text (interface.md "Type inference"):
 * YYYY-MM-DD (a real proleptic Gregorian date, years 0001-9999), then
 * optionally `T` or a space, HH:MM[:SS[.fraction]] and an offset `Z`, `z`,
 * ±HH:MM, ±HHMM or ±HH. */
#include "config.h"

#include "pq_csv.h"

static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Count from 0000-03-01 so the leap day ends a (March-based) year:
	 * month lengths from March repeat as 31,30,31,30,31 (153 days per 5
	 * months), and a 400-year cycle is 146097 days. 719468 is the day
	 * number of 1970-01-01 in that count. */
	if (m <= 2)
		y--;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	unsigned mp = m > 2 ? m - 3 : m + 9;
	int64_t doy = (153 * (int64_t)mp + 2) / 5 + (int64_t)d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
	static const unsigned dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	return m == 2 && leap(y) ? 29 : dim[m - 1];
}

/* n decimal digits at p into *v. */
static bool digits(const uint8_t *p, size_t n, unsigned *v)
{
	unsigned x = 0;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		x = x * 10 + (unsigned)(p[i] - '0');
	}
	*v = x;
	return true;
}

/* HH:MM[:SS[.f{1,9}]] at p[*i]; advances *i. */
static bool clock(const uint8_t *p, size_t n, size_t *i, pq_cv_ts *ts)
{
	unsigned hh, mm, ss = 0;
	size_t k = *i;
	if (n - k < 5 || !digits(p + k, 2, &hh) || p[k + 2] != ':' || !digits(p + k + 3, 2, &mm))
		return false;
	k += 5;
	if (hh > 23 || mm > 59)
		return false;
	ts->frac = 0;
	ts->frac_digits = 0;
	if (k < n && p[k] == ':') {
		if (n - k < 3 || !digits(p + k + 1, 2, &ss) || ss > 59)
			return false;
		k += 3;
		if (k < n && p[k] == '.') {
			k++;
			uint32_t f = 0;
			int nd = 0;
			while (k < n && p[k] >= '0' && p[k] <= '9') {
				if (nd == 9)
					return false; /* finer than nanoseconds */
				f = f * 10 + (uint32_t)(p[k] - '0');
				nd++;
				k++;
			}
			if (nd == 0)
				return false;
			ts->frac_digits = nd;
			for (int j = nd; j < 9; j++)
				f *= 10;
			ts->frac = f;
		}
	}
	ts->secs = (int64_t)hh * 3600 + mm * 60 + ss;
	ts->has_time = true;
	*i = k;
	return true;
}

/* Z, z, ±HH:MM, ±HHMM or ±HH up to the end; nothing is also fine. */
static bool offset(const uint8_t *p, size_t n, size_t k, pq_cv_ts *ts)
{
	ts->has_offset = false;
	ts->offset_s = 0;
	if (k == n)
		return true;
	if ((p[k] == 'Z' || p[k] == 'z') && k + 1 == n) {
		ts->has_offset = true;
		return true;
	}
	if (p[k] != '+' && p[k] != '-')
		return false;
	int sign = p[k] == '-' ? -1 : 1;
	unsigned hh, mm = 0;
	size_t left = n - k - 1;
	const uint8_t *q = p + k + 1;
	if (left == 2) {
		if (!digits(q, 2, &hh))
			return false;
	} else if (left == 4) {
		if (!digits(q, 2, &hh) || !digits(q + 2, 2, &mm))
			return false;
	} else if (left == 5) {
		if (!digits(q, 2, &hh) || q[2] != ':' || !digits(q + 3, 2, &mm))
			return false;
	} else {
		return false;
	}
	if (hh > 23 || mm > 59)
		return false;
	ts->has_offset = true;
	ts->offset_s = sign * (int32_t)(hh * 3600 + mm * 60);
	return true;
}

bool pq_cv_parse_ts(const uint8_t *p, size_t n, pq_cv_ts *ts)
{
	unsigned y, m, d;
	*ts = (pq_cv_ts){0};
	if (n < 10 || !digits(p, 4, &y) || p[4] != '-' || !digits(p + 5, 2, &m) || p[7] != '-' ||
	    !digits(p + 8, 2, &d))
		return false;
	if (y < 1 || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m))
		return false;
	ts->days = days_from_civil(y, m, d);
	if (n == 10)
		return true;
	if (p[10] != 'T' && p[10] != ' ')
		return false;
	size_t k = 11;
	if (!clock(p, n, &k, ts))
		return false;
	return offset(p, n, k, ts);
}

bool pq_cv_parse_time(const uint8_t *p, size_t n, pq_cv_ts *ts)
{
	size_t k = 0;
	*ts = (pq_cv_ts){0};
	return clock(p, n, &k, ts) && offset(p, n, k, ts);
}

static const int64_t unit_per_sec[4] = {0, 1000, 1000000, 1000000000};

bool pq_cv_ts_value(const pq_cv_ts *ts, int32_t unit, int64_t *out)
{
	int64_t per = unit_per_sec[unit];
	/* Seconds since the epoch: |days| <= 3.7e6, so no overflow here. */
	int64_t s = ts->days * 86400 + ts->secs - ts->offset_s;
	int64_t sub = (int64_t)ts->frac / (1000000000 / per);
	if (s >= 0) {
		if (s > (INT64_MAX - sub) / per)
			return false;
		*out = s * per + sub;
		return true;
	}
	/* s * per + sub as (s + 1) * per + (sub - per): both parts in range
	 * down to INT64_MIN itself. */
	int64_t t = s + 1, rem = sub - per;
	if (t < INT64_MIN / per || t * per < INT64_MIN - rem)
		return false;
	*out = t * per + rem;
	return true;
}
