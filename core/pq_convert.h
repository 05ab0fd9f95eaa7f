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

/* One column key for modular encryption (core/writer_crypt.c). */
typedef struct pq_column_key {
	const char *column;   /* dotted path as schema.txt names it */
	const char *key_id;   /* stored as key_metadata */
	const unsigned char *key;
	size_t key_len;       /* 16, 24 or 32 */
} pq_column_key;

/* The value encoding of one column's data pages, overriding the default
 * (RLE_DICTIONARY when opts->dictionary, else PLAIN; BOOLEAN is always
 * PLAIN by default). encoding is an enum pq_encoding: PLAIN,
 * RLE_DICTIONARY (not BOOLEAN), DELTA_BINARY_PACKED (INT32/INT64),
 * DELTA_LENGTH_BYTE_ARRAY (BYTE_ARRAY), DELTA_BYTE_ARRAY (BYTE_ARRAY,
 * FIXED_LEN_BYTE_ARRAY), BYTE_STREAM_SPLIT (FLOAT, DOUBLE, INT32, INT64,
 * FIXED_LEN_BYTE_ARRAY) or RLE (BOOLEAN). RLE_DICTIONARY falls back to
 * PLAIN past 1 MiB of dictionary like the default. */
typedef struct pq_column_encoding {
	const char *column;  /* dotted path as schema.txt names it */
	int encoding;
} pq_column_encoding;

typedef struct pq_write_options {
	int codec;                 /* enum pq_codec_id (parquet.thrift values) */
	int compression_level;     /* used when has_compression_level */
	bool has_compression_level;
	uint64_t row_group_rows;   /* default 1048576 */
	uint64_t page_size;        /* target uncompressed bytes per data page, default 1 MiB */
	int data_page_version;     /* 1 or 2 */
	bool dictionary;           /* RLE_DICTIONARY, PLAIN fallback past 1 MiB */
	bool page_index;           /* ColumnIndex + OffsetIndex */
	bool crc;                  /* page CRC32, dictionary pages too */
	const char *const *bloom_columns; /* dotted paths; NULL-terminated or NULL */
	double bloom_fpp;          /* default 0.01 */
	const pq_column_encoding *column_encodings; /* NULL or n_column_encodings */
	size_t n_column_encodings;

	/* Modular encryption (core/writer_crypt.c): footer_key NULL = none. */
	const char *footer_key_id;
	const unsigned char *footer_key;
	size_t footer_key_len;
	const pq_column_key *column_keys;
	size_t n_column_keys;
	bool plaintext_footer;
	bool gcm_ctr;              /* AES_GCM_CTR_V1 instead of AES_GCM_V1 */
	const char *aad_prefix;    /* stored in the file when set */
} pq_write_options;

/* The contract's defaults (zstd, 1048576 rows, 1 MiB pages, v1,
 * dictionary/page index/crc on, fpp 0.01, no bloom, no encryption). */
void pq_write_options_init(pq_write_options *o);

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
