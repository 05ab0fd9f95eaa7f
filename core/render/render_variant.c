/* VARIANT binary values (VariantEncoding.md) to JSON, per interface.md
 * "Variant as JSON". A value is decoded where it lies: no copy, no tree,
 * one recursive walk that appends to the output as it goes and checks
 * every size, offset and field id against the bytes that hold it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pq_render.h"
#include "pq_variant.h"
#include "util/pq_utf8.h"

enum { BASIC_PRIMITIVE, BASIC_SHORT_STRING, BASIC_OBJECT, BASIC_ARRAY };

/* Primitive type ids (the table "Variant primitive types"). */
enum {
	V_NULL, V_TRUE, V_FALSE, V_INT8, V_INT16, V_INT32, V_INT64, V_DOUBLE,
	V_DECIMAL4, V_DECIMAL8, V_DECIMAL16, V_DATE, V_TIMESTAMP, V_TIMESTAMP_NTZ,
	V_FLOAT, V_BINARY, V_STRING, V_TIME_NTZ, V_TIMESTAMP_NANOS,
	V_TIMESTAMP_NTZ_NANOS, V_UUID, V_PRIMITIVE_COUNT
};

/* Bytes after the header of each fixed-size primitive (binary and string:
 * the 4-byte length). */
static const uint8_t fixed_size[V_PRIMITIVE_COUNT] = {
	[V_INT8] = 1, [V_INT16] = 2, [V_INT32] = 4, [V_INT64] = 8, [V_DOUBLE] = 8,
	[V_DECIMAL4] = 5, [V_DECIMAL8] = 9, [V_DECIMAL16] = 17, [V_DATE] = 4,
	[V_TIMESTAMP] = 8, [V_TIMESTAMP_NTZ] = 8, [V_FLOAT] = 4, [V_BINARY] = 4,
	[V_STRING] = 4, [V_TIME_NTZ] = 8, [V_TIMESTAMP_NANOS] = 8,
	[V_TIMESTAMP_NTZ_NANOS] = 8, [V_UUID] = 16,
};

#define DECIMAL_SCALE_MAX 38

typedef struct vctx {
	const pq_variant_meta *m;
	pq_buf *out;
	pq_variant_diag *d;
} vctx;

static bool fail(pq_variant_diag *d, const char *why)
{
	if (d && !d->error)
		d->error = why;
	return false;
}

static void note(pq_variant_diag *d, const char *why)
{
	if (d && !d->note)
		d->note = why;
}

static uint64_t le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int pq_variant_key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);
	if (c)
		return c;
	return an < bn ? -1 : an > bn;
}

bool pq_variant_meta_parse(const uint8_t *p, size_t n, pq_variant_meta *m, pq_variant_diag *d)
{
	memset(m, 0, sizeof *m);
	if (n == 0)
		return fail(d, "variant metadata is empty");
	if ((p[0] & 15) != 1)
		return fail(d, "variant metadata version is not 1");
	unsigned osize = (unsigned)(p[0] >> 6) + 1;
	if (n < 1 + (size_t)osize)
		return fail(d, "variant metadata is truncated");
	uint64_t count = le(p + 1, osize);
	size_t rest = n - 1 - osize;
	if (count + 1 > rest / osize)
		return fail(d, "variant metadata: dictionary size exceeds its bytes");
	m->osize = (uint8_t)osize;
	m->count = (uint32_t)count;
	m->sorted = (p[0] >> 4) & 1;
	m->offsets = p + 1 + osize;
	m->strings = m->offsets + (count + 1) * osize;
	m->nstrings = n - (size_t)(m->strings - p);
	uint64_t prev = 0;
	for (uint64_t i = 0; i <= count; i++) {
		uint64_t o = le(m->offsets + i * osize, osize);
		if (o < prev || o > m->nstrings)
			return fail(d, "variant metadata: a string offset is out of range");
		prev = o;
	}
	if (le(m->offsets, osize) != 0 || prev != m->nstrings)
		note(d, "variant metadata: string offsets do not cover the bytes exactly");
	if (pq_utf8_first_invalid(m->strings, (size_t)prev) != prev)
		note(d, "variant metadata: a key is not valid UTF-8");
	if (m->sorted) {
		pq_bytes a, b;
		for (uint32_t i = 1; i < m->count; i++) {
			pq_variant_meta_key(m, i - 1, &a);
			pq_variant_meta_key(m, i, &b);
			if (pq_variant_key_cmp(a.p, a.n, b.p, b.n) >= 0) {
				note(d, "variant metadata: sorted_strings is set but keys are not sorted and unique");
				break;
			}
		}
	}
	return true;
}

