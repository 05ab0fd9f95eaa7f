/* Helpers of the writer tests: temporary files, writing through
 * pq_writer, reading back through pq_file (rows, verify.txt, page by page
 * value comparison). */
#ifndef TEST_WRITER_HELPERS_H
#define TEST_WRITER_HELPERS_H

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/pq_dump.h"
#include "pq_file.h"
#include "format/pq_metadata_codec.h"
#include "write/pq_writer.h"
#include "schema_builder.h"


static inline int tmpfile_fd(char *path)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, 256, "%s/pqwriter-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	return fd;
}

typedef struct wfile {
	char path[256];
	int fd;
	pq_writer *w;
	pq_file *f;
} wfile;

static inline void wopen(wfile *x, els *e, const pq_write_options *o)
{
	pq_error err;
	pq_error_clear(&err);
	x->fd = tmpfile_fd(x->path);
	x->f = NULL;
	pq_status st = pq_writer_open(&x->w, x->fd, e->v, e->n, o, NULL, 0, &err);
	ck_assert_msg(st == PQ_OK, "open: %s", err.msg);
}

static inline void wput(wfile *x, size_t col, size_t rows, const uint8_t *def, const pq_values *v)
{
	pq_error err;
	pq_error_clear(&err);
	pq_status st = pq_writer_write(x->w, col, rows, def, v, &err);
	ck_assert_msg(st == PQ_OK, "write column %zu: %s", col, err.msg);
}

static inline void wend(wfile *x)
{
	pq_error err;
	pq_error_clear(&err);
	ck_assert_msg(pq_writer_end_row_group(x->w, &err) == PQ_OK, "end row group: %s", err.msg);
}

/* Closes the writer and opens the file with the reader. */
static inline const pq_file *wclose(wfile *x)
{
	pq_error err;
	pq_error_clear(&err);
	pq_status st = pq_writer_close(x->w, NULL, &err);
	ck_assert_msg(st == PQ_OK, "close: %s", err.msg);
	pq_writer_free(x->w);
	x->w = NULL;
	struct stat sb;
	ck_assert_int_eq(fstat(x->fd, &sb), 0);
	st = pq_file_open_fd(x->fd, "test.parquet", NULL, &x->f, &err);
	ck_assert_msg(st == PQ_OK, "reader: %s", err.msg);
	return x->f;
}

static inline void wdone(wfile *x)
{
	pq_writer_free(x->w);
	pq_file_free(x->f);
	close(x->fd);
	unlink(x->path);
}

static inline char *render(const pq_file *f, pq_row_format fmt)
{
	pq_buf out = PQ_BUF_INIT;
	pq_error err;
	pq_error_clear(&err);
	ck_assert_msg(pq_dump_rows(f, PQ_ALL, fmt, &out, &err) == PQ_OK, "rows: %s", err.msg);
	pq_buf_putc(&out, '\0');
	return (char *)out.p;
}

static inline char *verify(const pq_file *f)
{
	pq_buf out = PQ_BUF_INIT;
	pq_error err;
	pq_error_clear(&err);
	if (pq_text_verify(f, &out, &err) != PQ_OK)
		pq_buf_printf(&out, "verify failed: %s\n", err.msg);
	pq_buf_putc(&out, '\0');
	return (char *)out.p;
}

static inline bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && strcmp(s + a - b, tail) == 0;
}

static inline pq_values vals(int type, int type_length, size_t n, void *p)
{
	pq_values v;
	memset(&v, 0, sizeof v);
	v.type = type;
	v.type_length = type_length;
	v.n = n;
	v.v.any = p;
	return v;
}

/* The bytes of value i (native layout for fixed widths). */
static inline const uint8_t *value_at(const pq_values *v, size_t i, size_t *n)
{
	switch (v->type) {
	case PQ_BOOLEAN: *n = 1; return v->v.b + i;
	case PQ_INT32: case PQ_FLOAT: *n = 4; return (const uint8_t *)v->v.any + 4 * i;
	case PQ_INT64: case PQ_DOUBLE: *n = 8; return (const uint8_t *)v->v.any + 8 * i;
	case PQ_BYTE_ARRAY: *n = v->v.ba[i].n; return v->v.ba[i].p;
	default: *n = (size_t)v->type_length; return v->v.fixed + i * (size_t)v->type_length;
	}
}

/* A column read back page by page: levels (1 for REQUIRED) and values. */
typedef struct readback {
	pq_buf def;    /* uint8 per row */
	pq_buf bytes;  /* values back to back */
	pq_buf lens;   /* size_t per value */
	size_t nvalues;
	uint32_t pages;
	bool had_dict;
} readback;

static inline void read_column(const pq_file *f, uint32_t col, readback *rb)
{
	memset(rb, 0, sizeof *rb);
	pq_error err;
	pq_error_clear(&err);
	for (uint32_t rg = 0; rg < pq_file_num_row_groups(f); rg++) {
		pq_chunk_layout *l = NULL;
		ck_assert_msg(pq_chunk_layout_load(f, rg, col, &l, &err) == PQ_OK, "layout: %s", err.msg);
		pq_page_data *dict = NULL;
		if (l->dict) {
			rb->had_dict = true;
			ck_assert_msg(pq_page_decode(f, l, l->dict, NULL, &dict, &err) == PQ_OK,
				      "dictionary: %s", err.msg);
		}
		for (uint32_t p = 0; p < l->num_pages; p++) {
			pq_page_data *pd = NULL;
			ck_assert_msg(pq_page_decode(f, l, &l->pages[p], dict, &pd, &err) == PQ_OK,
				      "page %u: %s", p, err.msg);
			for (size_t s = 0; s < pd->nslots; s++)
				pq_buf_putc(&rb->def, (char)(pd->def ? pd->def[s] : 1));
			for (size_t i = 0; i < pd->values.n; i++) {
				size_t n;
				const uint8_t *b = value_at(&pd->values, i, &n);
				pq_buf_append(&rb->bytes, b, n);
				pq_buf_append(&rb->lens, &n, sizeof n);
			}
			rb->nvalues += pd->values.n;
			rb->pages++;
			pq_page_data_unref(pd);
		}
		if (dict)
			pq_page_data_unref(dict);
		pq_chunk_layout_free(l);
	}
}

static inline void readback_free(readback *rb)
{
	pq_buf_free(&rb->def);
	pq_buf_free(&rb->bytes);
	pq_buf_free(&rb->lens);
}

/* Compares a column read back with what was written (def may be NULL). */
static inline void expect_column(const pq_file *f, uint32_t col, size_t rows, const uint8_t *def,
			  const pq_values *v)
{
	readback rb;
	read_column(f, col, &rb);
	ck_assert_uint_eq(rb.def.len, rows);
	for (size_t r = 0; r < rows; r++)
		ck_assert_msg(rb.def.p[r] == (def ? def[r] : 1), "column %u row %zu: level %u", col, r,
			      rb.def.p[r]);
	ck_assert_uint_eq(rb.nvalues, v->n);
	size_t at = 0;
	const size_t *lens = (const size_t *)(const void *)rb.lens.p;
	for (size_t i = 0; i < v->n; i++) {
		size_t n;
		const uint8_t *b = value_at(v, i, &n);
		ck_assert_msg(lens[i] == n && (n == 0 || memcmp(rb.bytes.p + at, b, n) == 0),
			      "column %u value %zu differs", col, i);
		at += lens[i];
	}
	readback_free(&rb);
}

#endif
