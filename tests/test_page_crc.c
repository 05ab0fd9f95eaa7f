/* The page CRC check of the read path (pq_file_set_crc_check): a file
 * written with CRCs, two bytes of one page body flipped (the page still
 * decodes, to other values). With the check on (the default) the page's
 * body, its decode, the rows and the size pass's segments fail with
 * PQ_ECHECKSUM and a message naming the page and both CRCs; off, they
 * are served as decoded. verify.txt reports the mismatch once, with the
 * same text either way. The same for a damaged dictionary page, which
 * fails the data pages that decode through it. */
#include "config.h"

#include <inttypes.h>

#include "codec/pq_codec.h"
#include "pq_sizes.h"
#include "test_writer_helpers.h"

#define ROWS 1000

/* A file of one INT64 column (values i % 10 with the dictionary, i * 7
 * without), uncompressed, with page CRCs. */
static void write_file(wfile *x, bool dictionary)
{
	els e = {.n = 0};
	grp(&e, "m", -1, 1);
	prim(&e, "x", PQ_REQUIRED, PQ_INT64);
	pq_write_options o;
	pq_write_options_init(&o);
	o.codec = PQ_CODEC_UNCOMPRESSED;
	o.dictionary = dictionary;
	ck_assert(o.crc);
	static int64_t v[ROWS];
	for (size_t i = 0; i < ROWS; i++)
		v[i] = dictionary ? (int64_t)(i % 10) : (int64_t)i * 7;
	wopen(x, &e, &o);
	pq_values pv = vals(PQ_INT64, 0, ROWS, v);
	wput(x, 0, ROWS, NULL, &pv);
	wend(x);
	(void)wclose(x);
}

/* Flips the last two bytes of the page's body in the file; the CRC the
 * damaged body has. */
static uint32_t damage(wfile *x, const pq_page_info *pi)
{
	ck_assert(pi->header.has_crc);
	ck_assert_uint_ge(pi->body_len, 2);
	uint8_t *b = malloc(pi->body_len);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pread(x->fd, b, pi->body_len, (off_t)pi->body_offset), (ssize_t)pi->body_len);
	ck_assert_uint_eq(pq_crc32(b, pi->body_len), (uint32_t)pi->header.crc);
	b[pi->body_len - 2] ^= 1;
	b[pi->body_len - 1] ^= 1;
	ck_assert_int_eq(pwrite(x->fd, b, pi->body_len, (off_t)pi->body_offset), (ssize_t)pi->body_len);
	uint32_t crc = pq_crc32(b, pi->body_len);
	free(b);
	return crc;
}

