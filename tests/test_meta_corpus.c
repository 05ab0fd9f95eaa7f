/* The footers of the real files in the test data (TESTDATA_DIR):
 *  - decoded and checked against expected/data/<file>/facts.json (written
 *    by independent tools: DuckDB and a hyparquet-based reader);
 *  - encoded again: encode -> decode -> encode gives the same bytes and the
 *    same JSON; the JSON is valid (checked by tests/minijson.h);
 *  - every truncation and 200 random byte flips of every footer decode
 *    without crash or leak (run under ASan: configure --enable-sanitizers).
 *    Footers over 16 KiB (3 files; each prefix costs its length, so they
 *    would take 90% of the time) get every prefix in their first 2 KiB and
 *    last 1 KiB and every 31st between, unless PQ_TEST_FULL=1.
 * Skips, saying so, when the test data is not there. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "minijson.h"
#include "format/pq_footer.h"
#include "pq_metadata.h"
#include "format/pq_metadata_codec.h"

#ifndef TESTDATA_DIR
#define TESTDATA_DIR "../shared/testdata"
#endif

static bool have_testdata(void)
{
	struct stat st;
	if (stat(TESTDATA_DIR "/parquet-testing/data", &st) == 0 && S_ISDIR(st.st_mode))
		return true;
	fprintf(stderr, "SKIP: test data not found at %s/parquet-testing/data; "
			"corpus tests not run\n", TESTDATA_DIR);
	return false;
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *nb = realloc(buf, cap);
			ck_assert_ptr_nonnull(nb);
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names in dir ending in one of the suffixes. */
static char **list_files(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		bool ok = (l > 8 && strcmp(e->d_name + l - 8, ".parquet") == 0) ||
			  (l > 18 && strcmp(e->d_name + l - 18, ".parquet.encrypted") == 0);
		if (!ok)
			continue;
		names = realloc(names, (n + 1) * sizeof *names);
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_names);
	*count = n;
	return names;
}

