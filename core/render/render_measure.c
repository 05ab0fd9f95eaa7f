/* Measuring rendered values without rendering them (pq_render_measure):
 * the size pass adds up how long each value's text would be in VALUES,
 * CSV and JSON mode at once.
 *
 * The lengths follow the renderers' rules (render.c, render_decimal.c,
 * render_time.c, core/util/text.c) and tests/test_render_measure.c
 * compares them with rendered text for every kind: digit counts for
 * integers and integer decimals, fixed widths for dates, times and
 * timestamps in years 0000-9999 (other years are formatted into a stack
 * buffer), one scan per string for the three modes. Floats are formatted
 * once (their text is the same in every mode but JSON's quotes around
 * NaN and Infinity); byte-array decimals and INTERVAL are rendered into a
 * scratch buffer, as rare as they are irregular. */
#include "config.h"

#include "pq_render.h"
#define PQ_RENDER_INTERNAL
#include "render_internal.h"

#include <string.h>

/* Adds one value's lengths; a JSON text of length 0 is counted apart. */
static inline void add3(pq_render_sizes *s, uint64_t values, uint64_t csv, uint64_t json)
{
	s->values += values;
	s->csv += csv;
	s->json += json;
	s->json_empty += json == 0;
}

/* The same text in every mode, quoted in JSON when json_string. */
static inline void add_atom(pq_render_sizes *s, uint64_t n, bool json_string)
{
	add3(s, n, n, n + (json_string ? 2 : 0));
}

static inline size_t i64_len(int64_t x)
{
	return x < 0 ? 1 + pq_u64_digits((uint64_t)0 - (uint64_t)x) : pq_u64_digits((uint64_t)x);
}

/* A float's text is a JSON string only when NaN or +-Infinity. */
static void add_float_text(pq_render_sizes *s, const char *b, size_t n)
{
	add_atom(s, n, b[0] == 'N' || b[0] == 'I' || b[1] == 'I');
}



/* `0x` + two hex digits a byte, quoted in JSON. */
static void add_hex(pq_render_sizes *s, size_t n)
{
	add_atom(s, 2 + 2 * (uint64_t)n, true);
}

static void add_text(pq_render_sizes *s, const uint8_t *p, size_t n)
{
	uint64_t v = 0, c = 0, j = 0;
	pq_text_measure(p, n, &v, &c, &j);
	add3(s, v, c, j);
}

/* The binary rule: text when it qualifies, else hex. */
static void add_binary(pq_render_sizes *s, const uint8_t *p, size_t n)
{
	if (pq_binary_is_text(p, n))
		add_text(s, p, n);
	else
		add_hex(s, n);
}

/* A value rendered by its physical type alone (render_physical). */
static void physical(const pq_values *v, size_t i, pq_render_sizes *s)
{
	char buf[PQ_FORMAT_BUF];
	const uint8_t *p;
	size_t n;
	switch (v->type) {
	case PQ_BOOLEAN:
		add_atom(s, v->v.b[i] ? 4 : 5, false);
		return;
	case PQ_INT32:
		add_atom(s, i64_len(v->v.i32[i]), false);
		return;
	case PQ_INT64:
		add_atom(s, i64_len(v->v.i64[i]), false);
		return;
	case PQ_FLOAT:
		n = pq_format_float(v->v.f32[i], buf);
		add_float_text(s, buf, n);
		return;
	case PQ_DOUBLE:
		n = pq_format_double(v->v.f64[i], buf);
		add_float_text(s, buf, n);
		return;
	case PQ_INT96:
		if (v->type_length == 12) {
			add_atom(s, pq_format_int96(v->v.fixed + i * 12, buf), true);
			return;
		}
		break;
	default:
		break;
	}
	if (pq_value_bytes(v, i, &p, &n))
		add_binary(s, p, n);
	else
		add3(s, 0, 0, 0);
}

/* Length of an integer decimal per render_decimal.c's put_scaled. */
static uint64_t decimal_len(int64_t x, int32_t scale)
{
	bool neg = x < 0;
	uint64_t mag = neg ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
	uint64_t n = pq_u64_digits(mag), sign = neg && mag;
	if (scale > PQ_DECIMAL_SCALE_MAX || scale < -PQ_DECIMAL_SCALE_MAX)
		return sign + n + 1 + i64_len(-(int64_t)scale); /* `e<-scale>` */
	if (scale <= 0)
		return sign + n + (mag ? (uint64_t)-(int64_t)scale : 0);
	return sign + (n > (uint64_t)scale ? n + 1 : 2 + (uint64_t)scale);
}

