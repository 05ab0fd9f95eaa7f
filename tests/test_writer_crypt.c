/* The writer with modular encryption, read back by the reader with the
 * keys of a key_file: every mode of the contract (uniform key, column
 * keys, plaintext signed footer, AES_GCM_CTR_V1, a stored AAD prefix,
 * 128/192/256-bit keys) gives the same rows, column index and bloom filter
 * bits as the same table written without encryption, verify.txt says OK,
 * and a wrong or missing key is a clear error. */
#include "config.h"

#include "test_writer_helpers.h"

#include "pq_keyring.h"

#define ROWS 5000
#define RG_ROWS 2000

static const char *names[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"};

static void schema(els *e)
{
	e->n = 0;
	grp(e, "schema", -1, 3);
	prim(e, "id", PQ_REQUIRED, PQ_INT64);
	pq_schema_element *s = prim(e, "name", PQ_OPTIONAL, PQ_BYTE_ARRAY);
	s->has_logicalType = s->logicalType.has_STRING = true;
	prim(e, "x", PQ_OPTIONAL, PQ_DOUBLE);
}

/* Writes the table; returns the fd of the file (kept open, unlinked). */
static int write_table(const pq_write_options *o)
{
	els e;
	schema(&e);
	wfile x;
	wopen(&x, &e, o);
	int64_t ids[RG_ROWS];
	double xs[RG_ROWS];
	pq_bytes strs[RG_ROWS];
	uint8_t defn[RG_ROWS], defx[RG_ROWS];
	for (size_t r0 = 0; r0 < ROWS; r0 += RG_ROWS) {
		size_t n = ROWS - r0 < RG_ROWS ? ROWS - r0 : RG_ROWS, ns = 0, nx = 0;
		for (size_t i = 0; i < n; i++) {
			size_t r = r0 + i;
			ids[i] = (int64_t)r * 3 - 7;
			defn[i] = r % 11 != 0;
			if (defn[i]) {
				const char *s = names[r % 7];
				strs[ns++] = (pq_bytes){(const uint8_t *)s, strlen(s)};
			}
			defx[i] = r % 5 != 0;
			if (defx[i])
				xs[nx++] = (double)r / 8.0;
		}
		pq_values v = vals(PQ_INT64, 0, n, ids);
		wput(&x, 0, n, NULL, &v);
		v = vals(PQ_BYTE_ARRAY, 0, ns, strs);
		wput(&x, 1, n, defn, &v);
		v = vals(PQ_DOUBLE, 0, nx, xs);
		wput(&x, 2, n, defx, &v);
		wend(&x);
	}
	pq_error err;
	ck_assert_msg(pq_writer_close(x.w, NULL, &err) == PQ_OK, "close: %s", err.msg);
	pq_writer_free(x.w);
	unlink(x.path);
	return x.fd;
}

static pq_file *read_back(int fd, const pq_keyring *kr, pq_status want, const char *want_msg)
{
	struct stat sb;
	ck_assert_int_eq(fstat(fd, &sb), 0);
	pq_file *f = NULL;
	pq_error err;
	pq_error_clear(&err);
	pq_status st = pq_file_open_fd(fd, "enc/t.parquet", kr, &f, &err);
	ck_assert_msg(st == want, "open gave %d: %s", st, err.msg);
	if (want_msg)
		ck_assert_msg(strstr(err.msg, want_msg), "'%s' lacks '%s'", err.msg, want_msg);
	return f;
}

/* Everything that must not change with encryption, as one text. */
static char *portrait(const pq_file *f)
{
	pq_buf out = PQ_BUF_INIT;
	pq_error err;
	char *rows = render(f, PQ_ROWS_CSV);
	pq_buf_puts(&out, rows);
	free(rows);
	for (uint32_t rg = 0; rg < pq_file_num_row_groups(f); rg++)
		for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
			ck_assert_msg(pq_text_column_index(f, rg, c, &out, &err) == PQ_OK, "%s", err.msg);
			pq_buf b = PQ_BUF_INIT;
			ck_assert_msg(pq_text_bloom_filter(f, rg, c, &b, &err) == PQ_OK, "%s", err.msg);
			pq_buf_putc(&b, '\0');
			const char *bits = strstr((char *)b.p, "bits_set");
			pq_buf_puts(&out, bits ? bits : "no bloom\n");
			pq_buf_free(&b);
			const pq_column_meta_data *m = pq_file_chunk_meta(f, rg, c);
			ck_assert(m && m->has_statistics);
			pq_buf_printf(&out, "nulls %lld\n", (long long)m->statistics.null_count);
		}
	pq_buf_putc(&out, '\0');
	return (char *)out.p;
}

typedef struct mode {
	const char *name;
	bool column_keys, plaintext_footer, ctr;
	const char *aad_prefix;
	size_t key_len;
} mode;

static const mode modes[] = {
	{"uniform", false, false, false, NULL, 16},
	{"column keys", true, false, false, NULL, 16},
	{"plaintext footer", true, true, false, NULL, 24},
	{"plaintext footer, uniform", false, true, false, NULL, 16},
	{"gcm-ctr", true, false, true, NULL, 32},
	{"aad prefix", true, false, false, "sales.2026-11-21", 32},
	{"gcm-ctr, plaintext footer, prefix", true, true, true, "p", 16},
};

static const unsigned char kf[32] = "0123456789abcdef0123456789ABCDEF";
static const unsigned char kx[32] = "xxxxxxxxxxxxxxxxyyyyyyyyyyyyyyyy";

