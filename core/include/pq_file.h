/* An opened Parquet file: footer, schema and lazily read column chunks.
 *
 * A pq_file is immutable after pq_file_open and may be used from many
 * threads at once; everything it reads goes through its pq_source
 * (pq_io.h).
 * Objects returned by the functions below (layouts, pages) are owned by the
 * caller and freed with their own free function; callers cache them. */
#ifndef PQ_FILE_H
#define PQ_FILE_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_error.h"
#include "pq_io.h"
#include "pq_metadata.h"
#include "pq_values.h"

/* The row output of data.csv / data.jsonl: the one format enum of the
 * assembler, the flat renderer, the row reader (pq_file.h) and the dumps. */
typedef enum pq_row_format { PQ_ROWS_CSV, PQ_ROWS_JSONL } pq_row_format;

typedef struct pq_file pq_file;
typedef struct pq_schema pq_schema;
typedef struct pq_keyring pq_keyring; /* the key_file (pq_keyring.h) */

/* Opens the file whose bytes src holds; the pq_file takes a reference of
 * its own (the caller keeps and drops its one). Reads the tail once (the
 * footer, usually) and the leading magic. name is used in messages and is the path key_file
 * sections are matched against (the path under SOURCE). Reads and parses
 * the footer and the schema; nothing else. For an encrypted file (keys may
 * be NULL) it also decrypts the footer (PQ_EKEY without its key, PQ_EAUTH
 * when it fails to authenticate) or checks the plaintext footer's
 * signature, and decrypts the column metadata of every chunk whose key is
 * at hand; a chunk without its key fails only when read (PQ_EKEY). */
pq_status pq_file_open(pq_source *src, const char *name, const pq_keyring *keys,
		       pq_file **out, pq_error *err);
/* The same over a descriptor (not taken over; it must stay open while
 * the pq_file lives), for tools and tests. */
pq_status pq_file_open_fd(int fd, const char *name, const pq_keyring *keys, pq_file **out,
			  pq_error *err);
void pq_file_free(pq_file *f);
/* The memory one page may take while it is decoded (its stored body and
 * its uncompressed bytes): default 1 GiB; the daemon sets its cache_size.
 * A page above it fails with PQ_ELIMIT and a message naming the bytes it
 * needs. Call right after opening, before the file is shared. */
void pq_file_set_page_budget(pq_file *f, uint64_t bytes);
/* The budget (pq_budget.h) every decoded page (its stored, uncompressed
 * and decoded bytes) and row reader of this file is charged to, shared by
 * the files of a mount. Decoding that does not fit fails with PQ_ELIMIT
 * and a message naming the bytes; nothing waits. NULL (the default): not
 * counted. Call right after opening, before the file is shared. */
struct pq_budget;
void pq_file_set_budget(pq_file *f, struct pq_budget *b);

/* Whether a page whose stored CRC does not match its bytes fails (default
 * on): its body, decoded values and everything rendered from them
 * (pq_page_body, pq_page_decode, rows, the size pass's segments) fail with
 * PQ_ECHECKSUM and a message naming the page and both CRCs. Off: such
 * pages are decoded as stored. verify.txt reports them either way, with
 * the same text. Call right after opening, before the file is shared. */
void pq_file_set_crc_check(pq_file *f, bool on);

/* Slots of a large data page decoded at once (default and maximum 1M):
 * a page of more slots whose encodings can resume mid-page is decoded a
 * window at a time. Smaller windows are for tests (every window boundary
 * exercised on ordinary files). Call right after opening. */
void pq_file_set_page_window(pq_file *f, size_t slots);

const pq_file_meta_data *pq_file_metadata(const pq_file *f);
const pq_schema *pq_file_schema(const pq_file *f);
uint32_t pq_file_num_row_groups(const pq_file *f);
uint32_t pq_file_num_columns(const pq_file *f); /* leaf columns */
/* The serialized FileMetaData exactly as stored (decrypted if encrypted). */
pq_bytes pq_file_footer_bytes(const pq_file *f);
/* Where the bytes come from (size, identity, a descriptor for zero-copy). */
pq_source *pq_file_source(const pq_file *f);
/* Column chunk metadata, or NULL when out of range. */
const pq_column_chunk *pq_file_chunk(const pq_file *f, uint32_t rg, uint32_t col);
const pq_column_meta_data *pq_file_chunk_meta(const pq_file *f, uint32_t rg, uint32_t col);

/* chunk.bin: the byte range of the chunk per the contract. PQ_ECORRUPT with
 * a message when it lies outside the file. */
pq_status pq_chunk_range(const pq_file *f, uint32_t rg, uint32_t col,
			 uint64_t *offset, uint64_t *length, pq_error *err);

