#include "config.h"

/* Statistics, ColumnIndex and OffsetIndex for the writer.
 *
 * Orders follow parquet.thrift's ColumnOrder TYPE_ORDER: signed integers,
 * unsigned for UINT annotations, IEEE order for FLOAT/DOUBLE with NaN never
 * a bound and zero bounds written as -0.0 (min) and +0.0 (max), unsigned
 * lexicographic bytes for BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY, and numeric
 * order for DECIMAL stored as big-endian two's complement bytes, IEEE
 * half-precision order for FLOAT16 (same NaN and zero rules). INT96 and
 * INTERVAL get no bounds (their orders are undefined). */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/pq_metadata_codec.h"

pq_sort_order pq_writer_sort_order(const pq_schema_element *el)
{
	const pq_logical_type *lt = el->has_logicalType ? &el->logicalType : NULL;
	int32_t ct = el->has_converted_type ? el->converted_type : -1;
	if (lt && lt->unknown_member)
		return PQ_ORDER_NONE;
	bool is_unsigned = (lt && lt->has_INTEGER && !lt->INTEGER.isSigned) ||
			   ct == PQ_CT_UINT_8 || ct == PQ_CT_UINT_16 || ct == PQ_CT_UINT_32 ||
			   ct == PQ_CT_UINT_64;
	bool is_decimal = (lt && lt->has_DECIMAL) || ct == PQ_CT_DECIMAL;
	switch (el->type) {
	case PQ_BOOLEAN:
		return PQ_ORDER_BOOL;
	case PQ_INT32:
		return is_unsigned ? PQ_ORDER_U32 : PQ_ORDER_I32;
	case PQ_INT64:
		return is_unsigned ? PQ_ORDER_U64 : PQ_ORDER_I64;
	case PQ_FLOAT:
		return PQ_ORDER_FLOAT;
	case PQ_DOUBLE:
		return PQ_ORDER_DOUBLE;
	case PQ_BYTE_ARRAY:
		return is_decimal ? PQ_ORDER_DECIMAL : PQ_ORDER_BYTES;
	case PQ_FIXED_LEN_BYTE_ARRAY:
		if (ct == PQ_CT_INTERVAL)
			return PQ_ORDER_NONE;
		if (lt && lt->has_FLOAT16)
			return el->has_type_length && el->type_length == 2 ? PQ_ORDER_FLOAT16
									    : PQ_ORDER_NONE;
		return is_decimal ? PQ_ORDER_DECIMAL : PQ_ORDER_BYTES;
	default:
		return PQ_ORDER_NONE;
	}
}

/* Whether the deprecated Statistics.min/max may be written too: only where
 * the old signed comparison is the column's order. */
static bool legacy_stats_ok(pq_sort_order o)
{
	/* Old readers compare min/max signed; only these orders agree. */
	return o == PQ_ORDER_BOOL || o == PQ_ORDER_I32 || o == PQ_ORDER_I64 ||
	       o == PQ_ORDER_FLOAT || o == PQ_ORDER_DOUBLE;
}

void pq_wstats_reset(pq_wstats *s)
{
	s->has = false;
	s->nan_seen = false;
	s->nulls = 0;
	s->values = 0;
	s->min.len = 0;
	s->max.len = 0;
	s->min.oom = s->max.oom = false;
}

void pq_wstats_free(pq_wstats *s)
{
	pq_buf_free(&s->min);
	pq_buf_free(&s->max);
	s->has = false;
}

static int cmp_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t n = an < bn ? an : bn;
	int c = n ? memcmp(a, b, n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return an < bn ? -1 : an > bn;
}

/* Big-endian two's complement of any lengths: sign-extend the shorter one,
 * then (same sign) unsigned byte order is numeric order. */
static int cmp_decimal(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	bool na = an && (a[0] & 0x80), nb = bn && (b[0] & 0x80);
	if (na != nb)
		return na ? -1 : 1;
	size_t n = an > bn ? an : bn;
	uint8_t pad = na ? 0xff : 0x00;
	for (size_t i = 0; i < n; i++) {
		uint8_t ca = i < n - an ? pad : a[i - (n - an)];
		uint8_t cb = i < n - bn ? pad : b[i - (n - bn)];
		if (ca != cb)
			return ca < cb ? -1 : 1;
	}
	return 0;
}

