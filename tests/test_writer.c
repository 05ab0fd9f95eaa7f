#include "config.h"

/* The core writer, read back with the project's reader (pq_file, page
 * decoding, data.csv, verify.txt): every type rendered, every encoding,
 * codec and page version value by value, dictionary fallback, CRCs, 0 rows,
 * 300 columns, row groups, bloom filters. Expectations are the values
 * written or hand-computed; statistics and page indexes are in
 * test_writer_meta.c, DuckDB's independent view in test_writer_interop.sh. */

#include <math.h>

#include "encoding/pq_bloom.h"
#include "codec/pq_codec.h"
#include "test_writer_helpers.h"

/* ---- a small table rendered by hand ------------------------------------------ */

static void every_type_schema(els *e)
{
	e->n = 0;
	grp(e, "schema", -1, 10);
	prim(e, "b", PQ_OPTIONAL, PQ_BOOLEAN);
	prim(e, "i32", PQ_OPTIONAL, PQ_INT32);
	prim(e, "i64", PQ_REQUIRED, PQ_INT64);
	prim(e, "f", PQ_OPTIONAL, PQ_FLOAT);
	prim(e, "d", PQ_OPTIONAL, PQ_DOUBLE);
	pq_schema_element *x = conv(prim(e, "s", PQ_OPTIONAL, PQ_BYTE_ARRAY), PQ_CT_UTF8);
	x->has_logicalType = x->logicalType.has_STRING = true;
	x = prim(e, "u", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY);
	x->has_type_length = true;
	x->type_length = 16;
	x->has_logicalType = x->logicalType.has_UUID = true;
	x = conv(prim(e, "dec", PQ_OPTIONAL, PQ_FIXED_LEN_BYTE_ARRAY), PQ_CT_DECIMAL);
	x->has_type_length = x->has_scale = x->has_precision = true;
	x->type_length = 4;
	x->scale = 2;
	x->precision = 9;
	x->has_logicalType = x->logicalType.has_DECIMAL = true;
	x->logicalType.DECIMAL = (pq_decimal_type){2, 9};
	x = conv(prim(e, "dt", PQ_OPTIONAL, PQ_INT32), PQ_CT_DATE);
	x->has_logicalType = x->logicalType.has_DATE = true;
	x = prim(e, "ts", PQ_OPTIONAL, PQ_INT64);
	x->has_logicalType = x->logicalType.has_TIMESTAMP = true;
	x->logicalType.TIMESTAMP.isAdjustedToUTC = true;
	x->logicalType.TIMESTAMP.unit.has_MICROS = true;
}

/* Four rows; NULLs where def is 0. */
static const uint8_t def4[4] = {1, 0, 1, 1};
static uint8_t b4[3] = {1, 0, 1};
static int32_t i32_4[3] = {-7, 2147483647, 0};
static int64_t i64_4[4] = {INT64_MIN, -1, 0, INT64_MAX};
static float f4[3] = {1.5f, -0.0f, 0.1f};
static double d4[3] = {1e21, -2.5e-7, 100};
static pq_bytes s4[3] = {{(const uint8_t *)"a,b", 3}, {(const uint8_t *)"", 0},
			 {(const uint8_t *)"\xc3\xa9t\xc3\xa9", 5}};
static uint8_t u4[48] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
			 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
static uint8_t dec4[12] = {0xff, 0xff, 0xff, 0xce, 0x00, 0x00, 0x30, 0x39, 0, 0, 0, 0};
static int32_t dt4[3] = {0, -719162, 19000};
static int64_t ts4[3] = {0, 1600000000123456, -1};