bool pq_variant_meta_key(const pq_variant_meta *m, uint32_t id, pq_bytes *key)
{
	if (id >= m->count)
		return false;
	/* Offsets were checked non-decreasing and within the bytes. */
	size_t a = (size_t)le(m->offsets + (size_t)id * m->osize, m->osize);
	size_t b = (size_t)le(m->offsets + ((size_t)id + 1) * m->osize, m->osize);
	key->p = m->strings + a;
	key->n = b - a;
	return true;
}

/* ---- primitives ------------------------------------------------------- */

static void put_quoted_ascii(pq_buf *out, const char *s, size_t n)
{
	pq_buf_putc(out, '"');
	pq_buf_append(out, s, n);
	pq_buf_putc(out, '"');
}

/* A float's text is a JSON number unless it is NaN or +-Infinity. */
static void put_float_text(pq_buf *out, const char *s, size_t n)
{
	if (s[0] == 'N' || s[0] == 'I' || s[1] == 'I')
		put_quoted_ascii(out, s, n);
	else
		pq_buf_append(out, s, n);
}

static void put_string(vctx *c, const uint8_t *p, size_t n)
{
	if (pq_utf8_first_invalid(p, n) != n)
		note(c->d, "variant string is not valid UTF-8");
	pq_render_json_string(p, n, c->out);
}

static bool primitive(vctx *c, unsigned id, const uint8_t *p, size_t n, size_t *used)
{
	char buf[PQ_FORMAT_BUF];
	pq_buf *out = c->out;
	if (id >= V_PRIMITIVE_COUNT)
		return fail(c->d, "variant primitive type id is unknown");
	size_t need = fixed_size[id];
	if (n < need)
		return fail(c->d, "variant primitive value is truncated");
	*used = 1 + need;
	uint64_t u = need >= 1 && need <= 8 ? le(p, (unsigned)need) : 0;
	switch (id) {
	case V_NULL: pq_buf_append(out, "null", 4); return true;
	case V_TRUE: pq_buf_append(out, "true", 4); return true;
	case V_FALSE: pq_buf_append(out, "false", 5); return true;
	case V_INT8:
		pq_buf_append(out, buf, pq_format_i64((int8_t)(uint8_t)u, buf));
		return true;
	case V_INT16:
		pq_buf_append(out, buf, pq_format_i64((int16_t)(uint16_t)u, buf));
		return true;
	case V_INT32:
		pq_buf_append(out, buf, pq_format_i64((int32_t)(uint32_t)u, buf));
		return true;
	case V_INT64:
		pq_buf_append(out, buf, pq_format_i64((int64_t)u, buf));
		return true;
	case V_DOUBLE: {
		double x;
		memcpy(&x, &u, 8);
		put_float_text(out, buf, pq_format_double(x, buf));
		return true;
	}
	case V_FLOAT: {
		uint32_t u32 = (uint32_t)u;
		float x;
		memcpy(&x, &u32, 4);
		put_float_text(out, buf, pq_format_float(x, buf));
		return true;
	}
	case V_DECIMAL4:
	case V_DECIMAL8:
	case V_DECIMAL16: {
		if (p[0] > DECIMAL_SCALE_MAX)
			return fail(c->d, "variant decimal scale is above 38");
		if (id == V_DECIMAL4) {
			pq_render_decimal_i64((int32_t)(uint32_t)le(p + 1, 4), p[0], out);
		} else if (id == V_DECIMAL8) {
			pq_render_decimal_i64((int64_t)le(p + 1, 8), p[0], out);
		} else {
			uint8_t be[16];
			for (int i = 0; i < 16; i++)
				be[i] = p[16 - i];
			pq_render_decimal_be(be, 16, p[0], out);
		}
		return true;
	}
	case V_DATE:
		put_quoted_ascii(out, buf, pq_format_date((int32_t)(uint32_t)u, buf));
		return true;
	case V_TIMESTAMP:
	case V_TIMESTAMP_NTZ:
	case V_TIMESTAMP_NANOS:
	case V_TIMESTAMP_NTZ_NANOS: {
		int32_t unit = id == V_TIMESTAMP || id == V_TIMESTAMP_NTZ ? PQ_MICROS : PQ_NANOS;
		bool utc = id == V_TIMESTAMP || id == V_TIMESTAMP_NANOS;
		put_quoted_ascii(out, buf, pq_format_timestamp((int64_t)u, unit, utc, buf));
		return true;
	}
	case V_TIME_NTZ: {
		size_t k = pq_format_time((int64_t)u, PQ_MICROS, false, buf);
		if (k > 2 && buf[2] == ':')
			put_quoted_ascii(out, buf, k);
		else /* out of range: the plain integer, as the TIME rule says */
			pq_buf_append(out, buf, k);
		return true;
	}
	case V_UUID:
		put_quoted_ascii(out, buf, pq_format_uuid(p, buf));
		return true;
	case V_BINARY:
	case V_STRING: {
		uint64_t len = u;
		if (len > n - 4)
			return fail(c->d, "variant string or binary is longer than its bytes");
		*used = 5 + (size_t)len;
		if (id == V_STRING)
			put_string(c, p + 4, (size_t)len);
		else
			pq_render_hex(p + 4, (size_t)len, PQ_MODE_JSON, out);
		return true;
	}
	default:
		return fail(c->d, "variant primitive type id is unknown");
	}
}

