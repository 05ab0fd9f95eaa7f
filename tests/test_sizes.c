/* The size pass (core/read/sizes*.c, pq_sizes.h) against the renderers:
 * every size pq_file_measure gives equals the length of the text the
 * filesystem's renderers produce for that entry (pq_row_reader for
 * data.csv / data.jsonl, pq_text_page_values / pq_text_page_levels per
 * page as fs/content.c decodes them, pq_text_verify), and an entry that
 * fails to render is PQ_SIZE_FAILED. Results must not depend on the
 * thread count.
 *
 * Files: written here (flat, every physical and logical type, nulls,
 * dictionary and plain, v1 and v2 pages, several row groups and pages,
 * strings of every escape class, NaN and infinities, a corrupt page), a
 * file whose row groups all point at the same chunks (shared bytes are
 * measured once), and every file of parquet-testing's data/, bad_data/,
 * geospatial/ and shredded_variant/ (nested lists, maps and structs among
 * them) and of fuzz-regressions/arrow when ../shared/testdata is there. */
#include "config.h"

#include <dirent.h>
#include <math.h>

#include "test_writer_helpers.h"
#include "pq_sizes.h"
#include "read/pq_assemble.h" /* pq_schema_is_flat */

/* ---- what the renderers give -------------------------------------------------- */

static uint64_t rendered_rows(const pq_file *f, uint32_t rg, pq_row_format fmt)
{
	pq_error err;
	pq_error_clear(&err);
	pq_row_reader *rr;
	if (pq_row_reader_open(f, rg, fmt, &rr, &err) != PQ_OK)
		return PQ_SIZE_FAILED;
	pq_buf b = PQ_BUF_INIT;
	uint64_t total = 0;
	bool done = false;
	while (!done) {
		b.len = 0;
		if (pq_row_reader_next(rr, 1 << 16, &b, &done, &err) != PQ_OK) {
			total = PQ_SIZE_FAILED;
			break;
		}
		total += b.len;
	}
	pq_buf_free(&b);
	pq_row_reader_free(rr);
	return total;
}

static uint64_t size_add(uint64_t a, uint64_t b)
{
	return a == PQ_SIZE_FAILED || b == PQ_SIZE_FAILED ? PQ_SIZE_FAILED : a + b;
}

/* One chunk's pages, decoded as fs/content.c does (a broken dictionary
 * leaves pages to decode without it). Returns the chunk's values.txt. */
static uint64_t check_chunk(const pq_file *f, const char *name, uint32_t rg, uint32_t col,
			    const pq_chunk_sizes *cs)
{
	pq_error err;
	pq_error_clear(&err);
	pq_chunk_layout *l;
	if (pq_chunk_layout_load(f, rg, col, &l, &err) != PQ_OK) {
		ck_assert_msg(cs->status != PQ_OK && cs->values == PQ_SIZE_FAILED,
			      "%s rg %u col %u: layout fails but measured", name, rg, col);
		return PQ_SIZE_FAILED;
	}
	if (cs->status == PQ_EBUDGET && cs->num_pages == 0) {
		pq_chunk_layout_free(l);
		return PQ_SIZE_FAILED;
	}
	ck_assert_uint_eq(cs->num_pages, l->num_pages);
	pq_page_data *dict = NULL;
	if (l->dict && pq_page_decode(f, l, l->dict, NULL, &dict, &err) != PQ_OK)
		dict = NULL;
	uint64_t values = 0, levels = 0;
	pq_buf b = PQ_BUF_INIT;
	for (uint32_t p = 0; p < l->num_pages; p++) {
		pq_page_data *pd;
		if (pq_page_decode(f, l, &l->pages[p], dict, &pd, &err) != PQ_OK) {
			ck_assert_msg(cs->pages[p].values == PQ_SIZE_FAILED,
				      "%s rg %u col %u page %u: fails (%s) but measured", name, rg, col, p,
				      err.msg);
			ck_assert_int_ne(cs->status, PQ_OK);
			values = levels = PQ_SIZE_FAILED;
			continue;
		}
		b.len = 0;
		pq_text_page_values(f, col, pd, &b);
		ck_assert_msg(cs->pages[p].values == b.len,
			      "%s rg %u col %u page %u: values.txt %zu, measured %llu", name, rg, col, p,
			      b.len, (unsigned long long)cs->pages[p].values);
		values = size_add(values, b.len);
		b.len = 0;
		if (pq_column_has_levels(f, col))
			pq_text_page_levels(pd, &b);
		ck_assert_msg(cs->pages[p].levels == b.len,
			      "%s rg %u col %u page %u: levels.txt %zu, measured %llu", name, rg, col, p,
			      b.len, (unsigned long long)cs->pages[p].levels);
		levels = size_add(levels, b.len);
		pq_page_data_unref(pd);
	}
	ck_assert_uint_eq(cs->values, values);
	ck_assert_uint_eq(cs->levels, levels);
	pq_buf_free(&b);
	pq_page_data_unref(dict);
	pq_chunk_layout_free(l);
	return values;
}

