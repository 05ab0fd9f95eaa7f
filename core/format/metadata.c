/* Generic compact-protocol decode and encode of the pq_metadata.h structs,
 * driven by the descriptor tables of metadata_desc.c.
 *
 * Decoding policy (as other Parquet readers): unknown field ids are
 * skipped; a known field arriving with another wire type is skipped too
 * (and named if that leaves a required field missing); an unknown
 * LogicalType member is recorded in unknown_member and skipped; a required
 * field that never arrived fails the decode. Errors carry the path of the
 * field, e.g. "FileMetaData.row_groups[2].columns[0].meta_data: at byte
 * 812: binary length 4000 exceeds the 12 bytes left". */
#include "config.h"

#define PQ_FORMAT_INTERNAL
#include "metadata_internal.h"

#include "pq_thrift.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { PATH_MAX_FRAMES = 32 };

typedef struct dec_frame {
	const pq_fdesc *f;
	int64_t idx; /* list element, or -1 */
} dec_frame;

typedef struct dec {
	pq_thrift_reader r;
	pq_arena *arena;
	pq_error *err;
	const pq_sdesc *top;
	bool annotated;
	int nframes;
	dec_frame frames[PATH_MAX_FRAMES];
} dec;

static const pq_fdesc *find_field(const pq_sdesc *s, int16_t id, size_t *index)
{
	for (size_t i = 0; i < s->nfields; i++) {
		if (s->fields[i].id == id) {
			*index = i;
			return &s->fields[i];
		}
	}
	return NULL;
}

static void format_path(const pq_sdesc *top, const dec_frame *frames, int n, char *buf,
			size_t cap)
{
	size_t len = (size_t)snprintf(buf, cap, "%s", top->name);
	for (int i = 0; i < n && len < cap; i++) {
		if (frames[i].idx >= 0)
			len += (size_t)snprintf(buf + len, cap - len, ".%s[%lld]", frames[i].f->name,
						(long long)frames[i].idx);
		else
			len += (size_t)snprintf(buf + len, cap - len, ".%s", frames[i].f->name);
	}
}

/* Prefixes the (first) error with the path of the field being decoded. */
static void annotate(dec *d)
{
	if (d->annotated || !d->err)
		return;
	d->annotated = true;
	char path[256];
	format_path(d->top, d->frames, d->nframes, path, sizeof path);
	pq_context(d->err, "%s", path);
}