static void assert_names(const char *msg, const char *page, uint32_t stored, uint32_t computed)
{
	char want[128];
	snprintf(want, sizeof want, "CRC mismatch: stored 0x%08" PRIx32 ", computed 0x%08" PRIx32,
		 stored, computed);
	ck_assert_msg(strstr(msg, want), "\"%s\" does not say \"%s\"", msg, want);
	ck_assert_msg(strstr(msg, page), "\"%s\" does not name \"%s\"", msg, page);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void run(bool dictionary)
{
	wfile x;
	write_file(&x, dictionary);
	pq_error err;
	pq_error_clear(&err);
	pq_chunk_layout *l0;
	ck_assert_int_eq(pq_chunk_layout_load(x.f, 0, 0, &l0, &err), PQ_OK);
	ck_assert(!dictionary || l0->dict);
	const pq_page_info *bad0 = dictionary ? l0->dict : &l0->pages[0];
	uint32_t stored = (uint32_t)bad0->header.crc;
	uint32_t computed = damage(&x, bad0);
	pq_chunk_layout_free(l0);
	const char *page = dictionary ? "dictionary page" : "page 0";

	/* the damaged file, opened afresh */
	pq_file *f;
	ck_assert_int_eq(pq_file_open_fd(x.fd, "crc.parquet", NULL, &f, &err), PQ_OK);
	pq_chunk_layout *l;
	ck_assert_int_eq(pq_chunk_layout_load(f, 0, 0, &l, &err), PQ_OK);
	const pq_page_info *bad = dictionary ? l->dict : &l->pages[0];
	char *verify_on = NULL;
	for (int on = 1; on >= 0; on--) {
		pq_file_set_crc_check(f, on);
		/* the page's bytes (data.bin) */
		uint8_t *body = NULL;
		size_t blen;
		pq_error_clear(&err);
		pq_status st = pq_page_body(f, l, bad, &body, &blen, &err);
		ck_assert_int_eq(st, on ? PQ_ECHECKSUM : PQ_OK);
		if (on)
			assert_names(err.msg, page, stored, computed);
		free(body);
		/* its values, and those of the data page that decodes through it */
		pq_page_data *dict = NULL, *pd = NULL;
		pq_error_clear(&err);
		if (dictionary) {
			st = pq_page_decode(f, l, l->dict, NULL, &dict, &err);
			ck_assert_int_eq(st, on ? PQ_ECHECKSUM : PQ_OK);
		}
		if (!dictionary || !on) {
			pq_error_clear(&err);
			st = pq_page_decode(f, l, &l->pages[0], dict, &pd, &err);
			ck_assert_int_eq(st, on ? PQ_ECHECKSUM : PQ_OK);
			if (on)
				assert_names(err.msg, page, stored, computed);
			else
				ck_assert_uint_eq(pd->values.n, ROWS);
		}
		pq_page_data_unref(pd);
		pq_page_data_unref(dict);
		/* the rows (data.csv) */
		pq_buf rows = PQ_BUF_INIT;
		pq_error_clear(&err);
		st = pq_dump_rows(f, PQ_ALL, PQ_ROWS_CSV, &rows, &err);
		ck_assert_int_eq(st, on ? PQ_ECHECKSUM : PQ_OK);
		if (on)
			assert_names(err.msg, page, stored, computed);
		/* the size pass: the chunk and the row group failed, or measured */
		pq_file_sizes *s = NULL;
		pq_sizes_options so = {.threads = 1, .keep_verify_text = true};
		pq_error_clear(&err);
		ck_assert_int_eq(pq_file_measure(f, &so, &s, &err), PQ_OK);
		ck_assert_int_eq(s->chunks[0].status, on ? PQ_ECHECKSUM : PQ_OK);
		if (on) {
			assert_names(s->chunks[0].msg, page, stored, computed);
			ck_assert_uint_eq(s->rg_csv[0], PQ_SIZE_FAILED);
			ck_assert_uint_eq(s->chunks[0].pages[0].values, PQ_SIZE_FAILED);
		} else {
			ck_assert_uint_eq(s->csv, rows.len); /* data.csv: header and rows */
		}
		pq_buf_free(&rows);
		/* verify.txt: the mismatch once, the same text with the check on and off */
		char *v = verify(f);
		char line[160];
		snprintf(line, sizeof line, "%s: CRC mismatch: stored 0x%08" PRIx32 ", computed 0x%08" PRIx32 "\n",
			 page, stored, computed);
		ck_assert_msg(count(v, "CRC mismatch") == 1 && strstr(v, line), "%s", v);
		ck_assert_msg(ends_with(v, "FAILED: 1 problems\n"), "%s", v);
		ck_assert_uint_eq(s->verify, strlen(v));
		if (on)
			verify_on = v;
		else {
			ck_assert_str_eq(v, verify_on);
			free(v);
		}
		pq_file_sizes_free(s);
	}
	free(verify_on);
	pq_chunk_layout_free(l);
	pq_file_free(f);
	wdone(&x);
}

START_TEST(test_data_page) { run(false); }
END_TEST

START_TEST(test_dictionary_page) { run(true); }
END_TEST

int main(void)
{
	Suite *s = suite_create("page_crc");
	TCase *tc = tcase_create("crc");
	tcase_add_test(tc, test_data_page);
	tcase_add_test(tc, test_dictionary_page);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
