/* State shared by the writer's files (core/writer*.c): the file level
 * (writer.c), one column chunk (writer_column.c), its dictionary
 * (writer_dict.c), statistics and page indexes (writer_stats.c) and bloom
 * filters (writer_bloom.c). Not part of the library's interface. */
#ifndef PQ_WRITER_INTERNAL_H
#define PQ_WRITER_INTERNAL_H
#ifndef PQ_WRITE_INTERNAL
#error "writer_internal.h is private to core/write/"
#endif


#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_write_options.h"
#include "pq_crypto.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_values.h"
#include "pq_writer.h"

/* The dictionary is abandoned for the rest of a chunk past this many bytes
 * of PLAIN-encoded entries (the contract's 1 MiB). */
#define PQ_WRITER_DICT_LIMIT ((size_t)1 << 20)
/* ... and earlier, from this many entries on, when most values are
 * distinct (see useless_dict in writer_column.c). */
#define PQ_WRITER_DICT_PROBE ((size_t)8192)
/* The dictionary is weighed against the encodings without it on the first
 * page of a chunk holding at least this many values (writer_choose.c). */
#define PQ_WRITER_CHOOSE_MIN ((size_t)1024)
/* A data page never holds more value slots than this, whatever page_size
 * says (readers bound slots per page; booleans are tiny). */
#define PQ_WRITER_MAX_PAGE_SLOTS ((size_t)1 << 20)
/* Statistics and page-index bounds longer than this are truncated (the
 * exactness flags then say so); huge strings should not bloat footers. */
#define PQ_WRITER_MAX_STAT_BYTES ((size_t)1024)
/* page_size is capped here, far inside what readers accept for one page
 * (ours: 1 GiB uncompressed). */
#define PQ_WRITER_MAX_PAGE_BYTES ((uint64_t)256 << 20)

/* ---- modules: where serialized bytes pass on their way to the file ----- */

/* The module types of the modular encryption spec (Encryption.md, AAD
 * module type), so encryption can later be inserted at one place. */
typedef enum pq_wmodule {
	PQ_WM_FOOTER = 0,
	PQ_WM_COLUMN_META = 1,
	PQ_WM_DATA_PAGE = 2,
	PQ_WM_DICT_PAGE = 3,
	PQ_WM_DATA_PAGE_HEADER = 4,
	PQ_WM_DICT_PAGE_HEADER = 5,
	PQ_WM_COLUMN_INDEX = 6,
	PQ_WM_OFFSET_INDEX = 7,
	PQ_WM_BLOOM_HEADER = 8,
	PQ_WM_BLOOM_BITSET = 9
} pq_wmodule;

/* Which module: row group and column ordinals, page ordinal in the chunk
 * (data pages; -1 otherwise). */
typedef struct pq_wmodule_at {
	uint32_t rg;
	uint32_t col;
	int32_t page;
} pq_wmodule_at;

/* Appends one serialized module to dest as it is to be stored. Every module
 * goes through here before it reaches the file: copied unchanged, or, when
 * the writer encrypts, replaced by its encrypted form (writer_crypt.c). */
pq_status pq_wmodule_put(pq_writer *w, pq_wmodule kind, pq_wmodule_at at, const uint8_t *p,
			 size_t n, pq_buf *dest, pq_error *err);

/* ---- statistics (writer_stats.c) ---------------------------------------- */

/* How min and max compare for a column (parquet.thrift ColumnOrder:
 * TYPE_ORDER, by logical type, then physical type). */
typedef enum pq_sort_order {
	PQ_ORDER_NONE = 0,   /* undefined (INT96, INTERVAL): no min/max */
	PQ_ORDER_BOOL,
	PQ_ORDER_I32,
	PQ_ORDER_U32,
	PQ_ORDER_I64,
	PQ_ORDER_U64,
	PQ_ORDER_FLOAT,
	PQ_ORDER_DOUBLE,
	PQ_ORDER_FLOAT16,    /* FIXED_LEN_BYTE_ARRAY(2), IEEE half precision */
	PQ_ORDER_BYTES,      /* unsigned lexicographic */
	PQ_ORDER_DECIMAL     /* big-endian two's complement of any length */
} pq_sort_order;

pq_sort_order pq_writer_sort_order(const pq_schema_element *el);

/* Running min/max of one page or chunk. Bounds are kept PLAIN-encoded
 * (without a BYTE_ARRAY length prefix). */
