/* What a written Parquet file looks like: the writer's options and their
 * defaults (one set, pq_write_options_init), the keys of an encrypted
 * file resolved from the key_file, and what writing produced. Public:
 * staging/ (fs/) and parquetfs-convert (src/) fill these from the mount's
 * or the command line's options (src/options_writer.c), the writer
 * (core/write/, pq_writer.h) and the conversion (pq_convert.h) take them. */
#ifndef PQ_WRITE_OPTIONS_H
#define PQ_WRITE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_crypto.h"
#include "pq_error.h"

struct pq_budget;

/* One column key for modular encryption (core/write/writer_crypt.c). */
typedef struct pq_column_key {
	const char *column;   /* dotted path as schema.txt names it */
	const char *key_id;   /* stored as key_metadata */
	const unsigned char *key;
	size_t key_len;       /* 16, 24 or 32 */
} pq_column_key;

/* The value encoding of one column's data pages, overriding the default
 * (with opts->dictionary: chosen from the data per chunk, RLE_DICTIONARY
 * when it pays, else PLAIN or, for INT32/INT64, DELTA_BINARY_PACKED when
 * smaller (core/write/writer_choose.c); without: PLAIN; BOOLEAN is always
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
	bool dictionary;           /* encodings chosen from the data: RLE_DICTIONARY when
	                            * it pays (given up past 1 MiB), else PLAIN or
	                            * DELTA_BINARY_PACKED; off: PLAIN */
	bool page_index;           /* ColumnIndex + OffsetIndex */
	bool crc;                  /* page CRC32, dictionary pages too */
	const char *const *bloom_columns; /* dotted paths; NULL-terminated or NULL */
	double bloom_fpp;          /* default 0.01 */
	const pq_column_encoding *column_encodings; /* NULL or n_column_encodings */
	size_t n_column_encodings;

	/* Modular encryption (core/write/writer_crypt.c): footer_key NULL = none. */
	const char *footer_key_id;
	const unsigned char *footer_key;
	size_t footer_key_len;
	const pq_column_key *column_keys;
	size_t n_column_keys;
	bool plaintext_footer;
	bool gcm_ctr;              /* AES_GCM_CTR_V1 instead of AES_GCM_V1 */
	const char *aad_prefix;    /* stored in the file when set */

	/* When set, the writer's column chunk buffers (values, levels,
	 * indices, the row group's encoded pages, dictionaries) and a CSV
	 * conversion's record sets are charged to it as they grow and given
	 * back as they go (pq_budget.h). The charges are never refused (the
	 * conversion's threads are exempt): they make a conversion's memory
	 * count in a mount's cache_size, so that readers wait for it. */
	struct pq_budget *budget;
} pq_write_options;

/* The contract's defaults (zstd, 1048576 rows, 1 MiB pages, v1,
 * dictionary/page index/crc on, fpp 0.01, no bloom, no encryption). */
void pq_write_options_init(pq_write_options *o);

/* What pq_writer_close wrote. */
typedef struct pq_write_stats {
	uint64_t rows;
	uint64_t row_groups;
	uint64_t bytes_out;
} pq_write_stats;

/* ---- the contract's encryption options, resolved against the key_file ---- */

typedef struct pq_keyring pq_keyring; /* pq_keyring.h */

/* Keys resolved for one written file; owns what wo points to. */
typedef struct pq_write_keys {
	pq_key footer;
	pq_key *keys;          /* one per column key */
	pq_column_key *cols;
	size_t n;
	char *text;            /* copies of the column names and key ids */
} pq_write_keys;

/* Fills wo's encryption fields for the file at path (its path under
 * SOURCE; sections apply) from encrypt=KEYID (NULL: no encryption),
 * encrypt_columns=COL:KEYID[;...], plaintext_footer, gcm_ctr and
 * aad_prefix. Every KEYID must have a `key KEYID:` line (PQ_EKEY naming it
 * otherwise). Free k with pq_write_keys_free after writing. */
pq_status pq_write_keys_resolve(const pq_keyring *kr, const char *path, const char *encrypt,
				const char *encrypt_columns, bool plaintext_footer, bool gcm_ctr,
				const char *aad_prefix, pq_write_keys *k, pq_write_options *wo,
				pq_error *err);
void pq_write_keys_free(pq_write_keys *k);

#endif
