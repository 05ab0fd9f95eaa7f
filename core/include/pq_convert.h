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
#include "pq_io.h"
#include "pq_write_options.h"

typedef enum pq_csv_format {
	PQ_CSV_COMMA = 0,  /* RFC 4180 */
	PQ_CSV_TAB = 1     /* TSV with values.txt escapes */
} pq_csv_format;

/* How the input file is compressed. */
typedef enum pq_input_codec {
	PQ_INPUT_AUTO = 0, /* by the file's first bytes (gzip, zstd magic) */
	PQ_INPUT_PLAIN,
	PQ_INPUT_GZIP,
	PQ_INPUT_ZSTD
} pq_input_codec;

/* Where a conversion stands, for a progress display. bytes_read counts
 * the bytes of the file as stored (compressed bytes for .gz / .zst) read
 * in the current pass; with type inference there are two passes over the
 * file (pass 1 infers, pass 2 writes). */
typedef struct pq_convert_progress {
	uint64_t bytes_read;
	uint64_t bytes_total;  /* the file's size; 0 when unknown (a pipe) */
	uint64_t rows;         /* rows parsed for writing so far */
	int pass, passes;
	bool finished;         /* the last call: everything written */
} pq_convert_progress;

/* Types inferred while the file was written (pq_infer_ahead_start). */
typedef struct pq_infer_ahead pq_infer_ahead;

/* The input of pq_convert_csv_ex. */
typedef struct pq_convert_input {
	pq_csv_format format;
	uint8_t delimiter;        /* CSV: ',' ';' '|' '\t', or 0 to detect */
	pq_input_codec codec;
	uint64_t max_inflated;    /* cap on decompressed bytes, 0 = default */
	/* called on the converting thread after every block read; keep it
	 * cheap (rate-limit inside) */
	void (*progress)(void *ctx, const pq_convert_progress *p);
	void *progress_ctx;
	/* threads encoding column chunks beside the parsing one; 0: one per
	 * online processor (at most 16); 1: no thread, everything on the
	 * caller's. The file's bytes do not depend on it. */
	unsigned threads;
	/* test hook: the parallel inference pass cuts the file into ranges of
	 * this many bytes (0: its own choice), so tests hit every boundary */
	uint64_t split_bytes;
	/* inference done while the file was written, or NULL: used when it
	 * covers exactly these bytes, else the first pass runs as usual */
	pq_infer_ahead *ahead;
} pq_convert_input;

/* Type inference ahead of the conversion, while the file is still being
 * written (core/csv/convert_ahead.c): a thread of its own reads the CSV as
 * it grows, tokenizes it and feeds inference, so that the conversion of
 * the complete file skips its first pass. The writer says how many bytes
 * from offset 0 are final (the file may only grow, in order, at its end);
 * any other change (a rewrite, a truncation) must cancel it. Its result
 * is used only when it covers exactly the bytes converted (the same size,
 * codec, delimiter and header): it changes the speed, never the file.
 * Memory: one tokenizer (256 KiB and one record) and a state per column. */

/* Starts on a duplicate of fd (read with pread from offset 0) for a file
 * of in's format, delimiter and codec (threads: for the rest of the file
 * when it is complete before the thread got there). A compressed input is
 * not inferred ahead. */
pq_status pq_infer_ahead_start(int fd, const char *display_name, const pq_convert_input *in,
			       pq_infer_ahead **out, pq_error *err);
/* Bytes [0, final_bytes) are written and will not change. */
void pq_infer_ahead_grow(pq_infer_ahead *a, uint64_t final_bytes);
/* The bytes read so far may have changed: nothing it found is used. */
void pq_infer_ahead_cancel(pq_infer_ahead *a);
/* Stops the thread (cancels it when it runs) and frees; NULL is fine. */
void pq_infer_ahead_free(pq_infer_ahead *a);

typedef struct pq_convert_stats {
	uint64_t rows;
	uint64_t row_groups;
	uint64_t bytes_in;
	uint64_t bytes_out;
	/* the inference pass: byte ranges tokenized on threads (0: one pass on
	 * the calling thread), of which tokenized again from the true record
	 * boundary (a range start guessed inside quotes) */
	uint64_t infer_ranges, infer_reparsed;
	/* the types came from pq_convert_input.ahead: no first pass */
	bool inferred_ahead;
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

/* The same with an input description: compressed input, the delimiter
 * (detected when 0), progress. in_fd may be a pipe when no second pass is
 * needed (a sidecar, and TSV or a given delimiter); else PQ_EINVAL. */
pq_status pq_convert_csv_ex(int in_fd, int out_fd, const char *display_name,
                            const pq_convert_input *in, const char *schema_text,
                            const pq_write_options *opts, pq_convert_stats *stats,
                            pq_error *err);

/* Appends the rows of the CSV/TSV at in_fd (no header line: its fields
 * are old's leaf columns in order, typed by old's schema as a sidecar
 * types them; lines are counted from 1 at its first row) to the Parquet
 * file old (target names it in messages, "x.parquet"), writing the result
 * to out_fd from offset 0: old's bytes up to its footer unchanged (no page
 * re-encoded), then the new rows as new row groups (opts, without
 * encryption; the codec of old's last row group when it can be written),
 * their page indexes, and old's footer with them added and every other
 * field kept. stats->rows counts the new rows (0: out_fd holds a copy of
 * old). PQ_EUNSUPPORTED, before anything is written, when old cannot take
 * rows: encrypted, nested, or a column no CSV field can fill; PQ_EINVAL
 * for a row that does not fit (err->msg names line and column). */
pq_status pq_convert_csv_append(pq_source *old, const char *target, int in_fd, int out_fd,
                                const char *display_name, const pq_convert_input *in,
                                const pq_write_options *opts, pq_convert_stats *stats,
                                pq_error *err);

/* Checks a sidecar schema's text as pq_convert_csv would use it (parses,
 * refuses nested groups, LIST, MAP, INT96). err->msg names the line. */
pq_status pq_convert_check_schema(const char *schema_text, const char *display_name,
                                  pq_error *err);

#endif