static void write_every_type(wfile *x)
{
	pq_values v;
	v = vals(PQ_BOOLEAN, 0, 3, b4); wput(x, 0, 4, def4, &v);
	v = vals(PQ_INT32, 0, 3, i32_4); wput(x, 1, 4, def4, &v);
	v = vals(PQ_INT64, 0, 4, i64_4); wput(x, 2, 4, NULL, &v);
	v = vals(PQ_FLOAT, 0, 3, f4); wput(x, 3, 4, def4, &v);
	v = vals(PQ_DOUBLE, 0, 3, d4); wput(x, 4, 4, def4, &v);
	v = vals(PQ_BYTE_ARRAY, 0, 3, s4); wput(x, 5, 4, def4, &v);
	v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 16, 3, u4); wput(x, 6, 4, def4, &v);
	v = vals(PQ_FIXED_LEN_BYTE_ARRAY, 4, 3, dec4); wput(x, 7, 4, def4, &v);
	v = vals(PQ_INT32, 0, 3, dt4); wput(x, 8, 4, def4, &v);
	v = vals(PQ_INT64, 0, 3, ts4); wput(x, 9, 4, def4, &v);
}

/* Hand-rendered per the contract's value rules. dec: 0xffffffce = -50 →
 * -0.50; 0x3039 = 12345 → 123.45. dt: 0 → 1970-01-01, -719162 →
 * 0001-01-01, 19000 → 2022-01-08. ts: 1600000000123456 µs →
 * 2020-09-13T12:26:40.123456Z; -1 → 1969-12-31T23:59:59.999999Z. */
static const char every_type_csv[] =
	"b,i32,i64,f,d,s,u,dec,dt,ts\n"
	"true,-7,-9223372036854775808,1.5,1e+21,\"a,b\",12345678-9abc-def0-0123-456789abcdef,-0.50,1970-01-01,1970-01-01T00:00:00Z\n"
	",,-1,,,,,,,\n"
	"false,2147483647,0,-0,-2.5e-7,\"\",00000000-0000-0000-0000-000000000000,123.45,0001-01-01,2020-09-13T12:26:40.123456Z\n"
	"true,0,9223372036854775807,0.1,100,\xc3\xa9t\xc3\xa9,00000000-0000-0000-0000-000000000000,0.00,2022-01-08,1969-12-31T23:59:59.999999Z\n";

START_TEST(test_every_type_rendered)
{
	static const int codecs[] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_GZIP,
				     PQ_CODEC_BROTLI, PQ_CODEC_ZSTD, PQ_CODEC_LZ4_RAW};
	for (int version = 1; version <= 2; version++)
		for (int dict = 0; dict <= 1; dict++)
			for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
				els e;
				every_type_schema(&e);
				pq_write_options o;
				pq_write_options_init(&o);
				o.codec = codecs[c];
				o.data_page_version = version;
				o.dictionary = dict;
				wfile x;
				wopen(&x, &e, &o);
				write_every_type(&x);
				const pq_file *f = wclose(&x);
				char *csv = render(f, PQ_ROWS_CSV);
				if (strcmp(csv, every_type_csv) != 0)
					fprintf(stderr, "got:\n%s", csv);
				ck_assert_msg(strcmp(csv, every_type_csv) == 0, "v%d dict %d codec %d",
					      version, dict, codecs[c]);
				free(csv);
				char *v = verify(f);
				ck_assert_msg(ends_with(v, "OK\n"), "%s", v);
				free(v);
				wdone(&x);
			}
}
END_TEST

START_TEST(test_footer_fields)
{
	els e;
	every_type_schema(&e);
	pq_write_options o;
	pq_write_options_init(&o);
	pq_key_value kv[2] = {{true, {(const uint8_t *)"k1", 2}, {(const uint8_t *)"v1", 2}},
			      {false, {(const uint8_t *)"k2", 2}, {NULL, 0}}};
	wfile x;
	pq_error err;
	x.fd = tmpfile_fd(x.path);
	x.f = NULL;
	ck_assert_int_eq(pq_writer_open(&x.w, x.fd, e.v, e.n, &o, kv, 2, &err), PQ_OK);
	write_every_type(&x);
	const pq_file *f = wclose(&x);
	const pq_file_meta_data *md = pq_file_metadata(f);
	char want[64];
	snprintf(want, sizeof want, "parquetfs version %s (build ", PACKAGE_VERSION);
	ck_assert(md->has_created_by);
	ck_assert_uint_ge(md->created_by.n, strlen(want));
	ck_assert(memcmp(md->created_by.p, want, strlen(want)) == 0);
	ck_assert_uint_eq(md->key_value_metadata.n, 2);
	ck_assert(md->key_value_metadata.v[0].has_value);
	ck_assert(memcmp(md->key_value_metadata.v[0].value.p, "v1", 2) == 0);
	ck_assert(!md->key_value_metadata.v[1].has_value);
	ck_assert_int_eq(md->num_rows, 4);
	ck_assert_uint_eq(md->column_orders.n, 10);
	ck_assert(md->column_orders.v[9].has_TYPE_ORDER);
	/* zstd is the contract's default codec; CRCs and page index on. */
	const pq_column_chunk *cc = pq_file_chunk(f, 0, 5);
	ck_assert_int_eq(cc->meta_data.codec, PQ_CODEC_ZSTD);
	ck_assert(cc->has_column_index_offset && cc->has_offset_index_offset);
	ck_assert(!cc->meta_data.has_bloom_filter_offset);
	wdone(&x);
}
END_TEST