/* ---- objects and arrays ------------------------------------------------ */

static bool value(vctx *c, const uint8_t *p, size_t n, unsigned depth, size_t *used);

int pq_variant_object_open(const uint8_t *p, size_t n, pq_variant_object *o,
			   pq_variant_diag *d)
{
	if (n == 0)
		return fail(d, "variant value is empty"), -1;
	if ((p[0] & 3) != BASIC_OBJECT)
		return 0;
	unsigned hdr = p[0] >> 2;
	unsigned nsize = (hdr >> 4) & 1 ? 4 : 1;
	unsigned id_size = ((hdr >> 2) & 3) + 1, off_size = (hdr & 3) + 1;
	if (n - 1 < nsize)
		return fail(d, "variant object is truncated"), -1;
	uint64_t count = le(p + 1, nsize);
	size_t rest = n - 1 - nsize;
	/* count ids and count + 1 offsets; 64-bit arithmetic cannot wrap */
	if (count * id_size + (count + 1) * off_size > rest)
		return fail(d, "variant object: its field count exceeds its bytes"), -1;
	o->count = (uint32_t)count;
	o->id_size = (uint8_t)id_size;
	o->off_size = (uint8_t)off_size;
	o->ids = p + 1 + nsize;
	o->offsets = o->ids + count * id_size;
	o->fields = o->offsets + (count + 1) * off_size;
	uint64_t last = le(o->offsets + count * off_size, off_size);
	if (last > n - (size_t)(o->fields - p))
		return fail(d, "variant object: its fields run past its bytes"), -1;
	o->nfields = (size_t)last;
	return 1;
}

bool pq_variant_object_field(const pq_variant_meta *m, const pq_variant_object *o, uint32_t i,
			     pq_bytes *key, pq_bytes *value_out, pq_variant_diag *d)
{
	uint32_t id = (uint32_t)le(o->ids + (size_t)i * o->id_size, o->id_size);
	if (!pq_variant_meta_key(m, id, key))
		return fail(d, "variant object: a field id is not in the metadata dictionary");
	uint64_t off = le(o->offsets + (size_t)i * o->off_size, o->off_size);
	if (off >= o->nfields)
		return fail(d, "variant object: a field offset is out of range");
	value_out->p = o->fields + off;
	value_out->n = o->nfields - (size_t)off;
	return true;
}

typedef struct keyed {
	pq_bytes key;
	uint32_t i;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	int c = pq_variant_key_cmp(x->key.p, x->key.n, y->key.p, y->key.n);
	return c ? c : (x->i > y->i) - (x->i < y->i); /* stable: duplicates in stored order */
}

/* Field i; *total adds its value's size. The values of a valid object
 * do not overlap, so their sizes add up to at most the fields region: a
 * value that claims more (fields sharing bytes) is an error, which is
 * also what keeps output proportional to input (shared values nested
 * deep would otherwise multiply). */
static bool field(vctx *c, const pq_variant_object *o, uint32_t i, bool first, unsigned depth,
		  size_t *total)
{
	pq_bytes key, v;
	size_t used;
	if (!pq_variant_object_field(c->m, o, i, &key, &v, c->d))
		return false;
	if (!first)
		pq_buf_putc(c->out, ',');
	put_string(c, key.p, key.n);
	pq_buf_putc(c->out, ':');
	if (!value(c, v.p, v.n, depth + 1, &used))
		return false;
	*total += used;
	if (*total > o->nfields)
		return fail(c->d, "variant object: field values overlap");
	return true;
}