typedef struct pq_wstats {
	bool has;            /* min/max hold a value (NaNs never count) */
	bool nan_seen;       /* a NaN was skipped */
	bool truncatable;    /* BYTE_ARRAY: long bounds may be shortened (not FLBA,
	                      * whose bounds readers expect at full width) */
	int64_t nulls;
	int64_t values;      /* non-null values seen */
	pq_buf min, max;
} pq_wstats;

void pq_wstats_reset(pq_wstats *s);
void pq_wstats_free(pq_wstats *s);
/* Adds values v[from .. from+n) (a pq_values of the column's type). */
void pq_wstats_add(pq_wstats *s, pq_sort_order o, const pq_values *v, size_t from, size_t n);
/* Folds a page's stats into the chunk's. */
void pq_wstats_merge(pq_wstats *into, pq_sort_order o, const pq_wstats *from);
/* The bounds as written: zero floats as -0.0 (min) / +0.0 (max), long
 * byte strings truncated (exact flags false then). Call only when s->has. */
pq_status pq_wstats_bounds(const pq_wstats *s, pq_sort_order o, pq_buf *min, bool *min_exact,
			   pq_buf *max, bool *max_exact, pq_error *err);
/* Fills st (null_count, min_value/max_value with exactness, the deprecated
 * min/max where allowed); bound bytes are copied into arena. */
pq_status pq_wstats_to_thrift(const pq_wstats *s, pq_sort_order o, pq_statistics *st,
			      pq_arena *arena, pq_error *err);

/* One data page as the page indexes see it. */
typedef struct pq_wpage {
	int64_t offset;          /* of the page header, relative to the chunk's data pages */
	int32_t size;            /* header + body as stored */
	int64_t first_row;
	int64_t nulls;
	int64_t def_hist[2];
	int64_t unencoded_ba;
	bool null_page;          /* no non-null value */
	bool bounds;             /* min/max are set */
	uint8_t *min, *max;      /* malloc'd PLAIN bounds */
	size_t min_n, max_n;
	bool min_exact, max_exact;
} pq_wpage;

/* Serializes the ColumnIndex (when every non-null page has bounds and the
 * order is defined; *written false otherwise) and the OffsetIndex of a
 * chunk's pages into ci and oi (raw thrift, before pq_wmodule_put). */
pq_status pq_windex_build(const pq_wpage *pages, size_t npages, pq_sort_order o, int64_t base,
			  bool with_def_hist, bool with_ba, pq_buf *ci, bool *ci_written,
			  pq_buf *oi, pq_error *err);

/* ---- bloom filters (writer_bloom.c) --------------------------------------- */

/* A set of the distinct XXH64 hashes of a chunk's values. */
typedef struct pq_wbloom {
	uint64_t *slots;     /* open addressing; 0 marks empty (hash 0 kept aside) */
	size_t cap, count;
	bool has_zero;
} pq_wbloom;

void pq_wbloom_free(pq_wbloom *b);
pq_status pq_wbloom_add(pq_wbloom *b, uint64_t hash, pq_error *err);
/* Hash of value i of v per BloomFilter.md (PLAIN bytes, no length prefix). */
uint64_t pq_wbloom_hash(const pq_values *v, size_t i);
/* Builds the filter for the collected hashes (sized from their count and
 * fpp) and appends BloomFilterHeader + bitset, each through
 * pq_wmodule_put, to out. Resets the set. */
pq_status pq_wbloom_finish(pq_writer *w, pq_wbloom *b, double fpp, pq_wmodule_at at,
			   pq_buf *out, pq_error *err);

/* ---- dictionary (writer_dict.c) ------------------------------------------- */

typedef struct pq_wdict {
	int32_t type, type_length;
	uint64_t *slots;     /* open addressing: hash tag | entry index + 1, 0 = empty */
	uint64_t *hashes;    /* per entry */
	size_t cap;
	size_t count;
	pq_buf data;         /* entries: fixed-width bytes, or concatenated byte arrays */
	pq_buf offs;         /* BYTE_ARRAY: size_t start of entry i in data (count + 1) */
	size_t plain_bytes;  /* size of the dictionary page body, PLAIN */
} pq_wdict;

