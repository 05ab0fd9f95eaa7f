/* Value rendering: render types from the schema, and the per-value switch
 * on the kind (no indirect calls in the per-value path). */
#include "config.h"

#include "pq_render.h"
#define PQ_RENDER_INTERNAL
#include "render_internal.h"

#include <string.h>

/* ---- integers -------------------------------------------------------- */

const char pq_two_digits[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

const uint64_t pq_pow10_u64[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
	10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
	100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};

size_t pq_format_u64(uint64_t v, char *buf)
{
	size_t len = pq_u64_digits(v);
	char *o = buf + len;
	*o = '\0';
	/* from the last digit backwards, two at a time, straight into buf */
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);
		v /= 100;
		o -= 2;
		o[0] = pq_two_digits[2 * r];
		o[1] = pq_two_digits[2 * r + 1];
	}
	if (v >= 10) {
		o -= 2;
		o[0] = pq_two_digits[2 * v];
		o[1] = pq_two_digits[2 * v + 1];
	} else {
		*--o = (char)('0' + v);
	}
	return len;
}

size_t pq_format_i64(int64_t v, char *buf)
{
	if (v >= 0)
		return pq_format_u64((uint64_t)v, buf);
	buf[0] = '-';
	return 1 + pq_format_u64((uint64_t)0 - (uint64_t)v, buf + 1);
}

/* ---- render types ---------------------------------------------------- */

pq_render_type pq_render_type_physical(int32_t physical, int32_t type_length)
{
	pq_render_type t = {.physical = physical, .type_length = type_length};
	switch (physical) {
	case PQ_BOOLEAN: t.kind = PQ_R_BOOLEAN; break;
	case PQ_INT32:
	case PQ_INT64: t.kind = PQ_R_INT; break;
	case PQ_INT96: t.kind = PQ_R_INT96; t.type_length = 12; break;
	case PQ_FLOAT: t.kind = PQ_R_FLOAT; break;
	case PQ_DOUBLE: t.kind = PQ_R_DOUBLE; break;
	default: t.kind = PQ_R_BINARY; break;
	}
	return t;
}

static bool is_int(int32_t physical)
{
	return physical == PQ_INT32 || physical == PQ_INT64;
}

static bool is_bytes(int32_t physical)
{
	return physical == PQ_BYTE_ARRAY || physical == PQ_FIXED_LEN_BYTE_ARRAY;
}

static bool is_flba(const pq_render_type *t, int32_t len)
{
	return t->physical == PQ_FIXED_LEN_BYTE_ARRAY && t->type_length == len;
}

static int32_t unit_of(const pq_time_unit_u *u)
{
	return u->has_MILLIS ? PQ_MILLIS : u->has_MICROS ? PQ_MICROS
		: u->has_NANOS ? PQ_NANOS : 0;
}

static bool logical_known(const pq_logical_type *l)
{
	return l->unknown_member == 0 &&
	       (l->has_STRING || l->has_MAP || l->has_LIST || l->has_ENUM ||
		l->has_DECIMAL || l->has_DATE || l->has_TIME || l->has_TIMESTAMP ||
		l->has_INTEGER || l->has_UNKNOWN || l->has_JSON || l->has_BSON ||
		l->has_UUID || l->has_FLOAT16 || l->has_VARIANT || l->has_GEOMETRY ||
		l->has_GEOGRAPHY);
}

/* Applies a known logical type; false when it does not apply. */
static bool from_logical(const pq_logical_type *l, pq_render_type *t)
{
	int32_t ph = t->physical;
	if (l->has_STRING || l->has_ENUM) {
		t->kind = PQ_R_STRING;
		return is_bytes(ph);
	}
	if (l->has_JSON) {
		t->kind = PQ_R_JSON_TEXT;
		return is_bytes(ph);
	}
	if (l->has_BSON) {
		t->kind = PQ_R_BINARY;
		return is_bytes(ph);
	}
	if (l->has_UUID) {
		t->kind = PQ_R_UUID;
		return is_flba(t, 16);
	}
	if (l->has_FLOAT16) {
		t->kind = PQ_R_FLOAT16;
		return is_flba(t, 2);
	}
	if (l->has_DECIMAL) {
		t->kind = PQ_R_DECIMAL;
		t->scale = l->DECIMAL.scale;
		return is_int(ph) || is_bytes(ph);
	}
	if (l->has_DATE) {
		t->kind = PQ_R_DATE;
		return is_int(ph);
	}
	if (l->has_TIME) {
		t->kind = PQ_R_TIME;
		t->unit = unit_of(&l->TIME.unit);
		t->utc = l->TIME.isAdjustedToUTC;
		return is_int(ph) && t->unit;
	}
	if (l->has_TIMESTAMP) {
		t->kind = PQ_R_TIMESTAMP;
		t->unit = unit_of(&l->TIMESTAMP.unit);
		t->utc = l->TIMESTAMP.isAdjustedToUTC;
		return is_int(ph) && t->unit;
	}
	if (l->has_INTEGER) {
		t->kind = l->INTEGER.isSigned ? PQ_R_INT : PQ_R_UINT;
		return is_int(ph);
	}
	if (l->has_UNKNOWN) {
		t->kind = PQ_R_NULL;
		return true;
	}
	if (l->has_GEOMETRY || l->has_GEOGRAPHY) {
		t->kind = PQ_R_GEO;
		return is_bytes(ph);
	}
	return false; /* MAP, LIST, VARIANT on a leaf, or an unknown member */
}