/* The bytes from the first chunk of row group rg to the end of its last
 * (its chunks' ranges as pq_chunk_range gives them; chunks that have none
 * are left out); PQ_ECORRUPT when no chunk has a range. */
pq_status pq_row_group_extent(const pq_file *f, uint32_t rg, uint64_t *offset, uint64_t *length,
			      pq_error *err);
/* A far source (pq_source_far: remote, container) is told that row group
 * rg's bytes will be read soon (pq_source_advise), so they come in a
 * request or two ahead of the reads instead of one per page. */
void pq_file_advise_row_group(const pq_file *f, uint32_t rg);
/* How many row groups from rg (at most max_n) lie end to end within
 * max_bytes together, and their range; 0 if rg alone does not fit. */
uint32_t pq_row_groups_run(const pq_file *f, uint32_t rg, uint32_t max_n, uint64_t max_bytes,
			   uint64_t *off, uint64_t *len);
/* Row groups [rg, rg + n): in one request where they lie end to end
 * within 8 MiB, so a reader going row group by row group makes half the
 * requests when it asks for two at every second one. */
void pq_file_advise_row_groups(const pq_file *f, uint32_t rg, uint32_t n);

/* Reads exactly len bytes at offset (bounded by the file size). */
pq_status pq_file_pread(const pq_file *f, void *buf, size_t len, uint64_t offset,
			pq_error *err);

/* ---- Page layout of one column chunk (page headers only, no bodies) ---- */

typedef struct pq_page_info {
	pq_page_header header;  /* decoded PageHeader */
	uint64_t header_offset; /* file offset of the header */
	uint32_t header_len;
	uint64_t body_offset;   /* file offset of the body (raw.bin) */
	uint32_t body_len;      /* compressed_page_size */
	uint64_t first_slot;    /* value slots before this page in the chunk */
	uint32_t num_slots;     /* num_values of the page (level slots) */
	uint64_t first_row;     /* rows before this page (for data pages) */
	uint32_t num_rows;      /* rows starting in this page (for data pages) */
	bool rows_known;        /* first_row/num_rows valid (v2 header or no repetition) */
} pq_page_info;

typedef struct pq_chunk_layout {
	uint32_t rg, col;
	pq_page_info *dict;     /* dictionary page or NULL */
	pq_page_info *pages;    /* data pages (v1 and v2), in file order */
	uint32_t num_pages;
	uint32_t first_page;    /* the number of pages[0]: 0, but for one page */
	uint32_t num_index_pages; /* skipped */
	uint64_t num_slots;     /* sum of data page num_values */
	pq_arena arena;
} pq_chunk_layout;

/* Walks the page headers of a chunk. Fails with context (row group,
 * column, page, offset) on the first unreadable header. */
pq_status pq_chunk_layout_load(const pq_file *f, uint32_t rg, uint32_t col,
			       pq_chunk_layout **out, pq_error *err);
void pq_chunk_layout_free(pq_chunk_layout *l);

/* Data page `page` of a chunk located through its offset index, reading
 * only that page (and the dictionary page when the page is
 * dictionary-encoded): a layout whose pages[0] is that page (first_page =
 * page, num_pages = 1) and whose dict is set only when the page needs it.
 * In a nested column first_slot is unknown (0). Fails (PQ_EUNSUPPORTED, or
 * PQ_ECORRUPT naming the disagreement) when the chunk has no usable offset
 * index or the page's header disagrees with it: the caller then walks the
 * chunk (pq_chunk_layout_load), whose pages and messages are the contract. */
pq_status pq_chunk_layout_load_page(const pq_file *f, uint32_t rg, uint32_t col, uint32_t page,
				    pq_chunk_layout **out, pq_error *err);
/* How many data pages the chunk's offset index lists, when it can stand in
 * for the walk (plaintext chunk, pages back to back from data_page_offset to
 * the chunk's end, rows from 0 increasing within the row group, a flat
 * column's num_values equal to its rows); PQ_EUNSUPPORTED otherwise. */
pq_status pq_chunk_index_num_pages(const pq_file *f, uint32_t rg, uint32_t col, uint32_t *n,
				   pq_error *err);
/* Whether a data page's values are dictionary-encoded (need the dictionary). */
bool pq_page_wants_dict(const pq_page_info *page);

/* ---- Page bodies and decoded pages ---------------------------------------- */

/* data.bin: the page body decompressed (and decrypted). Caller frees *out. */
pq_status pq_page_body(const pq_file *f, const pq_chunk_layout *l,
		       const pq_page_info *page, uint8_t **out, size_t *len,
		       pq_error *err);

