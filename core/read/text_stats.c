/* columns/<column>/stats.txt: one column summarized across its row groups
 * from the footer (interface.md "Column summaries").
 *
 * min and max combine the row groups' Statistics bounds by the column's
 * sort order (parquet.thrift ColumnOrder): min_value/max_value when the
 * column's order is TYPE_ORDER (or the file stores no column_orders), the
 * deprecated min/max only where their signed comparison is the type's
 * order. A row group that holds values but no usable bound makes the bound
 * `unknown`; a row group without values (0 values, or all null) adds
 * nothing. Page counts come from metadata first (encoding_stats, then the
 * offset index) and from page headers only when neither is there.
 * doc/design.md "stats.txt" lists these choices. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "codec/pq_codec.h"
#include "format/pq_metadata_codec.h"
#include "pq_render.h"

/* How the bounds of a column compare. */
typedef enum ord_kind {
	ORD_NONE = 0, /* undefined order (INTERVAL, geospatial, INT96, an unknown
		       * ColumnOrder): bounds are not combined */
	ORD_BOOL,
	ORD_I32,
	ORD_U32,
	ORD_I64,
	ORD_U64,
	ORD_FLOAT,
	ORD_DOUBLE,
	ORD_HALF,    /* FLOAT16 on FIXED_LEN_BYTE_ARRAY(2) */
	ORD_DECIMAL, /* big-endian two's complement of any length */
	ORD_BYTES,   /* unsigned byte-wise, then shorter first */
} ord_kind;

static ord_kind order_of(const pq_leaf *leaf)
{
	pq_render_kind k = leaf->render.kind;
	const pq_logical_type *lt = &leaf->node->el.logicalType;
	if (leaf->node->el.has_logicalType &&
	    (lt->unknown_member || lt->has_GEOMETRY || lt->has_GEOGRAPHY))
		return ORD_NONE; /* an order this build does not know, or undefined */
	switch (leaf->physical) {
	case PQ_BOOLEAN:
		return ORD_BOOL;
	case PQ_INT32:
		return k == PQ_R_UINT ? ORD_U32 : ORD_I32;
	case PQ_INT64:
		return k == PQ_R_UINT ? ORD_U64 : ORD_I64;
	case PQ_FLOAT:
		return ORD_FLOAT;
	case PQ_DOUBLE:
		return ORD_DOUBLE;
	case PQ_BYTE_ARRAY:
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (k == PQ_R_DECIMAL)
			return ORD_DECIMAL;
		if (k == PQ_R_FLOAT16)
			return ORD_HALF;
		if (k == PQ_R_INTERVAL || k == PQ_R_GEO || k == PQ_R_NULL)
			return ORD_NONE;
		return ORD_BYTES;
	default: /* INT96: only INT96_TIMESTAMP_ORDER defines one, not decoded here */
		return ORD_NONE;
	}
}

/* The deprecated min/max are sorted by signed comparison: usable only
 * where that is the type's own order. */
static bool legacy_usable(ord_kind o)
{
	return o == ORD_BOOL || o == ORD_I32 || o == ORD_I64 || o == ORD_FLOAT ||
	       o == ORD_DOUBLE;
}

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