static pq_keyring *keyring(size_t len, bool with_x)
{
	pq_buf t = PQ_BUF_INIT;
	pq_buf_puts(&t, "key kf: ");
	for (size_t i = 0; i < len; i++)
		pq_buf_printf(&t, "%02x", kf[i]);
	if (with_x) {
		pq_buf_puts(&t, "\nkey kx: ");
		for (size_t i = 0; i < len; i++)
			pq_buf_printf(&t, "%02x", kx[i]);
	}
	pq_buf_putc(&t, '\n');
	pq_keyring *kr;
	pq_error err;
	ck_assert_msg(pq_keyring_parse((const char *)t.p, t.len, "k", &kr, &err) == PQ_OK, "%s", err.msg);
	pq_buf_free(&t);
	return kr;
}

static void options(pq_write_options *o, const mode *m, pq_column_key *ck)
{
	pq_write_options_init(o);
	o->page_size = 2048;
	o->codec = PQ_CODEC_SNAPPY;
	static const char *const bloom[] = {"name", NULL};
	o->bloom_columns = bloom;
	if (!m)
		return;
	o->footer_key_id = "kf";
	o->footer_key = kf;
	o->footer_key_len = m->key_len;
	if (m->column_keys) {
		*ck = (pq_column_key){"x", "kx", kx, m->key_len};
		o->column_keys = ck;
		o->n_column_keys = 1;
	}
	o->plaintext_footer = m->plaintext_footer;
	o->gcm_ctr = m->ctr;
	o->aad_prefix = m->aad_prefix;
}

START_TEST(test_modes_read_back_identical)
{
	const mode *m = &modes[_i];
	pq_write_options o;
	pq_column_key ck;
	options(&o, NULL, &ck);
	int pfd = write_table(&o);
	pq_file *pf = read_back(pfd, NULL, PQ_OK, NULL);
	char *want = portrait(pf);

	options(&o, m, &ck);
	int fd = write_table(&o);
	pq_keyring *kr = keyring(m->key_len, true);
	pq_file *f = read_back(fd, kr, PQ_OK, NULL);
	char *got = portrait(f);
	ck_assert_msg(strcmp(want, got) == 0, "%s: differs from the plain file", m->name);
	char *v = verify(f);
	ck_assert_msg(ends_with(v, "OK\n"), "%s: verify.txt:\n%s", m->name, v);
	free(v);
	pq_buf meta = PQ_BUF_INIT;
	pq_text_file_metadata(f, &meta);
	pq_buf_putc(&meta, '\0');
	const char *txt = (const char *)meta.p;
	ck_assert_msg(strstr(txt, m->ctr ? "AES_GCM_CTR_V1" : "AES_GCM_V1"), "%s", txt);
	ck_assert_msg(strstr(txt, m->plaintext_footer ? "signature verified" : "footer: encrypted, key kf"), "%s", txt);
	ck_assert_msg(strstr(txt, "encrypted_columns: 3 of 3"), "%s", txt);
	ck_assert_msg(strstr(txt, m->column_keys ? "x: column key kx" : "x: footer key"), "%s", txt);
	if (m->aad_prefix)
		ck_assert(strstr(txt, "aad_prefix stored"));
	pq_buf_free(&meta);
	pq_file_free(f);

	/* without kx: x fails with its key id, id and name still read */
	pq_keyring *kf_only = keyring(m->key_len, false);
	f = read_back(fd, kf_only, PQ_OK, NULL);
	pq_buf out = PQ_BUF_INIT;
	pq_error err;
	pq_status st = pq_dump_column(f, PQ_ALL, 2, false, &out, &err);
	if (m->column_keys)
		ck_assert_msg(st == PQ_EKEY && strstr(err.msg, "'kx'"), "%d %s", st, err.msg);
	else
		ck_assert(st == PQ_OK);
	out.len = 0;
	ck_assert_msg(pq_dump_column(f, PQ_ALL, 1, false, &out, &err) == PQ_OK, "%s", err.msg);
	pq_buf_free(&out);
	pq_file_free(f);
	pq_keyring_free(kf_only);

	/* no keys at all: an encrypted footer names kf; a plaintext one opens */
	f = read_back(fd, NULL, m->plaintext_footer ? PQ_OK : PQ_EKEY, m->plaintext_footer ? NULL : "'kf'");
	pq_file_free(f);
	/* a wrong footer key */
	pq_keyring *wrong;
	const char *wt = "key kf: \"0000000000000000\"\nkey kx: \"0000000000000000\"\n";
	ck_assert(pq_keyring_parse(wt, strlen(wt), "w", &wrong, &err) == PQ_OK);
	f = read_back(fd, wrong, PQ_EAUTH, m->plaintext_footer ? "signature check failed" : "GCM tag check failed");
	pq_keyring_free(wrong);

	free(want);
	free(got);
	pq_file_free(pf);
	pq_keyring_free(kr);
	close(fd);
	close(pfd);
}
END_TEST

START_TEST(test_bad_keys_refused)
{
	pq_write_options o;
	pq_column_key ck;
	mode m = {"bad", true, false, false, NULL, 16};
	options(&o, &m, &ck);
	o.footer_key_len = 15;
	els e;
	schema(&e);
	char path[256];
	int fd = tmpfile_fd(path);
	unlink(path);
	pq_writer *w;
	pq_error err;
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);
	options(&o, &m, &ck);
	ck.column = "nope";
	ck_assert_int_eq(pq_writer_open(&w, fd, e.v, e.n, &o, NULL, 0, &err), PQ_EINVAL);
	ck_assert_msg(strstr(err.msg, "nope"), "%s", err.msg);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("writer_crypt");
	TCase *tc = tcase_create("modes");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_modes_read_back_identical, 0, (int)(sizeof modes / sizeof *modes));
	tcase_add_test(tc, test_bad_keys_refused);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