/* CRC state of a page: no CRC stored, matches, or mismatch. */
typedef enum { PQ_CRC_ABSENT, PQ_CRC_OK, PQ_CRC_MISMATCH } pq_crc_state;
pq_status pq_page_crc(const pq_file *f, const pq_page_info *page,
		      pq_crc_state *state, uint32_t *computed, pq_error *err);

/* A decoded page (dictionary or data). Reference counted, so a dictionary
 * shared by the pages of a chunk and a cache can both hold it. */
typedef struct pq_page_data {
	size_t nslots;          /* level slots (data pages) */
	uint16_t *rep, *def;    /* NULL when the column's max level is 0 */
	pq_values values;       /* non-null values (dictionary: its entries) */
	struct pq_page_data *dict; /* held reference, for BYTE_ARRAY views */
	pq_arena arena;
	int refs;
} pq_page_data;

/* Decodes a page. For data pages of dictionary-encoded chunks, dict must be
 * the decoded dictionary page of the chunk. */
pq_status pq_page_decode(const pq_file *f, const pq_chunk_layout *l,
			 const pq_page_info *page, pq_page_data *dict,
			 pq_page_data **out, pq_error *err);
void pq_page_data_unref(pq_page_data *p);

/* ---- Text views ------------------------------------------------------------ */

/* Each appends its whole text to out. */
void pq_text_schema(const pq_file *f, pq_buf *out);
void pq_text_file_metadata(const pq_file *f, pq_buf *out);
void pq_json_file_metadata(const pq_file *f, pq_buf *out);
void pq_text_row_group_metadata(const pq_file *f, uint32_t rg, pq_buf *out);
void pq_json_row_group_metadata(const pq_file *f, uint32_t rg, pq_buf *out);
void pq_text_chunk_metadata(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out);
void pq_json_chunk_metadata(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out);
pq_status pq_text_page_header(const pq_file *f, const pq_chunk_layout *l,
			      const pq_page_info *page, pq_buf *out, pq_error *err);
pq_status pq_json_page_header(const pq_file *f, const pq_chunk_layout *l,
			      const pq_page_info *page, pq_buf *out, pq_error *err);
/* Page index and bloom filter of a chunk; PQ_OK with nothing appended
 * when the chunk has none (use the has_ functions to decide on entries). */
bool pq_chunk_has_column_index(const pq_file *f, uint32_t rg, uint32_t col);
bool pq_chunk_has_offset_index(const pq_file *f, uint32_t rg, uint32_t col);
bool pq_chunk_has_bloom_filter(const pq_file *f, uint32_t rg, uint32_t col);
pq_status pq_text_column_index(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out, pq_error *err);
pq_status pq_text_offset_index(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out, pq_error *err);
pq_status pq_bloom_filter_bitset(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out, pq_error *err);
pq_status pq_text_bloom_filter(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out, pq_error *err);
/* columns/<column>/stats.txt (interface.md "Column summaries"): the leaf
 * column col across all row groups, from the footer (and, where it lacks
 * page counts, the offset index or page headers). PQ_EINVAL for a column
 * out of range; whatever the metadata lacks is written as `unknown`. */
pq_status pq_text_column_summary(const pq_file *f, uint32_t col, pq_buf *out, pq_error *err);

/* values.txt / levels.txt of one decoded data page. */
void pq_text_page_values(const pq_file *f, uint32_t col, const pq_page_data *p, pq_buf *out);
void pq_text_page_levels(const pq_page_data *p, pq_buf *out);
/* The size of a data page's levels.txt without decoding it, when it can
 * be known so (levels of one digit: 4 bytes per slot); false otherwise. */
bool pq_page_levels_size(const pq_file *f, uint32_t col, const pq_page_info *pi,
			 uint64_t *size);
bool pq_column_has_levels(const pq_file *f, uint32_t col);

/* ---- Row rendering (data.csv / data.jsonl), resumable ----------------------- */

typedef struct pq_row_reader pq_row_reader;

/* Renders the rows of one row group, in pieces: each call appends about
 * chunk_hint bytes (at least one row) to out; *done is set at the end.
 * The CSV header is not included (pq_text_csv_header). */
pq_status pq_row_reader_open(const pq_file *f, uint32_t rg, pq_row_format fmt,
			     pq_row_reader **out, pq_error *err);
pq_status pq_row_reader_next(pq_row_reader *r, size_t chunk_hint, pq_buf *out,
			     bool *done, pq_error *err);
void pq_row_reader_free(pq_row_reader *r);
void pq_text_csv_header(const pq_file *f, pq_buf *out);

/* ---- verify.txt -------------------------------------------------------------- */
/* Problems of the file are lines of the text; a check that cannot be made
 * (no memory, the budget full, an I/O error) fails instead (out is then
 * unfinished): it is no problem of the file. */
pq_status pq_text_verify(const pq_file *f, pq_buf *out, pq_error *err);

#endif