/* ---- every type, every encoding, many rows ------------------------------- */

#define NROWS 5000

typedef struct gen {
	uint8_t def[NROWS];
	pq_values v;
	uint8_t store[NROWS * 16];
	pq_bytes views[NROWS];
	char text[NROWS * 24];
} gen;

/* Deterministic values with repeats (for dictionaries) and runs. */
static void generate(gen *g, int type, int type_length, bool optional, size_t rows, unsigned seed)
{
	size_t k = 0, tp = 0;
	for (size_t r = 0; r < rows; r++) {
		uint64_t h = (r * 2654435761u + seed) % 1000;
		g->def[r] = !optional || (r * 7 + seed) % 13 != 3;
		if (!g->def[r])
			continue;
		switch (type) {
		case PQ_BOOLEAN: g->store[k] = h % 3 == 0; break;
		case PQ_INT32: ((int32_t *)(void *)g->store)[k] = (int32_t)(h * 1000) - 400000; break;
		case PQ_INT64: ((int64_t *)(void *)g->store)[k] = (int64_t)(r * 1000003) - (int64_t)h; break;
		case PQ_FLOAT: ((float *)(void *)g->store)[k] = r % 101 == 7 ? NAN : (float)h / 8 - 20; break;
		case PQ_DOUBLE: ((double *)(void *)g->store)[k] = (double)r * 0.37 - (double)h; break;
		case PQ_BYTE_ARRAY: {
			int m = r % 4 ? snprintf(g->text + tp, 24, "w%u", (unsigned)(h % 50))
				      : snprintf(g->text + tp, 24, "long-%zu", r);
			g->views[k] = (pq_bytes){(const uint8_t *)g->text + tp, (size_t)m};
			tp += (size_t)m;
			break;
		}
		default:
			for (int i = 0; i < type_length; i++)
				g->store[k * (size_t)type_length + (size_t)i] = (uint8_t)(h * 31 + (uint64_t)i * (r % 3));
			break;
		}
		k++;
	}
	g->v = vals(type, type_length, k, g->store);
	if (type == PQ_BYTE_ARRAY)
		g->v.v.ba = g->views;
}

typedef struct coltype {
	int type, type_length;
	int encodings[4]; /* non-default encodings that apply, 0-terminated after the first */
} coltype;

static const coltype coltypes[] = {
	{PQ_BOOLEAN, 0, {PQ_ENC_RLE, 0}},
	{PQ_INT32, 0, {PQ_ENC_DELTA_BINARY_PACKED, PQ_ENC_BYTE_STREAM_SPLIT, 0}},
	{PQ_INT64, 0, {PQ_ENC_DELTA_BINARY_PACKED, PQ_ENC_BYTE_STREAM_SPLIT, 0}},
	{PQ_FLOAT, 0, {PQ_ENC_BYTE_STREAM_SPLIT, 0}},
	{PQ_DOUBLE, 0, {PQ_ENC_BYTE_STREAM_SPLIT, 0}},
	{PQ_BYTE_ARRAY, 0, {PQ_ENC_DELTA_LENGTH_BYTE_ARRAY, PQ_ENC_DELTA_BYTE_ARRAY, 0}},
	{PQ_FIXED_LEN_BYTE_ARRAY, 5, {PQ_ENC_DELTA_BYTE_ARRAY, PQ_ENC_BYTE_STREAM_SPLIT, 0}},
	{PQ_INT96, 0, {0}},
};

