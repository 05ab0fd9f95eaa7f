/* data.csv / data.jsonl sizes of one row group.
 *
 * Flat schemas (pq_schema_is_flat): no row is assembled. rows_flat.c
 * frames each row as its fields joined by `,` and ended by `\n` (CSV), or
 * as `{"a":v,"b":w}\n` (JSONL); so a row group's size is the sum of its
 * chunks' field bytes (sizes_chunk.c) plus, per row, the commas and the
 * newline, or the keys, braces, commas and newline. The renderer fails
 * (and so does the size) when a chunk fails or columns disagree on rows.
 *
 * Other schemas: the rows are rendered through pq_row_reader, a piece at
 * a time into a scratch buffer that is reset, and counted. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include "sizes_internal.h"

#define SCRATCH_HINT ((size_t)1 << 20)

void pq_sizes_flat_rows(const pq_file *f, uint32_t rg, const pq_chunk_work *w, uint64_t *csv,
			uint64_t *jsonl)
{
	*csv = *jsonl = PQ_SIZE_FAILED;
	uint32_t ncol = f->num_columns;
	const pq_node *root = pq_schema_root(f->schema);
	const pq_chunk_work *row = &w[(size_t)rg * ncol];
	uint64_t c = 0, j = 0, keys = 0;
	for (uint32_t k = 0; k < ncol; k++) {
		if (!row[k].rows_ok || row[k].rows != row[0].rows)
			return;
		c += row[k].csv;
		j += row[k].json;
		keys += 1 + root->children[k]->json_key.n; /* `{` or `,`, then `"key":` */
	}
	uint64_t rows = ncol ? row[0].rows : 0;
	*csv = c + rows * ncol;          /* ncol - 1 commas and `\n` */
	*jsonl = j + rows * (keys + 2); /* `}\n` */
}

uint64_t pq_sizes_render_rows(const pq_file *f, uint32_t rg, pq_row_format fmt, pq_buf *scratch)
{
	pq_error err;
	pq_error_clear(&err);
	pq_row_reader *rr;
	if (pq_row_reader_open(f, rg, fmt, &rr, &err) != PQ_OK)
		return PQ_SIZE_FAILED;
	uint64_t total = 0;
	bool done = false;
	while (!done) {
		scratch->len = 0;
		if (pq_row_reader_next(rr, SCRATCH_HINT, scratch, &done, &err) != PQ_OK ||
		    scratch->oom) {
			total = PQ_SIZE_FAILED;
			break;
		}
		total += scratch->len;
	}
	pq_row_reader_free(rr);
	return total;
}
