/* Private to core/: the insides of pq_file and pq_page_data helpers. */
#ifndef PQ_FILE_INTERNAL_H
#define PQ_FILE_INTERNAL_H
#ifndef PQ_READ_INTERNAL
#error "file_internal.h is private to core/read/"
#endif


#include "pq_budget.h"
#include "pq_crypto.h"
#include "pq_file.h"
#include "format/pq_footer.h"
#include "pq_schema.h"
#include "pq_assemble.h"

/* Bounds on what a file may make us allocate. */
#define PQ_MAX_FOOTER_BYTES (512u << 20)
/* The format's own limit (page sizes are i32); what a page may really
 * take is the file's page budget (pq_file_set_page_budget). */
#define PQ_MAX_PAGE_BYTES ((size_t)INT32_MAX)
#define PQ_DEFAULT_PAGE_BUDGET ((uint64_t)1 << 30)
#define PQ_MAX_PAGE_HEADER_BYTES (64u << 20)
#define PQ_MAX_PAGE_SLOTS (16u << 20)
/* pq_file_open's one speculative read of the tail: large enough for the
 * footer of most files, small enough to cost nothing when it is not. */
#define PQ_OPEN_TAIL_BYTES ((size_t)64 << 10)

/* Decryption state of one column chunk of an encrypted file. */
typedef struct pq_chunk_crypto {
	bool encrypted;   /* its pages, headers and indexes are modules */
	pq_status status; /* PQ_OK, or why it cannot be read (PQ_EKEY, PQ_EAUTH, ...) */
	const char *msg;  /* the message for status (file arena) */
	pq_key key;
} pq_chunk_crypto;

typedef enum { PQ_SIG_NONE, PQ_SIG_VERIFIED, PQ_SIG_NO_KEY } pq_sig_state;

/* What an encrypted file needs for decryption, set up by pq_file_open
 * (core/read/file_crypto.c) and read-only after. */
typedef struct pq_file_crypto {
	pq_cipher page_cipher;  /* GCM, or CTR for the pages of AES_GCM_CTR_V1 */
	bool footer_encrypted;  /* PARE */
	pq_sig_state signature; /* plaintext footer: its signature */
	bool aad_supplied;      /* the AAD prefix came from the key_file */
	bool no_aad;            /* modules carry no AAD (DuckDB's files) */
	uint8_t *file_aad;      /* aad_prefix || aad_file_unique */
	size_t file_aad_len;
	pq_file_crypto_meta_data fcmd; /* PARE files: as stored */
	uint8_t *fcmd_raw;      /* bytes fcmd points into */
	bool has_footer_key;
	pq_key footer_key;
	pq_chunk_crypto *chunks; /* row group * num_columns + column */
	size_t nchunks;
} pq_file_crypto;

struct pq_file {
	pq_source *src;  /* every read goes here (a reference of our own) */
	uint64_t size;   /* pq_source_size(src) */
	char *name;
	uint8_t *footer; /* serialized FileMetaData (decrypted) */
	size_t footer_len;
	pq_arena arena;  /* decoded metadata */
	pq_file_meta_data md;
	pq_schema *schema;
	uint32_t num_columns;
	pq_file_crypto *crypto; /* NULL for a plaintext file */
	uint64_t page_budget;   /* memory one page may take to decode */
	pq_budget *budget;      /* what decoded pages and row readers are charged to, or NULL */
	/* A far source's leading magic is checked by the first read starting
	 * at most PQ_HEAD_REACH bytes in (file.c), not at open: head_ok is
	 * set (atomically) once it was. end8: the file's last 8 bytes. */
	bool head_ok;
	uint8_t end8[8];
	size_t page_window;     /* slots a page reader decodes at once */
	bool crc_check;         /* a page whose stored CRC does not match fails its load */
};
#define PQ_HEAD_REACH 4

/* ---- file_crypto.c: modular encryption on the read side ---- */

