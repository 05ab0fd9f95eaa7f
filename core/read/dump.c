/* Whole-entry renderings into one buffer: data.csv / data.jsonl of the file
 * or a row group, and values.txt / levels.txt of a column. The mount
 * streams these piecewise; tools, tests and benchmarks take them whole. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include "pq_dump.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* Writes out's bytes to fd (when fd >= 0) and empties it. */
static pq_status flush_to(int fd, pq_buf *out, pq_error *err)
{
	if (fd < 0)
		return PQ_OK;
	size_t off = 0;
	while (off < out->len) {
		ssize_t n = write(fd, out->p + off, out->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return pq_fail(err, PQ_EIO, "write failed: %s", strerror(errno));
		off += (size_t)n;
	}
	out->len = 0;
	return PQ_OK;
}

static pq_status dump_rows(const pq_file *f, uint32_t rg, pq_row_format fmt, pq_buf *out,
			   int fd, pq_error *err)
{
	if (fmt == PQ_ROWS_CSV)
		pq_text_csv_header(f, out);
	uint32_t first = rg == PQ_ALL ? 0 : rg;
	uint32_t last = rg == PQ_ALL ? f->md.row_groups.n : rg + 1;
	for (uint32_t r = first; r < last; r++) {
		pq_row_reader *rr;
		PQ_TRY(pq_row_reader_open(f, r, fmt, &rr, err));
		bool done = false;
		pq_status st = PQ_OK;
		while (!done && st == PQ_OK) {
			st = pq_row_reader_next(rr, 1 << 20, out, &done, err);
			if (st == PQ_OK && out->len >= (1u << 20))
				st = flush_to(fd, out, err);
		}
		pq_row_reader_free(rr);
		PQ_TRY(st);
	}
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "no memory for the rendered rows");
	return flush_to(fd, out, err);
}

pq_status pq_dump_rows(const pq_file *f, uint32_t rg, pq_row_format fmt, pq_buf *out,
		       pq_error *err)
{
	return dump_rows(f, rg, fmt, out, -1, err);
}

pq_status pq_dump_rows_fd(const pq_file *f, uint32_t rg, pq_row_format fmt, int fd,
			  pq_error *err)
{
	pq_buf out = PQ_BUF_INIT;
	pq_status st = dump_rows(f, rg, fmt, &out, fd, err);
	pq_buf_free(&out);
	return st;
}

pq_status pq_dump_column(const pq_file *f, uint32_t rg, uint32_t col, bool levels, pq_buf *out,
			 pq_error *err)
{
	uint32_t first = rg == PQ_ALL ? 0 : rg;
	uint32_t last = rg == PQ_ALL ? f->md.row_groups.n : rg + 1;
	for (uint32_t r = first; r < last; r++) {
		pq_chunk_layout *l;
		PQ_TRY(pq_chunk_layout_load(f, r, col, &l, err));
		pq_page_data *dict = NULL;
		pq_status st = PQ_OK;
		if (l->dict)
			st = pq_page_decode(f, l, l->dict, NULL, &dict, err);
		for (uint32_t p = 0; st == PQ_OK && p < l->num_pages; p++) {
			pq_page_data *pd;
			st = pq_page_decode(f, l, &l->pages[p], dict, &pd, err);
			if (st != PQ_OK)
				break;
			if (levels)
				pq_text_page_levels(pd, out);
			else
				pq_text_page_values(f, col, pd, out);
			pq_page_data_unref(pd);
		}
		pq_page_data_unref(dict);
		pq_chunk_layout_free(l);
		PQ_TRY(st);
	}
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "no memory for the rendered values");
	return PQ_OK;
}