static bool object(vctx *c, const uint8_t *p, size_t n, unsigned depth, size_t *used)
{
	pq_variant_object o;
	if (pq_variant_object_open(p, n, &o, c->d) < 0)
		return false;
	*used = (size_t)(o.fields - p) + o.nfields;
	/* Keys are stored in key-name order in a valid variant: check, and
	 * sort only when they are not. */
	bool in_order = true;
	pq_bytes prev = {NULL, 0}, key, v;
	for (uint32_t i = 0; i < o.count; i++) {
		if (!pq_variant_object_field(c->m, &o, i, &key, &v, c->d))
			return false;
		if (i) {
			int cmp = pq_variant_key_cmp(prev.p, prev.n, key.p, key.n);
			if (cmp == 0)
				note(c->d, "variant object: a key appears twice");
			if (cmp > 0)
				in_order = false;
		}
		prev = key;
	}
	pq_buf_putc(c->out, '{');
	size_t total = 0;
	if (in_order) {
		for (uint32_t i = 0; i < o.count; i++)
			if (!field(c, &o, i, i == 0, depth, &total))
				return false;
	} else {
		note(c->d, "variant object: keys are not in key-name order");
		/* o.count ids fit in the value's bytes: the index is bounded. */
		keyed *ix = malloc((size_t)o.count * sizeof *ix);
		if (!ix) {
			c->out->oom = true;
			return fail(c->d, "no memory for a variant object");
		}
		for (uint32_t i = 0; i < o.count; i++) {
			pq_variant_object_field(c->m, &o, i, &ix[i].key, &v, c->d);
			ix[i].i = i;
		}
		qsort(ix, o.count, sizeof *ix, keyed_cmp);
		bool ok = true;
		for (uint32_t k = 0; k < o.count && ok; k++)
			ok = field(c, &o, ix[k].i, k == 0, depth, &total);
		free(ix);
		if (!ok)
			return false;
	}
	pq_buf_putc(c->out, '}');
	return true;
}

static bool array(vctx *c, const uint8_t *p, size_t n, unsigned depth, size_t *used)
{
	unsigned hdr = p[0] >> 2;
	unsigned nsize = (hdr >> 2) & 1 ? 4 : 1, off_size = (hdr & 3) + 1;
	if (n - 1 < nsize)
		return fail(c->d, "variant array is truncated");
	uint64_t count = le(p + 1, nsize);
	size_t rest = n - 1 - nsize;
	if ((count + 1) * off_size > rest)
		return fail(c->d, "variant array: its element count exceeds its bytes");
	const uint8_t *offs = p + 1 + nsize;
	const uint8_t *elems = offs + (count + 1) * off_size;
	uint64_t last = le(offs + count * off_size, off_size);
	if (last > n - (size_t)(elems - p))
		return fail(c->d, "variant array: its elements run past its bytes");
	*used = (size_t)(elems - p) + (size_t)last;
	pq_buf_putc(c->out, '[');
	uint64_t total = 0; /* element sizes: at most the region (see field()) */
	for (uint64_t i = 0; i < count; i++) {
		uint64_t off = le(offs + i * off_size, off_size);
		size_t u;
		if (off >= last)
			return fail(c->d, "variant array: an element offset is out of range");
		if (i)
			pq_buf_putc(c->out, ',');
		if (!value(c, elems + off, (size_t)(last - off), depth + 1, &u))
			return false;
		total += u;
		if (total > last)
			return fail(c->d, "variant array: element values overlap");
	}
	pq_buf_putc(c->out, ']');
	return true;
}

/* Renders the value at p (at most n bytes); *used gets its size. */
static bool value(vctx *c, const uint8_t *p, size_t n, unsigned depth, size_t *used)
{
	if (n == 0)
		return fail(c->d, "variant value is empty");
	unsigned hdr = p[0] >> 2;
	switch (p[0] & 3) {
	case BASIC_PRIMITIVE:
		return primitive(c, hdr, p + 1, n - 1, used);
	case BASIC_SHORT_STRING:
		if (hdr > n - 1)
			return fail(c->d, "variant short string is longer than its bytes");
		put_string(c, p + 1, hdr);
		*used = 1 + hdr;
		return true;
	default: /* object or array */
		if (depth >= PQ_VARIANT_MAX_DEPTH)
			return fail(c->d, "variant nesting is too deep");
		if ((p[0] & 3) == BASIC_OBJECT)
			return object(c, p, n, depth, used);
		return array(c, p, n, depth, used);
	}
}

bool pq_render_variant(const pq_variant_meta *m, const uint8_t *p, size_t n, pq_buf *out,
		       pq_variant_diag *d)
{
	vctx c = {m, out, d};
	size_t mark = out->len, used = 0;
	if (!value(&c, p, n, 0, &used)) {
		out->len = mark;
		return fail(d, "variant value cannot be decoded");
	}
	if (used < n)
		note(d, "variant value is followed by stray bytes");
	return true;
}

void pq_render_variant_json(const uint8_t *meta, size_t mn, const uint8_t *val, size_t vn,
			    pq_buf *out, pq_variant_diag *d)
{
	pq_variant_meta m;
	if (!pq_variant_meta_parse(meta, mn, &m, d) || !pq_render_variant(&m, val, vn, out, d))
		pq_render_hex(val, vn, PQ_MODE_JSON, out);
}
