/* pqwrite OUT.parquet [OUT.csv] [key=value ...]: writes a deterministic
 * table with the core writer (and the same table as CSV, for DuckDB to
 * read as the independent source), for the interop test and benchmarks.
 *
 * Keys: rows=N (default 1000), wide=N (N INT64 + STRING columns instead of
 * the typed table), codec=uncompressed|snappy|gzip|brotli|zstd|lz4_raw,
 * level=N, v=1|2, dict=on|off, page_index=on|off, crc=on|off, nulls=on|off,
 * page_size=N, rg_rows=N, bloom=COL[:COL...], fpp=X, enc=COL:ENCODING
 * (repeatable; ENCODING as parquet.thrift names it), longstr=on (40-byte
 * strings, each twice, to push the dictionary past its 1 MiB limit). */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/pq_codec.h"
#include "format/pq_metadata_codec.h"
#include "write/pq_writer.h"

#define MAXCOLS 1024
#define BATCH 777 /* odd, so batches straddle pages and row groups */

typedef struct table {
	uint64_t rows;
	unsigned wide;
	bool nulls, longstr;
	pq_schema_element el[MAXCOLS + 1];
	uint32_t n;
	char names[MAXCOLS][16];
} table;

static pq_schema_element *col(table *t, const char *name, int type, bool optional)
{
	pq_schema_element *e = &t->el[t->n++];
	memset(e, 0, sizeof *e);
	e->name = (pq_bytes){(const uint8_t *)name, strlen(name)};
	e->has_type = true;
	e->type = type;
	e->has_repetition_type = true;
	e->repetition_type = optional ? PQ_OPTIONAL : PQ_REQUIRED;
	return e;
}

static void build_schema(table *t)
{
	pq_schema_element *root = &t->el[0];
	memset(root, 0, sizeof *root);
	root->name = (pq_bytes){(const uint8_t *)"schema", 6};
	t->n = 1;
	if (t->wide) {
		for (unsigned i = 0; i < t->wide; i++) {
			snprintf(t->names[i], sizeof t->names[i], "c%u", i);
			pq_schema_element *e = col(t, t->names[i], i % 2 ? PQ_BYTE_ARRAY : PQ_INT64, true);
			if (i % 2) {
				e->has_logicalType = e->logicalType.has_STRING = true;
				e->has_converted_type = true;
				e->converted_type = PQ_CT_UTF8;
			}
		}
	} else {
		col(t, "b", PQ_BOOLEAN, true);
		col(t, "i32", PQ_INT32, true);
		col(t, "i64", PQ_INT64, false);
		col(t, "f", PQ_FLOAT, true);
		col(t, "d", PQ_DOUBLE, true);
		pq_schema_element *e = col(t, "s", PQ_BYTE_ARRAY, true);
		e->has_logicalType = e->logicalType.has_STRING = true;
		e->has_converted_type = true;
		e->converted_type = PQ_CT_UTF8;
		e = col(t, "u", PQ_FIXED_LEN_BYTE_ARRAY, true);
		e->has_type_length = true;
		e->type_length = 16;
		e->has_logicalType = e->logicalType.has_UUID = true;
		e = col(t, "dec", PQ_FIXED_LEN_BYTE_ARRAY, true);
		e->has_type_length = true;
		e->type_length = 16;
		e->has_logicalType = e->logicalType.has_DECIMAL = true;
		e->logicalType.DECIMAL = (pq_decimal_type){2, 38};
		e->has_converted_type = e->has_scale = e->has_precision = true;
		e->converted_type = PQ_CT_DECIMAL;
		e->scale = 2;
		e->precision = 38;
		e = col(t, "dt", PQ_INT32, true);
		e->has_logicalType = e->logicalType.has_DATE = true;
		e->has_converted_type = true;
		e->converted_type = PQ_CT_DATE;
		e = col(t, "ts", PQ_INT64, true);
		e->has_logicalType = e->logicalType.has_TIMESTAMP = true;
		e->logicalType.TIMESTAMP.isAdjustedToUTC = true;
		e->logicalType.TIMESTAMP.unit.has_MICROS = true;
		e->has_converted_type = true;
		e->converted_type = PQ_CT_TIMESTAMP_MICROS;
	}
	root->has_num_children = true;
	root->num_children = (int32_t)(t->n - 1);
}