static void free_list(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool bytes_eq(pq_bytes b, const char *s)
{
	return b.n == strlen(s) && memcmp(b.p, s, b.n) == 0;
}

static double num(const mj *v)
{
	ck_assert_msg(v && v->type == 'n', "facts: expected a number");
	return v->num;
}

static char *json_of(pq_struct_kind kind, const void *in)
{
	pq_buf b = PQ_BUF_INIT;
	pq_metadata_json(kind, in, NULL, &b);
	pq_buf_putc(&b, '\0');
	ck_assert(!b.oom);
	return (char *)pq_buf_take(&b, NULL);
}

/* interface.md "Details": chunk.bin starts at the smaller of the offsets
 * that are set and at least 4. */
static int64_t chunk_offset(const pq_column_meta_data *m)
{
	int64_t off = -1;
	if (m->data_page_offset >= 4)
		off = m->data_page_offset;
	if (m->has_dictionary_page_offset && m->dictionary_page_offset >= 4 &&
	    (off < 0 || m->dictionary_page_offset < off))
		off = m->dictionary_page_offset;
	return off;
}

static void check_facts(const char *name, const pq_file_meta_data *md, const mj *facts)
{
	ck_assert_msg(md->num_rows == (int64_t)num(mj_get(facts, "num_rows")), "%s: num_rows", name);
	const mj *cb = mj_get(facts, "created_by");
	if (cb && cb->type == 's')
		ck_assert_msg(md->has_created_by && bytes_eq(md->created_by, cb->str),
			      "%s: created_by", name);
	const mj *enc = mj_get(facts, "encrypted");
	ck_assert_msg(enc && (enc->type == 't') == md->has_encryption_algorithm,
		      "%s: encryption_algorithm", name);
	const mj *rgs = mj_get(facts, "row_groups");
	ck_assert_msg(md->row_groups.n == (uint32_t)num(mj_get(facts, "num_row_groups")) &&
		      rgs && rgs->n == md->row_groups.n, "%s: num_row_groups", name);
	for (uint32_t i = 0; i < md->row_groups.n; i++) {
		const pq_row_group *rg = &md->row_groups.v[i];
		const mj *frg = mj_at(rgs, i);
		ck_assert_msg(rg->num_rows == (int64_t)num(mj_get(frg, "num_rows")),
			      "%s: row group %u num_rows", name, i);
		const mj *fcols = mj_get(frg, "columns");
		ck_assert_msg(fcols && fcols->n == rg->columns.n, "%s: row group %u columns", name, i);
		for (uint32_t c = 0; c < rg->columns.n; c++) {
			const pq_column_chunk *cc = &rg->columns.v[c];
			const mj *fc = mj_at(fcols, c);
			ck_assert_msg(cc->has_meta_data, "%s: rg %u col %u: no meta_data", name, i, c);
			const pq_column_meta_data *m = &cc->meta_data;
			const mj *path = mj_get(fc, "path");
			ck_assert_msg(path && path->n == m->path_in_schema.n, "%s: path", name);
			for (uint32_t k = 0; k < path->n; k++)
				ck_assert_msg(bytes_eq(m->path_in_schema.v[k], mj_at(path, k)->str),
					      "%s: rg %u col %u: path[%u]", name, i, c, k);
			const char *type = pq_type_name(m->type), *codec = pq_codec_enum_name(m->codec);
			ck_assert_msg(type && strcmp(type, mj_get(fc, "physical_type")->str) == 0,
				      "%s: rg %u col %u: physical_type", name, i, c);
			ck_assert_msg(codec && strcmp(codec, mj_get(fc, "codec")->str) == 0,
				      "%s: rg %u col %u: codec", name, i, c);
			ck_assert_msg(m->num_values == (int64_t)num(mj_get(fc, "num_values")),
				      "%s: rg %u col %u: num_values", name, i, c);
			ck_assert_msg(m->total_compressed_size ==
				      (int64_t)num(mj_get(fc, "chunk_length")),
				      "%s: rg %u col %u: chunk_length", name, i, c);
			ck_assert_msg(chunk_offset(m) == (int64_t)num(mj_get(fc, "chunk_offset")),
				      "%s: rg %u col %u: chunk_offset", name, i, c);
			const mj *ci = mj_get(fc, "has_column_index"), *oi = mj_get(fc, "has_offset_index");
			ck_assert_msg((ci->type == 't') == cc->has_column_index_offset,
				      "%s: rg %u col %u: column index", name, i, c);
			ck_assert_msg((oi->type == 't') == cc->has_offset_index_offset,
				      "%s: rg %u col %u: offset index", name, i, c);
		}
	}
}

/* encode -> decode -> encode: same bytes, same JSON; the JSON is valid. */
static void check_round_trip(const char *name, const pq_file_meta_data *md, pq_arena *a,
			     const mj *facts)
{
	pq_error err = {0};
	pq_buf b1 = PQ_BUF_INIT, b2 = PQ_BUF_INIT;
	ck_assert_msg(pq_thrift_encode(PQ_S_FILE_META_DATA, md, &b1, &err) == PQ_OK, "%s: %s",
		      name, err.msg);
	pq_file_meta_data md2;
	size_t used;
	ck_assert_msg(pq_thrift_decode(PQ_S_FILE_META_DATA, b1.p, b1.len, &md2, &used, a, &err) ==
		      PQ_OK, "%s: re-decode: %s", name, err.msg);
	ck_assert_uint_eq(used, b1.len);
	ck_assert(pq_thrift_encode(PQ_S_FILE_META_DATA, &md2, &b2, &err) == PQ_OK);
	ck_assert_msg(b1.len == b2.len && memcmp(b1.p, b2.p, b1.len) == 0, "%s: encodings differ",
		      name);
	char *j1 = json_of(PQ_S_FILE_META_DATA, md), *j2 = json_of(PQ_S_FILE_META_DATA, &md2);
	ck_assert_msg(strcmp(j1, j2) == 0, "%s: JSON differs after the round trip", name);
	mj *doc = mj_parse(j1, strlen(j1));
	ck_assert_msg(doc != NULL, "%s: metadata JSON is not valid JSON", name);
	ck_assert(num(mj_get(doc, "num_rows")) == num(mj_get(facts, "num_rows")));
	ck_assert(mj_get(doc, "row_groups")->n == md->row_groups.n);
	mj_free(doc);
	free(j1);
	free(j2);
	pq_buf_free(&b1);
	pq_buf_free(&b2);
}

static mj *load_facts(const char *name)
{
	char path[1024];
	snprintf(path, sizeof path, TESTDATA_DIR "/expected/data/%s/facts.json", name);
	size_t n;
	char *text = (char *)read_all(path, &n);
	ck_assert_msg(text != NULL, "%s: no facts.json", name);
	mj *facts = mj_parse(text, n);
	free(text);
	ck_assert_msg(facts != NULL, "%s: facts.json does not parse", name);
	return facts;
}

START_TEST(test_corpus_footers)
{
	if (!have_testdata())
		return;
	size_t nfiles, checked = 0, encrypted = 0, damaged = 0;
	char **names = list_files(TESTDATA_DIR "/parquet-testing/data", &nfiles);
	ck_assert_uint_ge(nfiles, 60);
	for (size_t fi = 0; fi < nfiles; fi++) {
		const char *name = names[fi];
		char path[1024];
		snprintf(path, sizeof path, TESTDATA_DIR "/parquet-testing/data/%s", name);
		size_t len;
		uint8_t *file = read_all(path, &len);
		ck_assert_ptr_nonnull(file);
		mj *facts = load_facts(name);
		pq_error err = {0};
		pq_footer_loc loc;
		pq_status st = len >= 12 ? pq_footer_locate(file, file + len - 8, len, &loc, &err)
					 : pq_footer_locate((const uint8_t *)"\0\0\0\0",
							    (const uint8_t *)"\0\0\0\0\0\0\0\0", len,
							    &loc, &err);
		const mj *size = mj_get(facts, "size");
		if (size && (size_t)num(size) != len) {
			/* The copy of the test data is damaged: say so, and make sure
			 * it is refused cleanly rather than misread. */
			fprintf(stderr, "NOTE: %s is %zu bytes, facts.json says %.0f: test data "
					"damaged, footer checks skipped (locate: %s)\n",
				name, len, num(size), st == PQ_OK ? "ok" : err.msg);
			damaged++;
			mj_free(facts);
			free(file);
			continue;
		}
		ck_assert_msg(st == PQ_OK, "%s: %s", name, err.msg);
		pq_arena a;
		pq_arena_init(&a, 256u << 20);
		const uint8_t *footer = file + loc.offset;
		if (loc.encrypted) {
			/* Encrypted footer: only its FileCryptoMetaData is plaintext. */
			pq_file_crypto_meta_data fc;
			size_t used;
			ck_assert_msg(pq_thrift_decode(PQ_S_FILE_CRYPTO_META_DATA, footer, loc.length,
						       &fc, &used, &a, &err) == PQ_OK,
				      "%s: %s", name, err.msg);
			ck_assert(used < loc.length);
			const mj *e = mj_get(facts, "encryption");
			if (e) {
				ck_assert(mj_get(e, "encrypted_footer")->type == 't');
				ck_assert(strcmp(mj_get(e, "algorithm")->str, "AES_GCM_V1") == 0);
				ck_assert(fc.encryption_algorithm.has_AES_GCM_V1);
			}
			encrypted++;
		} else {
			pq_file_meta_data md;
			size_t used;
			ck_assert_msg(pq_footer_decode(&loc, footer, loc.length, &md, &used, &a, &err) ==
				      PQ_OK, "%s: %s", name, err.msg);
			const mj *e = mj_get(facts, "encryption");
			if (e) {
				/* Plaintext footer, signed: nonce and tag follow it. */
				ck_assert(mj_get(e, "encrypted_footer")->type == 'f');
				ck_assert(md.encryption_algorithm.has_AES_GCM_V1);
				ck_assert_uint_eq(loc.length - used, 28);
			} else {
				ck_assert_msg(used == loc.length, "%s: footer has %zu trailing bytes",
					      name, loc.length - used);
			}
			check_facts(name, &md, facts);
			check_round_trip(name, &md, &a, facts);
			checked++;
		}
		pq_arena_free(&a);
		mj_free(facts);
		free(file);
	}
	fprintf(stderr, "corpus: %zu plaintext footers checked against facts.json, %zu encrypted "
			"footers, %zu damaged files skipped\n", checked, encrypted, damaged);
	ck_assert_uint_ge(checked, 55);
	ck_assert_uint_ge(encrypted, 5);
	free_list(names, nfiles);
}
END_TEST

/* Bloom filters (data/README.md): bloom_filter.xxhash.bin has a thrift
 * header and numBytes of bitset to the end of the file; bloom_filter.bin
 * has the deprecated binary header, which must be refused cleanly. */
START_TEST(test_corpus_bloom_headers)
{
	if (!have_testdata())
		return;
	const char *files[] = {"bloom_filter.xxhash.bin", "bloom_filter.bin"};
	for (int i = 0; i < 2; i++) {
		char path[1024];
		snprintf(path, sizeof path, TESTDATA_DIR "/parquet-testing/data/%s", files[i]);
		size_t len, used;
		uint8_t *buf = read_all(path, &len);
		ck_assert_ptr_nonnull(buf);
		pq_arena a;
		pq_arena_init(&a, 0);
		pq_error err = {0};
		pq_bloom_filter_header h;
		pq_status st = pq_thrift_decode(PQ_S_BLOOM_FILTER_HEADER, buf, len, &h, &used, &a, &err);
		if (i == 0) {
			ck_assert_msg(st == PQ_OK, "%s: %s", files[i], err.msg);
			ck_assert(h.algorithm.has_BLOCK && h.hash.has_XXHASH &&
				  h.compression.has_UNCOMPRESSED);
			ck_assert_uint_eq(used + (size_t)h.numBytes, len);
		} else {
			ck_assert_int_eq(st, PQ_ECORRUPT);
			ck_assert_str_eq(err.msg, "BloomFilterHeader: required field numBytes (1) "
						  "missing");
		}
		pq_arena_free(&a);
		free(buf);
	}
}
END_TEST

/* xorshift64: reproducible flips without global state. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Decodes a mutated footer; when it decodes, it must also encode and
 * render. Returns the status. */
static pq_status try_footer(const uint8_t *p, size_t n, size_t *used)
{
	pq_arena a;
	pq_arena_init(&a, 64u << 20);
	pq_error err = {0};
	pq_file_meta_data md;
	pq_status st = pq_thrift_decode(PQ_S_FILE_META_DATA, p, n, &md, used, &a, &err);
	if (st == PQ_OK) {
		pq_buf b = PQ_BUF_INIT;
		(void)pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &b, &err);
		pq_metadata_json(PQ_S_FILE_META_DATA, &md, NULL, &b);
		pq_buf_free(&b);
	} else {
		ck_assert_msg(err.msg[0] != '\0', "failure without a message");
	}
	pq_arena_free(&a);
	return st;
}

