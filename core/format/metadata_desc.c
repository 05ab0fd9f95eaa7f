/* One descriptor table per parquet.thrift struct of pq_metadata.h: field
 * ids and names exactly as in parquet.thrift, the C kind, where the value
 * and its has_ flag live. The generic decoder, encoder and JSON printer walk
 * these tables, so adding a field is one line here. Enum name tables too. */
#include "config.h"

#define PQ_FORMAT_INTERNAL
#include "metadata_internal.h"

#include <stddef.h>

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define FIELDS(a) .nfields = N_OF(a), .fields = (a)

/* Value and flag of a field of struct T. */
#define REQ(T, f) .off = offsetof(T, f), .has = -1
#define OPT(T, f) .off = offsetof(T, f), .has = (ptrdiff_t)offsetof(T, has_##f)
/* A list {n, v} of elements of type E. */
#define LST(T, f, K, E) .kind = PQ_FK_LIST, .elem = (K), .off = offsetof(T, f.n), \
	.voff = offsetof(T, f.v), .elem_size = sizeof(E)
#define OPTF(T, f) .has = (ptrdiff_t)offsetof(T, has_##f)
#define REQF .has = -1

/* ---- Enum names ------------------------------------------------------- */

static const char *const type_names[] = {
	"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY",
	"FIXED_LEN_BYTE_ARRAY"};
static const char *const converted_names[] = {
	"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE",
	"TIME_MILLIS", "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS",
	"UINT_8", "UINT_16", "UINT_32", "UINT_64", "INT_8", "INT_16", "INT_32",
	"INT_64", "JSON", "BSON", "INTERVAL"};