static const char *const words[] = {
	"alpha", "héllo wörld", "日本語テキスト", "emoji 🎉🐘", "", "comma, \"quoted\"",
	"multi\nline", "zeta",
};

static bool is_null(const table *t, uint64_t r, unsigned c)
{
	return t->nulls && (r * 7 + c * 3) % 11 == 4;
}

static void uuid_of(uint64_t r, uint8_t out[16])
{
	uint64_t x = r * 0x9E3779B97F4A7C15ull + 12345;
	for (int i = 0; i < 16; i++) {
		x ^= x >> 29;
		x *= 0xBF58476D1CE4E5B9ull;
		out[i] = (uint8_t)(x >> 56);
	}
}

static int64_t dec_of(uint64_t r)
{
	return (int64_t)(r * 1234567) - 500000000 + (r % 3 == 0 ? -(int64_t)r * 99991 : 0);
}

static double dbl_of(uint64_t r)
{
	if (r % 97 == 13)
		return INFINITY;
	if (r % 97 == 14)
		return -INFINITY;
	if (r % 97 == 15)
		return -0.0;
	return (double)r * 0.1 - 33.3;
}

static float flt_of(uint64_t r)
{
	if (r % 89 == 5)
		return NAN;
	return (float)(r % 200) / 8.0f - 10.0f;
}

/* Fills one batch of column c, rows [r0, r0 + n). */
static void fill(const table *t, unsigned c, uint64_t r0, size_t n, uint8_t *def, pq_values *v,
		 uint8_t *store, pq_bytes *views, char *text)
{
	const pq_schema_element *e = &t->el[c + 1];
	memset(v, 0, sizeof *v);
	v->type = e->type;
	v->type_length = e->has_type_length ? e->type_length : 0;
	v->v.any = store;
	size_t k = 0, tp = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t r = r0 + i;
		bool null = e->repetition_type == PQ_OPTIONAL && is_null(t, r, c);
		def[i] = !null;
		if (null)
			continue;
		if (t->wide) {
			if (e->type == PQ_INT64) {
				((int64_t *)(void *)store)[k] = (int64_t)(r * (c + 1));
			} else {
				int m = snprintf(text + tp, 64, "v%" PRIu64 "_%u", r % 50, c);
				views[k] = (pq_bytes){(const uint8_t *)text + tp, (size_t)m};
				tp += (size_t)m;
			}
			k++;
			continue;
		}
		switch (c) {
		case 0: store[k] = r % 3 == 0; break;
		case 1: ((int32_t *)(void *)store)[k] = (int32_t)(r % 1000) - 500; break;
		case 2: ((int64_t *)(void *)store)[k] = (int64_t)(r * 1000003) - (int64_t)5000000000; break;
		case 3: ((float *)(void *)store)[k] = flt_of(r); break;
		case 4: ((double *)(void *)store)[k] = dbl_of(r); break;
		case 5: {
			int m = t->longstr ? snprintf(text + tp, 64, "unique-%020" PRIu64 "-padding-pad", r / 2)
			        : r % 5 == 0 ? snprintf(text + tp, 64, "u%" PRIu64, r)
					     : snprintf(text + tp, 64, "%s", words[r % 8]);
			views[k] = (pq_bytes){(const uint8_t *)text + tp, (size_t)m};
			tp += (size_t)m;
			break;
		}
		case 6: uuid_of(r, store + 16 * k); break;
		case 7: {
			int64_t d = dec_of(r);
			for (int b = 0; b < 16; b++)
				store[16 * k + (size_t)b] = (uint8_t)(b < 8 ? (d < 0 ? 0xff : 0) : (uint64_t)d >> (8 * (15 - b)));
			break;
		}
		case 8: ((int32_t *)(void *)store)[k] = (int32_t)(r % 20000) - 5000; break;
		case 9: ((int64_t *)(void *)store)[k] = 1600000000000000LL + (int64_t)r * 1000001; break;
		}
		k++;
	}
	v->n = k;
	if (e->type == PQ_BYTE_ARRAY)
		v->v.ba = views;
}

static void csv_string(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			fputc('"', f);
		fputc(s[i], f);
	}
	fputc('"', f);
}

static void csv_float(FILE *f, double d, int digits)
{
	if (isnan(d))
		fputs("nan", f);
	else if (isinf(d))
		fputs(d < 0 ? "-inf" : "inf", f);
	else
		fprintf(f, "%.*g", digits, d);
}

