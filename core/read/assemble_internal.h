/* Private to core/read/: the record assembler's state and the slot
 * primitives that assemble.c and assemble_variant.c share. */
#ifndef PQ_ASSEMBLE_INTERNAL_H
#define PQ_ASSEMBLE_INTERNAL_H
#ifndef PQ_READ_INTERNAL
#error "assemble_internal.h is private to core/read/"
#endif

#include "pq_assemble.h"
#include "pq_variant.h"

typedef struct asm_state {
	const pq_schema *s;
	const pq_leaf *leaves; /* pq_schema_leaf(s, 0): leaves are one array */
	pq_leaf_cursor *cur;
	pq_error *err;
	pq_buf key;   /* scratch: the text of a primitive map key */
	pq_buf field; /* scratch: the JSON of a nested CSV field */
	pq_variant_report *vrep; /* variants that failed or broke a rule, or NULL */
	/* The last variant metadata parsed: rows usually repeat it (often the
	 * same dictionary entry), and parsing checks every key. */
	pq_buf vmeta_bytes;
	pq_variant_meta vmeta;
	pq_variant_diag vmeta_diag;
	bool vmeta_ok, vmeta_valid;
} asm_state;

/* PQ_ECORRUPT "column <path of leaf li>: <message>". */
pq_status pq_asm_corrupt(asm_state *st, uint32_t li, const char *fmt, ...) PQ_PRINTF(3, 4);
/* Whether leaf li has a slot left (loading the next batch if needed). */
pq_status pq_asm_have_slot(asm_state *st, uint32_t li, bool *have);
/* The definition level of leaf li's next slot, which must exist. */
pq_status pq_asm_peek_def(asm_state *st, uint32_t li, uint16_t *d);
/* Takes leaf li's next slot, which must exist, sit at repetition level re
 * and have a definition level of at least dk. */
pq_status pq_asm_take(asm_state *st, uint32_t li, uint16_t re, uint16_t dk, uint16_t *d);
/* Renders leaf li's next value. */
pq_status pq_asm_emit_value(asm_state *st, uint32_t li, pq_render_mode mode, pq_buf *out);
/* Skips the single slot every leaf below n holds for a null node or an
 * empty list: definition level in [dk, below). */
pq_status pq_asm_skip(asm_state *st, const pq_node *n, uint16_t re, uint16_t dk, uint16_t below);
/* n as a field of its parent group (present at level dk). */
pq_status pq_asm_render_field(asm_state *st, const pq_node *n, uint16_t re, uint16_t dk,
			      pq_buf *out);
/* One value of VARIANT node n, which is present (its slots at level re):
 * its JSON (interface.md "Variant as JSON"). */
pq_status pq_asm_variant(asm_state *st, const pq_node *n, uint16_t re, pq_buf *out);

static inline uint16_t pq_asm_rep_at(const pq_leaf_cursor *c)
{
	return c->rep ? c->rep[c->pos] : 0;
}

#endif
