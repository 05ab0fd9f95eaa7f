/* Batch rendering: many values of one column in a loop per kind.
 *
 * The per-value path (pq_render_value) switches on the kind for every
 * value and appends through pq_buf's checks. Here the switch happens once
 * per batch, room is reserved once, and the common kinds (integers,
 * integer decimals, dates, plain ASCII text) are written straight into the
 * buffer. Everything else falls back to pq_render_value per value, so the
 * output is identical by construction for the rare kinds and by test
 * (tests/test_render.c compares both paths) for the fast ones. */
#include "config.h"

#include "pq_render.h"
#define PQ_RENDER_INTERNAL
#include "render_internal.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Bytes that a CSV field / JSON string / values.txt line shows as they are
 * (1) — ASCII only; anything else goes through pq_render_text. */
static uint8_t plain_csv[256], plain_json[256], plain_values[256];

static void init_tables(void)
{
	for (int c = 0; c < 0x80; c++) {
		plain_csv[c] = c != ',' && c != '"' && c != '\r' && c != '\n';
		plain_json[c] = c >= 0x20 && c != '"' && c != '\\';
		plain_values[c] = c != '\\' && c != '\n' && c != '\r' && c != '\t';
	}
}

static const uint8_t *plain_table(pq_render_mode mode)
{
	static int ready; /* benign: every thread writes the same bytes */
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		init_tables();
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	switch (mode) {
	case PQ_MODE_CSV: return plain_csv;
	case PQ_MODE_JSON: return plain_json;
	case PQ_MODE_VALUES: return plain_values;
	default: return NULL;
	}
}

static inline bool all_plain_table(const uint8_t *tab, const uint8_t *p, size_t n)
{
	uint8_t ok = 1;
	for (size_t i = 0; i < n; i++)
		ok &= tab[p[i]];
	return ok;
}

#if defined(__SSE2__)
/* Sixteen bytes at a time: none of the mode's four special bytes, nothing
 * at or above 0x80 (the sign bit) and, for JSON, nothing below 0x20.
 * Values of 16 bytes or more are scanned in 16-byte loads that stay inside
 * the value (the last one overlaps); shorter ones by the table. */
typedef struct plain_set {
	__m128i c0, c1, c2, c3;
	bool ctl; /* bytes below 0x20 are special too */
} plain_set;

static plain_set plain_set_for(pq_render_mode mode)
{
	const char *c = mode == PQ_MODE_CSV ? ",\"\r\n" : mode == PQ_MODE_JSON ? "\"\\\"\\" : "\\\n\r\t";
	return (plain_set){_mm_set1_epi8(c[0]), _mm_set1_epi8(c[1]), _mm_set1_epi8(c[2]),
			   _mm_set1_epi8(c[3]), mode == PQ_MODE_JSON};
}

static inline int special16(const plain_set *ps, const uint8_t *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, ps->c0), _mm_cmpeq_epi8(x, ps->c1)),
				   _mm_or_si128(_mm_cmpeq_epi8(x, ps->c2), _mm_cmpeq_epi8(x, ps->c3)));
	if (ps->ctl) /* signed compare: 0x80.. are negative, caught anyway */
		hit = _mm_or_si128(hit, _mm_cmplt_epi8(x, _mm_set1_epi8(0x20)));
	return _mm_movemask_epi8(_mm_or_si128(hit, x)); /* x: its sign bits */
}

static inline bool all_plain(const uint8_t *tab, const plain_set *ps, const uint8_t *p, size_t n)
{
	if (n < 16)
		return all_plain_table(tab, p, n);
	size_t i = 0;
	for (; i + 16 <= n; i += 16)
		if (special16(ps, p + i))
			return false;
	return i == n || !special16(ps, p + n - 16);
}
#else
typedef int plain_set;
static plain_set plain_set_for(pq_render_mode mode)
{
	(void)mode;
	return 0;
}
static inline bool all_plain(const uint8_t *tab, const plain_set *ps, const uint8_t *p, size_t n)
{
	(void)ps;
	return all_plain_table(tab, p, n);
}
#endif

