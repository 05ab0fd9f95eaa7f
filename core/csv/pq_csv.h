/* CSV / TSV input for the conversion (core/csv/convert.c): a streaming
 * tokenizer (csv.c), text → typed value parsing (csv_value.c) and type
 * inference (csv_infer.c). interface.md "Staging details" is the dialect.
 *
 * The tokenizer reads the file with pread through one bounded buffer and
 * hands out one record at a time; the record's field bytes (unquoted,
 * unescaped) live in the reader until the next call. Nothing else of the
 * file is kept, so memory is bounded by the record size limit. */
#ifndef PQ_CSV_H
#define PQ_CSV_H
#ifndef PQ_CORE_BUILD
#error "pq_csv.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_convert.h"
#include "pq_error.h"
#include "pq_metadata.h"

/* Bounds on hostile input (PQ_ELIMIT beyond them, with line and column). */
#define PQ_CSV_MAX_FIELD (16u << 20)    /* bytes of one field */
#define PQ_CSV_MAX_RECORD (64u << 20)   /* bytes of one record (all fields) */
#define PQ_CSV_MAX_COLUMNS 100000u      /* fields per record */

/* A compressed input may decompress to at most the larger of these (a
 * decompression bomb is refused, PQ_ELIMIT): gzip's best ratio is about
 * 1:1000, real CSV files compress 1:5 to 1:30. */
#define PQ_CSV_INFLATE_MIN ((uint64_t)16 << 30)
#define PQ_CSV_INFLATE_RATIO 250u

/* ---- input: the file as blocks of bytes (csv_input.c) ------------------- */

typedef struct pq_csv_input {
	int fd;
	const char *name;
	bool seekable;        /* a regular file: pread, rewind; else read() */
	pq_input_codec codec; /* PLAIN, GZIP or ZSTD (never AUTO once open) */
	struct pq_unpack *u;
	uint8_t *raw;         /* a block of the file */
	size_t raw_pos, raw_end;
	bool raw_eof;
	uint64_t raw_off;     /* bytes of the file read (this pass) */
	uint64_t raw_size;    /* the file's size, 0 when unknown (a pipe) */
	uint64_t out_bytes;   /* bytes handed out (this pass) */
	uint64_t max_out;
	void (*on_block)(void *ctx); /* after every read of the file */
	void *ctx;
	struct pq_csv_spool *spool; /* the decompressed bytes kept for a second pass */
	bool from_spool;      /* reading them (after the rewind) */
	uint64_t spool_off;
	bool read_ahead;      /* compressed: decompress on a thread of its own, a
				 few blocks ahead of the reader (csv_input_ahead.c) */
	struct pq_csv_ahead *ahead;
	/* a file still being written (convert_ahead.c): returns once bytes
	 * past off are final or the file is complete, with *avail the final
	 * bytes; false when it gave up (the read fails) */
	bool (*grow_wait)(void *ctx, uint64_t off, uint64_t *avail);
	void *grow_ctx;
} pq_csv_input;

/* The codec a file starts with (gzip, zstd magic), else PLAIN. */
pq_input_codec pq_csv_sniff(const uint8_t *p, size_t n);
/* Opens fd (read from offset 0 when it is a regular file, else from where
 * it stands); AUTO sniffs the first block. max_out: cap on decompressed
 * bytes, 0 for the default. */
pq_status pq_csv_input_open(pq_csv_input *in, int fd, const char *name, pq_input_codec codec,
			    uint64_t max_out, pq_error *err);
/* The same for a file still being written: every read waits on
 * grow_wait first and ends at its final bytes (raw_size stays 0). */
pq_status pq_csv_input_open_growing(pq_csv_input *in, int fd, const char *name,
				    pq_input_codec codec,
				    bool (*grow_wait)(void *ctx, uint64_t off, uint64_t *avail),
				    void *ctx, pq_error *err);
void pq_csv_input_free(pq_csv_input *in);
/* The next block of (decompressed) bytes into buf; *got 0 at the end. */
pq_status pq_csv_input_read(pq_csv_input *in, uint8_t *buf, size_t cap, size_t *got,
			    pq_error *err);
/* Back to the first byte (regular files only). */
pq_status pq_csv_input_rewind(pq_csv_input *in, pq_error *err);
/* A compressed input: the decompressed bytes of this pass are also written
 * to an unlinked temporary file in dir (NULL: $TMPDIR, else /tmp), at most
 * half the space free there; if the whole stream fits, the rewind reads
 * that file instead of decompressing again. Call at offset 0. Without
 * room or a file nothing is kept (no error): the rewind decompresses. */
void pq_csv_input_spool(pq_csv_input *in, const char *dir);
/* Keeps n more decompressed bytes (the read-ahead thread's blocks, as the
 * reader takes them); end: the stream ended there. */
void pq_csv_input_spool_put(pq_csv_input *in, const uint8_t *p, size_t n, bool end);
/* The decompressed bytes as read from the file (csv_input.c), for the
 * read-ahead thread; the max_out cap is the reader's side's. */
pq_status pq_csv_input_unpack(pq_csv_input *in, uint8_t *buf, size_t cap, size_t *got,
			      pq_error *err);