void pq_wdict_init(pq_wdict *d, int32_t type, int32_t type_length);
void pq_wdict_free(pq_wdict *d);
void pq_wdict_clear(pq_wdict *d);
/* Index of value i of v, adding it if new. hash is pq_wbloom_hash(v, i). */
pq_status pq_wdict_index(pq_wdict *d, const pq_values *v, size_t i, uint64_t hash,
			 uint32_t *idx, pq_error *err);
/* Appends the entries idx[0 .. n) name as the page's values: fixed-width
 * bytes to vals, or BYTE_ARRAY bytes to vals and uint32 lengths to lens. */
pq_status pq_wdict_expand(const pq_wdict *d, const uint32_t *idx, size_t n, pq_buf *vals,
			  pq_buf *lens, pq_error *err);
/* The entries as a pq_values (BYTE_ARRAY views into d; *views malloc'd,
 * caller frees) for PLAIN encoding. */
pq_status pq_wdict_values(const pq_wdict *d, pq_values *out, pq_bytes **views, pq_error *err);

/* Work buffers for encoding one page at a time, shared by the columns so
 * a wide schema does not hold a set per column; one set per worker thread
 * when columns are written in parallel (pq_writer_workers). */
typedef struct pq_wwork {
	pq_buf lev, enc, raw, comp, stored, hdr, bound_min, bound_max;
} pq_wwork;

/* ---- one column chunk (writer_column.c) ----------------------------------- */

typedef struct pq_wcol pq_wcol;

/* Defined here so the encoding choice (writer_choose.c) sees the page. */
struct pq_wcol {
	uint32_t index;
	const pq_schema_element *el;
	int32_t type, type_length;
	size_t width;              /* bytes of one value in memory (0: BYTE_ARRAY) */
	bool optional;
	pq_sort_order order;
	int encoding;              /* of pages written without the dictionary */
	bool use_dict;             /* chunks start with the dictionary */
	bool dict_active;          /* the current page uses it */
	bool bloom;
	bool auto_enc;             /* encodings chosen from the data (writer_choose.c) */
	bool dict_decided;         /* this chunk: the dictionary was weighed */
	bool alt_decided;          /* this chunk: encoding without it was chosen */

	/* the current page */
	pq_buf def;                /* uint16 levels (OPTIONAL columns) */
	pq_buf vals;               /* fixed-width values, or byte-array bytes */
	pq_buf lens;               /* BYTE_ARRAY: uint32 lengths */
	pq_buf idx;                /* uint32 dictionary indices */
	size_t slots, nvalues;
	uint64_t ba_bytes_est;     /* BYTE_ARRAY: PLAIN size of the values */
	pq_wstats pstats;

	/* the chunk */
	int64_t rows;
	int64_t dict_values;       /* values encoded through the dictionary */
	pq_buf pages;              /* serialized data pages (header + body) */
	pq_wpage *pl;
	size_t npl, cappl;
	pq_wstats cstats;
	int64_t def_hist[2];
	int64_t ba_bytes;          /* unencoded BYTE_ARRAY bytes */
	int64_t uncompressed, compressed; /* data pages, headers included */
	int32_t pages_by_enc[PQ_ENC_BYTE_STREAM_SPLIT + 1]; /* data pages per value encoding */
	pq_wdict dict;
	pq_wbloom bloomset;
};

/* Before a page of c is encoded (auto_enc): on a chunk's first page of
 * PQ_WRITER_CHOOSE_MIN values or more (or any first page after which the
 * dictionary is given up anyway: last_dict), keeps the dictionary only
 * when the page dictionary-encoded (indices plus every entry) is no
 * larger than without it, else writes the page without it and drops it
 * when no page used it yet; the encoding without the dictionary is the
 * smaller of PLAIN and (INT32/INT64) DELTA_BINARY_PACKED, chosen once per
 * chunk on the first page where it is needed. Uses wk->raw as scratch. */
pq_status pq_wcol_choose(pq_wcol *c, pq_wwork *wk, bool last_dict, pq_error *err);
/* The bytes the page's values would take: PLAIN (from c->vals / c->lens)
 * and, for INT32/INT64, DELTA_BINARY_PACKED (0 for other types); and the
 * dictionary encoding of c->idx (bit-width byte + hybrid indices) plus the
 * dictionary's PLAIN bytes. */
typedef struct pq_wcosts {
	uint64_t plain, delta, dict;
} pq_wcosts;
pq_status pq_wcol_costs(const pq_wcol *c, bool with_dict, pq_buf *scratch, pq_wcosts *out,
			pq_error *err);

