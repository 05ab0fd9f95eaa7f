/* Record assembly (Dremel): from the level and value streams of the leaf
 * columns of a row group to rows, rendered as data.csv / data.jsonl lines
 * (interface.md "Rendering values"); and the values.txt / levels.txt lines
 * of a batch of one column.
 *
 * Input is one cursor per leaf column (schema leaf order). A cursor holds a
 * batch of decoded slots (a page) and a `next` callback that loads the
 * following batch, so pages stream through and rendering can stop after any
 * row and resume later with the same cursors. `next` is the only indirect
 * call: the per-value work is direct code.
 *
 * Every level is checked against the schema (a level above its maximum, a
 * row not starting at repetition level 0, a value slot with no value, leaves
 * that disagree about the structure or the number of rows): PQ_ECORRUPT
 * naming the column, never a crash. */
#ifndef PQ_ASSEMBLE_H
#define PQ_ASSEMBLE_H
#ifndef PQ_CORE_BUILD
#error "pq_assemble.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_error.h"
#include "pq_schema.h"
#include "pq_values.h"
#include "pq_file.h" /* pq_row_format */

typedef struct pq_leaf_cursor {
	/* the current batch */
	size_t nslots, pos;        /* level slots in the batch; next slot */
	const uint16_t *rep, *def; /* NULL when max_rep / max_def is 0 */
	pq_values vals;            /* the non-null values of the batch, in order */
	size_t vpos;               /* next value */
	/* Loads the next batch into nslots, rep, def and vals (nslots = 0 at
	 * the end of the column chunk). The assembler resets pos and vpos. */
	pq_status (*next)(void *ctx, struct pq_leaf_cursor *c, pq_error *err);
	void *ctx;                 /* for next; NULL next: the batch is all there is */
	bool end;                  /* set by the assembler once next reported the end;
				      zero it when (re)initializing a cursor */
} pq_leaf_cursor;


/* Renders up to max_rows rows (a row: every leaf advanced to its next slot
 * with repetition level 0, or to its end), appending them to out, one line
 * each ending in "\n". *rows_done gets the number of rows rendered; fewer
 * than max_rows means the data ended. cursors has pq_schema_num_leaves(s)
 * entries and stays positioned after the last rendered row, ready to resume.
 * On failure out is cut back to the end of the last whole row (*rows_done
 * counts those). The CSV header is pq_rows_header()'s. */
pq_status pq_assemble_rows(const pq_schema *s, pq_leaf_cursor *cursors, uint64_t max_rows,
			   pq_row_format fmt, pq_buf *out, uint64_t *rows_done, pq_error *err);

/* What assembly found wrong with VARIANT values (for verify.txt): values
 * that could not be decoded or broke the shredding rules (rendered as hex),
 * and values rendered despite a broken invariant (keys out of order, a
 * shredded field also in `value`, invalid UTF-8, ...). The first of each
 * with its column (a static message and the variant's dotted path). */
typedef struct pq_variant_report {
	uint64_t errors, notes;
	const char *first_error, *first_note;
	const pq_node *error_node, *note_node;
} pq_variant_report;

/* pq_assemble_rows, also counting variant findings into vrep (may be NULL). */
pq_status pq_assemble_rows_report(const pq_schema *s, pq_leaf_cursor *cursors, uint64_t max_rows,
				  pq_row_format fmt, pq_buf *out, uint64_t *rows_done,
				  pq_variant_report *vrep, pq_error *err);

/* Flat schemas (every top-level field a non-repeated primitive, in leaf
 * order) have a faster row renderer with the same output: column by
 * column, a batch of rows at a time. Same cursor contract as
 * pq_assemble_rows; on failure nothing of the failing batch is appended. */
bool pq_schema_is_flat(const pq_schema *s);
typedef struct pq_flat_rows pq_flat_rows;
pq_status pq_flat_rows_new(const pq_schema *s, pq_row_format fmt, pq_flat_rows **out,
			   pq_error *err);
pq_status pq_flat_rows_next(pq_flat_rows *f, pq_leaf_cursor *cursors, uint64_t max_rows,
			    pq_buf *out, uint64_t *rows_done, pq_error *err);
void pq_flat_rows_free(pq_flat_rows *f);

/* The CSV header line: top-level field names as CSV fields, then "\n". */
void pq_rows_header(const pq_schema *s, pq_buf *out);

/* values.txt lines of a batch of one column: one line per slot, the value
 * rendered in PQ_MODE_VALUES, or `\N` when the slot's definition level is
 * below the column's maximum (def NULL: every slot holds a value). The batch
 * must be consistent, as pq_page_decode makes it (levels checked, one value
 * per slot at the maximum level); a slot past the last value shows `\N`. */
void pq_render_values_txt(const pq_leaf *leaf, const uint16_t *def, size_t nslots,
			  const pq_values *vals, pq_buf *out);

/* levels.txt lines: "rep def\n" per slot (a NULL array reads as zeros). */
void pq_render_levels_txt(const uint16_t *rep, const uint16_t *def, size_t nslots,
			  pq_buf *out);

#endif