/* Every size of s against the renderers. */
static void check_against_render(const pq_file *f, const char *name, const pq_file_sizes *s)
{
	uint32_t nrg = pq_file_num_row_groups(f), ncol = pq_file_num_columns(f);
	ck_assert_uint_eq(s->num_row_groups, nrg);
	ck_assert_uint_eq(s->num_columns, ncol);
	pq_buf b = PQ_BUF_INIT;
	pq_text_csv_header(f, &b);
	ck_assert_uint_eq(s->csv_header, b.len);
	uint64_t csv = b.len, jsonl = 0;
	for (uint32_t r = 0; r < nrg; r++) {
		uint64_t c = rendered_rows(f, r, PQ_ROWS_CSV), j = rendered_rows(f, r, PQ_ROWS_JSONL);
		bool limited = false;
		for (uint32_t k = 0; k < ncol; k++)
			limited |= s->chunks[(size_t)r * ncol + k].status == PQ_EBUDGET;
		if (!limited) {
			ck_assert_msg(s->rg_csv[r] == c, "%s rg %u: data.csv %llu, measured %llu", name, r,
				      (unsigned long long)c, (unsigned long long)s->rg_csv[r]);
			ck_assert_msg(s->rg_jsonl[r] == j, "%s rg %u: data.jsonl %llu, measured %llu",
				      name, r, (unsigned long long)j, (unsigned long long)s->rg_jsonl[r]);
		}
		csv = size_add(csv, s->rg_csv[r]);
		jsonl = size_add(jsonl, s->rg_jsonl[r]);
	}
	ck_assert_uint_eq(s->csv, csv);
	ck_assert_uint_eq(s->jsonl, jsonl);
	for (uint32_t c = 0; c < ncol; c++) {
		uint64_t col = 0;
		for (uint32_t r = 0; r < nrg; r++)
			col = size_add(col, check_chunk(f, name, r, c, &s->chunks[(size_t)r * ncol + c]));
		ck_assert_msg(s->col_values[c] == col, "%s column %u: values.txt %llu, measured %llu",
			      name, c, (unsigned long long)col, (unsigned long long)s->col_values[c]);
	}
	if (s->verify != PQ_SIZE_FAILED) {
		b.len = 0;
		pq_error verr;
		pq_error_clear(&verr);
		ck_assert_msg(pq_text_verify(f, &b, &verr) == PQ_OK, "%s: %s", name, verr.msg);
		ck_assert_msg(s->verify == b.len, "%s: verify.txt %zu, measured %llu", name, b.len,
			      (unsigned long long)s->verify);
		ck_assert(s->verify_text && memcmp(s->verify_text, b.p, b.len) == 0);
	}
	pq_buf_free(&b);
}

static void same_sizes(const pq_file_sizes *a, const pq_file_sizes *b)
{
	ck_assert_uint_eq(a->csv, b->csv);
	ck_assert_uint_eq(a->jsonl, b->jsonl);
	ck_assert_uint_eq(a->verify, b->verify);
	ck_assert_uint_eq(a->pages_measured, b->pages_measured);
	ck_assert_uint_eq(a->pages_shared, b->pages_shared);
	for (uint32_t r = 0; r < a->num_row_groups; r++) {
		ck_assert_uint_eq(a->rg_csv[r], b->rg_csv[r]);
		ck_assert_uint_eq(a->rg_jsonl[r], b->rg_jsonl[r]);
	}
	for (size_t i = 0; i < (size_t)a->num_row_groups * a->num_columns; i++) {
		ck_assert_uint_eq(a->chunks[i].status, b->chunks[i].status);
		ck_assert_uint_eq(a->chunks[i].values, b->chunks[i].values);
		ck_assert_uint_eq(a->chunks[i].levels, b->chunks[i].levels);
		ck_assert_uint_eq(a->chunks[i].num_pages, b->chunks[i].num_pages);
		for (uint32_t p = 0; p < a->chunks[i].num_pages; p++) {
			ck_assert_uint_eq(a->chunks[i].pages[p].values, b->chunks[i].pages[p].values);
			ck_assert_uint_eq(a->chunks[i].pages[p].levels, b->chunks[i].pages[p].levels);
		}
	}
}

/* Measures with 1 and 3 threads, compares both with each other and with
 * the renderers; returns the 1-thread result (caller frees). */