/* One file per (type, encoding, page version): two columns of the type
 * (OPTIONAL and REQUIRED), small pages, two row groups, read back value by
 * value. */
static void roundtrip_type(const coltype *t, int encoding, int version, int codec)
{
	int tl = t->type == PQ_INT96 ? 12 : t->type_length;
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 2);
	pq_schema_element *a = prim(&e, "c0", PQ_OPTIONAL, t->type);
	pq_schema_element *b = prim(&e, "c1", PQ_REQUIRED, t->type);
	if (t->type == PQ_FIXED_LEN_BYTE_ARRAY) {
		a->has_type_length = b->has_type_length = true;
		a->type_length = b->type_length = tl;
	}
	pq_write_options o;
	pq_write_options_init(&o);
	o.data_page_version = version;
	o.codec = codec;
	o.page_size = t->type == PQ_BOOLEAN ? 300 : 2000;
	pq_column_encoding ce[2] = {{"c0", encoding}, {"c1", encoding}};
	if (encoding >= 0) {
		o.column_encodings = ce;
		o.n_column_encodings = 2;
	}
	static gen g[2][2];
	wfile x;
	wopen(&x, &e, &o);
	for (int rg = 0; rg < 2; rg++) {
		size_t rows = rg ? NROWS / 3 : NROWS;
		for (int c = 0; c < 2; c++) {
			generate(&g[rg][c], t->type, tl, c == 0, rows, (unsigned)(rg * 10 + c));
			/* two batches, so batches straddle pages */
			size_t half = rows / 2, vh = 0;
			for (size_t r = 0; r < half; r++)
				vh += g[rg][c].def[r];
			pq_values v1 = g[rg][c].v, v2 = g[rg][c].v;
			v1.n = vh;
			v2.n -= vh;
			size_t w = t->type == PQ_BOOLEAN ? 1 : t->type == PQ_INT32 || t->type == PQ_FLOAT ? 4
				 : t->type == PQ_BYTE_ARRAY ? sizeof(pq_bytes) : t->type == PQ_INT64 || t->type == PQ_DOUBLE ? 8
				 : (size_t)tl;
			v2.v.any = (uint8_t *)v2.v.any + vh * w;
			wput(&x, (size_t)c, half, c == 0 ? g[rg][c].def : NULL, &v1);
			wput(&x, (size_t)c, rows - half, c == 0 ? g[rg][c].def + half : NULL, &v2);
		}
		wend(&x);
	}
	const pq_file *f = wclose(&x);
	ck_assert_uint_eq(pq_file_num_row_groups(f), 2);
	for (uint32_t c = 0; c < 2; c++) {
		/* Both row groups back to back. */
		readback rb;
		read_column(f, c, &rb);
		ck_assert_uint_gt(rb.pages, 2);
		size_t at = 0, vi = 0;
		const size_t *lens = (const size_t *)(const void *)rb.lens.p;
		size_t slot = 0;
		for (int rg = 0; rg < 2; rg++) {
			const gen *gg = &g[rg][c];
			size_t rows = rg ? NROWS / 3 : NROWS;
			for (size_t r = 0; r < rows; r++, slot++)
				ck_assert_uint_eq(rb.def.p[slot], gg->def[r]);
			for (size_t i = 0; i < gg->v.n; i++, vi++) {
				size_t n;
				const uint8_t *p = value_at(&gg->v, i, &n);
				ck_assert_msg(lens[vi] == n && memcmp(rb.bytes.p + at, p, n) == 0,
					      "type %d encoding %d v%d: value %zu of row group %d differs",
					      t->type, encoding, version, i, rg);
				at += n;
			}
		}
		ck_assert_uint_eq(vi, rb.nvalues);
		ck_assert_uint_eq(slot, rb.def.len);
		if (encoding >= 0 || t->type == PQ_BOOLEAN)
			ck_assert_int_eq(rb.had_dict, false);
		readback_free(&rb);
		/* The chosen encoding is the one the data pages record. By
		 * default the writer picks from the data (test_writer_choose.c):
		 * the dictionary when it pays, else PLAIN or, for INT32/INT64,
		 * DELTA_BINARY_PACKED. */
		const pq_column_meta_data *m = pq_file_chunk_meta(f, 0, c);
		int want = encoding < 0 ? (t->type == PQ_BOOLEAN ? PQ_ENC_PLAIN : PQ_ENC_RLE_DICTIONARY)
					: encoding;
		bool found = false, dict_pages = false, other = false;
		for (uint32_t i = 0; i < m->encoding_stats.n; i++) {
			const pq_page_encoding_stats *es = &m->encoding_stats.v[i];
			if (es->page_type == PQ_PAGE_DICTIONARY) {
				dict_pages = true;
				continue;
			}
			found |= es->encoding == want;
			bool allowed = es->encoding == PQ_ENC_PLAIN ||
				       (es->encoding == PQ_ENC_DELTA_BINARY_PACKED &&
					(t->type == PQ_INT32 || t->type == PQ_INT64));
			other |= es->encoding != want && !(encoding < 0 && allowed);
		}
		if (encoding < 0 && t->type != PQ_BOOLEAN)
			ck_assert_int_eq(found, dict_pages);
		else
			ck_assert_msg(found, "type %d: encoding %d not in encoding_stats", t->type, want);
		ck_assert_msg(!other, "type %d: an encoding other than %d", t->type, want);
	}
	char *v = verify(f);
	ck_assert_msg(ends_with(v, "OK\n"), "%s", v);
	free(v);
	wdone(&x);
}