/* An encrypted footer (PARE): raw (malloc'd, taken over) holds the
 * loc->length footer bytes; decodes the FileCryptoMetaData, finds the
 * footer key, decrypts the FileMetaData into f->footer. */
pq_status pq_crypto_open_encrypted_footer(pq_file *f, const pq_footer_loc *loc, uint8_t *raw,
					  const pq_keyring *keys, pq_error *err);
/* A plaintext footer with encryption_algorithm: verifies the signature
 * that follows the used bytes of the FileMetaData (when the footer key is
 * at hand) and trims f->footer_len to the FileMetaData. */
pq_status pq_crypto_open_plaintext_footer(pq_file *f, size_t used, const pq_keyring *keys,
					  pq_error *err);
/* After the schema: each chunk's key, and its column metadata decrypted
 * into the footer structs. Per-chunk problems are kept, not returned. */
pq_status pq_crypto_setup_chunks(pq_file *f, const pq_keyring *keys, pq_error *err);
void pq_crypto_free(pq_file_crypto *c);
/* metadata.txt lines: algorithm, footer mode and key id, signature, and
 * which columns are encrypted with which key id (never a key). */
void pq_text_file_encryption(const pq_file *f, pq_buf *out);
/* metadata.json members for an encrypted footer (FileCryptoMetaData). */
void pq_json_file_encryption(const pq_file *f, pq_buf *out);
/* The chunk's crypto state, or NULL when the chunk is not encrypted. */
const pq_chunk_crypto *pq_file_chunk_crypto(const pq_file *f, uint32_t rg, uint32_t col);
/* Decrypts one module of an encrypted chunk, m[0..n) as stored, into out
 * (room for n bytes). Pages use the file's page cipher. Failures carry
 * where: "row group 0, column x, page 3: GCM tag check failed (...)". */
pq_status pq_chunk_decrypt(const pq_file *f, uint32_t rg, uint32_t col, pq_module_type type,
			   uint32_t page, const uint8_t *m, size_t n, uint8_t *out,
			   size_t *out_len, pq_error *err);
/* Reads the module at off (its 4-byte length first, at most max bytes in
 * all) and decrypts it into a malloc'd *out. *stored: bytes it took. */
pq_status pq_chunk_read_module(const pq_file *f, uint32_t rg, uint32_t col, pq_module_type type,
			       uint32_t page, uint64_t off, uint64_t max, uint8_t **out,
			       size_t *out_len, uint64_t *stored, pq_error *err);

/* ---- page_decode.c, shared with page_reader.c ---- */

/* "row group 1, column a, page 3 at offset 4" for messages. */
void pq_page_where(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
		   char *buf, size_t len);
/* Reads a page's body (decrypted) and decompresses it into arena memory,
 * within the file's page budget. With crc_check, a page whose stored CRC
 * does not match the bytes read fails (PQ_ECHECKSUM, pq_page_crc_fail's
 * message) before any of them is used: every entry built on the page
 * inherits the failure. verify.txt's walk loads without it (it reports
 * the CRC itself and still checks what the page holds). */
pq_status pq_page_load_body(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			    bool crc_check, pq_arena *arena, uint8_t **out, size_t *out_len,
			    pq_error *err);
/* pq_page_decode, checking the CRC or not (see pq_page_load_body). */
pq_status pq_page_decode_as(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			    pq_page_data *dict, bool crc_check, pq_page_data **out, pq_error *err);
/* The failure of a page whose stored CRC does not match: PQ_ECHECKSUM,
 * "CRC mismatch: stored 0x..., computed 0x..." (the page's place is added
 * by the caller, as for any failure of the page). */
pq_status pq_page_crc_fail(const pq_page_info *page, uint32_t computed, pq_error *err);
/* Bits of a level whose maximum is max. */
int pq_level_bits(int max);

/* ---- page_reader.c: a data page a window of slots at a time ---- */