static pq_file_sizes *check_file(const pq_file *f, const char *name)
{
	pq_error err;
	pq_error_clear(&err);
	pq_sizes_options o1 = {.threads = 1, .keep_verify_text = true};
	pq_sizes_options o3 = {.threads = 3, .keep_verify_text = true};
	pq_file_sizes *s1, *s3;
	ck_assert_msg(pq_file_measure(f, &o1, &s1, &err) == PQ_OK, "%s: %s", name, err.msg);
	ck_assert_msg(pq_file_measure(f, &o3, &s3, &err) == PQ_OK, "%s: %s", name, err.msg);
	same_sizes(s1, s3);
	check_against_render(f, name, s1);
	ck_assert_uint_gt(s1->footprint, 0);
	pq_file_sizes_free(s3);
	/* each column measured alone: its values.txt at every level as the
	 * whole pass has them, nothing else claimed */
	for (uint32_t c = 0; c < s1->num_columns; c++) {
		pq_sizes_options oc = {.threads = 2, .one_column = true, .column = c};
		pq_file_sizes *sc;
		ck_assert_msg(pq_file_measure(f, &oc, &sc, &err) == PQ_OK, "%s: %s", name, err.msg);
		ck_assert(sc->one_column);
		ck_assert_msg(sc->col_values[c] == s1->col_values[c], "%s: column %u alone %llu, pass %llu",
			      name, c, (unsigned long long)sc->col_values[c],
			      (unsigned long long)s1->col_values[c]);
		ck_assert_uint_eq(sc->csv, PQ_SIZE_FAILED);
		ck_assert_uint_eq(sc->verify, PQ_SIZE_FAILED);
		for (uint32_t r = 0; r < s1->num_row_groups; r++) {
			const pq_chunk_sizes *a = &s1->chunks[(size_t)r * s1->num_columns + c];
			const pq_chunk_sizes *b = &sc->chunks[(size_t)r * s1->num_columns + c];
			ck_assert_int_eq(a->status, b->status);
			ck_assert_uint_eq(a->values, b->values);
			ck_assert_uint_eq(a->num_pages, b->num_pages);
			for (uint32_t p = 0; p < a->num_pages; p++)
				ck_assert_uint_eq(a->pages[p].values, b->pages[p].values);
			if (s1->num_columns > 1) /* another column's chunk: not measured */
				ck_assert_int_eq(sc->chunks[(size_t)r * s1->num_columns +
							    (c + 1) % s1->num_columns].status, PQ_EINVAL);
		}
		pq_file_sizes_free(sc);
	}
	pq_sizes_options bad = {.one_column = true, .column = s1->num_columns};
	pq_file_sizes *sb = NULL;
	ck_assert_int_eq(pq_file_measure(f, &bad, &sb, &err), PQ_EINVAL);
	ck_assert_ptr_null(sb);
	return s1;
}

/* ---- a flat file of every type ---------------------------------------------- */

#define ROWS 700
#define NCOL 23
static const char *const texts[] = {"", "plain", "a,b", "say \"hi\"", "line\nbreak", "cr\rlf",
				    "tab\there", "back\\slash", "\x01\x1f\x7f ctl", "caf\xc3\xa9",
				    "bad \xff utf8", "\xe0\x80 overlong", "\xed\xa0\x80", "null",
				    "\xf0\x9f\x98\x80 emoji", "trunc \xe2\x82"};
#define NTEXTS (sizeof texts / sizeof *texts)

static pq_schema_element *logical(pq_schema_element *x)
{
	x->has_logicalType = true;
	return x;
}

