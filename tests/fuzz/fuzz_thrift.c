/* Fuzz target: the thrift compact decoder for each struct kind (the first
 * byte picks it), then the decoded struct encoded again and shown as JSON,
 * as the metadata views do. Seeds: tests/fuzz/corpus/thrift/. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "format/pq_metadata_codec.h"
#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Room for the largest struct, aligned for any of them. */
typedef union any_struct {
	pq_file_meta_data fmd;
	pq_file_crypto_meta_data fcmd;
	pq_page_header ph;
	pq_column_index ci;
	pq_offset_index oi;
	pq_bloom_filter_header bfh;
	pq_column_meta_data cmd;
	pq_row_group rg;
	pq_column_chunk cc;
	pq_statistics st;
	pq_schema_element se;
} any_struct;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	pq_struct_kind kind = (pq_struct_kind)(data[0] % PQ_S_KIND_COUNT);
	pq_error err;
	pq_error_clear(&err);
	pq_arena a;
	pq_arena_init(&a, 64u << 20);
	any_struct s;
	size_t used;
	if (pq_thrift_decode(kind, data + 1, size - 1, &s, &used, &a, &err) == PQ_OK) {
		pq_buf out = PQ_BUF_INIT;
		(void)pq_thrift_encode(kind, &s, &out, &err);
		out.len = 0;
		pq_metadata_json(kind, &s, NULL, &out);
		pq_buf_free(&out);
	}
	pq_arena_free(&a);
	return 0;
}
