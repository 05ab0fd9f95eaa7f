/* The size pass's pieces (pq_sizes.h): sizes.c runs the pass (threads,
 * memory budget, chunks sharing bytes, totals), sizes_chunk.c measures one
 * chunk on the pages verify.txt's walk decodes, sizes_rows.c gives a row
 * group's data.csv / data.jsonl. */
#ifndef PQ_SIZES_INTERNAL_H
#define PQ_SIZES_INTERNAL_H
#ifndef PQ_READ_INTERNAL
#error "sizes_internal.h is private to core/read/"
#endif

#include <pthread.h>

#include "pq_sizes.h"
#include "verify_internal.h"

/* Decoded bytes in flight, over every thread of a pass. */
typedef struct pq_mem_budget {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	uint64_t used, max;
	/* a chunk needing more than max is measured alone, up to this much
	 * (what a reader may decode at once); past it, it fails (PQ_EBUDGET) */
	uint64_t chunk_max;
} pq_mem_budget;

/* Waits until n more bytes fit (or, n over max, until nothing else is in
 * flight), then takes them. */
void pq_mem_reserve(pq_mem_budget *b, uint64_t n);
void pq_mem_release(pq_mem_budget *b, uint64_t n);

/* What the pass keeps of a chunk beyond its pq_chunk_sizes. */
typedef struct pq_chunk_work {
	pq_verify_chunk verify;
	bool verified;     /* verify holds the chunk's findings */
	uint64_t csv;      /* its fields in data.csv rows (a NULL is empty) */
	uint64_t json;     /* its values in data.jsonl rows (a NULL is `null`) */
	uint64_t rows;     /* data slots: the rows of a flat schema */
	bool rows_ok;      /* rows would render: every page decoded, values fit levels */
	uint64_t need;     /* decoded bytes it holds at once (estimate) */
	uint64_t pages_ok; /* data pages decoded (or found in the page memo) */
	uint64_t memoable; /* of them, pages found in the page memo or kept there */
	size_t primary;    /* the chunk measured for it (same bytes), or itself */
} pq_chunk_work;

/* Measures chunk (rg, col): every data page's values.txt and levels.txt,
 * its row fields, and verify.txt's checks, from one decode of each page,
 * within budget; pages another row group's chunk had (memo) are not read
 * again. */
void pq_sizes_chunk(const pq_file *f, uint32_t rg, uint32_t col, pq_mem_budget *budget,
		    pq_page_memo *memo, pq_chunk_sizes *cs, pq_chunk_work *w);
/* A shared chunk: the measured one's results (pages borrowed). */
pq_status pq_sizes_chunk_copy(const pq_chunk_sizes *from, const pq_chunk_work *wfrom,
			      pq_chunk_sizes *cs, pq_chunk_work *w);

/* A row group of a flat schema: its rows from its chunks' fields plus the
 * framing of each row. PQ_SIZE_FAILED when the rows would not render. */
void pq_sizes_flat_rows(const pq_file *f, uint32_t rg, const pq_chunk_work *w, uint64_t *csv,
			uint64_t *jsonl);
/* Any schema: the rows rendered (a piece at a time into scratch) and
 * counted. */
uint64_t pq_sizes_render_rows(const pq_file *f, uint32_t rg, pq_row_format fmt, pq_buf *scratch);

#endif