static void flat_schema(els *e)
{
	memset(e, 0, sizeof *e);
	grp(e, "root", -1, NCOL);
	prim(e, "b", PQ_OPTIONAL, PQ_BOOLEAN);
	prim(e, "i32", PQ_REQUIRED, PQ_INT32);
	prim(e, "i64", PQ_OPTIONAL, PQ_INT64);
	conv(prim(e, "u32", PQ_OPTIONAL, PQ_INT32), PQ_CT_UINT_32);
	conv(prim(e, "u64", PQ_OPTIONAL, PQ_INT64), PQ_CT_UINT_64);
	prim(e, "f", PQ_OPTIONAL, PQ_FLOAT);
	prim(e, "d", PQ_OPTIONAL, PQ_DOUBLE);
	pq_schema_element *x = conv(prim(e, "dec32", PQ_OPTIONAL, PQ_INT32), PQ_CT_DECIMAL);
	x->has_scale = x->has_precision = true;
	x->scale = 2;
	x->precision = 9;
	x = conv(prim(e, "dec64", PQ_OPTIONAL, PQ_INT64), PQ_CT_DECIMAL);
	x->has_scale = x->has_precision = true;
	x->scale = 18;
	x->precision = 18;
	x = conv(prim(e, "decfl", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY), PQ_CT_DECIMAL);
	x->has_type_length = true;
	x->type_length = 16;
	x->has_scale = x->has_precision = true;
	x->scale = 30;
	x->precision = 38;
	conv(prim(e, "date", PQ_OPTIONAL, PQ_INT32), PQ_CT_DATE);
	conv(prim(e, "ts_ms", PQ_OPTIONAL, PQ_INT64), PQ_CT_TIMESTAMP_MILLIS);
	conv(prim(e, "ts_us", PQ_OPTIONAL, PQ_INT64), PQ_CT_TIMESTAMP_MICROS);
	x = logical(prim(e, "ts_ns", PQ_OPTIONAL, PQ_INT64));
	x->logicalType.has_TIMESTAMP = true;
	x->logicalType.TIMESTAMP.unit.has_NANOS = true;
	conv(prim(e, "t_ms", PQ_OPTIONAL, PQ_INT32), PQ_CT_TIME_MILLIS);
	x = logical(prim(e, "t_ns", PQ_OPTIONAL, PQ_INT64));
	x->logicalType.has_TIME = true;
	x->logicalType.TIME.unit.has_NANOS = true;
	prim(e, "i96", PQ_OPTIONAL, PQ_INT96);
	conv(prim(e, "s", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_UTF8);
	prim(e, "bin", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	conv(prim(e, "json", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_JSON);
	x = logical(prim(e, "uuid", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY));
	x->has_type_length = true;
	x->type_length = 16;
	x->logicalType.has_UUID = true;
	x = logical(prim(e, "f16", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY));
	x->has_type_length = true;
	x->type_length = 2;
	x->logicalType.has_FLOAT16 = true;
	x = conv(prim(e, "ival", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY), PQ_CT_INTERVAL);
	x->has_type_length = true;
	x->type_length = 12;
}

static const int64_t edge64[] = {0, 1, -1, INT64_MIN, INT64_MAX, 999999999999999999LL,
				 -999999999999999999LL, 1500000000123456789LL, -62135596800000LL,
				 253402300800000LL, -86400001, 86399999, 123456789012LL};
static const double edged[] = {0.0, -0.0, NAN, INFINITY, -INFINITY, 0.1, 1e300, 4.9e-324,
			       -2.5, 1e21, 123456.789};

/* Values of row group rg, rows [0, ROWS): column c's def (NULL: none) and values. */
static void write_flat(wfile *x, uint32_t rg)
{
	static int32_t i32[ROWS];
	static int64_t i64[ROWS];
	static float f32[ROWS];
	static double f64[ROWS];
	static uint8_t bools[ROWS], def[ROWS], fixed[ROWS * 16];
	static pq_bytes ba[ROWS];
	size_t nv = 0;
	for (size_t r = 0; r < ROWS; r++)
		def[r] = (r + rg) % 7 != 3;
	for (size_t r = 0; r < ROWS; r++)
		if (def[r])
			nv++;
	for (size_t col = 0; col < NCOL; col++) {
		size_t k = 0;
		const uint8_t *d = col == 1 ? NULL : def;
		size_t n = col == 1 ? ROWS : nv;
		for (size_t r = 0; r < ROWS; r++) {
			if (d && !d[r])
				continue;
			size_t i = r * 31 + rg * 7 + col;
			int64_t e = edge64[i % (sizeof edge64 / sizeof *edge64)];
			i64[k] = r % 3 ? e : (int64_t)(i * 2654435761u) - 1000000;
			i32[k] = (int32_t)(r % 3 ? (int32_t)e : (int32_t)(i * 40503u));
			if (col == 10 || col == 14) /* dates and times of day: in and out of range */
				i32[k] = (int32_t)(r % 5 ? (int64_t)(i * 97 % 90000000) - 1000 : e % 4000000000LL);
			if (col == 15)
				i64[k] = r % 5 ? (int64_t)(i * 977777777ull % 86400000000000ull) : e;
			f64[k] = r % 2 ? edged[i % (sizeof edged / sizeof *edged)] : (double)i / 7.0;
			f32[k] = (float)f64[k];
			bools[k] = (uint8_t)(i & 1);
			for (int b = 0; b < 16; b++)
				fixed[k * 16 + (size_t)b] = (uint8_t)(i * 131 + (size_t)b * 17);
			if (r % 4 == 0)
				memset(fixed + k * 16, r % 8 ? 0xFF : 0, 8);
			const char *t = texts[i % NTEXTS];
			ba[k] = (pq_bytes){(const uint8_t *)t, strlen(t)};
			k++;
		}
		pq_values v;
		switch (col) {
		case 0: v = vals(PQ_BOOLEAN, 0, n, bools); break;
		case 1: case 3: case 7: case 10: case 14: v = vals(PQ_INT32, 0, n, i32); break;
		case 5: v = vals(PQ_FLOAT, 0, n, f32); break;
		case 6: v = vals(PQ_DOUBLE, 0, n, f64); break;
		case 9: case 20: v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 16, n, fixed); break;
		case 16: v = vals(PQ_INT96, 12, n, fixed); break;
		case 17: case 18: case 19: v = vals(PQ_BYTE_ARRAY, 0, n, ba); break;
		case 21: v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 2, n, fixed); break;
		case 22: v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 12, n, fixed); break;
		default: v = vals(PQ_INT64, 0, n, i64); break;
		}
		/* in batches: the writer cuts pages between them */
		size_t done = 0;
		for (size_t r = 0; r < ROWS; r += 70) {
			size_t present = 0;
			for (size_t q = r; q < r + 70; q++)
				present += !d || d[q];
			pq_values part = v;
			part.n = present;
			size_t w = pq_value_width(v.type, v.type_length);
			if (v.type == PQ_BYTE_ARRAY)
				part.v.ba = v.v.ba + done;
			else
				part.v.any = (uint8_t *)v.v.any + done * w;
			wput(x, col, 70, d ? d + r : NULL, &part);
			done += present;
		}
	}
	wend(x);
}