static bool from_converted(const pq_schema_element *e, pq_render_type *t)
{
	int32_t ph = t->physical;
	switch (e->converted_type) {
	case PQ_CT_UTF8:
	case PQ_CT_ENUM:
		t->kind = PQ_R_STRING;
		return is_bytes(ph);
	case PQ_CT_JSON:
		t->kind = PQ_R_JSON_TEXT;
		return is_bytes(ph);
	case PQ_CT_BSON:
		t->kind = PQ_R_BINARY;
		return is_bytes(ph);
	case PQ_CT_DECIMAL:
		t->kind = PQ_R_DECIMAL;
		t->scale = e->has_scale ? e->scale : 0;
		return is_int(ph) || is_bytes(ph);
	case PQ_CT_DATE:
		t->kind = PQ_R_DATE;
		return is_int(ph);
	case PQ_CT_TIME_MILLIS:
	case PQ_CT_TIME_MICROS:
		t->kind = PQ_R_TIME;
		t->unit = e->converted_type == PQ_CT_TIME_MILLIS ? PQ_MILLIS : PQ_MICROS;
		t->utc = true;
		return is_int(ph);
	case PQ_CT_TIMESTAMP_MILLIS:
	case PQ_CT_TIMESTAMP_MICROS:
		t->kind = PQ_R_TIMESTAMP;
		t->unit = e->converted_type == PQ_CT_TIMESTAMP_MILLIS ? PQ_MILLIS : PQ_MICROS;
		t->utc = true;
		return is_int(ph);
	case PQ_CT_UINT_8:
	case PQ_CT_UINT_16:
	case PQ_CT_UINT_32:
	case PQ_CT_UINT_64:
		t->kind = PQ_R_UINT;
		return is_int(ph);
	case PQ_CT_INT_8:
	case PQ_CT_INT_16:
	case PQ_CT_INT_32:
	case PQ_CT_INT_64:
		t->kind = PQ_R_INT;
		return is_int(ph);
	case PQ_CT_INTERVAL:
		t->kind = PQ_R_INTERVAL;
		return is_flba(t, 12);
	default:
		return false;
	}
}

pq_render_type pq_render_type_of(const pq_schema_element *e)
{
	int32_t physical = e->has_type ? e->type : -1;
	int32_t len = e->has_type_length ? e->type_length : 0;
	pq_render_type base = pq_render_type_physical(physical, len);
	pq_render_type t = base;
	if (e->has_logicalType && logical_known(&e->logicalType))
		return from_logical(&e->logicalType, &t) ? t : base;
	/* No logical type, or one this build does not know: the converted
	 * type, as the format asks of older readers. */
	if (e->has_converted_type && from_converted(e, &t))
		return t;
	return base;
}

const char *pq_render_kind_name(pq_render_kind kind)
{
	switch (kind) {
	case PQ_R_BOOLEAN: return "bool";
	case PQ_R_INT: return "int";
	case PQ_R_UINT: return "uint";
	case PQ_R_FLOAT:
	case PQ_R_DOUBLE:
	case PQ_R_FLOAT16: return "float";
	case PQ_R_DECIMAL: return "decimal";
	case PQ_R_DATE: return "date";
	case PQ_R_TIME: return "time";
	case PQ_R_TIMESTAMP: return "timestamp";
	case PQ_R_INT96: return "int96";
	case PQ_R_STRING: return "string";
	case PQ_R_JSON_TEXT: return "json";
	case PQ_R_UUID: return "uuid";
	case PQ_R_INTERVAL: return "interval";
	case PQ_R_GEO: return "geo";
	case PQ_R_BINARY: return "bytes";
	case PQ_R_NULL: return "null";
	}
	return "bytes";
}

