#include "config.h"

#include "pq_thrift.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- Reader ----------------------------------------------------------- */

void pq_tr_init(pq_thrift_reader *r, const uint8_t *buf, size_t len, pq_error *err)
{
	static const uint8_t empty[1];
	if (!buf) {
		buf = empty;
		len = 0;
	}
	r->start = r->p = buf;
	r->end = buf + len;
	r->err = err;
	r->status = PQ_OK;
	r->depth = 0;
}

static pq_status vfail_at(pq_thrift_reader *r, size_t at, pq_status st, const char *fmt,
			  va_list ap) PQ_PRINTF(4, 0);
static pq_status vfail_at(pq_thrift_reader *r, size_t at, pq_status st, const char *fmt,
			  va_list ap)
{
	if (r->status != PQ_OK)
		return r->status;
	r->status = st;
	/* Nothing more is read: a failed reader looks like an exhausted one. */
	r->p = r->end;
	if (r->err) {
		char msg[PQ_ERROR_MSG_MAX];
		vsnprintf(msg, sizeof msg, fmt, ap);
		pq_fail(r->err, st, "at byte %zu: %s", at, msg);
	}
	return st;
}

/* Records a failure (if none yet) as "at byte N: <message>"; returns the
 * sticky status. Later reads return zero. */
static pq_status tr_fail(pq_thrift_reader *r, pq_status st, const char *fmt, ...) PQ_PRINTF(3, 4);
static pq_status tr_fail(pq_thrift_reader *r, pq_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pq_status ret = vfail_at(r, pq_tr_offset(r), st, fmt, ap);
	va_end(ap);
	return ret;
}

/* A failure reported at the start of the item (header, length) at fault. */
static pq_status fail_at(pq_thrift_reader *r, size_t at, pq_status st, const char *fmt, ...)
	PQ_PRINTF(4, 5);
static pq_status fail_at(pq_thrift_reader *r, size_t at, pq_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pq_status ret = vfail_at(r, at, st, fmt, ap);
	va_end(ap);
	return ret;
}

void pq_tr_set_failed(pq_thrift_reader *r, pq_status st)
{
	if (r->status == PQ_OK) {
		r->status = st;
		r->p = r->end;
	}
}

static size_t left(const pq_thrift_reader *r)
{
	return pq_tr_left(r);
}

static bool need(pq_thrift_reader *r, size_t n, const char *what)
{
	if (r->status != PQ_OK)
		return false;
	if (left(r) < n) {
		tr_fail(r, PQ_ECORRUPT, "truncated %s: needs %zu bytes, %zu left", what, n, left(r));
		return false;
	}
	return true;
}