static const pq_file *flat_file(wfile *x, bool dictionary, int version, int codec)
{
	els e;
	flat_schema(&e);
	pq_write_options o;
	pq_write_options_init(&o);
	o.dictionary = dictionary;
	o.data_page_version = version;
	o.codec = codec;
	o.page_size = 256; /* several pages a chunk */
	wopen(x, &e, &o);
	for (uint32_t rg = 0; rg < 3; rg++)
		write_flat(x, rg);
	return wclose(x);
}

START_TEST(test_flat_every_type)
{
	const struct { bool dict; int version; int codec; } cases[] = {
		{true, 1, PQ_CODEC_ZSTD}, {false, 1, PQ_CODEC_UNCOMPRESSED}, {true, 2, PQ_CODEC_SNAPPY},
		{false, 2, PQ_CODEC_GZIP}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		wfile x;
		const pq_file *f = flat_file(&x, cases[i].dict, cases[i].version, cases[i].codec);
		pq_file_sizes *s = check_file(f, "flat");
		ck_assert_uint_ne(s->csv, PQ_SIZE_FAILED);
		ck_assert_uint_ne(s->verify, PQ_SIZE_FAILED);
		ck_assert_uint_eq(s->pages_shared, 0);
		ck_assert_uint_gt(s->pages_measured, 3 * NCOL);
		pq_file_sizes_free(s);
		wdone(&x);
	}
}
END_TEST

/* ---- windows and runs (pages decoded a window at a time) --------------------------- */

/* The same file measured with 1M-slot windows and with tiny ones (every
 * page then windowed where its encodings allow, windows crossing every
 * run and page boundary): the same sizes, and both equal the renderers
 * (pages rendered whole, rows by the row reader in windows). */
START_TEST(test_flat_tiny_windows)
{
	const struct { bool dict; int version; int codec; } cases[] = {
		{true, 1, PQ_CODEC_ZSTD}, {false, 1, PQ_CODEC_UNCOMPRESSED}, {true, 2, PQ_CODEC_SNAPPY},
		{false, 2, PQ_CODEC_GZIP}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		wfile x;
		flat_file(&x, cases[i].dict, cases[i].version, cases[i].codec);
		pq_file_sizes *whole = check_file(x.f, "flat");
		pq_file_set_page_window(x.f, 5);
		pq_file_sizes *s = check_file(x.f, "flat, 5-slot windows");
		same_sizes(whole, s);
		pq_file_sizes_free(whole);
		pq_file_sizes_free(s);
		wdone(&x);
	}
}
END_TEST

#define LR_ROWS 300000
/* Run lengths, cycled: long runs are measured as runs (4096 slots and
 * more), short ones in windows, windows cross from one into the next. */
static const size_t lr_runs[] = {50000, 3000, 1, 7000, 4095, 4096, 2, 20000, 4097};

/* Columns k (OPTIONAL INT64), s (OPTIONAL UTF8), i (REQUIRED INT32): each
 * run one value, every third run NULL in the optional columns. */
