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
} pq_verify_piece;

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
/* For a chunk of rg whose bytes are those of chunk from (already run,
 * without problems in its walk): the walk's results copied, then the
 * metadata checks of its own row group. */
void pq_verify_chunk_reuse(const pq_file *f, uint32_t rg, uint32_t col,
			   const pq_verify_chunk *from, pq_verify_chunk *out);
void pq_verify_chunk_free(pq_verify_chunk *c);
/* verify.txt from the findings of every chunk, [rg * num_columns + col]. */
void pq_verify_assemble(const pq_file *f, const pq_verify_chunk *chunks, pq_buf *out);

#endif