static uint64_t load_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void store_le(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* IEEE 754 binary16, little-endian, as a double (exact). */
static double half_to_double(uint16_t h)
{
	int e = (h >> 10) & 0x1f;
	double m = h & 0x3ff;
	double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m != 0 ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
	return (h & 0x8000) ? -v : v;
}

static double load_float(const uint8_t *p, size_t n)
{
	if (n == 2)
		return half_to_double((uint16_t)load_le(p, 2));
	if (n == 4) {
		uint32_t u = (uint32_t)load_le(p, 4);
		float f;
		memcpy(&f, &u, 4);
		return f;
	}
	uint64_t u = load_le(p, 8);
	double d;
	memcpy(&d, &u, 8);
	return d;
}

static size_t fixed_width(pq_sort_order o)
{
	switch (o) {
	case PQ_ORDER_BOOL: return 1;
	case PQ_ORDER_FLOAT16: return 2;
	case PQ_ORDER_I32: case PQ_ORDER_U32: case PQ_ORDER_FLOAT: return 4;
	case PQ_ORDER_I64: case PQ_ORDER_U64: case PQ_ORDER_DOUBLE: return 8;
	default: return 0;
	}
}

/* -1, 0, 1 comparing two PLAIN bounds under o. */
static int wstats_cmp(pq_sort_order o, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
	size_t w = fixed_width(o);
	if (w && (an != w || bn != w))
		return cmp_bytes(a, an, b, bn);
	switch (o) {
	case PQ_ORDER_BOOL:
	case PQ_ORDER_U32:
	case PQ_ORDER_U64: {
		uint64_t x = load_le(a, w), y = load_le(b, w);
		return x < y ? -1 : x > y;
	}
	case PQ_ORDER_I32: {
		int32_t x = (int32_t)(uint32_t)load_le(a, 4), y = (int32_t)(uint32_t)load_le(b, 4);
		return x < y ? -1 : x > y;
	}
	case PQ_ORDER_I64: {
		int64_t x = (int64_t)load_le(a, 8), y = (int64_t)load_le(b, 8);
		return x < y ? -1 : x > y;
	}
	case PQ_ORDER_FLOAT16:
	case PQ_ORDER_FLOAT:
	case PQ_ORDER_DOUBLE: {
		double x = load_float(a, w), y = load_float(b, w);
		return x < y ? -1 : x > y;
	}
	case PQ_ORDER_DECIMAL:
		return cmp_decimal(a, an, b, bn);
	default:
		return cmp_bytes(a, an, b, bn);
	}
}

static void set_bound(pq_buf *b, const void *p, size_t n)
{
	b->len = 0;
	pq_buf_append(b, p, n);
}

/* Offers one PLAIN value as a bound. Fixed-width values compare through
 * wstats_cmp; the few bytes decoded per value are cheap next to the
 * encoding work. */
static void offer(pq_wstats *s, pq_sort_order o, const uint8_t *p, size_t n)
{
	/* A bound that could not be stored (out of memory) is lost: the page's
	 * statistics fail with PQ_ENOMEM at pq_wstats_bounds, never compare. */
	if (s->min.oom || s->max.oom)
		return;
	if (!s->has) {
		set_bound(&s->min, p, n);
		set_bound(&s->max, p, n);
		s->has = true;
		return;
	}
	if (wstats_cmp(o, p, n, s->min.p, s->min.len) < 0)
		set_bound(&s->min, p, n);
	else if (wstats_cmp(o, p, n, s->max.p, s->max.len) > 0)
		set_bound(&s->max, p, n);
}

/* Typed scans find a batch's extremes with native comparisons; only those
 * two are offered (as PLAIN bytes) to the running bounds. */
#define SCAN_EXTREMES(T, arr, lo_out, hi_out)                 \
	do {                                                  \
		T lo_ = (arr)[from], hi_ = lo_;               \
		for (size_t i_ = from + 1; i_ < from + n; i_++) { \
			T x_ = (arr)[i_];                     \
			if (x_ < lo_)                         \
				lo_ = x_;                     \
			else if (x_ > hi_)                    \
				hi_ = x_;                     \
		}                                             \
		lo_out = lo_;                                 \
		hi_out = hi_;                                 \
	} while (0)

static void offer_u64(pq_wstats *s, pq_sort_order o, uint64_t lo, uint64_t hi, size_t w)
{
	uint8_t tmp[8];
	store_le(tmp, lo, w);
	offer(s, o, tmp, w);
	store_le(tmp, hi, w);
	offer(s, o, tmp, w);
}

static void add_floats(pq_wstats *s, pq_sort_order o, const pq_values *v, size_t from, size_t n)
{
	bool any = false;
	double lo = 0, hi = 0;
	for (size_t i = from; i < from + n; i++) {
		double x = v->type == PQ_FLOAT ? (double)v->v.f32[i] : v->v.f64[i];
		if (isnan(x)) {
			s->nan_seen = true;
			continue;
		}
		if (!any) {
			lo = hi = x;
			any = true;
		} else if (x < lo) {
			lo = x;
		} else if (x > hi) {
			hi = x;
		}
	}
	if (!any)
		return;
	/* Zeros compare equal; bound_out writes them as -0.0 / +0.0 anyway. */
	if (v->type == PQ_FLOAT) {
		float fl = (float)lo, fh = (float)hi;
		uint32_t a, b;
		memcpy(&a, &fl, 4);
		memcpy(&b, &fh, 4);
		offer_u64(s, o, a, b, 4);
	} else {
		uint64_t a, b;
		memcpy(&a, &lo, 8);
		memcpy(&b, &hi, 8);
		offer_u64(s, o, a, b, 8);
	}
}

void pq_wstats_add(pq_wstats *s, pq_sort_order o, const pq_values *v, size_t from, size_t n)
{
	s->values += (int64_t)n;
	if (o == PQ_ORDER_NONE || n == 0)
		return;
	switch (v->type) {
	case PQ_BOOLEAN: {
		uint8_t lo = 1, hi = 0;
		for (size_t i = from; i < from + n; i++) {
			uint8_t b = v->v.b[i] ? 1 : 0;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
		offer_u64(s, o, lo, hi, 1);
		return;
	}
	case PQ_INT32:
		if (o == PQ_ORDER_U32) {
			uint32_t lo, hi;
			SCAN_EXTREMES(uint32_t, (const uint32_t *)(const void *)v->v.i32, lo, hi);
			offer_u64(s, o, lo, hi, 4);
		} else {
			int32_t lo, hi;
			SCAN_EXTREMES(int32_t, v->v.i32, lo, hi);
			offer_u64(s, o, (uint32_t)lo, (uint32_t)hi, 4);
		}
		return;
	case PQ_INT64:
		if (o == PQ_ORDER_U64) {
			uint64_t lo, hi;
			SCAN_EXTREMES(uint64_t, (const uint64_t *)(const void *)v->v.i64, lo, hi);
			offer_u64(s, o, lo, hi, 8);
		} else {
			int64_t lo, hi;
			SCAN_EXTREMES(int64_t, v->v.i64, lo, hi);
			offer_u64(s, o, (uint64_t)lo, (uint64_t)hi, 8);
		}
		return;
	case PQ_FLOAT:
	case PQ_DOUBLE:
		add_floats(s, o, v, from, n);
		return;
	case PQ_BYTE_ARRAY:
		for (size_t i = from; i < from + n; i++)
			offer(s, o, v->v.ba[i].p, v->v.ba[i].n);
		return;
	case PQ_FIXED_LEN_BYTE_ARRAY: {
		size_t w = (size_t)v->type_length;
		for (size_t i = from; i < from + n; i++) {
			const uint8_t *p = v->v.fixed + i * w;
			if (o == PQ_ORDER_FLOAT16 && isnan(load_float(p, 2))) {
				s->nan_seen = true;
				continue;
			}
			offer(s, o, p, w);
		}
		return;
	}
	default:
		return;
	}
}

void pq_wstats_merge(pq_wstats *into, pq_sort_order o, const pq_wstats *from)
{
	into->nulls += from->nulls;
	into->values += from->values;
	into->nan_seen = into->nan_seen || from->nan_seen;
	if (from->min.oom || from->max.oom)
		into->min.oom = true;
	if (!from->has || into->min.oom || into->max.oom)
		return;
	if (!into->has) {
		set_bound(&into->min, from->min.p, from->min.len);
		set_bound(&into->max, from->max.p, from->max.len);
		into->has = true;
		return;
	}
	if (wstats_cmp(o, from->min.p, from->min.len, into->min.p, into->min.len) < 0)
		set_bound(&into->min, from->min.p, from->min.len);
	if (wstats_cmp(o, from->max.p, from->max.len, into->max.p, into->max.len) > 0)
		set_bound(&into->max, from->max.p, from->max.len);
}

/* The bound as written: zero floats get their sign rule; long byte strings
 * are truncated (min: a prefix; max: a prefix with its last byte that can
 * be incremented incremented). *exact says whether the bytes are a value. */
static void bound_out(const pq_wstats *s, pq_sort_order o, bool is_max, pq_buf *out, bool *exact)
{
	const pq_buf *b = is_max ? &s->max : &s->min;
	out->len = 0;
	*exact = true;
	if (s->min.oom || s->max.oom) {
		out->oom = true;
		return;
	}
	if (o == PQ_ORDER_FLOAT16 || o == PQ_ORDER_FLOAT || o == PQ_ORDER_DOUBLE) {
		size_t w = fixed_width(o);
		double d = load_float(b->p, w);
		if (d == 0.0) {
			uint8_t tmp[8];
			if (w == 2) {
				store_le(tmp, is_max ? 0x0000 : 0x8000, 2);
			} else if (w == 4) {
				float z = is_max ? 0.0f : -0.0f;
				uint32_t u;
				memcpy(&u, &z, 4);
				store_le(tmp, u, 4);
			} else {
				double z = is_max ? 0.0 : -0.0;
				uint64_t u;
				memcpy(&u, &z, 8);
				store_le(tmp, u, 8);
			}
			pq_buf_append(out, tmp, w);
			return;
		}
	}
	if (o == PQ_ORDER_BYTES && s->truncatable && b->len > PQ_WRITER_MAX_STAT_BYTES) {
		size_t n = PQ_WRITER_MAX_STAT_BYTES;
		if (!is_max) {
			pq_buf_append(out, b->p, n);
			*exact = false;
			return;
		}
		while (n > 0 && b->p[n - 1] == 0xff)
			n--;
		if (n > 0) {
			pq_buf_append(out, b->p, n);
			if (!out->oom)
				out->p[n - 1]++;
			*exact = false;
			return;
		}
		/* All 0xff: no shorter upper bound exists; keep the value. */
	}
	pq_buf_append(out, b->p, b->len);
}

pq_status pq_wstats_bounds(const pq_wstats *s, pq_sort_order o, pq_buf *min, bool *min_exact,
			   pq_buf *max, bool *max_exact, pq_error *err)
{
	bound_out(s, o, false, min, min_exact);
	bound_out(s, o, true, max, max_exact);
	PQ_CHECK(!min->oom && !max->oom, err, PQ_ENOMEM, "statistics: out of memory");
	return PQ_OK;
}

pq_status pq_wstats_to_thrift(const pq_wstats *s, pq_sort_order o, pq_statistics *st,
			      pq_arena *arena, pq_error *err)
{
	memset(st, 0, sizeof *st);
	st->has_null_count = true;
	st->null_count = s->nulls;
	if (!s->has || o == PQ_ORDER_NONE)
		return PQ_OK;
	pq_buf min = PQ_BUF_INIT, max = PQ_BUF_INIT;
	bool min_exact, max_exact;
	pq_status stt = pq_wstats_bounds(s, o, &min, &min_exact, &max, &max_exact, err);
	uint8_t *pmin = NULL, *pmax = NULL;
	if (stt == PQ_OK) {
		pmin = pq_arena_memdup(arena, min.p ? min.p : (const uint8_t *)"", min.len);
		pmax = pq_arena_memdup(arena, max.p ? max.p : (const uint8_t *)"", max.len);
		if (!pmin || !pmax)
			stt = pq_fail(err, PQ_ENOMEM, "statistics: out of memory");
	}
	if (stt == PQ_OK) {
		st->has_min_value = st->has_max_value = true;
		st->min_value = (pq_bytes){pmin, min.len};
		st->max_value = (pq_bytes){pmax, max.len};
		st->has_is_min_value_exact = st->has_is_max_value_exact = true;
		st->is_min_value_exact = min_exact;
		st->is_max_value_exact = max_exact;
		if (legacy_stats_ok(o)) {
			st->has_min = st->has_max = true;
			st->min = st->min_value;
			st->max = st->max_value;
		}
	}
	pq_buf_free(&min);
	pq_buf_free(&max);
	return stt;
}

/* ---- page indexes -------------------------------------------------------- */

static int32_t boundary_order(const pq_wpage *pages, size_t npages, pq_sort_order o)
{
	bool asc = true, desc = true;
	const pq_wpage *prev = NULL;
	for (size_t i = 0; i < npages; i++) {
		const pq_wpage *p = &pages[i];
		if (p->null_page)
			continue;
		if (prev) {
			int cmin = wstats_cmp(o, p->min, p->min_n, prev->min, prev->min_n);
			int cmax = wstats_cmp(o, p->max, p->max_n, prev->max, prev->max_n);
			if (cmin < 0 || cmax < 0)
				asc = false;
			if (cmin > 0 || cmax > 0)
				desc = false;
		}
		prev = p;
	}
	return asc ? PQ_ASCENDING : desc ? PQ_DESCENDING : PQ_UNORDERED;
}

static pq_status column_index(const pq_wpage *pages, size_t npages, pq_sort_order o,
			      bool with_def_hist, pq_buf *ci, pq_error *err)
{
	pq_column_index x;
	memset(&x, 0, sizeof x);
	pq_status st = PQ_ENOMEM;
	bool *nullp = calloc(npages ? npages : 1, sizeof *nullp);
	pq_bytes *mins = calloc(npages ? npages : 1, sizeof *mins);
	pq_bytes *maxs = calloc(npages ? npages : 1, sizeof *maxs);
	int64_t *nulls = calloc(npages ? npages : 1, sizeof *nulls);
	int64_t *hist = calloc(npages ? 2 * npages : 1, sizeof *hist);
	if (!nullp || !mins || !maxs || !nulls || !hist) {
		st = pq_fail(err, PQ_ENOMEM, "column index: out of memory for %zu pages", npages);
		goto out;
	}
	for (size_t i = 0; i < npages; i++) {
		nullp[i] = pages[i].null_page;
		if (!pages[i].null_page) {
			mins[i] = (pq_bytes){pages[i].min, pages[i].min_n};
			maxs[i] = (pq_bytes){pages[i].max, pages[i].max_n};
		}
		nulls[i] = pages[i].nulls;
		hist[2 * i] = pages[i].def_hist[0];
		hist[2 * i + 1] = pages[i].def_hist[1];
	}
	x.null_pages = (pq_list_bool){(uint32_t)npages, nullp};
	x.min_values = (pq_list_bytes){(uint32_t)npages, mins};
	x.max_values = (pq_list_bytes){(uint32_t)npages, maxs};
	x.boundary_order = boundary_order(pages, npages, o);
	x.has_null_counts = true;
	x.null_counts = (pq_list_i64){(uint32_t)npages, nulls};
	if (with_def_hist) {
		x.has_definition_level_histograms = true;
		x.definition_level_histograms = (pq_list_i64){(uint32_t)(2 * npages), hist};
	}
	st = pq_thrift_encode(PQ_S_COLUMN_INDEX, &x, ci, err);
out:
	free(nullp);
	free(mins);
	free(maxs);
	free(nulls);
	free(hist);
	return st;
}

static pq_status offset_index(const pq_wpage *pages, size_t npages, int64_t base, bool with_ba,
			      pq_buf *oi, pq_error *err)
{
	pq_offset_index x;
	memset(&x, 0, sizeof x);
	pq_page_location *loc = calloc(npages ? npages : 1, sizeof *loc);
	int64_t *ba = calloc(npages ? npages : 1, sizeof *ba);
	pq_status st;
	if (!loc || !ba) {
		st = pq_fail(err, PQ_ENOMEM, "offset index: out of memory for %zu pages", npages);
		goto out;
	}
	for (size_t i = 0; i < npages; i++) {
		loc[i].offset = base + pages[i].offset;
		loc[i].compressed_page_size = pages[i].size;
		loc[i].first_row_index = pages[i].first_row;
		ba[i] = pages[i].unencoded_ba;
	}
	x.page_locations.n = (uint32_t)npages;
	x.page_locations.v = loc;
	if (with_ba) {
		x.has_unencoded_byte_array_data_bytes = true;
		x.unencoded_byte_array_data_bytes = (pq_list_i64){(uint32_t)npages, ba};
	}
	st = pq_thrift_encode(PQ_S_OFFSET_INDEX, &x, oi, err);
out:
	free(loc);
	free(ba);
	return st;
}

pq_status pq_windex_build(const pq_wpage *pages, size_t npages, pq_sort_order o, int64_t base,
			  bool with_def_hist, bool with_ba, pq_buf *ci, bool *ci_written,
			  pq_buf *oi, pq_error *err)
{
	PQ_CHECK(npages <= INT32_MAX / 2, err, PQ_ELIMIT, "page index: %zu pages", npages);
	bool ok = o != PQ_ORDER_NONE;
	for (size_t i = 0; ok && i < npages; i++)
		if (!pages[i].null_page && !pages[i].bounds)
			ok = false; /* e.g. a page of only NaNs: no valid bounds */
	*ci_written = ok;
	if (ok)
		PQ_TRY(column_index(pages, npages, o, with_def_hist, ci, err));
	return offset_index(pages, npages, base, with_ba, oi, err);
}