/* ---- values ---------------------------------------------------------- */

/* An atom (number, date, ...: nothing to escape), quoted in JSON when it
 * is a JSON string. */
static void put_atom(pq_buf *out, const char *s, size_t n, bool json_string,
		     pq_render_mode mode)
{
	if (mode == PQ_MODE_JSON && json_string) {
		if (!pq_buf_grow(out, n + 2))
			return;
		out->p[out->len++] = '"';
		memcpy(out->p + out->len, s, n);
		out->len += n;
		out->p[out->len++] = '"';
		return;
	}
	pq_buf_append(out, s, n);
}

/* A float's text is a JSON number unless it is NaN or +-Infinity. */
static void put_float(pq_buf *out, const char *s, size_t n, pq_render_mode mode)
{
	put_atom(out, s, n, s[0] == 'N' || s[0] == 'I' || s[1] == 'I', mode);
}



static void render_physical(const pq_values *v, size_t i, pq_render_mode mode, pq_buf *out)
{
	char buf[PQ_FORMAT_BUF];
	const uint8_t *p;
	size_t n;
	switch (v->type) {
	case PQ_BOOLEAN:
		pq_buf_puts(out, v->v.b[i] ? "true" : "false");
		return;
	case PQ_INT32:
		pq_buf_append(out, buf, pq_format_i64(v->v.i32[i], buf));
		return;
	case PQ_INT64:
		pq_buf_append(out, buf, pq_format_i64(v->v.i64[i], buf));
		return;
	case PQ_FLOAT:
		put_float(out, buf, pq_format_float(v->v.f32[i], buf), mode);
		return;
	case PQ_DOUBLE:
		put_float(out, buf, pq_format_double(v->v.f64[i], buf), mode);
		return;
	case PQ_INT96:
		if (v->type_length == 12) {
			put_atom(out, buf, pq_format_int96(v->v.fixed + i * 12, buf), true, mode);
			return;
		}
		break;
	default:
		break;
	}
	if (pq_value_bytes(v, i, &p, &n))
		pq_render_binary(p, n, mode, out);
}

/* WKT in mode: quoted in JSON, and in CSV when it holds a comma (it holds
 * nothing else to escape); invalid WKB by the hex rule. */
static void render_geo(const uint8_t *p, size_t n, pq_render_mode mode, pq_buf *out)
{
	size_t mark = out->len;
	bool quote = mode == PQ_MODE_JSON || mode == PQ_MODE_CSV;
	if (quote)
		pq_buf_putc(out, '"');
	if (!pq_render_wkt(p, n, out, NULL)) {
		out->len = mark;
		pq_render_hex(p, n, mode, out);
		return;
	}
	if (out->oom)
		return;
	if (mode == PQ_MODE_CSV && !memchr(out->p + mark + 1, ',', out->len - mark - 1)) {
		memmove(out->p + mark, out->p + mark + 1, out->len - mark - 1);
		out->len--;
		return;
	}
	if (quote)
		pq_buf_putc(out, '"');
}

