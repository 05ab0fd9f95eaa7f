/* CSV/TSV → Parquet conversion: the one code path behind staging/ and
 * parquetfs-convert.
 *
 * The caller owns the files: it opens the staged input and the output
 * (a temporary file beside the target); pq_convert writes the whole Parquet
 * file to out_fd and never renames, fsyncs or unlinks anything. Publishing
 * atomically is the caller's job (fs/staging.c, src/convert.c).
 *
 * On bad input the status is PQ_EINVAL and err->msg is the one line the
 * contract puts in `<name>.error`, e.g.
 *   x.csv: line 17, column 3 (age): "abc" is not an INT32
 * (lines are physical lines of the file, the header is line 1). I/O
 * failures are PQ_EIO. */
#ifndef PQ_CONVERT_H
#define PQ_CONVERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"
#include "pq_write_options.h"

typedef enum pq_csv_format {
	PQ_CSV_COMMA = 0,  /* RFC 4180 */
	PQ_CSV_TAB = 1     /* TSV with values.txt escapes */
} pq_csv_format;

typedef struct pq_convert_stats {
	uint64_t rows;
	uint64_t row_groups;
	uint64_t bytes_in;
	uint64_t bytes_out;
} pq_convert_stats;

/* Converts the CSV/TSV open at in_fd (read from offset 0 with pread, so it
 * may be read twice for type inference) into a Parquet file written to
 * out_fd from offset 0. display_name ("x.csv") starts error messages.
 * schema_text is the sidecar's text (schema.txt syntax) or NULL to infer
 * types. stats may be NULL. */
pq_status pq_convert_csv(int in_fd, int out_fd, const char *display_name,
                         pq_csv_format format, const char *schema_text,
                         const pq_write_options *opts, pq_convert_stats *stats,
                         pq_error *err);

/* Checks a sidecar schema's text as pq_convert_csv would use it (parses,
 * refuses nested groups, LIST, MAP, INT96). err->msg names the line. */
pq_status pq_convert_check_schema(const char *schema_text, const char *display_name,
                                  pq_error *err);

#endif
