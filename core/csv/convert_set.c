/* A set of tokenized records (convert_internal.h): the converting thread
 * copies each record the tokenizer hands out (its field bytes, one copy of
 * the whole record) so that threads can parse or infer the set column by
 * column while the tokenizer reads on. Memory: cap × ncols × 12 bytes of
 * field positions, cap × 8 bytes of lines, and raw (the records' bytes;
 * the caller hands the set over once raw passes its limit). The buffers
 * are kept from set to set: no multi-MiB malloc/free per set. With a
 * budget in raw.budget, all of it is charged there (the caller's value
 * arrays too, pq_conv_set_charge) and given back by pq_conv_set_free. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pq_budget.h"
#include "pq_csv.h"
#define PQ_CSV_INTERNAL
#include "convert_internal.h"

pq_status pq_conv_set_alloc(pq_conv_set *s, size_t ncols, size_t cap, const char *name,
			    pq_error *err)
{
	free(s->line);
	free(s->off);
	free(s->len);
	free(s->dline);
	pq_budget_release(s->raw.budget, s->charged);
	s->charged = 0;
	s->ncols = ncols;
	s->cap = cap;
	s->rows = 0;
	s->text_bytes = 0;
	size_t n = ncols * cap > 0 ? ncols * cap : 1;
	pq_conv_set_charge(s, (cap ? cap : 1) * sizeof *s->line +
				      n * (sizeof *s->off + sizeof *s->len + sizeof *s->dline));
	s->line = malloc((cap ? cap : 1) * sizeof *s->line);
	s->off = malloc(n * sizeof *s->off);
	s->len = malloc(n * sizeof *s->len);
	s->dline = malloc(n * sizeof *s->dline);
	if (!s->line || !s->off || !s->len || !s->dline)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for %zu records", name, cap);
	return PQ_OK;
}

pq_status pq_conv_set_add(pq_conv_set *s, const pq_csv_reader *r, const char *name,
			  pq_error *err)
{
	size_t row = s->rows;
	size_t base = s->raw.len;
	if (r->rec_len > UINT32_MAX - base)
		return pq_fail(err, PQ_ELIMIT, "%s: too many bytes in one batch", name);
	pq_buf_append(&s->raw, r->rec, r->rec_len);
	if (s->raw.oom)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for a batch of records", name);
	uint64_t line = s->ncols ? r->fields[0].line : r->record_line;
	s->line[row] = line;
	for (size_t c = 0; c < s->ncols; c++) {
		const pq_csv_field *f = &r->fields[c];
		size_t at = c * s->cap + row;
		s->off[at] = (uint32_t)(base + r->starts[c]);
		s->len[at] = (uint32_t)f->n | (f->null ? PQ_CONV_NULL : 0);
		uint64_t d = f->line - line;
		s->dline[at] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
		if (s->text_cols && s->text_cols[c] && !f->null)
			s->text_bytes += f->n;
	}
	s->rows++;
	return PQ_OK;
}

void pq_conv_set_clear(pq_conv_set *s)
{
	s->rows = 0;
	s->raw.len = 0;
	s->text_bytes = 0;
	s->end_group = false;
}

void pq_conv_set_free(pq_conv_set *s)
{
	free(s->line);
	free(s->off);
	free(s->len);
	free(s->dline);
	s->line = NULL;
	s->off = s->len = s->dline = NULL;
	pq_buf_free(&s->raw); /* (raw.budget stays, for the release below) */
	pq_budget_release(s->raw.budget, s->charged);
	s->charged = 0;
}

void pq_conv_set_charge(pq_conv_set *s, uint64_t n)
{
	pq_budget_charge(s->raw.budget, n);
	s->charged += n;
}