pq_status pq_wcol_new(pq_writer *w, uint32_t index, const pq_schema_element *el,
		      pq_wcol **out, pq_error *err);
void pq_wcol_free(pq_wcol *c);
pq_status pq_wcol_write(pq_writer *w, pq_wwork *wk, pq_wcol *c, size_t rows, const uint8_t *def,
			const pq_values *values, pq_error *err);
uint64_t pq_wcol_rows(const pq_wcol *c);
/* Ends the chunk: flushes the last page, writes dictionary + data pages to
 * the file at w's offset, fills cc (metadata in w's arena), keeps the
 * serialized column index / offset index / bloom filter for close. */
pq_status pq_wcol_finish(pq_writer *w, pq_wcol *c, uint32_t rg, pq_column_chunk *cc,
			 pq_error *err);
/* Writes the kept indexes and bloom filter of every finished chunk. */

/* ---- the file (writer.c) ---------------------------------------------------- */

/* Modules kept until close: a chunk's page indexes and bloom filter. */
typedef struct pq_wdeferred {
	uint32_t rg, col;
	pq_buf column_index, offset_index, bloom;
} pq_wdeferred;


typedef struct pq_wcrypt pq_wcrypt;

struct pq_writer {
	int fd;
	uint64_t offset;          /* next byte of the file */
	pq_write_options opts;
	pq_arena arena;           /* footer metadata */
	pq_schema_element *schema;
	uint32_t nschema;
	pq_wcol **cols;
	uint32_t ncols;
	pq_row_group *rgs;
	uint32_t nrgs, caprgs;
	int64_t rows;             /* rows in finished row groups */
	pq_wdeferred *deferred;
	size_t ndeferred, capdeferred;
	pq_key_value *kv;
	uint32_t nkv;
	pq_wwork work;            /* the calling thread's (and worker 0's) */
	pq_wwork *workers;        /* workers 1 .. nworkers-1 (pq_writer_workers) */
	unsigned nworkers;
	_Atomic bool failed;      /* a write failed: the file is unusable (set by any worker) */
	bool closed;
	pq_wcrypt *crypt;         /* modular encryption, NULL without */
	/* appending (pq_writer_open_at, writer_append.c): the ordinal of the
	 * first row group written, and the existing file's footer that
	 * close extends instead of writing one of its own */
	uint32_t rg_base;
	const uint8_t *base_footer;
	size_t base_footer_len;
};

/* ---- modular encryption (writer_crypt.c) ---------------------------------- */

/* From the options: keys, algorithm, AAD (NULL crypt without a footer key). */
pq_status pq_wcrypt_open(pq_writer *w, pq_error *err);
void pq_wcrypt_free(pq_writer *w);
/* "PARE" for an encrypted footer, else "PAR1". */
const char *pq_wcrypt_magic(const pq_writer *w);
/* pq_wmodule_put for an encrypting writer. */
pq_status pq_wcrypt_module(pq_writer *w, pq_wmodule kind, pq_wmodule_at at, const uint8_t *p,
			   size_t n, pq_buf *dest, pq_error *err);
/* crypto_metadata and, where needed, encrypted_column_metadata of a chunk. */
pq_status pq_wcrypt_seal_column(pq_writer *w, uint32_t rg, uint32_t col, pq_column_chunk *cc,
				pq_error *err);
/* encryption_algorithm and footer_signing_key_metadata of a plaintext footer. */
void pq_wcrypt_footer_fields(const pq_writer *w, pq_file_meta_data *md);

/* ---- appending (writer_append.c) ------------------------------------------ */

/* The footer of an appended file: base_footer with w's row groups added
 * (pq_footer_splice), its length and the trailing magic, into out. */
pq_status pq_writer_append_footer(pq_writer *w, pq_buf *out, pq_error *err);

/* Writes n bytes at the writer's offset and advances it. */
pq_status pq_writer_put(pq_writer *w, const uint8_t *p, size_t n, pq_error *err);
/* A new deferred record for (rg, col). */
pq_status pq_writer_defer(pq_writer *w, uint32_t rg, uint32_t col, pq_wdeferred **out,
			  pq_error *err);
/* Per-column options resolved from opts. */
int pq_writer_column_encoding(const pq_writer *w, const char *name, size_t name_len);
bool pq_writer_column_bloom(const pq_writer *w, const char *name, size_t name_len);

#endif