/* Room for count values of at most per bytes each, plus separators. */
static bool reserve(pq_buf *out, size_t count, size_t per)
{
	return pq_buf_grow(out, count * (per + 1) + 1);
}

static inline void end_value(pq_buf *out, char sep, size_t *ends, size_t k)
{
	if (sep)
		out->p[out->len++] = (uint8_t)sep;
	if (ends)
		ends[k] = out->len;
}

/* Integer decimal with `scale` fraction digits (0 < scale <= 18), written
 * from its last digit backwards straight into o (two digits a step): no
 * copies, which for values this short cost more than the digits. */
static size_t put_decimal(char *o, int64_t x, int32_t scale)
{
	bool neg = x < 0;
	uint64_t mag = neg ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
	size_t n = pq_u64_digits(mag), s = (size_t)scale;
	size_t len = (size_t)neg + (n > s ? n - s : 1) + 1 + s;
	char *e = o + len;
	size_t f = s;
	for (; f >= 2; f -= 2) { /* the fraction, zeros once mag runs out */
		unsigned r = (unsigned)(mag % 100);
		mag /= 100;
		e -= 2;
		pq_put2(e, r);
	}
	if (f) {
		*--e = (char)('0' + mag % 10);
		mag /= 10;
	}
	*--e = '.';
	while (mag >= 100) { /* the integer part: at least one digit */
		unsigned r = (unsigned)(mag % 100);
		mag /= 100;
		e -= 2;
		pq_put2(e, r);
	}
	if (mag >= 10) {
		e -= 2;
		pq_put2(e, (unsigned)mag);
	} else {
		*--e = (char)('0' + mag);
	}
	if (neg)
		*--e = '-';
	return len;
}

static bool int_source(const pq_values *v)
{
	return v->type == PQ_INT32 || v->type == PQ_INT64;
}

static inline int64_t int_at(const pq_values *v, size_t i)
{
	return v->type == PQ_INT32 ? v->v.i32[i] : v->v.i64[i];
}

static void batch_int(const pq_values *v, size_t first, size_t count, char sep, pq_buf *out,
		      size_t *ends)
{
	if (!reserve(out, count, 21))
		return;
	char *base = (char *)out->p;
	if (v->type == PQ_INT64) {
		for (size_t k = 0; k < count; k++) {
			out->len += pq_format_i64(v->v.i64[first + k], base + out->len);
			end_value(out, sep, ends, k);
		}
	} else {
		for (size_t k = 0; k < count; k++) {
			out->len += pq_format_i64(v->v.i32[first + k], base + out->len);
			end_value(out, sep, ends, k);
		}
	}
}

static void batch_decimal(const pq_values *v, int32_t scale, size_t first, size_t count,
			  char sep, pq_buf *out, size_t *ends)
{
	if (!reserve(out, count, 42))
		return;
	char *base = (char *)out->p;
	for (size_t k = 0; k < count; k++) {
		out->len += put_decimal(base + out->len, int_at(v, first + k), scale);
		end_value(out, sep, ends, k);
	}
}

/* Dates repeat (a column spans a few thousand days), and turning days into
 * a calendar date costs divisions: a small per-thread cache of rendered
 * dates, direct-mapped by the day number. */
#define DATE_SLOTS 1024
typedef struct date_slot {
	int64_t days;
	uint8_t len; /* 0: empty */
	char text[15];
} date_slot;
static _Thread_local date_slot date_cache[DATE_SLOTS];

static size_t put_date_cached(char *o, int64_t days)
{
	date_slot *s = &date_cache[(uint64_t)days & (DATE_SLOTS - 1)];
	if (s->len && s->days == days) {
		memcpy(o, s->text, 15);
		return s->len;
	}
	char tmp[PQ_FORMAT_BUF];
	size_t n = pq_format_date(days, tmp);
	memcpy(o, tmp, n + 1);
	if (n < sizeof s->text) {
		s->days = days;
		s->len = (uint8_t)n;
		memcpy(s->text, tmp, n + 1);
	}
	return n;
}

