/* metadata.json and header.json: the thrift structs as JSON, with
 * statistics and page-index bounds rendered as typed values of their
 * column (the generic JSON writer asks us through its binary hook). */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <inttypes.h>

#include "format/pq_metadata_codec.h"
#include "pq_render.h"

typedef struct json_ctx {
	const pq_file *f;
	int64_t column; /* the column when the struct does not say */
} json_ctx;

static bool bound_hook(void *vctx, const pq_json_binary_info *info, pq_bytes value, pq_buf *out)
{
	const json_ctx *ctx = vctx;
	if (info->role == PQ_JB_OTHER)
		return false;
	int64_t col = info->column >= 0 ? info->column : ctx->column;
	const pq_leaf *leaf = col >= 0 ? pq_schema_leaf(ctx->f->schema, (uint32_t)col) : NULL;
	if (!leaf)
		return false;
	return pq_render_plain_bytes(&leaf->render, value.p, value.n, PQ_MODE_JSON, out);
}

static void render(const pq_file *f, int64_t column, pq_struct_kind kind, const void *s, pq_buf *out)
{
	json_ctx ctx = {f, column};
	pq_json_hooks hooks = {&ctx, bound_hook};
	pq_metadata_json(kind, s, &hooks, out);
}

static void reopen(pq_buf *out, size_t start);

void pq_json_file_metadata(const pq_file *f, pq_buf *out)
{
	size_t start = out->len;
	render(f, -1, PQ_S_FILE_META_DATA, &f->md, out);
	/* An encrypted footer's FileCryptoMetaData is stored beside it. */
	if (f->crypto && f->crypto->footer_encrypted) {
		reopen(out, start);
		pq_json_file_encryption(f, out);
		pq_buf_puts(out, "\n}\n");
	}
}

void pq_json_row_group_metadata(const pq_file *f, uint32_t rg, pq_buf *out)
{
	if (rg < f->md.row_groups.n)
		render(f, -1, PQ_S_ROW_GROUP, &f->md.row_groups.v[rg], out);
}

void pq_json_chunk_metadata(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out)
{
	const pq_column_chunk *c = pq_file_chunk(f, rg, col);
	if (c)
		render(f, col, PQ_S_COLUMN_CHUNK, c, out);
}

/* Closes the struct's JSON object with extra members: drops the final
 * "\n}\n" the writer ends with and appends ",\n  ..." lines. */
static void reopen(pq_buf *out, size_t start)
{
	if (out->len >= start + 3 && out->p[out->len - 1] == '\n' && out->p[out->len - 2] == '}')
		out->len -= 2;
	while (out->len > start && out->p[out->len - 1] == '\n')
		out->len--;
	bool empty = out->len > start && out->p[out->len - 1] == '{';
	pq_buf_puts(out, empty ? "\n" : ",\n");
}

pq_status pq_json_page_header(const pq_file *f, const pq_chunk_layout *l, const pq_page_info *page,
			      pq_buf *out, pq_error *err)
{
	pq_crc_state crc;
	uint32_t computed;
	PQ_TRY(pq_page_crc(f, page, &crc, &computed, err));
	size_t start = out->len;
	render(f, l->col, PQ_S_PAGE_HEADER, &page->header, out);
	reopen(out, start);
	pq_buf_printf(out, "  \"file_offset\": %" PRIu64 ",\n  \"header_size\": %" PRIu32 ",\n",
		      page->header_offset, page->header_len);
	if (page != l->dict && page->rows_known)
		pq_buf_printf(out, "  \"first_row_index\": %" PRIu64 ",\n", page->first_row);
	pq_buf_printf(out, "  \"crc_check\": \"%s\"",
		      crc == PQ_CRC_ABSENT ? "absent" : crc == PQ_CRC_OK ? "match" : "mismatch");
	if (crc != PQ_CRC_ABSENT)
		pq_buf_printf(out, ",\n  \"crc_computed\": %" PRId32, (int32_t)computed);
	pq_buf_puts(out, "\n}\n");
	return PQ_OK;
}