/* Slots decoded at once by a page reader (the default and maximum of
 * pq_file_set_page_window): a page of more slots is decoded
 * window by window (its levels and dictionary indices resume mid-run,
 * PLAIN values by offset), so what a page claims bounds no allocation.
 * Pages that cannot resume cheaply (deprecated BIT_PACKED levels, PLAIN
 * BOOLEAN, the DELTA encodings, BYTE_STREAM_SPLIT) are decoded whole and
 * stay bound by PQ_MAX_PAGE_SLOTS. */
#define PQ_PAGE_WINDOW_SLOTS ((size_t)1 << 20)

typedef struct pq_page_reader pq_page_reader;

/* n slots from the reader's position with the same levels and, when
 * they hold one, the same value: measured and checked as one. */
typedef struct pq_slot_run {
	uint64_t n;
	uint16_t rep, def;
	bool has_value;  /* def is the column's maximum */
	pq_values value; /* has_value: one value (a view into the dictionary) */
} pq_slot_run;

/* Opens data page `page` of l (dict: the chunk's decoded dictionary page
 * or NULL, a reference taken). Reads and decompresses its body (checking
 * its CRC with crc_check: pq_page_load_body) and sets up its decoders;
 * decodes no slot yet. */
pq_status pq_page_reader_open(const pq_file *f, const pq_chunk_layout *l,
			      const pq_page_info *page, pq_page_data *dict, bool crc_check,
			      pq_page_reader **out, pq_error *err);
/* The next up to max slots (0 or over the file's window: a window; a page
 * decoded whole comes as one window) as a page of their own (its own
 * reference), or NULL after the last. Messages name the page. */
pq_status pq_page_reader_next(pq_page_reader *r, size_t max, pq_page_data **out, pq_error *err);
/* When at least min slots from the position are one run of the RLE runs
 * of levels and dictionary indices, takes them: *found and *run. Else
 * (bit-packed, PLAIN values, a page decoded whole) takes nothing. */
pq_status pq_page_reader_run(pq_page_reader *r, uint64_t min, pq_slot_run *run, bool *found,
			     pq_error *err);
/* Whether a data page is read window by window (else decoded whole). */
bool pq_page_windowed(const pq_file *f, const pq_leaf *leaf, const pq_page_info *page);
/* Slots taken so far. */
uint64_t pq_page_reader_pos(const pq_page_reader *r);
void pq_page_reader_free(pq_page_reader *r);

/* Reads a column's decoded chunk metadata or fails with a message. */
pq_status pq_file_chunk_meta_checked(const pq_file *f, uint32_t rg, uint32_t col,
				     const pq_column_meta_data **out, pq_error *err);
/* A statistics or page-index bound rendered with the column's type,
 * values.txt-escaped; hex when the bytes do not fit the type. */
void pq_text_bound(pq_buf *out, const pq_leaf *leaf, pq_bytes b);
/* The number of pages the chunk's offset index lists and the offset of
 * the first (-1 when none); PQ_EINVAL when the chunk has no offset index. */
pq_status pq_chunk_offset_index_pages(const pq_file *f, uint32_t rg, uint32_t col, uint32_t *n,
				      int64_t *first_offset, pq_error *err);
/* The chunk's offset index, decoded into oi (its lists in a). */
pq_status pq_chunk_offset_index_read(const pq_file *f, uint32_t rg, uint32_t col,
				     pq_offset_index *oi, pq_arena *a, pq_error *err);
/* "row group 1, column a.b" for messages. */
void pq_file_where(const pq_file *f, uint32_t rg, uint32_t col, char *buf, size_t len);

/* Renders the rows of row group rg (dropping them) to count what is wrong
 * with its VARIANT values into rep (rows.c; for verify.txt). */
pq_status pq_rows_check_variants(const pq_file *f, uint32_t rg, pq_variant_report *rep,
				 pq_error *err);

#endif