/* The read-ahead thread (csv_input_ahead.c): the next bytes from its
 * blocks (started on the first call); stop joins it and gives the
 * decoder back to in (before a rewind); free also frees its blocks. */
pq_status pq_csv_ahead_read(pq_csv_input *in, uint8_t *buf, size_t cap, size_t *got,
			    pq_error *err);
void pq_csv_ahead_stop(pq_csv_input *in);
void pq_csv_ahead_free(pq_csv_input *in);

/* ---- the tokenizer (csv.c) ---------------------------------------------- */

typedef struct pq_csv_field {
	const uint8_t *p; /* unquoted / unescaped bytes (not NUL-terminated) */
	size_t n;
	uint64_t line;    /* physical line where the field starts (1-based) */
	bool quoted;      /* CSV: the field was quoted */
	bool null;        /* NULL whatever the column type: an unquoted empty
			     CSV field, a TSV field that is exactly \N. An
			     empty non-null field is "" in a STRING column and
			     NULL in any other. */
} pq_csv_field;

typedef struct pq_csv_reader {
	pq_csv_input *in;     /* where the bytes come from */
	pq_csv_input own;     /* the input of pq_csv_reader_init (a plain fd) */
	pq_csv_format format;
	uint8_t delim;        /* ',' ';' '|' or tab (TSV: always tab) */
	const char *name;     /* display name for messages */
	size_t max_field, max_record, max_columns;
	uint8_t *buf;
	size_t cap, pos, end;
	bool eof;
	uint64_t line;        /* physical line of the next byte */
	uint64_t record_line; /* line where the last record started */
	uint64_t record_off;  /* byte of the input (from where this reader began) where it started */
	bool no_bom;          /* begins inside the file (a range): no byte order mark */
	uint64_t records;     /* records returned (header included) */
	uint8_t *rec;         /* field bytes of the current record */
	size_t rec_len, rec_cap;
	pq_csv_field *fields;
	size_t nfields, fields_cap;
	size_t *starts;       /* offsets of fields in rec while building */
	size_t fast_limit;    /* record length the current field may reach without checks */
	uint64_t bytes_read;
	uint8_t stop[256];    /* bytes that end a run of plain field bytes */
} pq_csv_reader;

/* Prepares a reader of fd from offset 0 (a UTF-8 BOM is skipped). The
 * limits are the PQ_CSV_MAX_* defaults; tests may lower them after init. */
pq_status pq_csv_reader_init(pq_csv_reader *r, int fd, pq_csv_format format,
			     const char *name, pq_error *err);
/* A reader of an open input (borrowed; rewound by the caller), CSV fields
 * split at delim (TSV ignores it). */
pq_status pq_csv_reader_init_input(pq_csv_reader *r, pq_csv_input *in, pq_csv_format format,
				   uint8_t delim, pq_error *err);
/* The delimiter of a CSV (interface.md): the first of , ; | tab that splits
 * each of the first 20 records into the same number of fields, more than
 * one; else ','. The input is rewound before and after. */
pq_status pq_csv_detect_delimiter(pq_csv_input *in, uint8_t *delim, pq_error *err);
void pq_csv_reader_free(pq_csv_reader *r);
/* Reads the next record (blank lines outside quotes are skipped). *done is
 * set at the end of the file. Errors: "NAME: line L, column C: ..." */
pq_status pq_csv_next(pq_csv_reader *r, bool *done, pq_error *err);

/* ---- values ------------------------------------------------------------ */

/* How a column's text becomes values (from its schema element). */
typedef enum pq_cv_kind {
	PQ_CV_BOOLEAN,
	PQ_CV_INT,       /* INT32 / INT64, range from the INTEGER annotation */
	PQ_CV_FLOAT,
	PQ_CV_DOUBLE,
	PQ_CV_FLOAT16,   /* FLBA(2), IEEE half, little-endian */
	PQ_CV_DATE,
	PQ_CV_TIME,
	PQ_CV_TIMESTAMP,
	PQ_CV_DECIMAL,   /* INT32 / INT64 / FLBA / BYTE_ARRAY */
	PQ_CV_UUID,
	PQ_CV_STRING,    /* STRING, ENUM: valid UTF-8 */
	PQ_CV_JSON,      /* valid UTF-8 JSON text */
	PQ_CV_BINARY,    /* binary with no annotation: the bytes */
	PQ_CV_FIXED      /* fixed_len_byte_array with no annotation: exactly n bytes */
} pq_cv_kind;

typedef struct pq_cv_type {
	pq_cv_kind kind;
	int32_t physical;     /* enum pq_type */
	int32_t type_length;  /* FLBA width */
	bool is_unsigned;     /* INT: unsigned annotation */
	int64_t min, max;     /* INT: signed range (unsigned: 0 .. max as u64 bits) */
	uint64_t umax;        /* INT unsigned: largest value */
	int32_t unit;         /* TIME / TIMESTAMP: PQ_MILLIS / PQ_MICROS / PQ_NANOS */
	bool utc;             /* TIME / TIMESTAMP: isAdjustedToUTC */
	int32_t precision, scale; /* DECIMAL */
	char name[48];        /* for messages: "INT32", "DECIMAL(9,2)", ... */
} pq_cv_type;