static const pq_file *long_runs_file(wfile *x, bool dictionary, int version)
{
	els e;
	memset(&e, 0, sizeof e);
	grp(&e, "root", -1, 3);
	prim(&e, "k", PQ_OPTIONAL, PQ_INT64);
	conv(prim(&e, "s", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_UTF8);
	prim(&e, "i", PQ_REQUIRED, PQ_INT32);
	pq_write_options o;
	pq_write_options_init(&o);
	o.dictionary = dictionary;
	o.data_page_version = version;
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.page_size = (uint64_t)64 << 20; /* pages of as many slots as the writer allows */
	wopen(x, &e, &o);
	static uint8_t def[LR_ROWS];
	static int64_t k[LR_ROWS];
	static int32_t iv[LR_ROWS];
	static pq_bytes sv[LR_ROWS];
	for (uint32_t rg = 0; rg < 2; rg++) {
		size_t nv = 0, r = 0;
		for (size_t run = 0; r < LR_ROWS; run++) {
			size_t len = lr_runs[(run + rg) % (sizeof lr_runs / sizeof *lr_runs)];
			for (size_t q = 0; q < len && r < LR_ROWS; q++, r++) {
				def[r] = run % 3 != 2;
				iv[r] = (int32_t)(run * 7919 % 100003) - 50000;
				if (!def[r])
					continue;
				k[nv] = (int64_t)(run % 5) * 1000000007LL - 2;
				const char *t = texts[run % NTEXTS];
				sv[nv] = (pq_bytes){(const uint8_t *)t, strlen(t)};
				nv++;
			}
		}
		wput(x, 0, LR_ROWS, def, &(pq_values){.type = PQ_INT64, .n = nv, .v.i64 = k});
		wput(x, 1, LR_ROWS, def, &(pq_values){.type = PQ_BYTE_ARRAY, .n = nv, .v.ba = sv});
		wput(x, 2, LR_ROWS, NULL, &(pq_values){.type = PQ_INT32, .n = LR_ROWS, .v.i32 = iv});
		wend(x);
	}
	return wclose(x);
}

START_TEST(test_long_runs)
{
	const struct { bool dict; int version; } cases[] = {{true, 1}, {true, 2}, {false, 1}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		wfile x;
		long_runs_file(&x, cases[i].dict, cases[i].version);
		pq_file_sizes *whole = check_file(x.f, "long runs");
		pq_file_set_page_window(x.f, 1000);
		pq_file_sizes *s = check_file(x.f, "long runs, 1000-slot windows");
		same_sizes(whole, s);
		ck_assert_uint_ne(s->csv, PQ_SIZE_FAILED);
		ck_assert_uint_ne(s->verify, PQ_SIZE_FAILED);
		pq_file_sizes_free(whole);
		pq_file_sizes_free(s);
		wdone(&x);
	}
}
END_TEST

/* ---- byte surgery --------------------------------------------------------------- */

/* Overwrites the start of page 0's body of chunk (rg, col) (a compressed
 * body then fails to decompress); reopens. */
static const pq_file *corrupt_page(wfile *x, uint32_t rg, uint32_t col)
{
	pq_error err;
	pq_chunk_layout *l;
	ck_assert(pq_chunk_layout_load(x->f, rg, col, &l, &err) == PQ_OK);
	off_t at = (off_t)l->pages[0].body_offset;
	pq_chunk_layout_free(l);
	uint8_t junk[4] = {0xde, 0xad, 0xbe, 0xef};
	ck_assert_int_eq(pwrite(x->fd, junk, sizeof junk, at), (ssize_t)sizeof junk);
	pq_file_free(x->f);
	ck_assert(pq_file_open_fd(x->fd, "corrupt.parquet", NULL, &x->f, &err) == PQ_OK);
	return x->f;
}

/* Rewrites the footer so that n row groups all point at row group 0's
 * chunks (the file open as *f on fd), and reopens it. */
static void share_fd(int fd, pq_file **f, uint32_t n)
{
	pq_error err;
	pq_error_clear(&err);
	pq_file_meta_data md = *pq_file_metadata(*f);
	pq_row_group *rgs = calloc(n, sizeof *rgs);
	for (uint32_t i = 0; i < n; i++)
		rgs[i] = md.row_groups.v[0];
	md.num_rows = (int64_t)n * md.row_groups.v[0].num_rows;
	md.row_groups.v = rgs;
	md.row_groups.n = n;
	pq_buf footer = PQ_BUF_INIT;
	ck_assert_msg(pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &footer, &err) == PQ_OK, "%s",
		      err.msg);
	struct stat sb;
	ck_assert_int_eq(fstat(fd, &sb), 0);
	off_t end = sb.st_size - 8 - (off_t)pq_file_footer_bytes(*f).n;
	uint8_t tail[8] = {(uint8_t)footer.len, (uint8_t)(footer.len >> 8),
			   (uint8_t)(footer.len >> 16), (uint8_t)(footer.len >> 24), 'P', 'A', 'R', '1'};
	ck_assert_int_eq(pwrite(fd, footer.p, footer.len, end), (ssize_t)footer.len);
	ck_assert_int_eq(pwrite(fd, tail, 8, end + (off_t)footer.len), 8);
	ck_assert_int_eq(ftruncate(fd, end + (off_t)footer.len + 8), 0);
	pq_buf_free(&footer);
	free(rgs);
	pq_file_free(*f);
	ck_assert_msg(pq_file_open_fd(fd, "shared.parquet", NULL, f, &err) == PQ_OK, "%s", err.msg);
}

