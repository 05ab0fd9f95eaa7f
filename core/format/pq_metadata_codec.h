/* Encoding and JSON rendering of the parquet.thrift structs of
 * pq_metadata.h (decoding is pq_thrift_decode, declared there), and the
 * names of the Parquet enums. All of it is driven by one descriptor table
 * per struct (core/format/metadata_desc.c). */
#ifndef PQ_METADATA_CODEC_H
#define PQ_METADATA_CODEC_H
#ifndef PQ_CORE_BUILD
#error "pq_metadata_codec.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_bytes.h"
#include "pq_error.h"
#include "pq_metadata.h"

/* Appends the compact-protocol encoding of *in (a struct of the kind's C
 * type) to out. Absent optional fields are left out; union members are
 * written for every has_ flag set (a LogicalType's unknown_member as an
 * empty struct). PQ_EINVAL for a list with n > 0 and no array, or a binary
 * with n > 0 and no bytes; PQ_ENOMEM when out ran out of memory. */
pq_status pq_thrift_encode(pq_struct_kind kind, const void *in, pq_buf *out, pq_error *err);

/* ---- JSON ------------------------------------------------------------- */

/* Which binary field a hook is asked to render. Statistics and page-index
 * bounds are PLAIN-encoded values of the column's type (without the length
 * prefix for BYTE_ARRAY): only the caller knows that type. */
typedef enum pq_json_binary_role {
	PQ_JB_OTHER = 0,        /* any other binary or string field */
	PQ_JB_STAT_MAX,         /* Statistics.max (1, deprecated) */
	PQ_JB_STAT_MIN,         /* Statistics.min (2, deprecated) */
	PQ_JB_STAT_MAX_VALUE,   /* Statistics.max_value (5) */
	PQ_JB_STAT_MIN_VALUE,   /* Statistics.min_value (6) */
	PQ_JB_INDEX_MIN,        /* ColumnIndex.min_values[index] (2) */
	PQ_JB_INDEX_MAX         /* ColumnIndex.max_values[index] (3) */
} pq_json_binary_role;

typedef struct pq_json_binary_info {
	pq_json_binary_role role;
	const char *struct_name;  /* thrift struct: "Statistics", "KeyValue", ... */
	const char *field_name;   /* thrift field: "min_value", "key_metadata", ... */
	int16_t field_id;
	bool is_string;           /* thrift `string` (text) rather than `binary` */
	int64_t index;            /* element index in a list field, else -1 */
	const void *parent;       /* the C struct holding the field (a
	                           * pq_statistics, a pq_column_index, ...) */
	/* Where the value sits, when the rendered struct tells: the index in
	 * FileMetaData.row_groups and in RowGroup.columns (else -1), and the
	 * enclosing ColumnMetaData (NULL when none encloses the field, e.g.
	 * when rendering a PageHeader or ColumnIndex: the caller knows then). */
	int64_t row_group;
	int64_t column;
	const pq_column_meta_data *column_meta;
} pq_json_binary_info;

typedef struct pq_json_hooks {
	void *ctx;
	/* Appends exactly one JSON value for the bytes and returns true, or
	 * appends nothing and returns false to get the default rendering.
	 * NULL: always the default. */
	bool (*binary)(void *ctx, const pq_json_binary_info *info, pq_bytes value, pq_buf *out);
} pq_json_hooks;

/* Appends *in as pretty-printed JSON (2-space indentation, one key per
 * line, lists of scalars on one line) and a final newline. Keys are the
 * parquet.thrift field names verbatim; enums are their names (unknown
 * values as numbers); absent optional fields are omitted; empty structs
 * are {}; a LogicalType member this build does not know is
 * {"unknown_member": ID}; doubles that are not finite are the strings
 * "NaN", "Infinity", "-Infinity". Binary fields go through hooks (may be
 * NULL), else the default: a thrift `string` is a JSON string (invalid
 * UTF-8 sequences become U+FFFD); a `binary` is a JSON string when it is
 * valid UTF-8 with no byte in 0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F or 0x7F,
 * else the string "0x" + lowercase hex. Check out->oom afterwards. */
void pq_metadata_json(pq_struct_kind kind, const void *in, const pq_json_hooks *hooks,
		      pq_buf *out);

/* ---- Enum names ------------------------------------------------------- */

/* The parquet.thrift name of an enum value ("INT64", "RLE_DICTIONARY",
 * "DATA_PAGE_V2", ...), or NULL when the value is not one this build
 * knows (print the number then). */
const char *pq_type_name(int32_t v);
const char *pq_converted_type_name(int32_t v);
const char *pq_repetition_name(int32_t v);
const char *pq_encoding_name(int32_t v);
const char *pq_codec_enum_name(int32_t v);
const char *pq_page_type_name(int32_t v);
const char *pq_boundary_order_name(int32_t v);
const char *pq_edge_algorithm_name(int32_t v);
/* The thrift name of a struct kind ("FileMetaData", "PageHeader", ...). */
const char *pq_struct_kind_name(pq_struct_kind kind);

#endif