/* A failure worded here rather than by the reader. */
static void dec_fail(dec *d, pq_status st, const char *fmt, ...) PQ_PRINTF(3, 4);
static void dec_fail(dec *d, pq_status st, const char *fmt, ...)
{
	if (!pq_tr_ok(&d->r))
		return;
	pq_tr_set_failed(&d->r, st);
	if (d->err) {
		char msg[PQ_ERROR_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
		pq_fail(d->err, st, "%s", msg);
	}
	annotate(d);
}

static bool push(dec *d, const pq_fdesc *f)
{
	if (d->nframes >= PATH_MAX_FRAMES) {
		/* Descriptors nest far less; this only guards the array. */
		dec_fail(d, PQ_ELIMIT, "metadata nested deeper than %d fields", PATH_MAX_FRAMES);
		return false;
	}
	d->frames[d->nframes].f = f;
	d->frames[d->nframes].idx = -1;
	d->nframes++;
	return true;
}

static void pop(dec *d)
{
	d->nframes--;
}

/* The wire type a value of a kind must arrive with. */
static bool wire_ok(uint8_t kind, uint8_t t)
{
	switch (kind) {
	case PQ_FK_BOOL: return t == PQ_TT_TRUE || t == PQ_TT_FALSE;
	case PQ_FK_I8: return t == PQ_TT_I8;
	case PQ_FK_I16: return t == PQ_TT_I16;
	case PQ_FK_I32: case PQ_FK_ENUM: return t == PQ_TT_I32;
	case PQ_FK_I64: return t == PQ_TT_I64;
	case PQ_FK_DOUBLE: return t == PQ_TT_DOUBLE;
	case PQ_FK_BINARY: case PQ_FK_STRING: return t == PQ_TT_BINARY;
	case PQ_FK_STRUCT: return t == PQ_TT_STRUCT;
	case PQ_FK_LIST: return t == PQ_TT_LIST || t == PQ_TT_SET;
	}
	return false;
}

static uint8_t wire_type(uint8_t kind)
{
	switch (kind) {
	case PQ_FK_BOOL: return PQ_TT_TRUE;
	case PQ_FK_I8: return PQ_TT_I8;
	case PQ_FK_I16: return PQ_TT_I16;
	case PQ_FK_I32: case PQ_FK_ENUM: return PQ_TT_I32;
	case PQ_FK_I64: return PQ_TT_I64;
	case PQ_FK_DOUBLE: return PQ_TT_DOUBLE;
	case PQ_FK_BINARY: case PQ_FK_STRING: return PQ_TT_BINARY;
	case PQ_FK_STRUCT: return PQ_TT_STRUCT;
	default: return PQ_TT_LIST;
	}
}

/* Smallest encoding of a struct: its required fields and the STOP byte.
 * Bounds list counts tighter than one byte per element. */
static size_t struct_min_size(const pq_sdesc *s, int depth)
{
	size_t n = 1;
	if (depth > 8)
		return n;
	for (size_t i = 0; i < s->nfields; i++) {
		const pq_fdesc *f = &s->fields[i];
		if (f->has >= 0)
			continue;
		n += 1; /* field header */
		if (f->kind == PQ_FK_STRUCT)
			n += struct_min_size(f->sub, depth + 1);
		else if (f->kind == PQ_FK_DOUBLE)
			n += 8;
		else if (f->kind != PQ_FK_BOOL)
			n += 1;
	}
	return n;
}

static void decode_struct(dec *d, const pq_sdesc *s, char *base);

/* One bare value (a list element) of a kind into p. */
static void decode_elem(dec *d, uint8_t kind, const pq_sdesc *sub, char *p)
{
	pq_thrift_reader *r = &d->r;
	switch (kind) {
	case PQ_FK_BOOL: *(bool *)p = pq_tr_bool_elem(r); break;
	case PQ_FK_I8: *(int8_t *)p = pq_tr_i8(r); break;
	case PQ_FK_I16: *(int16_t *)p = pq_tr_i16(r); break;
	case PQ_FK_I32: case PQ_FK_ENUM: *(int32_t *)p = pq_tr_i32(r); break;
	case PQ_FK_I64: *(int64_t *)p = pq_tr_i64(r); break;
	case PQ_FK_DOUBLE: *(double *)p = pq_tr_double(r); break;
	case PQ_FK_BINARY: case PQ_FK_STRING: *(pq_bytes *)p = pq_tr_binary(r); break;
	case PQ_FK_STRUCT: decode_struct(d, sub, p); break;
	default: dec_fail(d, PQ_EUNSUPPORTED, "nested lists are not described"); break;
	}
}

static void *alloc_elems(dec *d, uint32_t n, size_t size)
{
	void *v = pq_arena_calloc(d->arena, n, size);
	if (!v) {
		const pq_arena *a = d->arena;
		if (a->limit)
			dec_fail(d, PQ_ELIMIT, "%u elements would pass the metadata memory limit "
				 "of %zu bytes", n, a->limit);
		else
			dec_fail(d, PQ_ENOMEM, "out of memory for %u elements", n);
	}
	return v;
}

/* A list field; false when it was skipped (element type mismatch). */
static bool decode_list(dec *d, const pq_fdesc *f, char *base)
{
	pq_thrift_reader *r = &d->r;
	uint8_t et;
	uint32_t n;
	bool set = false;
	if (pq_tr_list_begin(r, &et, &n)) {
		if (!wire_ok(f->elem, et)) {
			for (uint32_t i = 0; i < n && pq_tr_ok(r); i++) {
				if (et == PQ_TT_TRUE || et == PQ_TT_FALSE)
					(void)pq_tr_bool_elem(r);
				else
					pq_tr_skip(r, et);
			}
		} else {
			size_t min = f->elem == PQ_FK_STRUCT ? struct_min_size(f->sub, 0)
							    : pq_thrift_min_size(et);
			void *v = NULL;
			if (n > pq_tr_left(r) / min)
				dec_fail(d, PQ_ECORRUPT, "list of %u elements of at least %zu bytes "
					 "cannot fit in the %zu bytes left", n, min, pq_tr_left(r));
			else if (n)
				v = alloc_elems(d, n, f->elem_size);
			for (uint32_t i = 0; v && i < n && pq_tr_ok(r); i++) {
				d->frames[d->nframes - 1].idx = i;
				decode_elem(d, f->elem, f->sub, (char *)v + (size_t)i * f->elem_size);
			}
			d->frames[d->nframes - 1].idx = -1;
			if (!v)
				n = 0; /* failed: never a count without its array */
			memcpy(base + f->off, &n, sizeof n);
			memcpy(base + f->voff, &v, sizeof v);
			set = true;
		}
	}
	pq_tr_container_end(r);
	return set;
}

/* A field's value into base; false when it was skipped. */
static bool decode_field(dec *d, const pq_fdesc *f, const pq_thrift_field *tf, char *base)
{
	char *p = base + f->off;
	switch (f->kind) {
	case PQ_FK_BOOL: *(bool *)p = tf->bool_value; return true;
	case PQ_FK_STRUCT: decode_struct(d, f->sub, p); return true;
	case PQ_FK_LIST: return decode_list(d, f, base);
	default: decode_elem(d, f->kind, f->sub, p); return true;
	}
}

static void decode_struct(dec *d, const pq_sdesc *s, char *base)
{
	pq_thrift_reader *r = &d->r;
	uint64_t seen = 0, mismatched = 0;
	uint8_t got_type[64] = {0};
	if (pq_tr_struct_begin(r)) {
		int16_t last = 0;
		pq_thrift_field tf;
		while (pq_tr_field(r, &last, &tf)) {
			size_t i;
			const pq_fdesc *f = find_field(s, tf.id, &i);
			if (!f) {
				if (s->unknown_member >= 0)
					memcpy(base + s->unknown_member, &tf.id, sizeof tf.id);
				pq_tr_skip(r, tf.type);
			} else if (!wire_ok(f->kind, tf.type)) {
				mismatched |= (uint64_t)1 << i;
				got_type[i] = tf.type;
				pq_tr_skip(r, tf.type);
			} else if (push(d, f)) {
				bool set = decode_field(d, f, &tf, base);
				if (!pq_tr_ok(r))
					annotate(d);
				pop(d);
				if (set) {
					seen |= (uint64_t)1 << i;
					if (f->has >= 0)
						*(bool *)(base + f->has) = true;
				}
			}
			if (!pq_tr_ok(r))
				break;
		}
	}
	pq_tr_struct_end(r);
	if (!pq_tr_ok(r)) {
		annotate(d);
		return;
	}
	for (size_t i = 0; i < s->nfields; i++) {
		const pq_fdesc *f = &s->fields[i];
		if (f->has >= 0) {
			if (f->default_true && !*(bool *)(base + f->has))
				*(bool *)(base + f->off) = true;
			continue;
		}
		if (seen & ((uint64_t)1 << i))
			continue;
		if (mismatched & ((uint64_t)1 << i))
			dec_fail(d, PQ_ECORRUPT, "required field %s (%d) has wire type %s, expected %s",
				 f->name, f->id, pq_thrift_type_name(got_type[i]),
				 pq_thrift_type_name(wire_type(f->kind)));
		else
			dec_fail(d, PQ_ECORRUPT, "required field %s (%d) missing", f->name, f->id);
		return;
	}
}

pq_status pq_thrift_decode(pq_struct_kind kind, const uint8_t *buf, size_t len, void *out,
			   size_t *used, pq_arena *arena, pq_error *err)
{
	const pq_sdesc *s = pq_meta_desc(kind);
	if (used)
		*used = 0;
	if (!s || !out || !arena)
		return pq_fail(err, PQ_EINVAL, "pq_thrift_decode: bad arguments");
	memset(out, 0, pq_meta_size(kind));
	dec d;
	memset(&d, 0, sizeof d);
	pq_tr_init(&d.r, buf, len, err);
	d.arena = arena;
	d.err = err;
	d.top = s;
	decode_struct(&d, s, out);
	if (!pq_tr_ok(&d.r))
		return d.r.status;
	if (used)
		*used = pq_tr_offset(&d.r);
	return PQ_OK;
}

/* ---- Encode ----------------------------------------------------------- */

typedef struct enc {
	pq_thrift_writer w;
	pq_error *err;
	pq_status status;
} enc;

static void enc_fail(enc *e, const pq_sdesc *s, const pq_fdesc *f, const char *what)
{
	if (e->status != PQ_OK)
		return;
	e->status = PQ_EINVAL;
	pq_fail(e->err, PQ_EINVAL, "encoding %s.%s: %s", s->name, f->name, what);
}

static void encode_struct(enc *e, const pq_sdesc *s, const char *base);

static void encode_elem(enc *e, const pq_sdesc *s, const pq_fdesc *f, uint8_t kind,
			const char *p)
{
	pq_thrift_writer *w = &e->w;
	switch (kind) {
	case PQ_FK_BOOL: pq_tw_bool_elem(w, *(const bool *)p); break;
	case PQ_FK_I8: pq_tw_i8(w, *(const int8_t *)p); break;
	case PQ_FK_I16: pq_tw_i16(w, *(const int16_t *)p); break;
	case PQ_FK_I32: case PQ_FK_ENUM: pq_tw_i32(w, *(const int32_t *)p); break;
	case PQ_FK_I64: pq_tw_i64(w, *(const int64_t *)p); break;
	case PQ_FK_DOUBLE: pq_tw_double(w, *(const double *)p); break;
	case PQ_FK_BINARY:
	case PQ_FK_STRING: {
		const pq_bytes *b = (const pq_bytes *)p;
		if (b->n && !b->p)
			enc_fail(e, s, f, "binary value without bytes");
		else
			pq_tw_binary(w, b->p, b->n);
		break;
	}
	case PQ_FK_STRUCT: encode_struct(e, f->sub, p); break;
	default: enc_fail(e, s, f, "nested lists are not described"); break;
	}
}

static void encode_field(enc *e, const pq_sdesc *s, const pq_fdesc *f, const char *base)
{
	pq_thrift_writer *w = &e->w;
	const char *p = base + f->off;
	switch (f->kind) {
	case PQ_FK_BOOL:
		pq_tw_field_bool(w, f->id, *(const bool *)p);
		return;
	case PQ_FK_LIST: {
		uint32_t n;
		const char *v;
		memcpy(&n, p, sizeof n);
		memcpy(&v, base + f->voff, sizeof v);
		if (n && !v) {
			enc_fail(e, s, f, "list with elements but no array");
			return;
		}
		pq_tw_field(w, f->id, PQ_TT_LIST);
		pq_tw_list_begin(w, wire_type(f->elem), n);
		for (uint32_t i = 0; i < n && e->status == PQ_OK; i++)
			encode_elem(e, s, f, f->elem, v + (size_t)i * f->elem_size);
		return;
	}
	default:
		pq_tw_field(w, f->id, wire_type(f->kind));
		encode_elem(e, s, f, f->kind, p);
		return;
	}
}

static void encode_struct(enc *e, const pq_sdesc *s, const char *base)
{
	pq_tw_struct_begin(&e->w);
	for (size_t i = 0; i < s->nfields && e->status == PQ_OK; i++) {
		const pq_fdesc *f = &s->fields[i];
		if (f->has >= 0 && !*(const bool *)(base + f->has))
			continue;
		encode_field(e, s, f, base);
	}
	if (s->unknown_member >= 0) {
		int16_t id;
		size_t ignored;
		memcpy(&id, base + s->unknown_member, sizeof id);
		if (id > 0 && !find_field(s, id, &ignored)) {
			pq_tw_field(&e->w, id, PQ_TT_STRUCT);
			pq_tw_struct_begin(&e->w);
			pq_tw_struct_end(&e->w);
		}
	}
	pq_tw_struct_end(&e->w);
}

pq_status pq_thrift_encode(pq_struct_kind kind, const void *in, pq_buf *out, pq_error *err)
{
	const pq_sdesc *s = pq_meta_desc(kind);
	if (!s || !in || !out)
		return pq_fail(err, PQ_EINVAL, "pq_thrift_encode: bad arguments");
	enc e;
	pq_tw_init(&e.w, out);
	e.err = err;
	e.status = PQ_OK;
	encode_struct(&e, s, in);
	if (e.status != PQ_OK)
		return e.status;
	return pq_tw_finish(&e.w, err);
}