/* One parsed value. Byte values (STRING, BINARY, JSON, DECIMAL on
 * BYTE_ARRAY) point into the input or into `scratch`. */
typedef struct pq_cv_value {
	union {
		uint8_t b;
		int32_t i32;
		int64_t i64;
		float f32;
		double f64;
	} v;
	const uint8_t *p; /* BYTE_ARRAY / FLBA bytes */
	size_t n;
	uint8_t scratch[64];
} pq_cv_value;

/* The conversion of a flat leaf's element, or a message (static text) when
 * a CSV value cannot become this type (INT96, FLOAT16, INTERVAL, ...). */
const char *pq_cv_type_of(const pq_schema_element *el, pq_cv_type *t);

/* Parses one non-empty text value. On failure writes the reason after the
 * quoted value into why (`is not an INT32`, `has more than 2 fraction
 * digits for DECIMAL(9,2)`, ...) and returns false. DECIMAL values longer
 * than scratch allows use *big (grown as needed; caller frees). */
bool pq_cv_parse(const pq_cv_type *t, const uint8_t *p, size_t n, pq_cv_value *out,
		 pq_buf *big, char *why, size_t whylen);

/* Building blocks shared with inference. */
typedef struct pq_cv_ts {
	int64_t days;       /* days since 1970-01-01 of the local date */
	int64_t secs;       /* seconds into that day (local) */
	uint32_t frac;      /* fraction as nanoseconds */
	int frac_digits;    /* digits written (0-9) */
	bool has_time;      /* not a bare date */
	bool has_offset;    /* Z or ±HH[:MM] */
	int32_t offset_s;   /* offset east of UTC in seconds */
} pq_cv_ts;

/* The shape of a number: [+-]? digits [. digits] [e[+-]digits], or
 * nan / inf / infinity (special). */
typedef struct pq_cv_number {
	bool plus, minus, special, dot, exp, nonzero, leading_zero;
	size_t int_digits, frac_digits;
} pq_cv_number;
/* 1 when p is a number of that shape (filling *num), else 0. */
int pq_cv_number_shape(const uint8_t *p, size_t n, pq_cv_number *num);
/* strtod / strtof (single) of the whole text; false when it is not all
 * consumed or longer than 1024 bytes. */
bool pq_cv_strtod(const uint8_t *p, size_t n, bool single, double *d, float *f);

/* Trims leading and trailing spaces (and tabs). */
void pq_cv_trim(const uint8_t **p, size_t *n);
/* DATE, or DATE [T ]HH:MM[:SS[.f]] [Z|±HH[:MM]|±HHMM]; years 0001-9999;
 * up to 9 fraction digits. false when not that form / not a real date. */
bool pq_cv_parse_ts(const uint8_t *p, size_t n, pq_cv_ts *ts);
/* HH:MM[:SS[.f]] with an optional offset (TIME columns). */
bool pq_cv_parse_time(const uint8_t *p, size_t n, pq_cv_ts *ts);
/* The UTC instant (local time minus offset) in unit since the epoch;
 * false when it does not fit int64. */
bool pq_cv_ts_value(const pq_cv_ts *ts, int32_t unit, int64_t *out);
/* RFC 8259 JSON text (one value, whitespace around). */
bool pq_cv_json_valid(const uint8_t *p, size_t n);
/* Writes `"value"` for a message: escaped, cut at 60 bytes with "...". */
void pq_cv_quote(const uint8_t *p, size_t n, char *out, size_t outlen);

/* ---- inference --------------------------------------------------------- */

typedef enum pq_infer_kind {
	PQ_INFER_NONE,      /* no non-NULL value yet */
	PQ_INFER_BOOLEAN,
	PQ_INFER_INT64,
	PQ_INFER_DOUBLE,
	PQ_INFER_DATE,
	PQ_INFER_TIMESTAMP,
	PQ_INFER_STRING
} pq_infer_kind;

typedef struct pq_infer {
	pq_infer_kind kind;
	bool saw_int, saw_double;     /* numeric column */
	bool saw_bigint;              /* an integer outside int64 (DOUBLE only
					 beside a DOUBLE value, else STRING) */
	bool saw_date, saw_naive, saw_offset; /* date / timestamp column */
	bool nanos;                   /* a value with more than 6 fraction digits */
	bool nanos_overflow;          /* a timestamp outside the int64 ns range */
} pq_infer;

/* Feeds one non-NULL, non-empty value (untrimmed) of a column. */
void pq_infer_add(pq_infer *s, const uint8_t *p, size_t n);
/* Folds the state of other values of the same column into *s: the result
 * is what feeding both sets of values to one state gives, in any order
 * (the parallel inference pass merges its ranges with it). */
void pq_infer_merge(pq_infer *s, const pq_infer *o);
/* The element of the inferred column: OPTIONAL, named by name (not copied). */
void pq_infer_element(const pq_infer *s, pq_bytes name, pq_schema_element *el);

#endif
