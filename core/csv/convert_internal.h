/* Helpers shared by core/csv/convert.c and core/csv/convert_schema.c. */
#ifndef PQ_CONVERT_INTERNAL_H
#define PQ_CONVERT_INTERNAL_H
#ifndef PQ_CSV_INTERNAL
#error "convert_internal.h is private to core/csv/"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_bytes.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_convert.h"

/* A name for messages: control bytes escaped, long names cut. */
void pq_conv_msg_name(pq_bytes n, char *out, size_t len);
/* Positions 0..n-1 sorted by name bytes (ties by position); caller frees;
 * NULL when out of memory. */
size_t *pq_conv_sorted_names(const pq_bytes *names, size_t n);
bool pq_conv_same(pq_bytes a, pq_bytes b);
/* Parses a sidecar and checks it can come from CSV: flat REQUIRED /
 * OPTIONAL primitive fields of convertible types, unique names. Messages
 * start with name ("x.schema: line 4: field 'tags': a LIST cannot ..."). */
pq_status pq_conv_load_schema(const char *text, const char *name, pq_arena *arena,
			      pq_schema_element **els, uint32_t *n, pq_error *err);

/* Appending rows to an existing file (convert_append.c): its leaf
 * columns are the CSV's, in order, with no header line; the writer goes
 * on from the old footer's offset and extends that footer. */
typedef struct pq_conv_append {
	const pq_schema_element *els; /* the file's schema: root, then leaves */
	uint32_t nels;
	uint64_t offset;         /* of the old footer: the new row groups go there */
	uint32_t rgs;            /* row groups the file has */
	const uint8_t *footer;   /* its FileMetaData bytes */
	size_t footer_len;
	const char *target;      /* "x.parquet", for messages */
} pq_conv_append;

/* The conversion (convert.c): pq_convert_csv_ex, or with app an append. */
pq_status pq_conv_run(int in_fd, int out_fd, const char *display_name,
		      const pq_convert_input *in, const char *schema_text, const pq_conv_append *app,
		      const pq_write_options *opts, pq_convert_stats *stats, pq_error *err);

/* The inference pass on threads (convert_infer.c). */
typedef struct pq_conv_infer_in {
	int fd;                 /* a plain regular file */
	const char *name;
	pq_csv_format format;
	uint8_t delim;
	size_t ncols;
	uint64_t data_start;    /* the byte after the header record */
	uint64_t size;          /* the file's size */
	unsigned threads;       /* 2 or more, else nothing is done */
	uint64_t split_bytes;   /* test hook: range size (0: the file / threads, <= 16 MiB) */
	void (*progress)(void *ctx, uint64_t bytes_read); /* on the calling thread */
	void *ctx;
	uint64_t *ranges, *reparsed; /* out: ranges used, ranges tokenized again */
} pq_conv_infer_in;

struct pq_infer;
/* Feeds every record after the header to out[0 .. ncols) (zeroed by the
 * caller) from several threads; *ok false when it did not (too small a
 * file, one thread, or an error in the records, which the caller's
 * single-threaded pass then reports). */
pq_status pq_conv_infer_parallel(const pq_conv_infer_in *in, struct pq_infer *out, bool *ok,
				 pq_error *err);

/* convert_ahead.c: ends the inference ahead at size bytes and waits for
 * it; true with out[0 .. ncols) when its states cover exactly those bytes,
 * split at delim into ncols columns (*ranges: the byte ranges its threads
 * took, 0 when it read everything itself). */
bool pq_conv_ahead_take(pq_infer_ahead *a, uint64_t size, uint8_t delim, size_t ncols,
			struct pq_infer *out, uint64_t *ranges);

/* ---- a set of tokenized records (convert_set.c) ------------------------ */

/* One column's typed values of a set (the value pass), schema order. */
typedef struct pq_conv_colbuf {
	uint8_t *def;
	uint8_t *vals;      /* fixed-width values */
	size_t nvals;
	size_t *offs;       /* BYTE_ARRAY copied to text: start of each value (+1 end) */
	pq_bytes *views;
	pq_buf text;
} pq_conv_colbuf;

#define PQ_CONV_NULL 0x80000000u /* in len: a NULL field */

/* Records as the tokenizer gave them, copied so the tokenizer can go on
 * while threads parse them column by column: the field bytes of every
 * record one after another in raw, and per field (CSV column c, row r at
 * [c * cap + r]) its offset in raw, its length (| PQ_CONV_NULL) and its
 * line less the record's line. */
typedef struct pq_conv_set {
	size_t ncols, cap, rows;
	pq_buf raw;
	uint64_t *line;     /* cap: the line of the record's first field */
	uint32_t *off, *len, *dline;
	pq_conv_colbuf *cb; /* the value pass: schema order */
	size_t text_bytes;  /* raw bytes of the fields counted by text_cols */
	const bool *text_cols; /* CSV order; NULL: none */
	bool end_group;     /* end the row group after writing it */
	uint64_t charged;   /* to raw.budget, beside raw's own charge */
} pq_conv_set;

/* Room for cap records of ncols fields (the field arrays only). */
pq_status pq_conv_set_alloc(pq_conv_set *s, size_t ncols, size_t cap, const char *name,
			    pq_error *err);
/* Appends the reader's record (exactly ncols fields). */
pq_status pq_conv_set_add(pq_conv_set *s, const struct pq_csv_reader *r, const char *name,
			  pq_error *err);
/* Empties the set (keeps its memory). */
void pq_conv_set_clear(pq_conv_set *s);
/* Counts n more bytes of the set's (its cb arrays) in raw.budget, if set. */
void pq_conv_set_charge(pq_conv_set *s, uint64_t n);
/* Frees the field arrays and raw (not cb); gives their charges back. */
void pq_conv_set_free(pq_conv_set *s);

#endif
