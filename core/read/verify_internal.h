/* verify.txt in pieces, for the size pass (sizes.c): the checks of one
 * column chunk run on their own (on any thread) and hand each decoded data
 * page to the caller, which measures it; the text is then assembled in
 * (row group, column) order. pq_text_verify is these two steps in a row,
 * so the text is the same whichever way it is made. */
#ifndef PQ_VERIFY_INTERNAL_H
#define PQ_VERIFY_INTERNAL_H
#ifndef PQ_READ_INTERNAL
#error "verify_internal.h is private to core/read/"
#endif

#include "file_internal.h"
#include "pq_file.h"
#include "pq_render.h"

/* What the checks of one chunk found. The page walk's part (text up to
 * the metadata checks, pages, crcs, rows, nulls, slots, ok) depends only
 * on the chunk's bytes; the metadata checks add what depends on the row
 * group's footer entry. */
typedef struct pq_verify_chunk {
	pq_buf text;       /* PROBLEM lines */
	uint64_t problems; /* lines in text */
	uint64_t pages, crcs;
	uint64_t rows;     /* rows the pages start */
	uint64_t nulls;    /* null slots */
	uint64_t slots;    /* the layout's slot count */
	pq_wkb_box box;    /* GEOMETRY / GEOGRAPHY: the coordinates the pages hold */
	bool ok;           /* the layout loaded and every page decoded */
	/* The check could not be made (no memory, an I/O error: status not
	 * PQ_OK): no finding about the file, verify.txt fails instead. */
	pq_error fail;
	bool walked;       /* the page walk ran (it is what a shared chunk reuses) */
	size_t walk_len;   /* text length and problems after the page walk */
	uint64_t walk_problems;
} pq_verify_chunk;

#define PQ_VERIFY_DICT UINT32_MAX /* the page index of the dictionary page */

/* A piece of a data page as the walk decodes it: a window of its slots
 * (pd), or a run of slots with the same levels and value (run), or the
 * end of the page (last: neither). The dictionary page comes whole as pd
 * (first and last). */
typedef struct pq_verify_piece {
	const pq_page_data *pd;
	const pq_slot_run *run;
	bool first; /* the page's first piece */
	bool last;  /* the page is complete */
	/* With a page memo: the caller's record of this page from an earlier
	 * walk (the page is not decoded: the only piece, first and last), or,
	 * on the last piece of a page decoded now, where the caller writes its
	 * record (PQ_PAGE_MEMO_USER bytes; NULL when the page is not kept). */
	const void *memo;
	void *save;
} pq_verify_piece;

/* ---- page_memo.c: pages met before in one size pass ---- */

#define PQ_PAGE_MEMO_USER 64

typedef struct pq_page_memo_key {
	uint64_t header_offset; /* the page's header */
	uint64_t dict_offset;   /* its chunk's dictionary page header, or UINT64_MAX */
	uint64_t col;           /* the column, and the chunk's codec in the high half */
} pq_page_memo_key;

/* What a walk of the page found (only pages without problems are kept,
 * so nothing of it names a row group) and the caller's record. */
typedef struct pq_page_memo_entry {
	pq_crc_state crc;
	uint64_t rows, nulls;
	bool has_slots;
	uint16_t first_rep;
	_Alignas(8) uint8_t user[PQ_PAGE_MEMO_USER];
} pq_page_memo_entry;

typedef struct pq_page_memo pq_page_memo;

/* A memo of at most max_entries pages (thread-safe); NULL without memory. */
pq_page_memo *pq_page_memo_new(uint64_t max_entries);
void pq_page_memo_free(pq_page_memo *m);
bool pq_page_memo_get(pq_page_memo *m, const pq_page_memo_key *k, pq_page_memo_entry *out);
/* Keeps e for k unless k is kept already or the memo is full. */
void pq_page_memo_put(pq_page_memo *m, const pq_page_memo_key *k, const pq_page_memo_entry *e);
/* Distinct pages kept. */
uint64_t pq_page_memo_count(pq_page_memo *m);

/* Called with each piece of each data page the walk decodes (err NULL),
 * or once for a page that fails (piece NULL, err why; pieces of it may
 * have come before); page indexes l->pages, or is PQ_VERIFY_DICT for the
 * dictionary page (after which, if it failed, the walk stops). The piece
 * is the walk's: fn takes a reference to keep a pd. */
typedef void (*pq_verify_page_fn)(void *ctx, const pq_chunk_layout *l, uint32_t page,
				  const pq_verify_piece *piece, const pq_error *err);

/* Checks chunk (rg, col): walks its pages (decoding each; fn, when not
 * NULL, sees every data page) and then its metadata. l: the chunk's
 * layout when the caller has it loaded, else NULL. */
void pq_verify_chunk_run(const pq_file *f, uint32_t rg, uint32_t col, const pq_chunk_layout *l,
			 pq_verify_page_fn fn, void *ctx, pq_verify_chunk *out);
/* The same with a page memo (may be NULL): a data page kept in it is not
 * read again (fn gets its record as the piece's memo), one walked now
 * without problems is kept (with the record fn writes to save). *memoable
 * (may be NULL) counts the data pages that were either. Pages of GEO
 * columns (their walk gathers coordinates) and of encrypted chunks (their
 * bytes are bound to the row group) are never kept. */
void pq_verify_chunk_run_memo(const pq_file *f, uint32_t rg, uint32_t col,
			      const pq_chunk_layout *l, pq_verify_page_fn fn, void *ctx,
			      pq_page_memo *memo, uint64_t *memoable, pq_verify_chunk *out);
/* For a chunk of rg whose bytes are those of chunk from (already run,
 * without problems in its walk): the walk's results copied, then the
 * metadata checks of its own row group. */
void pq_verify_chunk_reuse(const pq_file *f, uint32_t rg, uint32_t col,
			   const pq_verify_chunk *from, pq_verify_chunk *out);
void pq_verify_chunk_free(pq_verify_chunk *c);
/* verify.txt from the findings of every chunk, [rg * num_columns + col];
 * fails (out unfinished) when a chunk could not be checked (its fail). */
pq_status pq_verify_assemble(const pq_file *f, const pq_verify_chunk *chunks, pq_buf *out,
			      pq_error *err);

#endif