/* floor division and modulo for b > 0 (render_time.c's rules). */
static inline int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	return (a % b < 0) ? q - 1 : q;
}

static inline int64_t floor_mod(int64_t a, int64_t b)
{
	int64_t r = a % b;
	return r < 0 ? r + b : r;
}

/* Days of 0000-01-01 and 9999-12-31: four-digit years, no sign, 10 bytes. */
#define DAY_MIN (-719528)
#define DAY_MAX 2932896

static size_t date_len(int64_t days)
{
	if (days >= DAY_MIN && days <= DAY_MAX)
		return 10;
	char buf[PQ_FORMAT_BUF];
	return pq_format_date(days, buf);
}

static const int64_t pow10_i64[10] = {1, 10, 100, 1000, 10000, 100000, 1000000,
				      10000000, 100000000, 1000000000};

static int unit_digits(int32_t unit)
{
	return unit == PQ_MILLIS ? 3 : unit == PQ_MICROS ? 6 : unit == PQ_NANOS ? 9 : 0;
}

/* `.fraction` without trailing zeros; nothing for 0. */
static size_t fraction_len(int64_t frac, int digits)
{
	if (frac == 0)
		return 0;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	return 1 + (size_t)digits;
}

static void add_timestamp(pq_render_sizes *s, int64_t x, const pq_render_type *t)
{
	int d = unit_digits(t->unit);
	if (!d) { /* the plain integer, a JSON number */
		add_atom(s, i64_len(x), false);
		return;
	}
	int64_t per_sec = pow10_i64[d];
	int64_t secs = floor_div(x, per_sec);
	size_t n = date_len(floor_div(secs, 86400)) + 9 + fraction_len(floor_mod(x, per_sec), d) +
		   (t->utc ? 1 : 0);
	add_atom(s, n, true);
}

static void add_time(pq_render_sizes *s, int64_t x, const pq_render_type *t)
{
	int d = unit_digits(t->unit);
	int64_t per_sec = d ? pow10_i64[d] : 1;
	/* out of range: the plain integer; 24:00:00 itself is in range
	 * (render_time.c, interface.md: 0-24 h inclusive) */
	if (!d || x < 0 || x / per_sec > 86400 || (x / per_sec == 86400 && x % per_sec)) {
		add_atom(s, i64_len(x), false);
		return;
	}
	add_atom(s, 8 + fraction_len(x % per_sec, d) + (t->utc ? 1 : 0), true);
}

/* Kinds without a rule of their own here: rendered, then counted. */
static void rendered(const pq_render_type *t, const pq_values *v, size_t i, pq_buf *scratch,
		     pq_render_sizes *s)
{
	uint64_t len[3];
	static const pq_render_mode modes[3] = {PQ_MODE_VALUES, PQ_MODE_CSV, PQ_MODE_JSON};
	for (int m = 0; m < 3; m++) {
		scratch->len = 0;
		pq_render_value(t, v, i, modes[m], scratch);
		len[m] = scratch->len;
	}
	add3(s, len[0], len[1], len[2]);
}

