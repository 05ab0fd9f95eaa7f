#include "config.h"

/* Appending row groups to an existing Parquet file (pq_writer_open_at).
 *
 * The old file's bytes up to its footer (row groups, page indexes, bloom
 * filters) stay where they are, so nothing in them moves and nothing is
 * re-encoded: every offset the old footer holds is still right. The new
 * row groups and their indexes follow, written by the usual writer from
 * the old footer's offset, and the footer is the old FileMetaData with two
 * changes made on its compact-protocol bytes: num_rows grows and the new
 * RowGroup structs join the end of row_groups. The rest of it (schema,
 * key/value metadata such as ARROW:schema, created_by, column orders, and
 * fields this library does not know) is copied byte for byte, as field
 * ids and order are unchanged, so are the field headers' deltas. */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <string.h>

#include "format/pq_metadata_codec.h"
#include "format/pq_thrift.h"

pq_status pq_footer_splice(const uint8_t *footer, size_t len, int64_t add_rows,
			   const uint8_t *rgs, size_t rgs_len, uint32_t n_new, pq_buf *out,
			   pq_error *err)
{
	PQ_CHECK(footer && len && add_rows >= 0 && (rgs || !rgs_len), err, PQ_EINVAL,
		 "footer splice: bad arguments");
	pq_thrift_reader r;
	pq_thrift_writer tw;
	pq_tw_init(&tw, out);
	pq_tr_init(&r, footer, len, err);
	size_t mark = 0; /* footer bytes before this one are in out */
	bool rows_seen = false, rgs_seen = false;
	int16_t last = 0;
	pq_thrift_field f;
	if (pq_tr_struct_begin(&r)) {
		while (pq_tr_field(&r, &last, &f)) {
			size_t at = pq_tr_offset(&r);
			if (f.id == 3 && f.type == PQ_TT_I64 && !rows_seen) {
				int64_t rows = pq_tr_i64(&r);
				if (!pq_tr_ok(&r))
					break;
				PQ_CHECK(rows >= 0 && rows <= INT64_MAX - add_rows, err, PQ_ECORRUPT,
					 "footer: num_rows %lld cannot grow by %lld", (long long)rows,
					 (long long)add_rows);
				pq_buf_append(out, footer + mark, at - mark);
				pq_tw_i64(&tw, rows + add_rows);
				mark = pq_tr_offset(&r);
				rows_seen = true;
			} else if (f.id == 4 && f.type == PQ_TT_LIST && !rgs_seen) {
				uint8_t et = 0;
				uint32_t n = 0;
				bool ok = pq_tr_list_begin(&r, &et, &n);
				size_t first = pq_tr_offset(&r);
				for (uint32_t i = 0; ok && i < n && pq_tr_ok(&r); i++)
					pq_tr_skip(&r, PQ_TT_STRUCT);
				pq_tr_container_end(&r);
				if (!ok || !pq_tr_ok(&r))
					break;
				PQ_CHECK(et == PQ_TT_STRUCT && (uint64_t)n + n_new <= INT32_MAX, err,
					 PQ_ECORRUPT, "footer: row_groups is not a list of structs that "
					 "can take %u more", n_new);
				pq_buf_append(out, footer + mark, at - mark);
				pq_tw_list_begin(&tw, PQ_TT_STRUCT, n + n_new);
				pq_buf_append(out, footer + first, pq_tr_offset(&r) - first);
				pq_buf_append(out, rgs, rgs_len);
				mark = pq_tr_offset(&r);
				rgs_seen = true;
			} else {
				pq_tr_skip(&r, f.type);
			}
		}
	}
	pq_tr_struct_end(&r);
	if (!pq_tr_ok(&r))
		return pq_context(err, "footer");
	/* a signature (plaintext footer of an encrypted file) would follow */
	PQ_CHECK(pq_tr_offset(&r) == len, err, PQ_EUNSUPPORTED,
		 "footer: %zu bytes follow the FileMetaData (a signed footer)",
		 len - pq_tr_offset(&r));
	PQ_CHECK(rows_seen && rgs_seen, err, PQ_ECORRUPT,
		 "footer: FileMetaData without num_rows or row_groups");
	pq_buf_append(out, footer + mark, len - mark);
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "out of memory for the footer");
	return PQ_OK;
}

pq_status pq_writer_append_footer(pq_writer *w, pq_buf *out, pq_error *err)
{
	pq_buf rgs = PQ_BUF_INIT;
	pq_status st = PQ_OK;
	for (uint32_t i = 0; st == PQ_OK && i < w->nrgs; i++)
		st = pq_thrift_encode(PQ_S_ROW_GROUP, &w->rgs[i], &rgs, err);
	size_t start = out->len;
	if (st == PQ_OK)
		st = pq_footer_splice(w->base_footer, w->base_footer_len, w->rows, rgs.p, rgs.len,
				      w->nrgs, out, err);
	pq_buf_free(&rgs);
	PQ_TRY(st);
	size_t n = out->len - start;
	PQ_CHECK(n <= UINT32_MAX, err, PQ_ELIMIT, "footer of %zu bytes", n);
	uint8_t tail[8];
	for (int i = 0; i < 4; i++)
		tail[i] = (uint8_t)(n >> (8 * i));
	memcpy(tail + 4, "PAR1", 4);
	pq_buf_append(out, tail, sizeof tail);
	PQ_CHECK(!out->oom, err, PQ_ENOMEM, "out of memory for the footer");
	return PQ_OK;
}