static void fuzz_dir(const char *dir, size_t *footers)
{
	size_t nfiles;
	char **names = list_files(dir, &nfiles);
	for (size_t fi = 0; fi < nfiles; fi++) {
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, names[fi]);
		size_t len;
		uint8_t *file = read_all(path, &len);
		ck_assert_ptr_nonnull(file);
		pq_footer_loc loc;
		if (len < 12 || pq_footer_locate(file, file + len - 8, len, &loc, NULL) != PQ_OK ||
		    loc.encrypted) {
			free(file);
			continue;
		}
		(*footers)++;
		size_t flen = loc.length, used_full = 0;
		pq_status full = try_footer(file + loc.offset, flen, &used_full);
		/* Every truncation, each in its own exact-size buffer so ASan sees
		 * any read past the end. */
		uint8_t *copy = malloc(flen);
		bool all = flen <= 16384 || getenv("PQ_TEST_FULL");
		for (size_t cut = 0; cut < flen; cut++) {
			if (!all && cut > 2048 && cut + 1024 < flen && cut % 31 != 0)
				continue;
			memcpy(copy + flen - cut, file + loc.offset, cut);
			size_t used;
			pq_status st = try_footer(copy + flen - cut, cut, &used);
			if (full == PQ_OK && cut < used_full)
				ck_assert_msg(st != PQ_OK, "%s: prefix of %zu bytes decoded", names[fi],
					      cut);
		}
		/* 200 random byte flips. */
		uint64_t seed = 0x9e3779b97f4a7c15ull ^ flen;
		for (int k = 0; k < 200; k++) {
			memcpy(copy, file + loc.offset, flen);
			size_t pos = (size_t)(next_rand(&seed) % flen);
			copy[pos] ^= (uint8_t)(1 + next_rand(&seed) % 255);
			size_t used;
			(void)try_footer(copy, flen, &used);
		}
		free(copy);
		free(file);
	}
	free_list(names, nfiles);
}

START_TEST(test_corpus_truncations_and_flips)
{
	if (!have_testdata())
		return;
	size_t footers = 0;
	fuzz_dir(TESTDATA_DIR "/parquet-testing/data", &footers);
	fuzz_dir(TESTDATA_DIR "/parquet-testing/bad_data", &footers);
	ck_assert_uint_ge(footers, 60);
}
END_TEST

static Suite *corpus_suite(void)
{
	Suite *s = suite_create("meta_corpus");
	TCase *tc = tcase_create("corpus");
	tcase_set_timeout(tc, 1200);
	tcase_add_test(tc, test_corpus_footers);
	tcase_add_test(tc, test_corpus_bloom_headers);
	tcase_add_test(tc, test_corpus_truncations_and_flips);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	if (!have_testdata())
		return 77; /* automake: skipped */
	SRunner *sr = srunner_create(corpus_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