static const char *const repetition_names[] = {"REQUIRED", "OPTIONAL", "REPEATED", "VECTOR"};
static const char *const encoding_names[] = {
	"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED",
	"DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
	"RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
static const char *const codec_names[] = {
	"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
static const char *const page_type_names[] = {
	"DATA_PAGE", "INDEX_PAGE", "DICTIONARY_PAGE", "DATA_PAGE_V2"};
static const char *const boundary_names[] = {"UNORDERED", "ASCENDING", "DESCENDING"};
static const char *const edge_names[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER", "KARNEY"};

#define ENUM_DESC(n, a) static const pq_enum_desc n = {(a), (int32_t)N_OF(a)}
ENUM_DESC(e_type, type_names);
ENUM_DESC(e_converted, converted_names);
ENUM_DESC(e_repetition, repetition_names);
ENUM_DESC(e_encoding, encoding_names);
ENUM_DESC(e_codec, codec_names);
ENUM_DESC(e_page_type, page_type_names);
ENUM_DESC(e_boundary, boundary_names);
ENUM_DESC(e_edge, edge_names);

static const char *enum_name(const pq_enum_desc *e, int32_t v)
{
	return v >= 0 && v < e->count ? e->names[v] : NULL;
}

const char *pq_type_name(int32_t v) { return enum_name(&e_type, v); }
const char *pq_converted_type_name(int32_t v) { return enum_name(&e_converted, v); }
const char *pq_repetition_name(int32_t v) { return enum_name(&e_repetition, v); }
const char *pq_encoding_name(int32_t v) { return enum_name(&e_encoding, v); }
const char *pq_codec_enum_name(int32_t v) { return enum_name(&e_codec, v); }
const char *pq_page_type_name(int32_t v) { return enum_name(&e_page_type, v); }
const char *pq_boundary_order_name(int32_t v) { return enum_name(&e_boundary, v); }
const char *pq_edge_algorithm_name(int32_t v) { return enum_name(&e_edge, v); }

/* ---- Small and empty structs ------------------------------------------ */

static const pq_sdesc d_empty = {.name = "(empty)", .unknown_member = -1};

#define T pq_size_statistics
static const pq_fdesc f_size_statistics[] = {
	{.id = 1, .name = "unencoded_byte_array_data_bytes", .kind = PQ_FK_I64,
	 OPT(T, unencoded_byte_array_data_bytes)},
	{.id = 2, .name = "repetition_level_histogram",
	 LST(T, repetition_level_histogram, PQ_FK_I64, int64_t), OPTF(T, repetition_level_histogram)},
	{.id = 3, .name = "definition_level_histogram",
	 LST(T, definition_level_histogram, PQ_FK_I64, int64_t), OPTF(T, definition_level_histogram)},
};
#undef T
static const pq_sdesc d_size_statistics = {
	.name = "SizeStatistics", .unknown_member = -1, FIELDS(f_size_statistics)};

#define T pq_bounding_box
static const pq_fdesc f_bounding_box[] = {
	{.id = 1, .name = "xmin", .kind = PQ_FK_DOUBLE, REQ(T, xmin)},
	{.id = 2, .name = "xmax", .kind = PQ_FK_DOUBLE, REQ(T, xmax)},
	{.id = 3, .name = "ymin", .kind = PQ_FK_DOUBLE, REQ(T, ymin)},
	{.id = 4, .name = "ymax", .kind = PQ_FK_DOUBLE, REQ(T, ymax)},
	{.id = 5, .name = "zmin", .kind = PQ_FK_DOUBLE, OPT(T, zmin)},
	{.id = 6, .name = "zmax", .kind = PQ_FK_DOUBLE, OPT(T, zmax)},
	{.id = 7, .name = "mmin", .kind = PQ_FK_DOUBLE, OPT(T, mmin)},
	{.id = 8, .name = "mmax", .kind = PQ_FK_DOUBLE, OPT(T, mmax)},
};
#undef T
static const pq_sdesc d_bounding_box = {
	.name = "BoundingBox", .unknown_member = -1, FIELDS(f_bounding_box)};

#define T pq_geospatial_statistics
static const pq_fdesc f_geospatial_statistics[] = {
	{.id = 1, .name = "bbox", .kind = PQ_FK_STRUCT, .sub = &d_bounding_box, OPT(T, bbox)},
	{.id = 2, .name = "geospatial_types", LST(T, geospatial_types, PQ_FK_I32, int32_t),
	 OPTF(T, geospatial_types)},
};
#undef T
static const pq_sdesc d_geospatial_statistics = {
	.name = "GeospatialStatistics", .unknown_member = -1, FIELDS(f_geospatial_statistics)};

#define T pq_statistics
static const pq_fdesc f_statistics[] = {
	{.id = 1, .name = "max", .kind = PQ_FK_BINARY, .role = PQ_JB_STAT_MAX, OPT(T, max)},
	{.id = 2, .name = "min", .kind = PQ_FK_BINARY, .role = PQ_JB_STAT_MIN, OPT(T, min)},
	{.id = 3, .name = "null_count", .kind = PQ_FK_I64, OPT(T, null_count)},
	{.id = 4, .name = "distinct_count", .kind = PQ_FK_I64, OPT(T, distinct_count)},
	{.id = 5, .name = "max_value", .kind = PQ_FK_BINARY, .role = PQ_JB_STAT_MAX_VALUE,
	 OPT(T, max_value)},
	{.id = 6, .name = "min_value", .kind = PQ_FK_BINARY, .role = PQ_JB_STAT_MIN_VALUE,
	 OPT(T, min_value)},
	{.id = 7, .name = "is_max_value_exact", .kind = PQ_FK_BOOL, OPT(T, is_max_value_exact)},
	{.id = 8, .name = "is_min_value_exact", .kind = PQ_FK_BOOL, OPT(T, is_min_value_exact)},
	{.id = 9, .name = "nan_count", .kind = PQ_FK_I64, OPT(T, nan_count)},
};
#undef T
static const pq_sdesc d_statistics = {
	.name = "Statistics", .unknown_member = -1, FIELDS(f_statistics)};

/* ---- Logical types ---------------------------------------------------- */

#define T pq_decimal_type
static const pq_fdesc f_decimal[] = {
	{.id = 1, .name = "scale", .kind = PQ_FK_I32, REQ(T, scale)},
	{.id = 2, .name = "precision", .kind = PQ_FK_I32, REQ(T, precision)},
};
#undef T
static const pq_sdesc d_decimal = {.name = "DecimalType", .unknown_member = -1, FIELDS(f_decimal)};

#define T pq_time_unit_u
static const pq_fdesc f_time_unit[] = {
	{.id = 1, .name = "MILLIS", .kind = PQ_FK_STRUCT, .sub = &d_empty, OPT(T, MILLIS)},
	{.id = 2, .name = "MICROS", .kind = PQ_FK_STRUCT, .sub = &d_empty, OPT(T, MICROS)},
	{.id = 3, .name = "NANOS", .kind = PQ_FK_STRUCT, .sub = &d_empty, OPT(T, NANOS)},
};
#undef T
static const pq_sdesc d_time_unit = {
	.name = "TimeUnit", .is_union = true, .unknown_member = -1, FIELDS(f_time_unit)};

#define T pq_timestamp_type
static const pq_fdesc f_timestamp[] = {
	{.id = 1, .name = "isAdjustedToUTC", .kind = PQ_FK_BOOL, REQ(T, isAdjustedToUTC)},
	{.id = 2, .name = "unit", .kind = PQ_FK_STRUCT, .sub = &d_time_unit, REQ(T, unit)},
};
#undef T
static const pq_sdesc d_timestamp = {
	.name = "TimestampType", .unknown_member = -1, FIELDS(f_timestamp)};
static const pq_sdesc d_time = {.name = "TimeType", .unknown_member = -1, FIELDS(f_timestamp)};

#define T pq_int_type
static const pq_fdesc f_int[] = {
	{.id = 1, .name = "bitWidth", .kind = PQ_FK_I8, REQ(T, bitWidth)},
	{.id = 2, .name = "isSigned", .kind = PQ_FK_BOOL, REQ(T, isSigned)},
};
#undef T
static const pq_sdesc d_int = {.name = "IntType", .unknown_member = -1, FIELDS(f_int)};

#define T pq_variant_type
static const pq_fdesc f_variant[] = {
	{.id = 1, .name = "specification_version", .kind = PQ_FK_I8,
	 OPT(T, specification_version)},
};
#undef T
static const pq_sdesc d_variant = {.name = "VariantType", .unknown_member = -1, FIELDS(f_variant)};

#define T pq_geometry_type
static const pq_fdesc f_geometry[] = {
	{.id = 1, .name = "crs", .kind = PQ_FK_STRING, OPT(T, crs)},
};
#undef T
static const pq_sdesc d_geometry = {.name = "GeometryType", .unknown_member = -1, FIELDS(f_geometry)};

#define T pq_geography_type
static const pq_fdesc f_geography[] = {
	{.id = 1, .name = "crs", .kind = PQ_FK_STRING, OPT(T, crs)},
	{.id = 2, .name = "algorithm", .kind = PQ_FK_ENUM, .en = &e_edge, OPT(T, algorithm)},
};
#undef T
static const pq_sdesc d_geography = {
	.name = "GeographyType", .unknown_member = -1, FIELDS(f_geography)};

#define T pq_logical_type
#define MEMBER(i, N, d) {.id = (i), .name = #N, .kind = PQ_FK_STRUCT, .sub = (d), OPT(T, N)}
static const pq_fdesc f_logical[] = {
	MEMBER(1, STRING, &d_empty),
	MEMBER(2, MAP, &d_empty),
	MEMBER(3, LIST, &d_empty),
	MEMBER(4, ENUM, &d_empty),
	MEMBER(5, DECIMAL, &d_decimal),
	MEMBER(6, DATE, &d_empty),
	MEMBER(7, TIME, &d_time),
	MEMBER(8, TIMESTAMP, &d_timestamp),
	MEMBER(10, INTEGER, &d_int),
	MEMBER(11, UNKNOWN, &d_empty),
	MEMBER(12, JSON, &d_empty),
	MEMBER(13, BSON, &d_empty),
	MEMBER(14, UUID, &d_empty),
	MEMBER(15, FLOAT16, &d_empty),
	MEMBER(16, VARIANT, &d_variant),
	MEMBER(17, GEOMETRY, &d_geometry),
	MEMBER(18, GEOGRAPHY, &d_geography),
};
#undef T
static const pq_sdesc d_logical = {
	.name = "LogicalType", .is_union = true,
	.unknown_member = (ptrdiff_t)offsetof(pq_logical_type, unknown_member), FIELDS(f_logical)};

/* ---- Schema and pages ------------------------------------------------- */

#define T pq_schema_element
static const pq_fdesc f_schema_element[] = {
	{.id = 1, .name = "type", .kind = PQ_FK_ENUM, .en = &e_type, OPT(T, type)},
	{.id = 2, .name = "type_length", .kind = PQ_FK_I32, OPT(T, type_length)},
	{.id = 3, .name = "repetition_type", .kind = PQ_FK_ENUM, .en = &e_repetition,
	 OPT(T, repetition_type)},
	{.id = 4, .name = "name", .kind = PQ_FK_STRING, REQ(T, name)},
	{.id = 5, .name = "num_children", .kind = PQ_FK_I32, OPT(T, num_children)},
	{.id = 6, .name = "converted_type", .kind = PQ_FK_ENUM, .en = &e_converted,
	 OPT(T, converted_type)},
	{.id = 7, .name = "scale", .kind = PQ_FK_I32, OPT(T, scale)},
	{.id = 8, .name = "precision", .kind = PQ_FK_I32, OPT(T, precision)},
	{.id = 9, .name = "field_id", .kind = PQ_FK_I32, OPT(T, field_id)},
	{.id = 10, .name = "logicalType", .kind = PQ_FK_STRUCT, .sub = &d_logical,
	 OPT(T, logicalType)},
};
#undef T
static const pq_sdesc d_schema_element = {
	.name = "SchemaElement", .unknown_member = -1, FIELDS(f_schema_element)};

#define T pq_data_page_header
static const pq_fdesc f_data_page_header[] = {
	{.id = 1, .name = "num_values", .kind = PQ_FK_I32, REQ(T, num_values)},
	{.id = 2, .name = "encoding", .kind = PQ_FK_ENUM, .en = &e_encoding, REQ(T, encoding)},
	{.id = 3, .name = "definition_level_encoding", .kind = PQ_FK_ENUM, .en = &e_encoding,
	 REQ(T, definition_level_encoding)},
	{.id = 4, .name = "repetition_level_encoding", .kind = PQ_FK_ENUM, .en = &e_encoding,
	 REQ(T, repetition_level_encoding)},
	{.id = 5, .name = "statistics", .kind = PQ_FK_STRUCT, .sub = &d_statistics,
	 OPT(T, statistics)},
};
#undef T
static const pq_sdesc d_data_page_header = {
	.name = "DataPageHeader", .unknown_member = -1, FIELDS(f_data_page_header)};

static const pq_sdesc d_index_page_header = {.name = "IndexPageHeader", .unknown_member = -1};

#define T pq_dictionary_page_header
static const pq_fdesc f_dictionary_page_header[] = {
	{.id = 1, .name = "num_values", .kind = PQ_FK_I32, REQ(T, num_values)},
	{.id = 2, .name = "encoding", .kind = PQ_FK_ENUM, .en = &e_encoding, REQ(T, encoding)},
	{.id = 3, .name = "is_sorted", .kind = PQ_FK_BOOL, OPT(T, is_sorted)},
};
#undef T
static const pq_sdesc d_dictionary_page_header = {
	.name = "DictionaryPageHeader", .unknown_member = -1, FIELDS(f_dictionary_page_header)};

#define T pq_data_page_header_v2
static const pq_fdesc f_data_page_header_v2[] = {
	{.id = 1, .name = "num_values", .kind = PQ_FK_I32, REQ(T, num_values)},
	{.id = 2, .name = "num_nulls", .kind = PQ_FK_I32, REQ(T, num_nulls)},
	{.id = 3, .name = "num_rows", .kind = PQ_FK_I32, REQ(T, num_rows)},
	{.id = 4, .name = "encoding", .kind = PQ_FK_ENUM, .en = &e_encoding, REQ(T, encoding)},
	{.id = 5, .name = "definition_levels_byte_length", .kind = PQ_FK_I32,
	 REQ(T, definition_levels_byte_length)},
	{.id = 6, .name = "repetition_levels_byte_length", .kind = PQ_FK_I32,
	 REQ(T, repetition_levels_byte_length)},
	{.id = 7, .name = "is_compressed", .kind = PQ_FK_BOOL, .default_true = true,
	 OPT(T, is_compressed)},
	{.id = 8, .name = "statistics", .kind = PQ_FK_STRUCT, .sub = &d_statistics,
	 OPT(T, statistics)},
};
#undef T
static const pq_sdesc d_data_page_header_v2 = {
	.name = "DataPageHeaderV2", .unknown_member = -1, FIELDS(f_data_page_header_v2)};

#define T pq_page_header
static const pq_fdesc f_page_header[] = {
	{.id = 1, .name = "type", .kind = PQ_FK_ENUM, .en = &e_page_type, REQ(T, type)},
	{.id = 2, .name = "uncompressed_page_size", .kind = PQ_FK_I32,
	 REQ(T, uncompressed_page_size)},
	{.id = 3, .name = "compressed_page_size", .kind = PQ_FK_I32, REQ(T, compressed_page_size)},
	{.id = 4, .name = "crc", .kind = PQ_FK_I32, OPT(T, crc)},
	{.id = 5, .name = "data_page_header", .kind = PQ_FK_STRUCT, .sub = &d_data_page_header,
	 OPT(T, data_page_header)},
	{.id = 6, .name = "index_page_header", .kind = PQ_FK_STRUCT, .sub = &d_index_page_header,
	 OPT(T, index_page_header)},
	{.id = 7, .name = "dictionary_page_header", .kind = PQ_FK_STRUCT,
	 .sub = &d_dictionary_page_header, OPT(T, dictionary_page_header)},
	{.id = 8, .name = "data_page_header_v2", .kind = PQ_FK_STRUCT,
	 .sub = &d_data_page_header_v2, OPT(T, data_page_header_v2)},
};
#undef T
static const pq_sdesc d_page_header = {
	.name = "PageHeader", .unknown_member = -1, FIELDS(f_page_header)};

/* ---- Column chunks and row groups ------------------------------------- */

#define T pq_key_value
static const pq_fdesc f_key_value[] = {
	{.id = 1, .name = "key", .kind = PQ_FK_STRING, REQ(T, key)},
	{.id = 2, .name = "value", .kind = PQ_FK_STRING, OPT(T, value)},
};
#undef T
static const pq_sdesc d_key_value = {.name = "KeyValue", .unknown_member = -1, FIELDS(f_key_value)};

#define T pq_sorting_column
static const pq_fdesc f_sorting_column[] = {
	{.id = 1, .name = "column_idx", .kind = PQ_FK_I32, REQ(T, column_idx)},
	{.id = 2, .name = "descending", .kind = PQ_FK_BOOL, REQ(T, descending)},
	{.id = 3, .name = "nulls_first", .kind = PQ_FK_BOOL, REQ(T, nulls_first)},
};
#undef T
static const pq_sdesc d_sorting_column = {
	.name = "SortingColumn", .unknown_member = -1, FIELDS(f_sorting_column)};

#define T pq_page_encoding_stats
static const pq_fdesc f_page_encoding_stats[] = {
	{.id = 1, .name = "page_type", .kind = PQ_FK_ENUM, .en = &e_page_type, REQ(T, page_type)},
	{.id = 2, .name = "encoding", .kind = PQ_FK_ENUM, .en = &e_encoding, REQ(T, encoding)},
	{.id = 3, .name = "count", .kind = PQ_FK_I32, REQ(T, count)},
};
#undef T
static const pq_sdesc d_page_encoding_stats = {
	.name = "PageEncodingStats", .unknown_member = -1, FIELDS(f_page_encoding_stats)};

#define T pq_column_meta_data
static const pq_fdesc f_column_meta_data[] = {
	{.id = 1, .name = "type", .kind = PQ_FK_ENUM, .en = &e_type, REQ(T, type)},
	{.id = 2, .name = "encodings", LST(T, encodings, PQ_FK_ENUM, int32_t), .en = &e_encoding,
	 REQF},
	{.id = 3, .name = "path_in_schema", LST(T, path_in_schema, PQ_FK_STRING, pq_bytes), REQF},
	{.id = 4, .name = "codec", .kind = PQ_FK_ENUM, .en = &e_codec, REQ(T, codec)},
	{.id = 5, .name = "num_values", .kind = PQ_FK_I64, REQ(T, num_values)},
	{.id = 6, .name = "total_uncompressed_size", .kind = PQ_FK_I64,
	 REQ(T, total_uncompressed_size)},
	{.id = 7, .name = "total_compressed_size", .kind = PQ_FK_I64, REQ(T, total_compressed_size)},
	{.id = 8, .name = "key_value_metadata", LST(T, key_value_metadata, PQ_FK_STRUCT, pq_key_value),
	 .sub = &d_key_value, OPTF(T, key_value_metadata)},
	{.id = 9, .name = "data_page_offset", .kind = PQ_FK_I64, REQ(T, data_page_offset)},
	{.id = 10, .name = "index_page_offset", .kind = PQ_FK_I64, OPT(T, index_page_offset)},
	{.id = 11, .name = "dictionary_page_offset", .kind = PQ_FK_I64,
	 OPT(T, dictionary_page_offset)},
	{.id = 12, .name = "statistics", .kind = PQ_FK_STRUCT, .sub = &d_statistics,
	 OPT(T, statistics)},
	{.id = 13, .name = "encoding_stats",
	 LST(T, encoding_stats, PQ_FK_STRUCT, pq_page_encoding_stats),
	 .sub = &d_page_encoding_stats, OPTF(T, encoding_stats)},
	{.id = 14, .name = "bloom_filter_offset", .kind = PQ_FK_I64, OPT(T, bloom_filter_offset)},
	{.id = 15, .name = "bloom_filter_length", .kind = PQ_FK_I32, OPT(T, bloom_filter_length)},
	{.id = 16, .name = "size_statistics", .kind = PQ_FK_STRUCT, .sub = &d_size_statistics,
	 OPT(T, size_statistics)},
	{.id = 17, .name = "geospatial_statistics", .kind = PQ_FK_STRUCT,
	 .sub = &d_geospatial_statistics, OPT(T, geospatial_statistics)},
};
#undef T
const pq_sdesc pq_desc_column_meta_data = {
	.name = "ColumnMetaData", .unknown_member = -1, FIELDS(f_column_meta_data)};

#define T pq_encryption_with_column_key
static const pq_fdesc f_encryption_with_column_key[] = {
	{.id = 1, .name = "path_in_schema", LST(T, path_in_schema, PQ_FK_STRING, pq_bytes), REQF},
	{.id = 2, .name = "key_metadata", .kind = PQ_FK_BINARY, OPT(T, key_metadata)},
};
#undef T
static const pq_sdesc d_encryption_with_column_key = {
	.name = "EncryptionWithColumnKey", .unknown_member = -1,
	FIELDS(f_encryption_with_column_key)};

#define T pq_column_crypto_meta_data
static const pq_fdesc f_column_crypto_meta_data[] = {
	{.id = 1, .name = "ENCRYPTION_WITH_FOOTER_KEY", .kind = PQ_FK_STRUCT, .sub = &d_empty,
	 OPT(T, ENCRYPTION_WITH_FOOTER_KEY)},
	{.id = 2, .name = "ENCRYPTION_WITH_COLUMN_KEY", .kind = PQ_FK_STRUCT,
	 .sub = &d_encryption_with_column_key, OPT(T, ENCRYPTION_WITH_COLUMN_KEY)},
};
#undef T
static const pq_sdesc d_column_crypto_meta_data = {
	.name = "ColumnCryptoMetaData", .is_union = true, .unknown_member = -1,
	FIELDS(f_column_crypto_meta_data)};

#define T pq_column_chunk
static const pq_fdesc f_column_chunk[] = {
	{.id = 1, .name = "file_path", .kind = PQ_FK_STRING, OPT(T, file_path)},
	{.id = 2, .name = "file_offset", .kind = PQ_FK_I64, REQ(T, file_offset)},
	{.id = 3, .name = "meta_data", .kind = PQ_FK_STRUCT, .sub = &pq_desc_column_meta_data,
	 OPT(T, meta_data)},
	{.id = 4, .name = "offset_index_offset", .kind = PQ_FK_I64, OPT(T, offset_index_offset)},
	{.id = 5, .name = "offset_index_length", .kind = PQ_FK_I32, OPT(T, offset_index_length)},
	{.id = 6, .name = "column_index_offset", .kind = PQ_FK_I64, OPT(T, column_index_offset)},
	{.id = 7, .name = "column_index_length", .kind = PQ_FK_I32, OPT(T, column_index_length)},
	{.id = 8, .name = "crypto_metadata", .kind = PQ_FK_STRUCT,
	 .sub = &d_column_crypto_meta_data, OPT(T, crypto_metadata)},
	{.id = 9, .name = "encrypted_column_metadata", .kind = PQ_FK_BINARY,
	 OPT(T, encrypted_column_metadata)},
};
#undef T
const pq_sdesc pq_desc_column_chunk = {
	.name = "ColumnChunk", .unknown_member = -1, FIELDS(f_column_chunk)};

#define T pq_row_group
static const pq_fdesc f_row_group[] = {
	{.id = 1, .name = "columns", LST(T, columns, PQ_FK_STRUCT, pq_column_chunk),
	 .sub = &pq_desc_column_chunk, REQF},
	{.id = 2, .name = "total_byte_size", .kind = PQ_FK_I64, REQ(T, total_byte_size)},
	{.id = 3, .name = "num_rows", .kind = PQ_FK_I64, REQ(T, num_rows)},
	{.id = 4, .name = "sorting_columns", LST(T, sorting_columns, PQ_FK_STRUCT, pq_sorting_column),
	 .sub = &d_sorting_column, OPTF(T, sorting_columns)},
	{.id = 5, .name = "file_offset", .kind = PQ_FK_I64, OPT(T, file_offset)},
	{.id = 6, .name = "total_compressed_size", .kind = PQ_FK_I64, OPT(T, total_compressed_size)},
	{.id = 7, .name = "ordinal", .kind = PQ_FK_I16, OPT(T, ordinal)},
};
#undef T
const pq_sdesc pq_desc_row_group = {.name = "RowGroup", .unknown_member = -1, FIELDS(f_row_group)};

/* ---- Page index, bloom filter ----------------------------------------- */

#define T pq_page_location
static const pq_fdesc f_page_location[] = {
	{.id = 1, .name = "offset", .kind = PQ_FK_I64, REQ(T, offset)},
	{.id = 2, .name = "compressed_page_size", .kind = PQ_FK_I32, REQ(T, compressed_page_size)},
	{.id = 3, .name = "first_row_index", .kind = PQ_FK_I64, REQ(T, first_row_index)},
};
#undef T
static const pq_sdesc d_page_location = {
	.name = "PageLocation", .unknown_member = -1, FIELDS(f_page_location)};

#define T pq_offset_index
static const pq_fdesc f_offset_index[] = {
	{.id = 1, .name = "page_locations", LST(T, page_locations, PQ_FK_STRUCT, pq_page_location),
	 .sub = &d_page_location, REQF},
	{.id = 2, .name = "unencoded_byte_array_data_bytes",
	 LST(T, unencoded_byte_array_data_bytes, PQ_FK_I64, int64_t),
	 OPTF(T, unencoded_byte_array_data_bytes)},
};
#undef T
static const pq_sdesc d_offset_index = {
	.name = "OffsetIndex", .unknown_member = -1, FIELDS(f_offset_index)};

#define T pq_column_index
static const pq_fdesc f_column_index[] = {
	{.id = 1, .name = "null_pages", LST(T, null_pages, PQ_FK_BOOL, bool), REQF},
	{.id = 2, .name = "min_values", LST(T, min_values, PQ_FK_BINARY, pq_bytes),
	 .role = PQ_JB_INDEX_MIN, REQF},
	{.id = 3, .name = "max_values", LST(T, max_values, PQ_FK_BINARY, pq_bytes),
	 .role = PQ_JB_INDEX_MAX, REQF},
	{.id = 4, .name = "boundary_order", .kind = PQ_FK_ENUM, .en = &e_boundary,
	 REQ(T, boundary_order)},
	{.id = 5, .name = "null_counts", LST(T, null_counts, PQ_FK_I64, int64_t),
	 OPTF(T, null_counts)},
	{.id = 6, .name = "repetition_level_histograms",
	 LST(T, repetition_level_histograms, PQ_FK_I64, int64_t),
	 OPTF(T, repetition_level_histograms)},
	{.id = 7, .name = "definition_level_histograms",
	 LST(T, definition_level_histograms, PQ_FK_I64, int64_t),
	 OPTF(T, definition_level_histograms)},
	{.id = 8, .name = "nan_counts", LST(T, nan_counts, PQ_FK_I64, int64_t),
	 OPTF(T, nan_counts)},
};
#undef T
static const pq_sdesc d_column_index = {
	.name = "ColumnIndex", .unknown_member = -1, FIELDS(f_column_index)};

/* The three unions of BloomFilterHeader are anonymous structs in C. */
#define BF(m, f) (offsetof(pq_bloom_filter_header, m.f) - offsetof(pq_bloom_filter_header, m))
static const pq_fdesc f_bf_algorithm[] = {
	{.id = 1, .name = "BLOCK", .kind = PQ_FK_STRUCT, .sub = &d_empty,
	 .off = BF(algorithm, BLOCK), .has = (ptrdiff_t)BF(algorithm, has_BLOCK)},
};
static const pq_fdesc f_bf_hash[] = {
	{.id = 1, .name = "XXHASH", .kind = PQ_FK_STRUCT, .sub = &d_empty,
	 .off = BF(hash, XXHASH), .has = (ptrdiff_t)BF(hash, has_XXHASH)},
};
static const pq_fdesc f_bf_compression[] = {
	{.id = 1, .name = "UNCOMPRESSED", .kind = PQ_FK_STRUCT, .sub = &d_empty,
	 .off = BF(compression, UNCOMPRESSED), .has = (ptrdiff_t)BF(compression, has_UNCOMPRESSED)},
};
#undef BF
static const pq_sdesc d_bf_algorithm = {
	.name = "BloomFilterAlgorithm", .is_union = true, .unknown_member = -1,
	FIELDS(f_bf_algorithm)};
static const pq_sdesc d_bf_hash = {
	.name = "BloomFilterHash", .is_union = true, .unknown_member = -1, FIELDS(f_bf_hash)};
static const pq_sdesc d_bf_compression = {
	.name = "BloomFilterCompression", .is_union = true, .unknown_member = -1,
	FIELDS(f_bf_compression)};

#define T pq_bloom_filter_header
static const pq_fdesc f_bloom_filter_header[] = {
	{.id = 1, .name = "numBytes", .kind = PQ_FK_I32, REQ(T, numBytes)},
	{.id = 2, .name = "algorithm", .kind = PQ_FK_STRUCT, .sub = &d_bf_algorithm, REQ(T, algorithm)},
	{.id = 3, .name = "hash", .kind = PQ_FK_STRUCT, .sub = &d_bf_hash, REQ(T, hash)},
	{.id = 4, .name = "compression", .kind = PQ_FK_STRUCT, .sub = &d_bf_compression,
	 REQ(T, compression)},
};
#undef T
static const pq_sdesc d_bloom_filter_header = {
	.name = "BloomFilterHeader", .unknown_member = -1, FIELDS(f_bloom_filter_header)};

/* ---- File metadata and encryption ------------------------------------- */

#define T pq_aes_gcm
static const pq_fdesc f_aes_gcm[] = {
	{.id = 1, .name = "aad_prefix", .kind = PQ_FK_BINARY, OPT(T, aad_prefix)},
	{.id = 2, .name = "aad_file_unique", .kind = PQ_FK_BINARY, OPT(T, aad_file_unique)},
	{.id = 3, .name = "supply_aad_prefix", .kind = PQ_FK_BOOL, OPT(T, supply_aad_prefix)},
};
#undef T
static const pq_sdesc d_aes_gcm_v1 = {.name = "AesGcmV1", .unknown_member = -1, FIELDS(f_aes_gcm)};
static const pq_sdesc d_aes_gcm_ctr_v1 = {
	.name = "AesGcmCtrV1", .unknown_member = -1, FIELDS(f_aes_gcm)};

#define T pq_encryption_algorithm
static const pq_fdesc f_encryption_algorithm[] = {
	{.id = 1, .name = "AES_GCM_V1", .kind = PQ_FK_STRUCT, .sub = &d_aes_gcm_v1,
	 OPT(T, AES_GCM_V1)},
	{.id = 2, .name = "AES_GCM_CTR_V1", .kind = PQ_FK_STRUCT, .sub = &d_aes_gcm_ctr_v1,
	 OPT(T, AES_GCM_CTR_V1)},
};
#undef T
static const pq_sdesc d_encryption_algorithm = {
	.name = "EncryptionAlgorithm", .is_union = true, .unknown_member = -1,
	FIELDS(f_encryption_algorithm)};

#define T pq_column_order
static const pq_fdesc f_column_order[] = {
	{.id = 1, .name = "TYPE_ORDER", .kind = PQ_FK_STRUCT, .sub = &d_empty, OPT(T, TYPE_ORDER)},
	{.id = 2, .name = "IEEE_754_TOTAL_ORDER", .kind = PQ_FK_STRUCT, .sub = &d_empty,
	 OPT(T, IEEE_754_TOTAL_ORDER)},
	{.id = 3, .name = "INT96_TIMESTAMP_ORDER", .kind = PQ_FK_STRUCT, .sub = &d_empty,
	 OPT(T, INT96_TIMESTAMP_ORDER)},
};
#undef T
static const pq_sdesc d_column_order = {
	.name = "ColumnOrder", .is_union = true, .unknown_member = -1, FIELDS(f_column_order)};

#define T pq_file_meta_data
static const pq_fdesc f_file_meta_data[] = {
	{.id = 1, .name = "version", .kind = PQ_FK_I32, REQ(T, version)},
	{.id = 2, .name = "schema", LST(T, schema, PQ_FK_STRUCT, pq_schema_element),
	 .sub = &d_schema_element, REQF},
	{.id = 3, .name = "num_rows", .kind = PQ_FK_I64, REQ(T, num_rows)},
	{.id = 4, .name = "row_groups", LST(T, row_groups, PQ_FK_STRUCT, pq_row_group),
	 .sub = &pq_desc_row_group, REQF},
	{.id = 5, .name = "key_value_metadata", LST(T, key_value_metadata, PQ_FK_STRUCT, pq_key_value),
	 .sub = &d_key_value, OPTF(T, key_value_metadata)},
	{.id = 6, .name = "created_by", .kind = PQ_FK_STRING, OPT(T, created_by)},
	{.id = 7, .name = "column_orders", LST(T, column_orders, PQ_FK_STRUCT, pq_column_order),
	 .sub = &d_column_order, OPTF(T, column_orders)},
	{.id = 8, .name = "encryption_algorithm", .kind = PQ_FK_STRUCT,
	 .sub = &d_encryption_algorithm, OPT(T, encryption_algorithm)},
	{.id = 9, .name = "footer_signing_key_metadata", .kind = PQ_FK_BINARY,
	 OPT(T, footer_signing_key_metadata)},
};
#undef T
static const pq_sdesc d_file_meta_data = {
	.name = "FileMetaData", .unknown_member = -1, FIELDS(f_file_meta_data)};

#define T pq_file_crypto_meta_data
static const pq_fdesc f_file_crypto_meta_data[] = {
	{.id = 1, .name = "encryption_algorithm", .kind = PQ_FK_STRUCT,
	 .sub = &d_encryption_algorithm, REQ(T, encryption_algorithm)},
	{.id = 2, .name = "key_metadata", .kind = PQ_FK_BINARY, OPT(T, key_metadata)},
};
#undef T
static const pq_sdesc d_file_crypto_meta_data = {
	.name = "FileCryptoMetaData", .unknown_member = -1, FIELDS(f_file_crypto_meta_data)};

/* ---- Kinds ------------------------------------------------------------ */

static const struct {
	const pq_sdesc *desc;
	size_t size;
} kinds[PQ_S_KIND_COUNT] = {
	[PQ_S_FILE_META_DATA] = {&d_file_meta_data, sizeof(pq_file_meta_data)},
	[PQ_S_FILE_CRYPTO_META_DATA] = {&d_file_crypto_meta_data, sizeof(pq_file_crypto_meta_data)},
	[PQ_S_PAGE_HEADER] = {&d_page_header, sizeof(pq_page_header)},
	[PQ_S_COLUMN_INDEX] = {&d_column_index, sizeof(pq_column_index)},
	[PQ_S_OFFSET_INDEX] = {&d_offset_index, sizeof(pq_offset_index)},
	[PQ_S_BLOOM_FILTER_HEADER] = {&d_bloom_filter_header, sizeof(pq_bloom_filter_header)},
	[PQ_S_COLUMN_META_DATA] = {&pq_desc_column_meta_data, sizeof(pq_column_meta_data)},
	[PQ_S_ROW_GROUP] = {&pq_desc_row_group, sizeof(pq_row_group)},
	[PQ_S_COLUMN_CHUNK] = {&pq_desc_column_chunk, sizeof(pq_column_chunk)},
	[PQ_S_STATISTICS] = {&d_statistics, sizeof(pq_statistics)},
	[PQ_S_SCHEMA_ELEMENT] = {&d_schema_element, sizeof(pq_schema_element)},
};

const pq_sdesc *pq_meta_desc(pq_struct_kind kind)
{
	if ((int)kind < 0 || kind >= PQ_S_KIND_COUNT)
		return NULL;
	return kinds[kind].desc;
}

size_t pq_meta_size(pq_struct_kind kind)
{
	if ((int)kind < 0 || kind >= PQ_S_KIND_COUNT)
		return 0;
	return kinds[kind].size;
}

const char *pq_struct_kind_name(pq_struct_kind kind)
{
	const pq_sdesc *d = pq_meta_desc(kind);
	return d ? d->name : "(unknown struct kind)";
}
