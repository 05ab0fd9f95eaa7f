#include "config.h"

/* Decoders against real files: every column chunk of the parquet-testing
 * files whose expected values are in testdata/expected. A small page walker
 * (test-only: a PageHeader reader and the compression libraries called
 * directly) feeds pages to the level and value decoders; decoded values are
 * rendered and compared with columns/<col>/values.txt, which was produced by
 * two independent readers (see testdata/README.md).
 *
 * Chunk locations, codecs and column kinds come from each file's facts.json. */

#include <brotli/decode.h>
#include <check.h>
#include <dirent.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <lz4.h>
#include <math.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "encoding/pq_encoding.h"
#include "test_files.h"

#ifndef TESTDATA_DIR
#define TESTDATA_DIR "../shared/testdata"
#endif

static pq_error err;
static char where[512]; /* file, column, page: for failure messages */

#define CHECK_OK(expr, what)                                                    \
	do {                                                                    \
		pq_status st_ = (expr);                                         \
		ck_assert_msg(st_ == PQ_OK, "%s: %s: %s", where, what, err.msg); \
	} while (0)


/* ---- facts.json (just the keys used here, in the order they appear) ---- */

typedef struct column {
	char dir[256];
	char type[32], kind[16];
	int max_def, max_rep;
} column;

typedef struct chunk {
	int col; /* index into columns */
	char codec[16];
	uint64_t num_values, offset, length;
} chunk;

/* The string value of "key" at or after *at; advances *at past it. */
static bool json_str(const char *js, const char **at, const char *key, char *out, size_t cap)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\": \"", key);
	const char *p = strstr(*at, pat);
	if (!p)
		return false;
	p += strlen(pat);
	size_t n = 0;
	for (; *p && *p != '"'; p++) {
		if (*p == '\\')
			return false; /* escapes: not needed by the files used */
		if (n + 1 < cap)
			out[n++] = *p;
	}
	out[n] = 0;
	*at = p;
	(void)js;
	return true;
}

static bool json_num(const char **at, const char *key, uint64_t *v)
{
	char pat[64];
	snprintf(pat, sizeof pat, "\"%s\": ", key);
	const char *p = strstr(*at, pat);
	if (!p)
		return false;
	p += strlen(pat);
	*v = strtoull(p, (char **)&p, 10);
	*at = p;
	return true;
}

typedef struct facts {
	uint64_t size; /* of the .parquet file */
	column cols[512];
	int ncols;
	chunk chunks[4096];
	int nchunks;
} facts;

static bool read_facts(const char *js, facts *f)
{
	if (strstr(js, "\"encrypted\": true") || strstr(js, "expect_error"))
		return false;
	const char *rg = strstr(js, "\"row_groups\"");
	if (!rg)
		return false;
	const char *at = js;
	if (!json_num(&at, "size", &f->size))
		return false;
	at = strstr(js, "\"columns\"");
	f->ncols = f->nchunks = 0;
	char dir[256];
	while (at && at < rg) {
		const char *save = at;
		if (!json_str(js, &at, "dir", dir, sizeof dir) || at > rg) {
			at = save;
			break;
		}
		column *c = &f->cols[f->ncols++];
		ck_assert(f->ncols < 512);
		snprintf(c->dir, sizeof c->dir, "%s", dir);
		uint64_t d, r;
		if (!json_str(js, &at, "physical_type", c->type, sizeof c->type) ||
		    !json_str(js, &at, "kind", c->kind, sizeof c->kind) ||
		    !json_num(&at, "max_def", &d) || !json_num(&at, "max_rep", &r))
			return false;
		c->max_def = (int)d;
		c->max_rep = (int)r;
	}
	at = rg;
	while (json_str(js, &at, "dir", dir, sizeof dir)) {
		chunk *k = &f->chunks[f->nchunks++];
		ck_assert(f->nchunks < 4096);
		k->col = -1;
		for (int i = 0; i < f->ncols; i++)
			if (!strcmp(f->cols[i].dir, dir))
				k->col = i;
		if (k->col < 0 || !json_str(js, &at, "codec", k->codec, sizeof k->codec) ||
		    !json_num(&at, "num_values", &k->num_values) ||
		    !json_num(&at, "chunk_offset", &k->offset) ||
		    !json_num(&at, "chunk_length", &k->length))
			return false;
	}
	return f->nchunks > 0;
}