uint64_t pq_tr_varint(pq_thrift_reader *r)
{
	uint64_t v = 0;
	for (int i = 0; i < PQ_THRIFT_MAX_VARINT; i++) {
		if (!need(r, 1, "varint"))
			return 0;
		uint8_t b = *r->p;
		if (i == PQ_THRIFT_MAX_VARINT - 1) {
			/* The last byte may hold only bit 63. */
			if (b & 0x80) {
				tr_fail(r, PQ_ECORRUPT, "varint longer than %d bytes", PQ_THRIFT_MAX_VARINT);
				return 0;
			}
			if (b > 1) {
				tr_fail(r, PQ_ECORRUPT, "varint overflows 64 bits");
				return 0;
			}
		}
		r->p++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t unzigzag(uint64_t u)
{
	/* (u >> 1) ^ -(u & 1), written without signed overflow. */
	uint64_t m = (uint64_t)0 - (u & 1);
	uint64_t x = (u >> 1) ^ m;
	int64_t s;
	memcpy(&s, &x, sizeof s);
	return s;
}

int64_t pq_tr_i64(pq_thrift_reader *r)
{
	return unzigzag(pq_tr_varint(r));
}

int32_t pq_tr_i32(pq_thrift_reader *r)
{
	size_t at = pq_tr_offset(r);
	int64_t v = pq_tr_i64(r);
	if (v < INT32_MIN || v > INT32_MAX) {
		fail_at(r, at, PQ_ECORRUPT, "i32 value %lld out of range", (long long)v);
		return 0;
	}
	return (int32_t)v;
}

int16_t pq_tr_i16(pq_thrift_reader *r)
{
	size_t at = pq_tr_offset(r);
	int64_t v = pq_tr_i64(r);
	if (v < INT16_MIN || v > INT16_MAX) {
		fail_at(r, at, PQ_ECORRUPT, "i16 value %lld out of range", (long long)v);
		return 0;
	}
	return (int16_t)v;
}

int8_t pq_tr_i8(pq_thrift_reader *r)
{
	if (!need(r, 1, "i8"))
		return 0;
	return (int8_t)*r->p++;
}

double pq_tr_double(pq_thrift_reader *r)
{
	if (!need(r, 8, "double"))
		return 0;
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u |= (uint64_t)r->p[i] << (8 * i);
	r->p += 8;
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

pq_bytes pq_tr_binary(pq_thrift_reader *r)
{
	pq_bytes b = {NULL, 0};
	size_t at = pq_tr_offset(r);
	uint64_t n = pq_tr_varint(r);
	if (r->status != PQ_OK)
		return b;
	if (n > left(r)) {
		fail_at(r, at, PQ_ECORRUPT, "binary length %llu exceeds the %zu bytes left",
			(unsigned long long)n, left(r));
		return b;
	}
	b.p = r->p;
	b.n = (size_t)n;
	r->p += n;
	return b;
}

bool pq_tr_bool_elem(pq_thrift_reader *r)
{
	if (!need(r, 1, "bool"))
		return false;
	return *r->p++ == 1;
}

size_t pq_thrift_min_size(uint8_t type)
{
	switch (type) {
	case PQ_TT_TRUE: case PQ_TT_FALSE: case PQ_TT_I8: case PQ_TT_I16:
	case PQ_TT_I32: case PQ_TT_I64: case PQ_TT_BINARY: case PQ_TT_LIST:
	case PQ_TT_SET: case PQ_TT_MAP: case PQ_TT_STRUCT:
		return 1;
	case PQ_TT_DOUBLE:
		return 8;
	case PQ_TT_UUID:
		return 16;
	default:
		return 0;
	}
}

const char *pq_thrift_type_name(uint8_t type)
{
	static const char *const names[] = {
		"stop", "bool", "bool", "i8", "i16", "i32", "i64", "double",
		"binary", "list", "set", "map", "struct", "uuid"};
	return type < sizeof names / sizeof names[0] ? names[type] : "invalid";
}

/* Counts the level even when it fails, so every begin pairs with an end. */
static bool enter(pq_thrift_reader *r)
{
	r->depth++;
	if (r->status != PQ_OK)
		return false;
	if (r->depth > PQ_THRIFT_MAX_DEPTH) {
		tr_fail(r, PQ_ELIMIT, "nesting deeper than %d levels", PQ_THRIFT_MAX_DEPTH);
		return false;
	}
	return true;
}

bool pq_tr_struct_begin(pq_thrift_reader *r)
{
	return enter(r);
}

void pq_tr_struct_end(pq_thrift_reader *r)
{
	if (r->depth > 0)
		r->depth--;
}

void pq_tr_container_end(pq_thrift_reader *r)
{
	if (r->depth > 0)
		r->depth--;
}

bool pq_tr_field(pq_thrift_reader *r, int16_t *last_id, pq_thrift_field *f)
{
	f->id = 0;
	f->type = PQ_TT_STOP;
	f->bool_value = false;
	if (!need(r, 1, "field header"))
		return false;
	uint8_t b = *r->p;
	uint8_t type = b & 0x0f;
	if (type == PQ_TT_STOP) {
		if (b != 0) {
			tr_fail(r, PQ_ECORRUPT, "stop byte 0x%02x has a field delta", b);
			return false;
		}
		r->p++;
		return false;
	}
	if (pq_thrift_min_size(type) == 0) {
		tr_fail(r, PQ_ECORRUPT, "invalid field type %u", type);
		return false;
	}
	size_t at = pq_tr_offset(r);
	r->p++;
	int delta = b >> 4;
	int16_t id;
	if (delta == 0) {
		id = pq_tr_i16(r);  /* long form */
	} else {
		int next = *last_id + delta;
		if (next > INT16_MAX) {
			fail_at(r, at, PQ_ECORRUPT, "field id %d out of range", next);
			return false;
		}
		id = (int16_t)next;
	}
	if (r->status != PQ_OK)
		return false;
	*last_id = id;
	f->id = id;
	f->type = type;
	f->bool_value = type == PQ_TT_TRUE;
	return true;
}

static bool elem_type_ok(pq_thrift_reader *r, size_t at, uint8_t t, const char *what)
{
	if (t == PQ_TT_STOP || pq_thrift_min_size(t) == 0) {
		fail_at(r, at, PQ_ECORRUPT, "invalid %s type %u", what, t);
		return false;
	}
	return true;
}

/* n elements of at least min bytes each must fit in what is left. */
static bool count_ok(pq_thrift_reader *r, size_t at, uint64_t n, size_t min, const char *what)
{
	if (n > PQ_THRIFT_MAX_COUNT) {
		fail_at(r, at, PQ_ELIMIT, "%s of %llu elements exceeds the limit of %u",
			   what, (unsigned long long)n, PQ_THRIFT_MAX_COUNT);
		return false;
	}
	if (n > left(r) / min) {
		fail_at(r, at, PQ_ECORRUPT, "%s of %llu elements cannot fit in the %zu bytes left",
			   what, (unsigned long long)n, left(r));
		return false;
	}
	return true;
}

bool pq_tr_list_begin(pq_thrift_reader *r, uint8_t *elem_type, uint32_t *n)
{
	*n = 0;
	*elem_type = PQ_TT_STOP;
	if (!enter(r))
		return false;
	if (!need(r, 1, "list header"))
		return false;
	size_t at = pq_tr_offset(r);
	uint8_t b = *r->p++;
	uint8_t t = b & 0x0f;
	uint64_t size = b >> 4;
	if (size == 15)
		size = pq_tr_varint(r);
	if (r->status != PQ_OK || !elem_type_ok(r, at, t, "list element"))
		return false;
	if (!count_ok(r, at, size, pq_thrift_min_size(t), "list"))
		return false;
	*elem_type = t;
	*n = (uint32_t)size;
	return true;
}

bool pq_tr_map_begin(pq_thrift_reader *r, uint8_t *key_type, uint8_t *value_type, uint32_t *n)
{
	*n = 0;
	*key_type = *value_type = PQ_TT_STOP;
	if (!enter(r))
		return false;
	size_t at = pq_tr_offset(r);
	uint64_t size = pq_tr_varint(r);
	if (r->status != PQ_OK)
		return false;
	if (size == 0)
		return true;
	if (!need(r, 1, "map types"))
		return false;
	uint8_t b = *r->p++;
	uint8_t kt = b >> 4, vt = b & 0x0f;
	if (!elem_type_ok(r, at, kt, "map key") || !elem_type_ok(r, at, vt, "map value"))
		return false;
	if (!count_ok(r, at, size, pq_thrift_min_size(kt) + pq_thrift_min_size(vt), "map"))
		return false;
	*key_type = kt;
	*value_type = vt;
	*n = (uint32_t)size;
	return true;
}

void pq_tr_skip(pq_thrift_reader *r, uint8_t type)
{
	if (r->status != PQ_OK)
		return;
	switch (type) {
	case PQ_TT_TRUE:
	case PQ_TT_FALSE:
		/* As a field the value is in the header: nothing to skip. As a
		 * list, set or map element it is one byte, which the container
		 * cases below read with pq_tr_bool_elem instead of coming here. */
		return;
	case PQ_TT_I8:
		(void)pq_tr_i8(r);
		return;
	case PQ_TT_I16:
	case PQ_TT_I32:
	case PQ_TT_I64:
		(void)pq_tr_varint(r);
		return;
	case PQ_TT_DOUBLE:
		(void)pq_tr_double(r);
		return;
	case PQ_TT_BINARY:
		(void)pq_tr_binary(r);
		return;
	case PQ_TT_UUID:
		if (need(r, 16, "uuid"))
			r->p += 16;
		return;
	case PQ_TT_STRUCT: {
		if (pq_tr_struct_begin(r)) {
			int16_t last = 0;
			pq_thrift_field f;
			while (pq_tr_field(r, &last, &f))
				pq_tr_skip(r, f.type);
		}
		pq_tr_struct_end(r);
		return;
	}
	case PQ_TT_LIST:
	case PQ_TT_SET: {
		uint8_t et;
		uint32_t n;
		if (pq_tr_list_begin(r, &et, &n)) {
			for (uint32_t i = 0; i < n && r->status == PQ_OK; i++) {
				if (et == PQ_TT_TRUE || et == PQ_TT_FALSE)
					(void)pq_tr_bool_elem(r);
				else
					pq_tr_skip(r, et);
			}
		}
		pq_tr_container_end(r);
		return;
	}
	case PQ_TT_MAP: {
		uint8_t kt, vt;
		uint32_t n;
		if (pq_tr_map_begin(r, &kt, &vt, &n)) {
			for (uint32_t i = 0; i < n && r->status == PQ_OK; i++) {
				if (kt == PQ_TT_TRUE || kt == PQ_TT_FALSE)
					(void)pq_tr_bool_elem(r);
				else
					pq_tr_skip(r, kt);
				if (vt == PQ_TT_TRUE || vt == PQ_TT_FALSE)
					(void)pq_tr_bool_elem(r);
				else
					pq_tr_skip(r, vt);
			}
		}
		pq_tr_container_end(r);
		return;
	}
	default:
		tr_fail(r, PQ_ECORRUPT, "cannot skip a value of invalid type %u", type);
		return;
	}
}

/* ---- Writer ----------------------------------------------------------- */

void pq_tw_init(pq_thrift_writer *w, pq_buf *out)
{
	memset(w, 0, sizeof *w);
	w->out = out;
}

void pq_tw_struct_begin(pq_thrift_writer *w)
{
	if (w->depth >= PQ_THRIFT_MAX_DEPTH) {
		w->too_deep = true;
		w->depth++;
		return;
	}
	w->last_id[w->depth++] = 0;
}

void pq_tw_struct_end(pq_thrift_writer *w)
{
	pq_buf_putc(w->out, 0);
	if (w->depth > 0)
		w->depth--;
}

static void tw_varint(pq_thrift_writer *w, uint64_t v)
{
	uint8_t tmp[PQ_THRIFT_MAX_VARINT];
	size_t n = 0;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		tmp[n++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
	pq_buf_append(w->out, tmp, n);
}

static uint64_t zigzag(int64_t v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	return (u << 1) ^ ((uint64_t)0 - (u >> 63));
}

void pq_tw_field(pq_thrift_writer *w, int16_t id, uint8_t type)
{
	int16_t *last = (w->depth > 0 && w->depth <= PQ_THRIFT_MAX_DEPTH)
	    ? &w->last_id[w->depth - 1] : NULL;
	int delta = last ? id - *last : 0;
	if (delta > 0 && delta <= 15) {
		pq_buf_putc(w->out, (char)(uint8_t)(delta << 4 | type));
	} else {
		pq_buf_putc(w->out, (char)type);
		tw_varint(w, zigzag(id));
	}
	if (last)
		*last = id;
}

void pq_tw_field_bool(pq_thrift_writer *w, int16_t id, bool v)
{
	pq_tw_field(w, id, v ? PQ_TT_TRUE : PQ_TT_FALSE);
}

void pq_tw_i8(pq_thrift_writer *w, int8_t v)
{
	pq_buf_putc(w->out, (char)v);
}

void pq_tw_i16(pq_thrift_writer *w, int16_t v)
{
	tw_varint(w, zigzag(v));
}

void pq_tw_i32(pq_thrift_writer *w, int32_t v)
{
	tw_varint(w, zigzag(v));
}

void pq_tw_i64(pq_thrift_writer *w, int64_t v)
{
	tw_varint(w, zigzag(v));
}

void pq_tw_double(pq_thrift_writer *w, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (8 * i));
	pq_buf_append(w->out, b, 8);
}

void pq_tw_binary(pq_thrift_writer *w, const void *p, size_t n)
{
	tw_varint(w, n);
	pq_buf_append(w->out, p, n);
}

void pq_tw_bool_elem(pq_thrift_writer *w, bool v)
{
	pq_buf_putc(w->out, v ? 1 : 2);
}

void pq_tw_field_i8(pq_thrift_writer *w, int16_t id, int8_t v)
{
	pq_tw_field(w, id, PQ_TT_I8);
	pq_tw_i8(w, v);
}

void pq_tw_field_i16(pq_thrift_writer *w, int16_t id, int16_t v)
{
	pq_tw_field(w, id, PQ_TT_I16);
	pq_tw_i16(w, v);
}

void pq_tw_field_i32(pq_thrift_writer *w, int16_t id, int32_t v)
{
	pq_tw_field(w, id, PQ_TT_I32);
	pq_tw_i32(w, v);
}

void pq_tw_field_i64(pq_thrift_writer *w, int16_t id, int64_t v)
{
	pq_tw_field(w, id, PQ_TT_I64);
	pq_tw_i64(w, v);
}

void pq_tw_field_double(pq_thrift_writer *w, int16_t id, double v)
{
	pq_tw_field(w, id, PQ_TT_DOUBLE);
	pq_tw_double(w, v);
}

void pq_tw_field_binary(pq_thrift_writer *w, int16_t id, const void *p, size_t n)
{
	pq_tw_field(w, id, PQ_TT_BINARY);
	pq_tw_binary(w, p, n);
}

void pq_tw_list_begin(pq_thrift_writer *w, uint8_t elem_type, uint32_t n)
{
	if (n < 15) {
		pq_buf_putc(w->out, (char)(uint8_t)(n << 4 | elem_type));
	} else {
		pq_buf_putc(w->out, (char)(uint8_t)(0xf0 | elem_type));
		tw_varint(w, n);
	}
}

void pq_tw_map_begin(pq_thrift_writer *w, uint8_t key_type, uint8_t value_type, uint32_t n)
{
	tw_varint(w, n);
	if (n)
		pq_buf_putc(w->out, (char)(uint8_t)(key_type << 4 | value_type));
}

pq_status pq_tw_finish(const pq_thrift_writer *w, pq_error *err)
{
	if (w->out->oom)
		return pq_fail(err, PQ_ENOMEM, "thrift writer: out of memory");
	if (w->too_deep)
		return pq_fail(err, PQ_ELIMIT, "thrift writer: structs nested deeper than %d",
			       PQ_THRIFT_MAX_DEPTH);
	if (w->depth != 0)
		return pq_fail(err, PQ_EINVAL, "thrift writer: %d structs left open", w->depth);
	return PQ_OK;
}