static double as_double(ord_kind o, pq_bytes b)
{
	if (o == ORD_HALF)
		return pq_half_to_double((uint16_t)le(b.p, 2));
	if (o == ORD_FLOAT) {
		uint32_t u = (uint32_t)le(b.p, 4);
		float f;
		memcpy(&f, &u, sizeof f);
		return f;
	}
	uint64_t u = le(b.p, 8);
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* Whether a stored bound can be compared: its width fits the type, and a
 * float is not NaN (parquet.thrift: a NaN bound is ignored). */
static bool bound_ok(ord_kind o, const pq_leaf *leaf, pq_bytes b)
{
	switch (o) {
	case ORD_NONE:
		return false;
	case ORD_BOOL:
		return b.n == 1;
	case ORD_I32:
	case ORD_U32:
		return b.n == 4;
	case ORD_I64:
	case ORD_U64:
		return b.n == 8;
	case ORD_FLOAT:
		return b.n == 4 && !isnan(as_double(o, b));
	case ORD_DOUBLE:
		return b.n == 8 && !isnan(as_double(o, b));
	case ORD_HALF:
		return b.n == 2 && !isnan(as_double(o, b));
	case ORD_DECIMAL:
		return (leaf->physical != PQ_FIXED_LEN_BYTE_ARRAY ||
			b.n == (size_t)leaf->type_length) &&
		       (b.n == 0 || b.p);
	case ORD_BYTES:
		return b.n == 0 || b.p;
	}
	return false;
}

static int sgn(bool lt, bool gt)
{
	return lt ? -1 : gt ? 1 : 0;
}

/* Drops leading bytes that only repeat the sign. */
static pq_bytes dec_trim(pq_bytes b, bool neg)
{
	uint8_t fill = neg ? 0xff : 0x00;
	while (b.n > 1 && b.p[0] == fill && ((b.p[1] & 0x80) != 0) == neg) {
		b.p++;
		b.n--;
	}
	return b;
}

static int cmp_decimal(pq_bytes a, pq_bytes b)
{
	bool na = a.n && (a.p[0] & 0x80), nb = b.n && (b.p[0] & 0x80);
	if (na != nb)
		return na ? -1 : 1;
	a = dec_trim(a, na);
	b = dec_trim(b, nb);
	if (a.n != b.n) /* more significant bytes: larger magnitude */
		return (a.n > b.n) == !na ? 1 : -1;
	int c = a.n ? memcmp(a.p, b.p, a.n) : 0; /* same sign, same width */
	return sgn(c < 0, c > 0);
}

/* Both bounds are bound_ok. */
static int cmp_bound(ord_kind o, pq_bytes a, pq_bytes b)
{
	switch (o) {
	case ORD_BOOL:
		return sgn((a.p[0] & 1) < (b.p[0] & 1), (a.p[0] & 1) > (b.p[0] & 1));
	case ORD_I32: {
		int32_t x = (int32_t)(uint32_t)le(a.p, 4), y = (int32_t)(uint32_t)le(b.p, 4);
		return sgn(x < y, x > y);
	}
	case ORD_I64: {
		int64_t x = (int64_t)le(a.p, 8), y = (int64_t)le(b.p, 8);
		return sgn(x < y, x > y);
	}
	case ORD_U32:
	case ORD_U64: {
		uint64_t x = le(a.p, a.n), y = le(b.p, b.n);
		return sgn(x < y, x > y);
	}
	case ORD_FLOAT:
	case ORD_DOUBLE:
	case ORD_HALF: {
		double x = as_double(o, a), y = as_double(o, b);
		return sgn(x < y, x > y);
	}
	case ORD_DECIMAL:
		return cmp_decimal(a, b);
	case ORD_BYTES: {
		size_t n = a.n < b.n ? a.n : b.n;
		int c = n ? memcmp(a.p, b.p, n) : 0;
		return c ? sgn(c < 0, c > 0) : sgn(a.n < b.n, a.n > b.n);
	}
	case ORD_NONE:
		break;
	}
	return 0;
}

/* One of the two bounds as it is combined over the row groups. */
typedef struct bound {
	bool known;  /* false once a row group with values lacks it */
	bool have;   /* a value was seen */
	bool exact;
	pq_bytes v;
} bound;

static void bound_add(bound *b, ord_kind o, int want, bool has_new, pq_bytes nv, bool nexact,
		      bool has_old, pq_bytes ov, const pq_leaf *leaf)
{
	pq_bytes v;
	bool exact;
	if (has_new && bound_ok(o, leaf, nv)) {
		v = nv;
		exact = nexact;
	} else if (has_old && bound_ok(o, leaf, ov)) {
		v = ov;
		exact = true;
	} else {
		b->known = false;
		return;
	}
	int c = b->have ? cmp_bound(o, v, b->v) : want;
	if (c == want) {
		b->v = v;
		b->exact = exact;
		b->have = true;
	} else if (c == 0) {
		b->exact = b->exact || exact; /* the same value, exact somewhere */
	}
}

/* A sum of footer counts: unknown once a row group lacks it; saturating,
 * as hostile counts may overflow. */
typedef struct sum {
	bool known;
	int64_t v;
} sum;

static void sum_add(sum *s, bool has, int64_t x)
{
	if (!has) {
		s->known = false;
		return;
	}
	if (__builtin_add_overflow(s->v, x, &s->v))
		s->v = x < 0 ? INT64_MIN : INT64_MAX;
}

static void put_sum(pq_buf *out, const char *key, const sum *s)
{
	if (s->known)
		pq_buf_printf(out, "%s: %" PRId64 "\n", key, s->v);
	else
		pq_buf_printf(out, "%s: unknown\n", key);
}

/* Distinct enum values in order of first appearance. */
typedef struct enum_set {
	int32_t v[64];
	uint32_t n;
	bool more; /* beyond the 64 kept: hostile metadata */
} enum_set;

static void set_add(enum_set *s, int32_t x)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->v[i] == x)
			return;
	if (s->n < sizeof s->v / sizeof s->v[0])
		s->v[s->n++] = x;
	else
		s->more = true;
}