/* Dates: a JSON string in JSON mode, bare otherwise. */
static void batch_date(const pq_values *v, size_t first, size_t count, pq_render_mode mode,
		       char sep, pq_buf *out, size_t *ends)
{
	if (!reserve(out, count, PQ_FORMAT_BUF))
		return;
	char *base = (char *)out->p;
	bool q = mode == PQ_MODE_JSON;
	for (size_t k = 0; k < count; k++) {
		char *o = base + out->len;
		if (q)
			*o++ = '"';
		o += put_date_cached(o, int_at(v, first + k));
		if (q)
			*o++ = '"';
		out->len = (size_t)(o - base);
		end_value(out, sep, ends, k);
	}
}

/* n bytes from s to d: short values (most text columns) in two
 * overlapping fixed-size moves instead of a call per value. */
static inline void copy_text(uint8_t *d, const uint8_t *s, size_t n)
{
	if (n < 8 || n > 64) {
		if (n)
			memcpy(d, s, n);
	} else if (n < 16) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n <= 32) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else {
		memcpy(d, s, 32);
		memcpy(d + n - 32, s + n - 32, 32);
	}
}

/* Text: ASCII values that need no quoting or escaping are copied; others
 * take the full path. An empty CSV string is `""` (the empty field is NULL). */
static void batch_text(const pq_values *v, size_t first, size_t count, pq_render_mode mode,
		       char sep, pq_buf *out, size_t *ends)
{
	const uint8_t *tab = plain_table(mode);
	const plain_set ps = plain_set_for(mode);
	bool quote = mode == PQ_MODE_JSON;
	for (size_t k = 0; k < count; k++) {
		const pq_bytes *b = &v->v.ba[first + k];
		if (all_plain(tab, &ps, b->p, b->n) && (b->n || mode != PQ_MODE_CSV)) {
			if (out->cap - out->len < b->n + 3 && !pq_buf_grow(out, b->n + 3))
				return;
			uint8_t *o = out->p + out->len;
			if (quote)
				*o++ = '"';
			copy_text(o, b->p, b->n);
			o += b->n;
			if (quote)
				*o++ = '"';
			out->len = (size_t)(o - out->p);
		} else {
			pq_render_text(b->p, b->n, mode, out);
			if (!pq_buf_grow(out, 1))
				return;
		}
		end_value(out, sep, ends, k);
	}
}

void pq_render_batch(const pq_render_type *t, const pq_values *v, size_t first, size_t count,
		     pq_render_mode mode, char sep, pq_buf *out, size_t *ends)
{
	if (first > v->n || count > v->n - first)
		count = first > v->n ? 0 : v->n - first;
	if (!count)
		return;
	switch (t->kind) {
	case PQ_R_INT:
		if (int_source(v)) {
			batch_int(v, first, count, sep, out, ends);
			return;
		}
		break;
	case PQ_R_DECIMAL:
		if (int_source(v) && t->scale > 0 && t->scale <= 18) {
			batch_decimal(v, t->scale, first, count, sep, out, ends);
			return;
		}
		if (int_source(v) && t->scale == 0) {
			batch_int(v, first, count, sep, out, ends);
			return;
		}
		break;
	case PQ_R_DATE:
		if (int_source(v)) {
			batch_date(v, first, count, mode, sep, out, ends);
			return;
		}
		break;
	case PQ_R_STRING:
	case PQ_R_JSON_TEXT:
		if (v->type == PQ_BYTE_ARRAY && mode != PQ_MODE_TEXT) {
			batch_text(v, first, count, mode, sep, out, ends);
			return;
		}
		break;
	default:
		break;
	}
	for (size_t k = 0; k < count; k++) {
		pq_render_value(t, v, first + k, mode, out);
		if (!pq_buf_grow(out, 1))
			return;
		end_value(out, sep, ends, k);
	}
}
