/* Whole-entry renderings (tools, tests, benchmarks). */
#ifndef PQ_DUMP_H
#define PQ_DUMP_H
#ifndef PQ_CORE_BUILD
#error "pq_dump.h is private to core/: outside it, use core/include"
#endif

#include "pq_file.h"

#define PQ_ALL UINT32_MAX /* every row group */

/* data.csv (with header) or data.jsonl of row group rg, or of all. */
pq_status pq_dump_rows(const pq_file *f, uint32_t rg, pq_row_format fmt, pq_buf *out,
		       pq_error *err);
/* The same, streamed to fd in pieces of about 1 MiB. */
pq_status pq_dump_rows_fd(const pq_file *f, uint32_t rg, pq_row_format fmt, int fd,
			  pq_error *err);
/* values.txt (or levels.txt) of column col in row group rg, or in all. */
pq_status pq_dump_column(const pq_file *f, uint32_t rg, uint32_t col, bool levels, pq_buf *out,
			 pq_error *err);

#endif