void pq_render_value(const pq_render_type *t, const pq_values *v, size_t i,
		     pq_render_mode mode, pq_buf *out)
{
	char buf[PQ_FORMAT_BUF];
	int64_t x;
	const uint8_t *p;
	size_t n;
	if (i >= v->n)
		return;
	switch (t->kind) {
	case PQ_R_BOOLEAN:
	case PQ_R_FLOAT:
	case PQ_R_DOUBLE:
	case PQ_R_BINARY:
		break; /* by physical type */
	case PQ_R_INT:
		if (!pq_value_int(v, i, &x))
			break;
		pq_buf_append(out, buf, pq_format_i64(x, buf));
		return;
	case PQ_R_UINT:
		if (v->type == PQ_INT32)
			n = pq_format_u64((uint32_t)v->v.i32[i], buf);
		else if (v->type == PQ_INT64)
			n = pq_format_u64((uint64_t)v->v.i64[i], buf);
		else
			break;
		pq_buf_append(out, buf, n);
		return;
	case PQ_R_FLOAT16:
		if (v->type != PQ_FIXED_LEN_BYTE_ARRAY || v->type_length != 2)
			break;
		p = v->v.fixed + 2 * i;
		put_float(out, buf, pq_format_float16((uint16_t)(p[0] | p[1] << 8), buf), mode);
		return;
	case PQ_R_DECIMAL:
		if (pq_value_int(v, i, &x)) {
			pq_render_decimal_i64(x, t->scale, out);
			return;
		}
		if (v->type != PQ_INT96 && pq_value_bytes(v, i, &p, &n) &&
		    pq_render_decimal_be(p, n, t->scale, out))
			return;
		break;
	case PQ_R_DATE:
		if (!pq_value_int(v, i, &x))
			break;
		put_atom(out, buf, pq_format_date(x, buf), true, mode);
		return;
	case PQ_R_TIME:
		if (!pq_value_int(v, i, &x))
			break;
		n = pq_format_time(x, t->unit, t->utc, buf);
		/* Out of range, the plain integer: a JSON number then. */
		put_atom(out, buf, n, n > 2 && buf[2] == ':', mode);
		return;
	case PQ_R_TIMESTAMP:
		if (!pq_value_int(v, i, &x))
			break;
		n = pq_format_timestamp(x, t->unit, t->utc, buf);
		put_atom(out, buf, n, t->unit >= PQ_MILLIS && t->unit <= PQ_NANOS, mode);
		return;
	case PQ_R_INT96:
		break; /* the physical rendering */
	case PQ_R_STRING:
	case PQ_R_JSON_TEXT:
		if (v->type == PQ_INT96 || !pq_value_bytes(v, i, &p, &n))
			break;
		pq_render_text(p, n, mode, out);
		return;
	case PQ_R_UUID:
		if (v->type != PQ_FIXED_LEN_BYTE_ARRAY || v->type_length != 16)
			break;
		put_atom(out, buf, pq_format_uuid(v->v.fixed + 16 * i, buf), true, mode);
		return;
	case PQ_R_INTERVAL:
		if (v->type != PQ_FIXED_LEN_BYTE_ARRAY || v->type_length != 12)
			break;
		put_atom(out, buf, pq_format_interval(v->v.fixed + 12 * i, buf), true, mode);
		return;
	case PQ_R_GEO:
		if (v->type == PQ_INT96 || !pq_value_bytes(v, i, &p, &n))
			break;
		render_geo(p, n, mode, out);
		return;
	case PQ_R_NULL:
		switch (mode) {
		case PQ_MODE_TEXT:
		case PQ_MODE_JSON: pq_buf_append(out, "null", 4); break;
		case PQ_MODE_VALUES: pq_buf_append(out, "\\N", 2); break;
		case PQ_MODE_CSV: break;
		}
		return;
	}
	render_physical(v, i, mode, out);
}

static uint64_t le_bytes(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

bool pq_render_plain_bytes(const pq_render_type *t, const uint8_t *p, size_t n,
			   pq_render_mode mode, pq_buf *out)
{
	pq_values v = {.type = t->physical, .type_length = t->type_length, .n = 1};
	uint8_t b;
	int32_t i32;
	int64_t i64;
	float f;
	double d;
	pq_bytes ba = {p, n};
	uint64_t u;
	switch (t->physical) {
	case PQ_BOOLEAN:
		if (n != 1)
			return false;
		b = p[0] != 0;
		v.v.b = &b;
		break;
	case PQ_INT32:
	case PQ_FLOAT:
		if (n != 4)
			return false;
		u = le_bytes(p, 4);
		if (t->physical == PQ_INT32) {
			uint32_t u32 = (uint32_t)u;
			memcpy(&i32, &u32, 4);
			v.v.i32 = &i32;
		} else {
			uint32_t u32 = (uint32_t)u;
			memcpy(&f, &u32, 4);
			v.v.f32 = &f;
		}
		break;
	case PQ_INT64:
	case PQ_DOUBLE:
		if (n != 8)
			return false;
		u = le_bytes(p, 8);
		if (t->physical == PQ_INT64) {
			memcpy(&i64, &u, 8);
			v.v.i64 = &i64;
		} else {
			memcpy(&d, &u, 8);
			v.v.f64 = &d;
		}
		break;
	case PQ_INT96:
		if (n != 12)
			return false;
		v.type_length = 12;
		v.v.fixed = (uint8_t *)p;
		break;
	case PQ_BYTE_ARRAY:
		v.v.ba = &ba;
		break;
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (n > INT32_MAX)
			return false;
		if ((t->kind == PQ_R_UUID || t->kind == PQ_R_FLOAT16 || t->kind == PQ_R_INTERVAL) &&
		    (size_t)t->type_length != n)
			return false;
		v.type_length = (int32_t)n;
		v.v.fixed = (uint8_t *)p;
		break;
	default:
		return false;
	}
	pq_render_value(t, &v, 0, mode, out);
	return true;
}