static const pq_file *share_row_group(wfile *x, uint32_t n)
{
	share_fd(x->fd, &x->f, n);
	return x->f;
}

START_TEST(test_shared_nested)
{
	char path[256];
	int fd = tmpfile_fd(path);
	FILE *in = fopen(TESTDATA_DIR "/parquet-testing/data/nested_lists.snappy.parquet", "rb");
	if (!in) {
		fprintf(stderr, "test_sizes: SKIPPED shared nested chunks: no nested_lists.snappy.parquet\n");
		close(fd);
		unlink(path);
		return;
	}
	uint8_t buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, in)) > 0)
		ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
	fclose(in);
	pq_error err;
	pq_file *f;
	ck_assert(pq_file_open_fd(fd, "nested.parquet", NULL, &f, &err) == PQ_OK);
	ck_assert(!pq_schema_is_flat(pq_file_schema(f)));
	share_fd(fd, &f, 5);
	pq_file_sizes *s = check_file(f, "shared nested");
	ck_assert_uint_gt(s->pages_shared, 0);
	ck_assert_uint_ne(s->csv, PQ_SIZE_FAILED);
	for (uint32_t r = 1; r < 5; r++)
		ck_assert_uint_eq(s->rg_jsonl[r], s->rg_jsonl[0]);
	pq_file_sizes_free(s);
	pq_file_free(f);
	close(fd);
	unlink(path);
}
END_TEST

START_TEST(test_corrupt_page)
{
	wfile x;
	flat_file(&x, true, 1, PQ_CODEC_ZSTD);
	const pq_file *f = corrupt_page(&x, 1, 18);
	pq_file_sizes *s = check_file(f, "corrupt");
	ck_assert_int_ne(s->chunks[1 * NCOL + 18].status, PQ_OK);
	ck_assert_ptr_nonnull(s->chunks[1 * NCOL + 18].msg);
	ck_assert_uint_eq(s->rg_csv[1], PQ_SIZE_FAILED);
	ck_assert_uint_eq(s->csv, PQ_SIZE_FAILED);
	ck_assert_uint_ne(s->rg_csv[0], PQ_SIZE_FAILED);
	ck_assert(strstr((const char *)s->verify_text, "FAILED") != NULL);
	pq_file_sizes_free(s);
	wdone(&x);
}
END_TEST

START_TEST(test_shared_chunks)
{
	for (int corrupt = 0; corrupt < 2; corrupt++) {
		wfile x;
		els e;
		flat_schema(&e);
		pq_write_options o;
		pq_write_options_init(&o);
		o.page_size = 256;
		wopen(&x, &e, &o);
		write_flat(&x, 0);
		wclose(&x);
		if (corrupt)
			corrupt_page(&x, 0, 2);
		pq_file_sizes *one = check_file(x.f, "single");
		uint64_t pages = one->pages_measured;
		const pq_file *f = share_row_group(&x, 40);
		pq_file_sizes *s = check_file(f, "shared");
		/* each distinct chunk measured once, the other 39 copies shared */
		ck_assert_uint_eq(s->pages_measured, pages);
		uint64_t all = 0;
		for (uint32_t c = 0; c < NCOL; c++)
			all += s->chunks[c].num_pages;
		ck_assert_uint_eq(s->pages_shared, 39 * all);
		ck_assert_uint_eq(s->csv, (corrupt ? PQ_SIZE_FAILED : one->csv_header + 40 * one->rg_csv[0]));
		ck_assert_uint_ne(s->verify, PQ_SIZE_FAILED);
		pq_file_sizes_free(one);
		pq_file_sizes_free(s);
		wdone(&x);
	}
}
END_TEST