static void write_csv(const table *t, FILE *f)
{
	for (uint32_t c = 1; c < t->n; c++)
		fprintf(f, "%s%.*s", c > 1 ? "," : "", (int)t->el[c].name.n, (const char *)t->el[c].name.p);
	fputc('\n', f);
	char text[128];
	for (uint64_t r = 0; r < t->rows; r++) {
		for (unsigned c = 0; c + 1 < t->n; c++) {
			if (c)
				fputc(',', f);
			const pq_schema_element *e = &t->el[c + 1];
			if (e->repetition_type == PQ_OPTIONAL && is_null(t, r, c))
				continue;
			if (t->wide) {
				if (e->type == PQ_INT64)
					fprintf(f, "%" PRId64, (int64_t)(r * (c + 1)));
				else
					fprintf(f, "v%" PRIu64 "_%u", r % 50, c);
				continue;
			}
			switch (c) {
			case 0: fputs(r % 3 == 0 ? "true" : "false", f); break;
			case 1: fprintf(f, "%d", (int)(r % 1000) - 500); break;
			case 2: fprintf(f, "%" PRId64, (int64_t)(r * 1000003) - (int64_t)5000000000); break;
			case 3: csv_float(f, flt_of(r), 9); break;
			case 4: csv_float(f, dbl_of(r), 17); break;
			case 5: {
				int m = t->longstr ? snprintf(text, sizeof text, "unique-%020" PRIu64 "-padding-pad", r / 2)
				        : r % 5 == 0 ? snprintf(text, sizeof text, "u%" PRIu64, r)
						     : snprintf(text, sizeof text, "%s", words[r % 8]);
				csv_string(f, text, (size_t)m);
				break;
			}
			case 6: {
				uint8_t u[16];
				uuid_of(r, u);
				for (int i = 0; i < 16; i++)
					fprintf(f, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
				break;
			}
			case 7: {
				int64_t d = dec_of(r);
				uint64_t a = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
				fprintf(f, "%s%" PRIu64 ".%02u", d < 0 ? "-" : "", a / 100, (unsigned)(a % 100));
				break;
			}
			case 8: {
				/* days since 1970-01-01 → civil date (Howard Hinnant's algorithm). */
				int64_t z = (int64_t)(r % 20000) - 5000 + 719468;
				int64_t era = (z >= 0 ? z : z - 146096) / 146097;
				int64_t doe = z - era * 146097;
				int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
				int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
				int64_t mp = (5 * doy + 2) / 153, d = doy - (153 * mp + 2) / 5 + 1;
				int64_t m = mp < 10 ? mp + 3 : mp - 9;
				fprintf(f, "%04" PRId64 "-%02" PRId64 "-%02" PRId64, y + (m <= 2), m, d);
				break;
			}
			case 9: {
				int64_t us = 1600000000000000LL + (int64_t)r * 1000001;
				/* epoch microseconds; DuckDB's make_timestamp would do, but
				 * plain text keeps the CSV independent. */
				fprintf(f, "%" PRId64, us);
				break;
			}
			}
		}
		fputc('\n', f);
	}
}

static int codec_of(const char *s)
{
	static const char *const names[] = {"uncompressed", "snappy", "gzip", "lzo", "brotli",
					    "lz4", "zstd", "lz4_raw"};
	for (int i = 0; i < 8; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static int encoding_of(const char *s)
{
	for (int i = 0; i < 10; i++)
		if (pq_encoding_name(i) && strcmp(s, pq_encoding_name(i)) == 0)
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pqwrite OUT.parquet [OUT.csv] [key=value ...]\n");
		return 2;
	}
	static table t;
	t.rows = 1000;
	t.nulls = true;
	pq_write_options o;
	pq_write_options_init(&o);
	const char *csv = NULL;
	static const char *bloom[MAXCOLS + 1];
	static char bloom_text[4096];
	static pq_column_encoding encs[64];
	static char enc_text[64][64];
	size_t nenc = 0;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		if (!eq) {
			csv = a;
			continue;
		}
		const char *v = eq + 1;
		size_t kl = (size_t)(eq - a);
#define KEY(k) (kl == strlen(k) && strncmp(a, k, kl) == 0)
		if (KEY("rows"))
			t.rows = strtoull(v, NULL, 10);
		else if (KEY("wide"))
			t.wide = (unsigned)atoi(v);
		else if (KEY("codec"))
			o.codec = codec_of(v);
		else if (KEY("level")) {
			o.has_compression_level = true;
			o.compression_level = atoi(v);
		} else if (KEY("v"))
			o.data_page_version = atoi(v);
		else if (KEY("dict"))
			o.dictionary = strcmp(v, "on") == 0;
		else if (KEY("page_index"))
			o.page_index = strcmp(v, "on") == 0;
		else if (KEY("crc"))
			o.crc = strcmp(v, "on") == 0;
		else if (KEY("nulls"))
			t.nulls = strcmp(v, "on") == 0;
		else if (KEY("longstr"))
			t.longstr = strcmp(v, "on") == 0;
		else if (KEY("page_size"))
			o.page_size = strtoull(v, NULL, 10);
		else if (KEY("rg_rows"))
			o.row_group_rows = strtoull(v, NULL, 10);
		else if (KEY("fpp"))
			o.bloom_fpp = atof(v);
		else if (KEY("bloom")) {
			snprintf(bloom_text, sizeof bloom_text, "%s", v);
			size_t nb = 0;
			for (char *s = strtok(bloom_text, ":"); s && nb < MAXCOLS; s = strtok(NULL, ":"))
				bloom[nb++] = s;
			bloom[nb] = NULL;
			o.bloom_columns = bloom;
		} else if (KEY("enc") && nenc < 64) {
			snprintf(enc_text[nenc], sizeof enc_text[nenc], "%s", v);
			char *colon = strchr(enc_text[nenc], ':');
			if (!colon || encoding_of(colon + 1) < 0) {
				fprintf(stderr, "pqwrite: bad enc=%s\n", v);
				return 2;
			}
			*colon = '\0';
			encs[nenc] = (pq_column_encoding){enc_text[nenc], encoding_of(colon + 1)};
			nenc++;
			o.column_encodings = encs;
			o.n_column_encodings = nenc;
		} else {
			fprintf(stderr, "pqwrite: unknown option %s\n", a);
			return 2;
		}
	}
	if (t.wide > MAXCOLS || o.codec < 0 || !o.row_group_rows) {
		fprintf(stderr, "pqwrite: bad options\n");
		return 2;
	}
	build_schema(&t);

	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	pq_error err;
	pq_error_clear(&err);
	pq_writer *w = NULL;
	pq_key_value kv = {true, {(const uint8_t *)"pqwrite", 7}, {(const uint8_t *)"test table", 10}};
	pq_status st = pq_writer_open(&w, fd, t.el, t.n, &o, &kv, 1, &err);
	uint8_t *def = malloc(BATCH), *store = malloc(BATCH * 16);
	pq_bytes *views = malloc(BATCH * sizeof *views);
	char *text = malloc(BATCH * 64);
	uint64_t in_rg = 0;
	for (uint64_t r = 0; st == PQ_OK && r < t.rows;) {
		size_t n = (size_t)(t.rows - r < BATCH ? t.rows - r : BATCH);
		if (n > o.row_group_rows - in_rg)
			n = (size_t)(o.row_group_rows - in_rg);
		for (unsigned c = 0; st == PQ_OK && c + 1 < t.n; c++) {
			pq_values v;
			fill(&t, c, r, n, def, &v, store, views, text);
			st = pq_writer_write(w, c, n, t.el[c + 1].repetition_type == PQ_OPTIONAL ? def : NULL,
					     &v, &err);
		}
		r += n;
		in_rg += n;
		if (st == PQ_OK && in_rg == o.row_group_rows) {
			st = pq_writer_end_row_group(w, &err);
			in_rg = 0;
		}
	}
	pq_write_stats stats = {0};
	if (st == PQ_OK)
		st = pq_writer_close(w, &stats, &err);
	pq_writer_free(w);
	free(def);
	free(store);
	free(views);
	free(text);
	close(fd);
	if (st != PQ_OK) {
		fprintf(stderr, "pqwrite: %s: %s\n", pq_status_name(st), err.msg);
		return 1;
	}
	if (csv) {
		FILE *f = fopen(csv, "w");
		if (!f) {
			perror(csv);
			return 1;
		}
		write_csv(&t, f);
		if (fclose(f) != 0) {
			perror(csv);
			return 1;
		}
	}
	return 0;
}