/* One value of any kind: the switch of pq_render_value, measuring. */
static void measure_one(const pq_render_type *t, const pq_values *v, size_t i, pq_buf *scratch,
			pq_render_sizes *s)
{
	char buf[PQ_FORMAT_BUF];
	int64_t x;
	const uint8_t *p;
	size_t n;
	switch (t->kind) {
	case PQ_R_BOOLEAN:
	case PQ_R_FLOAT:
	case PQ_R_DOUBLE:
	case PQ_R_BINARY:
	case PQ_R_INT96:
		break; /* by physical type */
	case PQ_R_INT:
		if (!pq_value_int(v, i, &x))
			break;
		add_atom(s, i64_len(x), false);
		return;
	case PQ_R_UINT:
		if (v->type == PQ_INT32)
			add_atom(s, pq_u64_digits((uint32_t)v->v.i32[i]), false);
		else if (v->type == PQ_INT64)
			add_atom(s, pq_u64_digits((uint64_t)v->v.i64[i]), false);
		else
			break;
		return;
	case PQ_R_FLOAT16:
		if (v->type != PQ_FIXED_LEN_BYTE_ARRAY || v->type_length != 2)
			break;
		p = v->v.fixed + 2 * i;
		n = pq_format_float16((uint16_t)(p[0] | p[1] << 8), buf);
		add_float_text(s, buf, n);
		return;
	case PQ_R_DECIMAL:
		if (pq_value_int(v, i, &x)) {
			add_atom(s, decimal_len(x, t->scale), false);
			return;
		}
		if (v->type != PQ_INT96 && pq_value_bytes(v, i, &p, &n)) {
			scratch->len = 0;
			if (pq_render_decimal_be(p, n, t->scale, scratch)) {
				add_atom(s, scratch->len, false);
				return;
			}
		}
		break;
	case PQ_R_DATE:
		if (!pq_value_int(v, i, &x))
			break;
		add_atom(s, date_len(x), true);
		return;
	case PQ_R_TIME:
		if (!pq_value_int(v, i, &x))
			break;
		add_time(s, x, t);
		return;
	case PQ_R_TIMESTAMP:
		if (!pq_value_int(v, i, &x))
			break;
		add_timestamp(s, x, t);
		return;
	case PQ_R_STRING:
	case PQ_R_JSON_TEXT:
		if (v->type == PQ_INT96 || !pq_value_bytes(v, i, &p, &n))
			break;
		add_text(s, p, n);
		return;
	case PQ_R_UUID:
		if (v->type != PQ_FIXED_LEN_BYTE_ARRAY || v->type_length != 16)
			break;
		add_atom(s, 36, true);
		return;
	case PQ_R_INTERVAL:
		if (v->type != PQ_FIXED_LEN_BYTE_ARRAY || v->type_length != 12)
			break;
		rendered(t, v, i, scratch, s);
		return;
	case PQ_R_GEO: /* WKT, or hex for bytes that are not WKB */
		if (v->type == PQ_INT96 || !pq_value_bytes(v, i, &p, &n))
			break;
		rendered(t, v, i, scratch, s);
		return;
	case PQ_R_NULL:
		add3(s, 2, 0, 4); /* `\N`, the empty field, `null` */
		return;
	}
	physical(v, i, s);
}

void pq_render_measure(const pq_render_type *t, const pq_values *v, size_t first, size_t count,
		       pq_render_sizes *sum)
{
	if (first > v->n || count > v->n - first)
		count = first > v->n ? 0 : v->n - first;
	if (!count)
		return;
	size_t end = first + count;
	pq_render_sizes s = {0};
	/* Loops of their own for the common kinds: the switch once a batch.
	 * Their texts are never empty, so json_empty stays. */
	bool int_src = v->type == PQ_INT32 || v->type == PQ_INT64;
	pq_buf scratch = PQ_BUF_INIT;
	if ((t->kind == PQ_R_INT || (t->kind == PQ_R_DECIMAL && t->scale == 0)) && int_src) {
		if (v->type == PQ_INT64)
			for (size_t i = first; i < end; i++)
				s.values += i64_len(v->v.i64[i]);
		else
			for (size_t i = first; i < end; i++)
				s.values += i64_len(v->v.i32[i]);
		s.csv = s.json = s.values;
	} else if (t->kind == PQ_R_DECIMAL && v->type == PQ_INT64) {
		for (size_t i = first; i < end; i++)
			s.values += decimal_len(v->v.i64[i], t->scale);
		s.csv = s.json = s.values;
	} else if (t->kind == PQ_R_DATE && v->type == PQ_INT32) {
		for (size_t i = first; i < end; i++)
			s.values += date_len(v->v.i32[i]);
		s.csv = s.values;
		s.json = s.values + 2 * (uint64_t)count;
	} else if ((t->kind == PQ_R_STRING || t->kind == PQ_R_JSON_TEXT) &&
		   v->type == PQ_BYTE_ARRAY) {
		for (size_t i = first; i < end; i++)
			pq_text_measure(v->v.ba[i].p, v->v.ba[i].n, &s.values, &s.csv, &s.json);
	} else {
		for (size_t i = first; i < end; i++)
			measure_one(t, v, i, &scratch, &s);
	}
	sum->oom |= scratch.oom;
	pq_buf_free(&scratch);
	sum->values += s.values;
	sum->csv += s.csv;
	sum->json += s.json;
	sum->json_empty += s.json_empty;
}