START_TEST(test_each_type_each_encoding)
{
	for (size_t t = 0; t < sizeof coltypes / sizeof *coltypes; t++)
		for (int version = 1; version <= 2; version++) {
			roundtrip_type(&coltypes[t], -1, version, PQ_CODEC_SNAPPY);
			roundtrip_type(&coltypes[t], PQ_ENC_PLAIN, version, PQ_CODEC_ZSTD);
			for (int i = 0; coltypes[t].encodings[i]; i++)
				roundtrip_type(&coltypes[t], coltypes[t].encodings[i], version,
					       version == 1 ? PQ_CODEC_GZIP : PQ_CODEC_UNCOMPRESSED);
		}
}
END_TEST

/* Writes n rows of 40-byte strings (every tenth NULL), value k being
 * number k / repeat; returns the number of dictionary entries (0 without
 * a dictionary page) and the counts of data pages per encoding. */
static int32_t dictionary_run(size_t n, size_t repeat, int32_t *dict_data, int32_t *plain_data)
{
	els e;
	e.n = 0;
	grp(&e, "schema", -1, 1);
	prim(&e, "s", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	pq_write_options o;
	pq_write_options_init(&o);
	o.page_size = 64 * 1024;
	char *text = malloc(n * 40);
	pq_bytes *views = malloc(n * sizeof *views);
	uint8_t *def = malloc(n);
	size_t k = 0;
	for (size_t r = 0; r < n; r++) {
		def[r] = r % 10 != 9;
		if (!def[r])
			continue;
		char tmp[48];
		snprintf(tmp, sizeof tmp, "value-%030zu-x", k / repeat);
		memcpy(text + 40 * k, tmp, 40);
		views[k] = (pq_bytes){(const uint8_t *)text + 40 * k, 40};
		k++;
	}
	pq_values v = vals(PQ_BYTE_ARRAY, 0, k, views);
	v.v.ba = views;
	wfile x;
	wopen(&x, &e, &o);
	wput(&x, 0, n, def, &v);
	const pq_file *f = wclose(&x);
	const pq_column_meta_data *m = pq_file_chunk_meta(f, 0, 0);
	int32_t dict_pages = 0;
	*dict_data = *plain_data = 0;
	for (uint32_t i = 0; i < m->encoding_stats.n; i++) {
		const pq_page_encoding_stats *s = &m->encoding_stats.v[i];
		if (s->page_type == PQ_PAGE_DICTIONARY)
			dict_pages += s->count;
		else if (s->encoding == PQ_ENC_RLE_DICTIONARY)
			*dict_data += s->count;
		else if (s->encoding == PQ_ENC_PLAIN)
			*plain_data += s->count;
	}
	ck_assert_int_eq(dict_pages, *dict_data > 0);
	pq_chunk_layout *l;
	pq_error err;
	ck_assert_int_eq(pq_chunk_layout_load(f, 0, 0, &l, &err), PQ_OK);
	ck_assert_int_eq(l->dict != NULL, dict_pages);
	int32_t entries = l->dict ? l->dict->header.dictionary_page_header.num_values : 0;
	pq_chunk_layout_free(l);
	expect_column(f, 0, n, def, &v);
	char *vt = verify(f);
	ck_assert_msg(ends_with(vt, "OK\n"), "%s", vt);
	free(vt);
	wdone(&x);
	free(text);
	free(views);
	free(def);
	return entries;
}

START_TEST(test_dictionary_fallback)
{
	/* Each value twice, 27000 distinct of 44 PLAIN bytes: the dictionary
	 * passes 1 MiB with its 23832nd entry (23832 * 44 > 2^20), then the
	 * rest of the chunk is PLAIN. */
	int32_t dict_data, plain_data;
	ck_assert_int_eq(dictionary_run(60000, 2, &dict_data, &plain_data), 23832);
	ck_assert_int_ge(dict_data, 1);
	ck_assert_int_ge(plain_data, 1);
	/* All values distinct: given up at 8192 entries (over 3/4 distinct);
	 * the page it ended is dictionary-encoded, the rest falls back to
	 * PLAIN. */
	ck_assert_int_eq(dictionary_run(20000, 1, &dict_data, &plain_data), 8192);
	ck_assert_int_ge(dict_data, 1);
	ck_assert_int_ge(plain_data, 1);
	/* Few distinct values: the dictionary stays for the whole chunk. */
	ck_assert_int_eq(dictionary_run(20000, 100, &dict_data, &plain_data), 180);
	ck_assert_int_ge(dict_data, 1);
	ck_assert_int_eq(plain_data, 0);
}
END_TEST

/* ---- CRC ------------------------------------------------------------------- */

START_TEST(test_crc_verified_and_detects_damage)
{
	els e;
	every_type_schema(&e);
	pq_write_options o;
	pq_write_options_init(&o);
	wfile x;
	wopen(&x, &e, &o);
	write_every_type(&x);
	const pq_file *f = wclose(&x);
	char *v = verify(f);
	/* 10 chunks: 9 with a dictionary page (not BOOLEAN) + 10 data pages. */
	ck_assert_msg(strstr(v, "19 pages, 19 CRCs") && ends_with(v, "OK\n"), "%s", v);
	free(v);
	/* Every page, the dictionary pages too, carries a CRC that matches. */
	pq_error err;
	for (uint32_t c = 0; c < 10; c++) {
		pq_chunk_layout *l;
		ck_assert_int_eq(pq_chunk_layout_load(f, 0, c, &l, &err), PQ_OK);
		ck_assert_int_eq(l->dict != NULL, c != 0);
		for (uint32_t p = 0; p <= l->num_pages; p++) {
			const pq_page_info *pi = p == l->num_pages ? l->dict : &l->pages[p];
			if (!pi)
				continue;
			ck_assert(pi->header.has_crc);
			pq_crc_state st;
			uint32_t computed;
			ck_assert_int_eq(pq_page_crc(f, pi, &st, &computed, &err), PQ_OK);
			ck_assert_int_eq(st, PQ_CRC_OK);
		}
		pq_chunk_layout_free(l);
	}
	/* Damage one byte of the body of column 2's data page. */
	pq_chunk_layout *l;
	ck_assert_int_eq(pq_chunk_layout_load(f, 0, 2, &l, &err), PQ_OK);
	uint64_t at = l->pages[0].body_offset;
	pq_chunk_layout_free(l);
	uint8_t byte;
	ck_assert_int_eq(pread(x.fd, &byte, 1, (off_t)at), 1);
	byte ^= 0x40;
	ck_assert_int_eq(pwrite(x.fd, &byte, 1, (off_t)at), 1);
	pq_file_free(x.f);
	struct stat sb;
	ck_assert_int_eq(fstat(x.fd, &sb), 0);
	ck_assert_int_eq(pq_file_open_fd(x.fd, "t", NULL, &x.f, &err), PQ_OK);
	v = verify(x.f);
	ck_assert_msg(strstr(v, "PROBLEM") && strstr(v, "CRC"), "%s", v);
	free(v);
	wdone(&x);
}
END_TEST

START_TEST(test_crc_off)
{
	els e;
	every_type_schema(&e);
	pq_write_options o;
	pq_write_options_init(&o);
	o.crc = false;
	o.page_index = false;
	wfile x;
	wopen(&x, &e, &o);
	write_every_type(&x);
	const pq_file *f = wclose(&x);
	char *v = verify(f);
	ck_assert_msg(strstr(v, "19 pages, 0 CRCs") && ends_with(v, "OK\n"), "%s", v);
	free(v);
	ck_assert(!pq_file_chunk(f, 0, 0)->has_column_index_offset);
	wdone(&x);
}
END_TEST

/* ---- shapes: 0 rows, 300 columns, many row groups ---------------------------- */

START_TEST(test_zero_rows)
{
	els e;
	every_type_schema(&e);
	wfile x;
	wopen(&x, &e, NULL);
	wend(&x); /* an empty row group is not written */
	const pq_file *f = wclose(&x);
	ck_assert_uint_eq(pq_file_num_row_groups(f), 0);
	ck_assert_int_eq(pq_file_metadata(f)->num_rows, 0);
	ck_assert_uint_eq(pq_file_num_columns(f), 10);
	char *csv = render(f, PQ_ROWS_CSV);
	ck_assert_str_eq(csv, "b,i32,i64,f,d,s,u,dec,dt,ts\n");
	free(csv);
	wdone(&x);
}
END_TEST

START_TEST(test_300_columns_row_groups)
{
	/* schema_builder's lists stop at 300 elements: build root + 300 here. */
	enum { C = 300 };
	static pq_schema_element el[C + 1];
	static char names[C][8];
	memset(el, 0, sizeof el);
	el[0].name = (pq_bytes){(const uint8_t *)"schema", 6};
	el[0].has_num_children = true;
	el[0].num_children = C;
	for (int c = 0; c < C; c++) {
		snprintf(names[c], sizeof names[c], "c%d", c);
		pq_schema_element *x = &el[c + 1];
		x->name = (pq_bytes){(const uint8_t *)names[c], strlen(names[c])};
		x->has_type = x->has_repetition_type = true;
		x->type = c % 2 ? PQ_INT32 : PQ_BYTE_ARRAY;
		x->repetition_type = c % 3 ? PQ_OPTIONAL : PQ_REQUIRED;
	}
	pq_write_options o;
	pq_write_options_init(&o);
	o.codec = PQ_CODEC_LZ4_RAW;
	const char *bloom[] = {"c1", "c2", NULL};
	o.bloom_columns = bloom;
	wfile x;
	pq_error err;
	x.fd = tmpfile_fd(x.path);
	x.f = NULL;
	ck_assert_int_eq(pq_writer_open(&x.w, x.fd, el, C + 1, &o, NULL, 0, &err), PQ_OK);
	enum { R = 50 };
	int32_t iv[R];
	pq_bytes sv[R];
	char text[R][12];
	uint8_t def[R];
	for (int rg = 0; rg < 3; rg++) {
		for (int c = 0; c < C; c++) {
			size_t k = 0;
			for (int r = 0; r < R; r++) {
				def[r] = c % 3 == 0 || (r + c) % 5 != 0;
				if (!def[r])
					continue;
				iv[k] = rg * 1000 + r * c;
				snprintf(text[k], sizeof text[k], "%d:%d", rg, r);
				sv[k] = (pq_bytes){(const uint8_t *)text[k], strlen(text[k])};
				k++;
			}
			pq_values v = c % 2 ? vals(PQ_INT32, 0, k, iv) : vals(PQ_BYTE_ARRAY, 0, k, sv);
			if (!(c % 2))
				v.v.ba = sv;
			wput(&x, (size_t)c, R, c % 3 ? def : NULL, &v);
		}
		wend(&x);
	}
	const pq_file *f = wclose(&x);
	ck_assert_uint_eq(pq_file_num_columns(f), C);
	ck_assert_uint_eq(pq_file_num_row_groups(f), 3);
	ck_assert_int_eq(pq_file_metadata(f)->num_rows, 3 * R);
	for (uint32_t rg = 0; rg < 3; rg++) {
		const pq_row_group *g = &pq_file_metadata(f)->row_groups.v[rg];
		ck_assert_int_eq(g->num_rows, R);
		ck_assert(g->has_ordinal && g->ordinal == (int16_t)rg);
	}
	/* Spot-check c297 (INT32, REQUIRED). */
	readback rb;
	read_column(f, 297, &rb);
	ck_assert_uint_eq(rb.def.len, 3 * R);
	size_t nn = 0;
	for (size_t i = 0; i < rb.def.len; i++)
		nn += rb.def.p[i];
	ck_assert_uint_eq(rb.nvalues, nn);
	int32_t last;
	memcpy(&last, rb.bytes.p + rb.bytes.len - 4, 4);
	ck_assert_int_eq(last, 2000 + 49 * 297);
	readback_free(&rb);
	/* Bloom filters: only c1 and c2, finding what was written. */
	for (uint32_t c = 0; c < 4; c++)
		ck_assert_int_eq(pq_chunk_has_bloom_filter(f, 2, c), c == 1 || c == 2);
	pq_buf bits = PQ_BUF_INIT;
	ck_assert_int_eq(pq_bloom_filter_bitset(f, 2, 2, &bits, &err), PQ_OK);
	/* c2 holds 40 distinct values (rows with (r + 2) % 5 == 0 are NULL). */
	ck_assert_uint_eq(bits.len, pq_bloom_optimal_bytes(40, 0.01));
	for (int r = 0; r < R; r++) {
		if ((r + 2) % 5 == 0)
			continue;
		char t[12];
		snprintf(t, sizeof t, "2:%d", r);
		ck_assert(pq_bloom_check(bits.p, bits.len, pq_bloom_hash(t, strlen(t))));
	}
	int absent = 0;
	for (int r = 0; r < 1000; r++) {
		char t[16];
		snprintf(t, sizeof t, "x%d", r);
		absent += !pq_bloom_check(bits.p, bits.len, pq_bloom_hash(t, strlen(t)));
	}
	ck_assert_int_gt(absent, 900);
	pq_buf_free(&bits);
	bits = (pq_buf)PQ_BUF_INIT;
	ck_assert_int_eq(pq_bloom_filter_bitset(f, 0, 1, &bits, &err), PQ_OK);
	for (int r = 0; r < R; r++)
		if ((r + 1) % 5 != 0)
			ck_assert(pq_bloom_check(bits.p, bits.len, pq_bloom_hash_int32(r)));
	pq_buf_free(&bits);
	char *v = verify(f);
	ck_assert_msg(ends_with(v, "OK\n"), "%s", v);
	free(v);
	wdone(&x);
}
END_TEST


static Suite *writer_suite(void)
{
	Suite *s = suite_create("writer");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_every_type_rendered);
	tcase_add_test(tc, test_footer_fields);
	tcase_add_test(tc, test_each_type_each_encoding);
	tcase_add_test(tc, test_dictionary_fallback);
	tcase_add_test(tc, test_crc_verified_and_detects_damage);
	tcase_add_test(tc, test_crc_off);
	tcase_add_test(tc, test_zero_rows);
	tcase_add_test(tc, test_300_columns_row_groups);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(writer_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