/* ---- PageHeader, thrift compact protocol ---- */

typedef struct rd {
	const uint8_t *p;
	size_t len, pos;
	bool bad;
} rd;

static uint64_t rd_varint(rd *r)
{
	uint64_t v = 0;
	for (unsigned s = 0; s < 64; s += 7) {
		if (r->pos >= r->len) {
			r->bad = true;
			return 0;
		}
		uint8_t c = r->p[r->pos++];
		v |= (uint64_t)(c & 0x7f) << s;
		if (!(c & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_int(rd *r)
{
	uint64_t z = rd_varint(r);
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

static void rd_skip(rd *r, int type, int depth);

static void rd_skip_struct(rd *r, int depth)
{
	while (!r->bad) {
		if (r->pos >= r->len) {
			r->bad = true;
			return;
		}
		uint8_t b = r->p[r->pos++];
		if (!b)
			return;
		if (!(b >> 4))
			rd_int(r);
		rd_skip(r, b & 15, depth + 1);
	}
}

static void rd_skip(rd *r, int type, int depth)
{
	if (depth > 32) {
		r->bad = true;
		return;
	}
	switch (type) {
	case 1:
	case 2:
		break;
	case 3:
		r->pos++;
		break;
	case 4:
	case 5:
	case 6:
		rd_varint(r);
		break;
	case 7:
		r->pos += 8;
		break;
	case 8:
		r->pos += rd_varint(r);
		break;
	case 9:
	case 10: {
		if (r->pos >= r->len) {
			r->bad = true;
			return;
		}
		uint8_t h = r->p[r->pos++];
		uint64_t n = h >> 4;
		if (n == 15)
			n = rd_varint(r);
		for (uint64_t i = 0; i < n && !r->bad; i++)
			rd_skip(r, (h & 15) == 1 || (h & 15) == 2 ? 3 : h & 15, depth + 1);
		break;
	}
	case 11: {
		uint64_t n = rd_varint(r);
		if (n && r->pos < r->len) {
			uint8_t kv = r->p[r->pos++];
			for (uint64_t i = 0; i < n && !r->bad; i++) {
				rd_skip(r, kv >> 4, depth + 1);
				rd_skip(r, kv & 15, depth + 1);
			}
		}
		break;
	}
	case 12:
		rd_skip_struct(r, depth);
		break;
	default:
		r->bad = true;
	}
	if (r->pos > r->len)
		r->bad = true;
}

typedef struct page {
	int type;
	int64_t usize, csize;
	int64_t num_values, encoding, def_enc, rep_enc; /* data page v1 / dictionary */
	int64_t def_len, rep_len;                      /* v2 */
	bool v2_compressed;
} page;

/* Reads the i32 fields 1..n of a nested struct into out[1..n]. */
static void rd_struct_ints(rd *r, int64_t *out, int n, bool *flag7)
{
	int id = 0;
	while (!r->bad) {
		if (r->pos >= r->len) {
			r->bad = true;
			return;
		}
		uint8_t b = r->p[r->pos++];
		if (!b)
			return;
		id = b >> 4 ? id + (b >> 4) : (int)rd_int(r);
		int t = b & 15;
		if (t == 5 && id >= 1 && id <= n)
			out[id] = rd_int(r);
		else if ((t == 1 || t == 2) && id == 7 && flag7)
			*flag7 = t == 1;
		else
			rd_skip(r, t, 1);
	}
}

static bool read_page_header(const uint8_t *p, size_t len, page *pg, size_t *hlen)
{
	rd r = {p, len, 0, false};
	memset(pg, 0, sizeof *pg);
	pg->v2_compressed = true;
	int id = 0;
	int64_t f[9];
	while (!r.bad) {
		if (r.pos >= r.len)
			return false;
		uint8_t b = r.p[r.pos++];
		if (!b)
			break;
		id = b >> 4 ? id + (b >> 4) : (int)rd_int(&r);
		int t = b & 15;
		memset(f, 0, sizeof f);
		if (t == 5 && id == 1)
			pg->type = (int)rd_int(&r);
		else if (t == 5 && id == 2)
			pg->usize = rd_int(&r);
		else if (t == 5 && id == 3)
			pg->csize = rd_int(&r);
		else if (t == 12 && (id == 5 || id == 7)) {
			rd_struct_ints(&r, f, 4, NULL);
			pg->num_values = f[1];
			pg->encoding = f[2];
			pg->def_enc = f[3];
			pg->rep_enc = f[4];
		} else if (t == 12 && id == 8) {
			rd_struct_ints(&r, f, 6, &pg->v2_compressed);
			pg->num_values = f[1];
			pg->encoding = f[4];
			pg->def_len = f[5];
			pg->rep_len = f[6];
		} else
			rd_skip(&r, t, 0);
	}
	*hlen = r.pos;
	return !r.bad && pg->csize >= 0 && pg->usize >= 0;
}

/* ---- decompression through the libraries ---- */

static bool decompress(const char *codec, const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	if (!strcmp(codec, "UNCOMPRESSED"))
		return n == cap && (memcpy(out, in, n), true);
	if (!strcmp(codec, "SNAPPY")) {
		size_t ol = cap;
		return snappy_uncompress((const char *)in, n, (char *)out, &ol) == SNAPPY_OK &&
		       ol == cap;
	}
	if (!strcmp(codec, "ZSTD"))
		return ZSTD_decompress(out, cap, in, n) == cap;
	if (!strcmp(codec, "LZ4_RAW"))
		return LZ4_decompress_safe((const char *)in, (char *)out, (int)n, (int)cap) == (int)cap;
	if (!strcmp(codec, "BROTLI")) {
		size_t ol = cap;
		return BrotliDecoderDecompress(n, in, &ol, out) == BROTLI_DECODER_RESULT_SUCCESS &&
		       ol == cap;
	}
	if (!strcmp(codec, "GZIP")) {
		z_stream z = {0};
		if (inflateInit2(&z, 15 + 32) != Z_OK)
			return false;
		z.next_in = (Bytef *)(uintptr_t)in;
		z.avail_in = (uInt)n;
		z.next_out = out;
		z.avail_out = (uInt)cap;
		int rc;
		while ((rc = inflate(&z, Z_NO_FLUSH)) == Z_STREAM_END && z.avail_in)
			inflateReset(&z); /* concatenated members */
		inflateEnd(&z);
		return (rc == Z_STREAM_END || rc == Z_BUF_ERROR) && z.avail_out == 0;
	}
	return false;
}

static bool codec_supported(const char *codec)
{
	return strcmp(codec, "LZ4") && strcmp(codec, "LZO");
}

/* ---- rendering (interface.md, "Rendering values"), the kinds compared ---- */

static bool utf8_valid(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		size_t k;
		uint32_t cp;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xe0) == 0xc0) {
			k = 1;
			cp = c & 0x1f;
		} else if ((c & 0xf0) == 0xe0) {
			k = 2;
			cp = c & 0x0f;
		} else if ((c & 0xf8) == 0xf0) {
			k = 3;
			cp = c & 0x07;
		} else {
			return false;
		}
		if (n - i <= k)
			return false;
		for (size_t j = 1; j <= k; j++) {
			if ((s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		static const uint32_t min[] = {0, 0x80, 0x800, 0x10000};
		if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += k + 1;
	}
	return true;
}

static void put_escaped(char *dst, size_t cap, const uint8_t *s, size_t n)
{
	size_t o = 0;
	for (size_t i = 0; i < n && o + 3 < cap; i++) {
		char e = s[i] == '\\' ? '\\' : s[i] == '\n' ? 'n' : s[i] == '\r' ? 'r'
					       : s[i] == '\t' ? 't' : 0;
		if (e) {
			dst[o++] = '\\';
			dst[o++] = e;
		} else {
			dst[o++] = (char)s[i];
		}
	}
	dst[o] = 0;
}

/* Renders value j; false when this kind is not compared here. For floats
 * the expected text is parsed instead (shortest round-trip formatting is
 * not this module's business) and the comparison done in *float_ok. */
static bool render(const column *c, const pq_values *v, size_t j, const char *want, char *dst,
		   size_t cap, int *float_ok)
{
	*float_ok = -1;
	if (!strcmp(c->kind, "int") || !strcmp(c->kind, "uint")) {
		bool u = c->kind[0] == 'u';
		if (v->type == PQ_INT32)
			u ? snprintf(dst, cap, "%" PRIu32, (uint32_t)v->v.i32[j])
			  : snprintf(dst, cap, "%" PRId32, v->v.i32[j]);
		else if (v->type == PQ_INT64)
			u ? snprintf(dst, cap, "%" PRIu64, (uint64_t)v->v.i64[j])
			  : snprintf(dst, cap, "%" PRId64, v->v.i64[j]);
		else
			return false;
		return true;
	}
	if (!strcmp(c->kind, "bool") && v->type == PQ_BOOLEAN) {
		snprintf(dst, cap, "%s", v->v.b[j] ? "true" : "false");
		return true;
	}
	if (!strcmp(c->kind, "float") && (v->type == PQ_FLOAT || v->type == PQ_DOUBLE)) {
		double got = v->type == PQ_FLOAT ? v->v.f32[j] : v->v.f64[j];
		double exp = v->type == PQ_FLOAT ? strtof(want, NULL) : strtod(want, NULL);
		*float_ok = (isnan(got) && isnan(exp)) ||
			    (got == exp && signbit(got) == signbit(exp));
		return true;
	}
	if (!strcmp(c->kind, "string") || !strcmp(c->kind, "bytes")) {
		const uint8_t *s;
		size_t n;
		if (v->type == PQ_BYTE_ARRAY) {
			s = v->v.ba[j].p;
			n = v->v.ba[j].n;
		} else if (v->type == PQ_FIXED_LEN_BYTE_ARRAY) {
			n = (size_t)v->type_length;
			s = v->v.fixed + j * n;
		} else {
			return false;
		}
		bool text = utf8_valid(s, n);
		if (c->kind[0] == 'b')
			for (size_t i = 0; i < n && text; i++)
				text = !(s[i] <= 0x08 || s[i] == 0x0b || s[i] == 0x0c ||
					 (s[i] >= 0x0e && s[i] <= 0x1f) || s[i] == 0x7f);
		if (text) {
			put_escaped(dst, cap, s, n);
		} else if (c->kind[0] == 'b') {
			size_t o = (size_t)snprintf(dst, cap, "0x");
			for (size_t i = 0; i < n && o + 3 < cap; i++)
				o += (size_t)snprintf(dst + o, cap - o, "%02x", s[i]);
		} else {
			return false; /* replacement characters: not compared */
		}
		return true;
	}
	return false;
}

/* ---- the walk ---- */

typedef struct stats {
	size_t values, compared, chunks;
} stats;

typedef struct expect {
	char *text;
	char *cur; /* next line */
} expect;

static const char *next_line(expect *e)
{
	if (!e->cur || !*e->cur)
		return NULL;
	char *nl = strchr(e->cur, '\n');
	if (!nl)
		return NULL;
	*nl = 0;
	const char *line = e->cur;
	e->cur = nl + 1;
	return line;
}

static int32_t type_of(const char *t)
{
	static const char *const names[] = {"BOOLEAN", "INT32", "INT64", "INT96",
					    "FLOAT", "DOUBLE", "BYTE_ARRAY",
					    "FIXED_LEN_BYTE_ARRAY"};
	for (int i = 0; i < 8; i++)
		if (!strcmp(t, names[i]))
			return i;
	return -1;
}

/* Levels of one kind from a v1 page (RLE with length prefix or BIT_PACKED)
 * or a v2 page (hybrid of v2len bytes). Advances *pos. */
static void read_levels(const char *what, const uint8_t *p, size_t len, size_t *pos, int max,
			size_t n, bool v2, int64_t v2len, int64_t enc, uint16_t *out)
{
	int bw = pq_bit_width((uint64_t)max);
	if (v2) {
		ck_assert(v2len >= 0 && (size_t)v2len <= len - *pos);
		CHECK_OK(pq_rle_decode_levels(p + *pos, (size_t)v2len, bw, out, n, NULL, &err),
				 what);
		*pos += (size_t)v2len;
	} else if (enc == PQ_ENC_BIT_PACKED) {
		size_t used;
		CHECK_OK(pq_bitpacked_decode_levels(p + *pos, len - *pos, bw, out, n, &used,
							    &err),
				 what);
		*pos += used;
	} else {
		ck_assert(len - *pos >= 4);
		uint32_t l = (uint32_t)p[*pos] | (uint32_t)p[*pos + 1] << 8 |
			     (uint32_t)p[*pos + 2] << 16 | (uint32_t)p[*pos + 3] << 24;
		*pos += 4;
		ck_assert(l <= len - *pos);
		CHECK_OK(pq_rle_decode_levels(p + *pos, l, bw, out, n, NULL, &err), what);
		*pos += l;
	}
}

/* Decodes the values section of a data page. */
static void decode_values(const column *c, int32_t type, int64_t enc, const pq_values *dict,
			  const uint8_t *p, size_t len, size_t k, pq_values *v, pq_arena *a)
{
	int32_t tl = 0;
	if (type == PQ_FIXED_LEN_BYTE_ARRAY && k)
		tl = (int32_t)(len / k); /* PLAIN and BYTE_STREAM_SPLIT fill the page */
	(void)c;
	switch (enc) {
	case PQ_ENC_PLAIN:
		CHECK_OK(pq_decode_plain(type, tl, p, len, k, v, NULL, a, &err), "PLAIN");
		break;
	case PQ_ENC_PLAIN_DICTIONARY:
	case PQ_ENC_RLE_DICTIONARY:
		ck_assert_msg(dict != NULL, "%s: dictionary-encoded page without dictionary", where);
		CHECK_OK(pq_decode_rle_dictionary(dict, p, len, k, v, NULL, a, &err), "dictionary");
		break;
	case PQ_ENC_RLE:
		ck_assert(type == PQ_BOOLEAN);
		CHECK_OK(pq_decode_rle_bool(p, len, k, v, NULL, a, &err), "RLE");
		break;
	case PQ_ENC_DELTA_BINARY_PACKED:
		CHECK_OK(pq_decode_delta_binary_packed(type, p, len, k, v, NULL, a, &err), "DELTA");
		break;
	case PQ_ENC_DELTA_LENGTH_BYTE_ARRAY:
		CHECK_OK(pq_decode_delta_length_byte_array(p, len, k, v, NULL, a, &err), "DLBA");
		break;
	case PQ_ENC_DELTA_BYTE_ARRAY:
		CHECK_OK(pq_decode_delta_byte_array(p, len, k, v, NULL, a, &err), "DBA");
		break;
	case PQ_ENC_BYTE_STREAM_SPLIT:
		CHECK_OK(pq_decode_byte_stream_split(type, tl, p, len, k, v, a, &err), "BSS");
		break;
	default:
		ck_abort_msg("%s: encoding %d not handled", where, (int)enc);
	}
}

/* Walks one column chunk, comparing each slot with the next expected line. */
static void check_chunk(const uint8_t *file, size_t flen, const chunk *ck, const column *c,
			expect *e, stats *st)
{
	int32_t type = type_of(c->type);
	ck_assert(type >= 0);
	ck_assert_msg(ck->offset <= flen && ck->length <= flen - ck->offset, "%s: chunk outside the file", where);
	/* Pages are read until the chunk's value count is reached, not to its
	 * stated length: nation.dict-malformed.parquet understates it. */
	const uint8_t *p = file + ck->offset, *end = file + flen;
	uint64_t seen = 0;
	pq_arena darena;
	pq_arena_init(&darena, 0);
	pq_values dict;
	bool have_dict = false;
	char base[sizeof where];
	snprintf(base, sizeof base, "%s", where);
	for (int pageno = 0; seen < ck->num_values; pageno++) {
		ck_assert_msg(p < end, "%s: chunk runs past the end of the file", where);
		page pg;
		size_t hlen;
		snprintf(where, sizeof where, "%.400s page %d at %zu", base, pageno, (size_t)(p - file));
		ck_assert_msg(read_page_header(p, (size_t)(end - p), &pg, &hlen), "%s: header", where);
		ck_assert((uint64_t)pg.csize <= (uint64_t)(end - p) - hlen);
		const uint8_t *body = p + hlen;
		size_t clen = (size_t)pg.csize, ulen = (size_t)pg.usize;
		p = body + clen;
		if (pg.type != 0 && pg.type != 2 && pg.type != 3)
			continue;
		pq_arena a;
		pq_arena_init(&a, 0);
		uint8_t *buf = malloc(ulen + 1);
		size_t lv_off = 0; /* v2: levels stay uncompressed in front */
		if (pg.type == 3) {
			lv_off = (size_t)(pg.def_len + pg.rep_len);
			ck_assert(lv_off <= clen && lv_off <= ulen);
			memcpy(buf, body, lv_off);
		}
		/* A v2 page with no value bytes is not decompressed (an empty
		 * input is not a valid Snappy stream). */
		if (pg.type == 3 && (!pg.v2_compressed || clen == lv_off))
			ck_assert_msg(decompress("UNCOMPRESSED", body + lv_off, clen - lv_off, buf + lv_off,
						 ulen - lv_off),
				      "%s: size", where);
		else
			ck_assert_msg(decompress(ck->codec, body + lv_off, clen - lv_off, buf + lv_off,
						 ulen - lv_off),
				      "%s: %s decompression", where, ck->codec);
		if (pg.type == 2) {
			int32_t tl = type == PQ_FIXED_LEN_BYTE_ARRAY && pg.num_values
					     ? (int32_t)(ulen / (size_t)pg.num_values)
					     : 0;
			/* The dictionary must outlive this page's buffer. */
			uint8_t *keep = pq_arena_memdup(&darena, buf, ulen);
			CHECK_OK(pq_decode_plain(type, tl, keep, ulen, (size_t)pg.num_values, &dict, NULL,
						 &darena, &err),
				 "dictionary page");
			have_dict = true;
			free(buf);
			pq_arena_free(&a);
			continue;
		}
		size_t n = (size_t)pg.num_values, pos = 0;
		seen += n;
		uint16_t *rep = calloc(n + 1, 2), *def = calloc(n + 1, 2);
		bool v2 = pg.type == 3;
		/* v2 sections are skipped by their stated length even when the
		 * level is always 0 (rle_boolean_encoding.parquet has 2 bytes of
		 * repetition levels for a flat column). */
		if (c->max_rep)
			read_levels("repetition levels", buf, ulen, &pos, c->max_rep, n, v2, pg.rep_len,
				    pg.rep_enc, rep);
		else if (v2)
			pos += (size_t)pg.rep_len;
		if (c->max_def)
			read_levels("definition levels", buf, ulen, &pos, c->max_def, n, v2, pg.def_len,
				    pg.def_enc, def);
		else if (v2)
			pos += (size_t)pg.def_len;
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			k += !c->max_def || def[i] == c->max_def;
		pq_values v;
		decode_values(c, type, pg.encoding, have_dict ? &dict : NULL, buf + pos, ulen - pos, k,
			      &v, &a);
		ck_assert_uint_eq(v.n, k);
		for (size_t i = 0, j = 0; i < n; i++) {
			bool present = !c->max_def || def[i] == c->max_def;
			if (!e->text) {
				st->values += present;
				j += present;
				continue;
			}
			const char *want = next_line(e);
			ck_assert_msg(want, "%s: values.txt ends before slot %zu", where, i);
			if (!present) {
				ck_assert_msg(!strcmp(want, "\\N"), "%s: slot %zu null, expected %s", where,
					      i, want);
				continue;
			}
			char got[4096];
			int fok;
			if (render(c, &v, j, want, got, sizeof got, &fok)) {
				if (fok >= 0)
					ck_assert_msg(fok == 1, "%s: slot %zu: float mismatch, expected %s",
						      where, i, want);
				else
					ck_assert_msg(!strcmp(got, want), "%s: slot %zu: got %s, expected %s",
						      where, i, got, want);
				st->compared++;
			}
			st->values++;
			j++;
		}
		free(rep);
		free(def);
		free(buf);
		pq_arena_free(&a);
	}
	st->chunks++;
	pq_arena_free(&darena);
	snprintf(where, sizeof where, "%s", base);
}

static char **list_files(size_t *n)
{
	DIR *d = opendir(TESTDATA_DIR "/expected/data");
	ck_assert_msg(d, "cannot open %s", TESTDATA_DIR "/expected/data");
	char **names = NULL;
	*n = 0;
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		names = realloc(names, (*n + 1) * sizeof *names);
		names[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	return names;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

START_TEST(test_files_against_expected)
{
	size_t nfiles;
	char **names = list_files(&nfiles);
	qsort(names, nfiles, sizeof *names, cmp_str);
	facts *f = malloc(sizeof *f);
	stats total = {0};
	size_t files_checked = 0;
	for (size_t fi = 0; fi < nfiles; fi++) {
		char path[1024];
		size_t jlen, flen;
		snprintf(path, sizeof path, TESTDATA_DIR "/expected/data/%s/facts.json", names[fi]);
		char *js = test_read_file(path, &jlen);
		if (!js)
			continue;
		bool ok = read_facts(js, f);
		free(js);
		if (!ok)
			continue;
		bool supported = true;
		for (int i = 0; i < f->nchunks; i++)
			supported = supported && codec_supported(f->chunks[i].codec);
		if (!supported)
			continue;
		snprintf(path, sizeof path, TESTDATA_DIR "/parquet-testing/data/%s", names[fi]);
		uint8_t *file = (uint8_t *)test_read_file(path, &flen);
		ck_assert_msg(file, "cannot read %s", path);
		if (flen != f->size) {
			/* Damaged test data is reported, not blamed on the decoders. */
			fprintf(stderr, "  WARNING: %s has %zu bytes, facts.json says %" PRIu64
					", skipped\n", path, flen, f->size);
			free(file);
			continue;
		}
		stats st = {0};
		for (int ci = 0; ci < f->ncols; ci++) {
			expect e = {0};
			size_t elen;
			snprintf(path, sizeof path, TESTDATA_DIR "/expected/data/%s/columns/%s/values.txt",
				 names[fi], f->cols[ci].dir);
			/* Some large outputs are not stored: decode without comparing. */
			e.text = e.cur = test_read_file(path, &elen);
			for (int k = 0; k < f->nchunks; k++) {
				if (f->chunks[k].col != ci)
					continue;
				snprintf(where, sizeof where, "%s column %s chunk at %" PRIu64, names[fi],
					 f->cols[ci].dir, f->chunks[k].offset);
				check_chunk(file, flen, &f->chunks[k], &f->cols[ci], &e, &st);
			}
			ck_assert_msg(!e.text || !next_line(&e), "%s column %s: values.txt has more lines",
				      names[fi], f->cols[ci].dir);
			free(e.text);
		}
		free(file);
		files_checked++;
		total.values += st.values;
		total.compared += st.compared;
		total.chunks += st.chunks;
		fprintf(stderr, "  %-55s %4zu chunks %8zu values %8zu compared\n", names[fi], st.chunks,
			st.values, st.compared);
	}
	fprintf(stderr, "%zu files, %zu chunks, %zu values, %zu compared\n", files_checked,
		total.chunks, total.values, total.compared);
	ck_assert_uint_ge(files_checked, 30);
	ck_assert_uint_ge(total.compared, 100000);
	for (size_t i = 0; i < nfiles; i++)
		free(names[i]);
	free(names);
	free(f);
}
END_TEST

int main(void)
{
	struct stat sb;
	if (stat(TESTDATA_DIR "/expected/data", &sb) != 0) {
		printf("SKIP: test data not found at %s (../shared/testdata beside the checkout)\n",
		       TESTDATA_DIR);
		return 77;
	}
	Suite *s = suite_create("encoding_files");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_files_against_expected);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