static void put_set(pq_buf *out, const char *key, const enum_set *s, bool known,
		    const char *(*name)(int32_t))
{
	pq_buf_printf(out, "%s:", key);
	if (!known)
		pq_buf_puts(out, " unknown");
	else if (!s->n)
		pq_buf_puts(out, " none");
	for (uint32_t i = 0; known && i < s->n; i++) {
		const char *nm = name(s->v[i]);
		pq_buf_puts(out, i ? ", " : " ");
		if (nm)
			pq_buf_puts(out, nm);
		else
			pq_buf_printf(out, "%" PRId32, s->v[i]);
	}
	if (known && s->more)
		pq_buf_puts(out, ", ...");
	pq_buf_putc(out, '\n');
}

/* Data and dictionary pages of a chunk: from encoding_stats, else from the
 * offset index (a dictionary page is what precedes its first data page),
 * else from the page headers. */
static pq_status chunk_pages(const pq_file *f, uint32_t rg, uint32_t col,
			     const pq_column_meta_data *m, int64_t *data, int64_t *dict,
			     pq_error *err)
{
	if (m->has_encoding_stats) {
		int64_t d = 0, y = 0;
		bool sane = true;
		for (uint32_t i = 0; i < m->encoding_stats.n; i++) {
			const pq_page_encoding_stats *s = &m->encoding_stats.v[i];
			sane = sane && s->count >= 0;
			if (s->page_type == PQ_PAGE_DATA || s->page_type == PQ_PAGE_DATA_V2)
				d += s->count;
			else if (s->page_type == PQ_PAGE_DICTIONARY)
				y += s->count;
		}
		if (sane) {
			*data = d;
			*dict = y;
			return PQ_OK;
		}
	}
	uint32_t n;
	int64_t first;
	uint64_t start, len;
	if (pq_chunk_has_offset_index(f, rg, col) &&
	    pq_chunk_range(f, rg, col, &start, &len, err) == PQ_OK &&
	    pq_chunk_offset_index_pages(f, rg, col, &n, &first, err) == PQ_OK && n > 0) {
		*data = n;
		*dict = first > 0 && (uint64_t)first > start;
		return PQ_OK;
	}
	pq_chunk_layout *l;
	PQ_TRY(pq_chunk_layout_load(f, rg, col, &l, err));
	*data = l->num_pages;
	*dict = l->dict != NULL;
	pq_chunk_layout_free(l);
	return PQ_OK;
}

/* uncompressed / compressed, rounded half up to two decimals, exactly. */
static void put_ratio(pq_buf *out, const sum *comp, const sum *uncomp)
{
	if (!comp->known || !uncomp->known || comp->v <= 0 || uncomp->v < 0) {
		pq_buf_puts(out, "compression_ratio: unknown\n");
		return;
	}
	__extension__ typedef unsigned __int128 u128;
	u128 c = (u128)comp->v, hundredths = ((u128)uncomp->v * 200 + c) / (2 * c);
	pq_buf_printf(out, "compression_ratio: %" PRIu64 ".%02u\n", (uint64_t)(hundredths / 100),
		      (unsigned)(hundredths % 100));
}

static void put_bound(pq_buf *out, const char *key, const bound *b, const pq_leaf *leaf)
{
	pq_buf_printf(out, "%s: ", key);
	if (b->known && b->have)
		pq_text_bound(out, leaf, b->v);
	else
		pq_buf_puts(out, "unknown");
	pq_buf_putc(out, '\n');
}

static void put_escaped(pq_buf *out, const char *key, const uint8_t *p, size_t n)
{
	pq_buf_printf(out, "%s: ", key);
	pq_render_values_escape(p, n, out);
	pq_buf_putc(out, '\n');
}

static const char *codec_name(int32_t v) { return pq_codec_name(v); }

