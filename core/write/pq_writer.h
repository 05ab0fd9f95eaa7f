/* The Parquet writer: flat typed column batches → a standard Parquet file.
 *
 * Use: pq_writer_open with a flattened schema (as pq_schema_parse returns
 * it: root group, then leaves; only flat schemas — every leaf a direct
 * child of the root, REQUIRED or OPTIONAL), then for each row group one or
 * more pq_writer_write calls per column (every column must receive the same
 * number of rows before pq_writer_end_row_group), and pq_writer_close
 * writes the page indexes, bloom filters and footer.
 *
 * The caller cuts row groups (by opts->row_group_rows or otherwise): the
 * writer never ends one by itself. Data pages are cut by opts->page_size.
 *
 * Memory: encoded (compressed) pages of the current row group are held
 * until the row group ends; the caller's batches are copied/encoded at
 * once, so a caller may reuse its buffers after each call. Page indexes
 * and bloom filters of every row group are held until close.
 *
 * Any failure leaves the writer unusable (later calls fail with PQ_EINVAL):
 * the caller discards the partial file. */
#ifndef PQ_WRITER_H
#define PQ_WRITER_H
#ifndef PQ_CORE_BUILD
#error "pq_writer.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_write_options.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_values.h"
#include "pq_buf.h"

typedef struct pq_writer pq_writer;

/* schema: n elements, [0] the root. key_values (may be NULL) are copied
 * into FileMetaData.key_value_metadata. Writes "PAR1" (or "PARE") at once. */
pq_status pq_writer_open(pq_writer **out, int fd, const pq_schema_element *schema, uint32_t n,
                         const pq_write_options *opts, const pq_key_value *key_values,
                         uint32_t n_key_values, pq_error *err);

/* A batch of rows for leaf column `col` (0-based, schema order of leaves).
 * def: one definition level per row (0 = NULL, 1 = present) for OPTIONAL
 * columns, NULL for REQUIRED ones (and for OPTIONAL with no nulls).
 * values: the non-null values only (values->n of them), of the column's
 * physical type; BYTE_ARRAY views must stay valid only during the call. */
pq_status pq_writer_write(pq_writer *w, size_t col, size_t rows, const uint8_t *def,
                          const pq_values *values, pq_error *err);

/* Parallel encoding: prepares n scratch sets (1 <= n <= 64) so that up to
 * n threads may call pq_writer_write_on at once, each with its own worker
 * number (0 .. n-1) and for distinct columns. The file is the same bytes
 * whatever the number of workers and whichever worker writes a column: a
 * column's pages depend only on its own rows. An encrypting writer keeps
 * one worker (its cipher state is shared): *got says how many there are.
 * Call between row groups, from one thread. */
pq_status pq_writer_workers(pq_writer *w, unsigned n, unsigned *got, pq_error *err);
/* pq_writer_write as worker k (pq_writer_write is worker 0). */
pq_status pq_writer_write_on(pq_writer *w, unsigned k, size_t col, size_t rows,
                             const uint8_t *def, const pq_values *values, pq_error *err);

/* Flushes every column's pages of the current row group to the file. A row
 * group with 0 rows is written only when the file would otherwise have none
 * (a header-only CSV gives a file with 0 row groups, as DuckDB writes). */
pq_status pq_writer_end_row_group(pq_writer *w, pq_error *err);

/* Ends the last row group if rows are pending, writes indexes, bloom
 * filters, the footer and the trailing magic. */
pq_status pq_writer_close(pq_writer *w, pq_write_stats *stats, pq_error *err);

/* Appending row groups to an existing (plaintext) Parquet file, its old
 * bytes kept as they are (writer_append.c): the caller has copied the
 * file up to its footer into fd; the writer writes new row groups from
 * offset (the old footer's offset), numbered from first_rg (the old row
 * group count), then their page indexes and bloom filters, and
 * pq_writer_close_append writes the old footer (FileMetaData, `len` bytes)
 * with num_rows increased and the new row groups added to its list; every
 * other field of it is kept byte for byte. The schema must be the old
 * file's (leaf for leaf). No encryption (PQ_EUNSUPPORTED). */
pq_status pq_writer_open_at(pq_writer **out, int fd, uint64_t offset, uint32_t first_rg,
                            const pq_schema_element *schema, uint32_t n,
                            const pq_write_options *opts, pq_error *err);
pq_status pq_writer_close_append(pq_writer *w, const uint8_t *footer, size_t len,
                                 pq_write_stats *stats, pq_error *err);

/* A FileMetaData (compact thrift, `len` bytes, nothing after its end)
 * with add_rows added to num_rows and n_new RowGroup structs (rgs, each
 * encoded) appended to row_groups, into out; every other byte copied.
 * PQ_ECORRUPT when the footer is not a FileMetaData with both fields. */
pq_status pq_footer_splice(const uint8_t *footer, size_t len, int64_t add_rows,
                           const uint8_t *rgs, size_t rgs_len, uint32_t n_new, pq_buf *out,
                           pq_error *err);

/* Frees (also after a failure; never writes). */
void pq_writer_free(pq_writer *w);

#endif