START_TEST(test_memory_limit_and_cancel)
{
	wfile x;
	const pq_file *f = flat_file(&x, true, 1, PQ_CODEC_ZSTD);
	pq_error err;
	pq_error_clear(&err);
	pq_sizes_options o = {.threads = 2, .mem_max = 1000};
	pq_file_sizes *s;
	ck_assert(pq_file_measure(f, &o, &s, &err) == PQ_OK);
	ck_assert_int_eq(s->chunks[0].status, PQ_EBUDGET);
	ck_assert_ptr_nonnull(strstr(s->chunks[0].msg, "bytes"));
	ck_assert_uint_eq(s->verify, PQ_SIZE_FAILED);
	ck_assert_uint_eq(s->csv, PQ_SIZE_FAILED);
	check_against_render(f, "limited", s);
	pq_file_sizes_free(s);
	atomic_bool stop = true;
	pq_sizes_options c = {.threads = 2, .cancel = &stop};
	ck_assert_int_eq(pq_file_measure(f, &c, &s, &err), PQ_EIO);
	ck_assert_ptr_null(s);
	wdone(&x);
}
END_TEST

/* ---- parquet-testing ------------------------------------------------------------- */

/* The file measured again with 64-slot windows (nested rows assembled
 * across window boundaries): what measured before measures the same.
 * (Failures may differ in where they are found, so only what succeeded
 * is compared.) */
static void check_windows(pq_file *f, const char *name, const pq_file_sizes *whole)
{
	pq_error err;
	pq_error_clear(&err);
	pq_file_set_page_window(f, 64);
	pq_sizes_options o = {.threads = 1};
	pq_file_sizes *s;
	ck_assert_msg(pq_file_measure(f, &o, &s, &err) == PQ_OK, "%s: %s", name, err.msg);
	for (uint32_t r = 0; r < s->num_row_groups; r++) {
		if (whole->rg_csv[r] != PQ_SIZE_FAILED)
			ck_assert_msg(s->rg_csv[r] == whole->rg_csv[r], "%s rg %u: data.csv %llu in "
				      "windows, %llu whole", name, r, (unsigned long long)s->rg_csv[r],
				      (unsigned long long)whole->rg_csv[r]);
		if (whole->rg_jsonl[r] != PQ_SIZE_FAILED)
			ck_assert_uint_eq(s->rg_jsonl[r], whole->rg_jsonl[r]);
	}
	for (size_t i = 0; i < (size_t)s->num_row_groups * s->num_columns; i++) {
		if (whole->chunks[i].status != PQ_OK)
			continue;
		ck_assert_msg(s->chunks[i].values == whole->chunks[i].values,
			      "%s chunk %zu: values.txt %llu in windows, %llu whole", name, i,
			      (unsigned long long)s->chunks[i].values,
			      (unsigned long long)whole->chunks[i].values);
		ck_assert_uint_eq(s->chunks[i].levels, whole->chunks[i].levels);
	}
	pq_file_sizes_free(s);
	pq_file_set_page_window(f, 1u << 20);
}

static int check_dir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		if (len < 8 || strcmp(de->d_name + len - 8, ".parquet") != 0)
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		int fd = open(path, O_RDONLY);
		ck_assert_int_ge(fd, 0);
		pq_error err;
		pq_file *f;
		if (pq_file_open_fd(fd, path, NULL, &f, &err) == PQ_OK) {
			pq_file_sizes *s = check_file(f, de->d_name);
			check_windows(f, de->d_name, s);
			pq_file_sizes_free(s);
			pq_file_free(f);
			n++;
		}
		close(fd);
	}
	closedir(d);
	return n;
}

START_TEST(test_parquet_testing)
{
	int a = check_dir(TESTDATA_DIR "/parquet-testing/data");
	int b = check_dir(TESTDATA_DIR "/parquet-testing/bad_data");
	if (a < 0) {
		fprintf(stderr, "test_sizes: SKIPPED the parquet-testing files: no %s\n",
			TESTDATA_DIR "/parquet-testing/data");
		return;
	}
	int c = check_dir(TESTDATA_DIR "/parquet-testing/geospatial");
	int d = check_dir(TESTDATA_DIR "/parquet-testing/shredded_variant");
	int e = check_dir(TESTDATA_DIR "/fuzz-regressions/arrow");
	fprintf(stderr, "test_sizes: measured %d data, %d bad_data, %d geospatial, %d shredded_variant "
		"and %d fuzz-regression files\n", a, b, c, d, e);
	ck_assert_int_gt(a, 20);
}
END_TEST

static Suite *sizes_suite(void)
{
	Suite *s = suite_create("sizes");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_flat_every_type);
	tcase_add_test(tc, test_flat_tiny_windows);
	tcase_add_test(tc, test_long_runs);
	tcase_add_test(tc, test_corrupt_page);
	tcase_add_test(tc, test_shared_chunks);
	tcase_add_test(tc, test_shared_nested);
	tcase_add_test(tc, test_memory_limit_and_cancel);
	tcase_add_test(tc, test_parquet_testing);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(sizes_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