pq_status pq_text_column_summary(const pq_file *f, uint32_t col, pq_buf *out, pq_error *err)
{
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	PQ_CHECK(leaf, err, PQ_EINVAL, "no column %" PRIu32, col);
	const pq_file_meta_data *md = &f->md;
	uint32_t nrg = md->row_groups.n;

	ord_kind o = order_of(leaf);
	bool use_new = !md->has_column_orders ||
		       (col < md->column_orders.n && md->column_orders.v[col].has_TYPE_ORDER);
	bool use_old = legacy_usable(o);
	bound lo = {.known = true}, hi = {.known = true};
	sum values = {true, 0}, nulls = {true, 0}, comp = {true, 0}, uncomp = {true, 0};
	sum data_pages = {true, 0}, dict_pages = {true, 0};
	int64_t dmax = 0;
	sum dsum = {true, 0};
	enum_set codecs = {0}, encodings = {0};
	bool all_meta = true;
	uint32_t blooms = 0, indexed = 0;
	for (uint32_t rg = 0; rg < nrg; rg++) {
		blooms += pq_chunk_has_bloom_filter(f, rg, col);
		indexed += pq_chunk_has_column_index(f, rg, col) ||
			   pq_chunk_has_offset_index(f, rg, col);
		const pq_column_meta_data *m = pq_file_chunk_meta(f, rg, col);
		if (!m) { /* encrypted without its key, or a missing chunk */
			all_meta = false;
			lo.known = hi.known = values.known = nulls.known = false;
			comp.known = uncomp.known = dsum.known = false;
			continue;
		}
		const pq_statistics *s = m->has_statistics ? &m->statistics : NULL;
		sum_add(&values, true, m->num_values);
		sum_add(&comp, true, m->total_compressed_size);
		sum_add(&uncomp, true, m->total_uncompressed_size);
		set_add(&codecs, m->codec);
		for (uint32_t i = 0; i < m->encodings.n; i++)
			set_add(&encodings, m->encodings.v[i]);
		bool empty = m->num_values <= 0;
		sum_add(&nulls, empty || (s && s->has_null_count), s && s->has_null_count ? s->null_count : 0);
		if (s && s->has_distinct_count) {
			sum_add(&dsum, true, s->distinct_count);
			dmax = s->distinct_count > dmax ? s->distinct_count : dmax;
		} else {
			dsum.known = false;
		}
		pq_error perr = {0};
		int64_t dp, yp;
		pq_status pst = chunk_pages(f, rg, col, m, &dp, &yp, &perr);
		if (pst == PQ_OK) {
			sum_add(&data_pages, true, dp);
			sum_add(&dict_pages, true, yp);
		} else if (pst == PQ_ENOMEM) {
			/* not the file's fault: an error, never `unknown` */
			*err = perr;
			return PQ_ENOMEM;
		} else {
			data_pages.known = dict_pages.known = false;
		}
		if (empty || (s && s->has_null_count && s->null_count >= m->num_values))
			continue; /* no values: no bounds to combine */
		if (!s) {
			lo.known = hi.known = false;
			continue;
		}
		bound_add(&lo, o, -1, use_new && s->has_min_value, s->min_value,
			  !(s->has_is_min_value_exact && !s->is_min_value_exact), use_old && s->has_min,
			  s->min, leaf);
		bound_add(&hi, o, 1, use_new && s->has_max_value, s->max_value,
			  !(s->has_is_max_value_exact && !s->is_max_value_exact), use_old && s->has_max,
			  s->max, leaf);
	}

	put_escaped(out, "column", (const uint8_t *)leaf->path, leaf->path_len);
	const char *pt = pq_type_name(leaf->physical);
	pq_buf_printf(out, "physical_type: %s\n", pt ? pt : "?");
	pq_buf ann = PQ_BUF_INIT;
	if (pq_schema_annotation(&leaf->node->el, &ann))
		put_escaped(out, "logical_type", ann.p, ann.len);
	else
		pq_buf_puts(out, "logical_type: none\n");
	if (ann.oom)
		out->oom = true;
	pq_buf_free(&ann);
	const char *rep = pq_repetition_name(leaf->node->repetition);
	pq_buf_printf(out, "repetition: %s\n", rep ? rep : "?");
	pq_buf_printf(out, "row_groups: %" PRIu32 "\n", nrg);
	put_sum(out, "num_values", &values);
	put_sum(out, "null_count", &nulls);
	put_bound(out, "min", &lo, leaf);
	put_bound(out, "max", &hi, leaf);
	if ((lo.known && lo.have && !lo.exact) || (hi.known && hi.have && !hi.exact))
		pq_buf_puts(out, "exact: false\n");
	if (dsum.known && nrg > 0) {
		if (dmax == dsum.v)
			pq_buf_printf(out, "distinct_count: %" PRId64 "\n", dmax);
		else /* distinct counts of row groups do not add up */
			pq_buf_printf(out, "distinct_count: between %" PRId64 " and %" PRId64 "\n",
				      dmax, dsum.v);
	}
	put_sum(out, "compressed_bytes", &comp);
	put_sum(out, "uncompressed_bytes", &uncomp);
	put_ratio(out, &comp, &uncomp);
	put_set(out, "codecs", &codecs, all_meta, codec_name);
	put_set(out, "encodings", &encodings, all_meta, pq_encoding_name);
	if (!all_meta)
		data_pages.known = dict_pages.known = false;
	put_sum(out, "data_pages", &data_pages);
	put_sum(out, "dictionary_pages", &dict_pages);
	pq_buf_printf(out, "bloom_filters: %" PRIu32 " of %" PRIu32 " row groups\n", blooms, nrg);
	pq_buf_printf(out, "page_index: %" PRIu32 " of %" PRIu32 " row groups\n", indexed, nrg);
	return PQ_OK;
}
