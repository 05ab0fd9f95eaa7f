/* The structures of parquet.thrift as C structs.
 *
 * Conventions, so one table-driven codec (core/thrift*.c, core/metadata*.c)
 * can decode, encode and print them all:
 *  - every optional scalar/struct/list field X has a `bool has_X`;
 *    required fields have none;
 *  - structs are embedded by value; unions are structs with one has_ set;
 *  - binary/string fields are pq_bytes pointing into the decoded buffer
 *    (zero-copy) or into the owning arena;
 *  - lists are (n, v) pairs, arrays allocated in the owning arena;
 *  - enums are int32_t (values outside the known set are kept as numbers).
 */
#ifndef PQ_METADATA_H
#define PQ_METADATA_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_arena.h"
#include "pq_bytes.h"
#include "pq_error.h"

enum pq_type {
	PQ_BOOLEAN = 0, PQ_INT32 = 1, PQ_INT64 = 2, PQ_INT96 = 3,
	PQ_FLOAT = 4, PQ_DOUBLE = 5, PQ_BYTE_ARRAY = 6, PQ_FIXED_LEN_BYTE_ARRAY = 7
};

enum pq_converted_type {
	PQ_CT_UTF8 = 0, PQ_CT_MAP = 1, PQ_CT_MAP_KEY_VALUE = 2, PQ_CT_LIST = 3,
	PQ_CT_ENUM = 4, PQ_CT_DECIMAL = 5, PQ_CT_DATE = 6, PQ_CT_TIME_MILLIS = 7,
	PQ_CT_TIME_MICROS = 8, PQ_CT_TIMESTAMP_MILLIS = 9, PQ_CT_TIMESTAMP_MICROS = 10,
	PQ_CT_UINT_8 = 11, PQ_CT_UINT_16 = 12, PQ_CT_UINT_32 = 13, PQ_CT_UINT_64 = 14,
	PQ_CT_INT_8 = 15, PQ_CT_INT_16 = 16, PQ_CT_INT_32 = 17, PQ_CT_INT_64 = 18,
	PQ_CT_JSON = 19, PQ_CT_BSON = 20, PQ_CT_INTERVAL = 21
};

enum pq_repetition { PQ_REQUIRED = 0, PQ_OPTIONAL = 1, PQ_REPEATED = 2 };

enum pq_encoding {
	PQ_ENC_PLAIN = 0, PQ_ENC_GROUP_VAR_INT = 1, PQ_ENC_PLAIN_DICTIONARY = 2,
	PQ_ENC_RLE = 3, PQ_ENC_BIT_PACKED = 4, PQ_ENC_DELTA_BINARY_PACKED = 5,
	PQ_ENC_DELTA_LENGTH_BYTE_ARRAY = 6, PQ_ENC_DELTA_BYTE_ARRAY = 7,
	PQ_ENC_RLE_DICTIONARY = 8, PQ_ENC_BYTE_STREAM_SPLIT = 9
};

enum pq_codec_id {
	PQ_CODEC_UNCOMPRESSED = 0, PQ_CODEC_SNAPPY = 1, PQ_CODEC_GZIP = 2,
	PQ_CODEC_LZO = 3, PQ_CODEC_BROTLI = 4, PQ_CODEC_LZ4 = 5, PQ_CODEC_ZSTD = 6,
	PQ_CODEC_LZ4_RAW = 7
};

enum pq_page_type {
	PQ_PAGE_DATA = 0, PQ_PAGE_INDEX = 1, PQ_PAGE_DICTIONARY = 2, PQ_PAGE_DATA_V2 = 3
};

enum pq_boundary_order { PQ_UNORDERED = 0, PQ_ASCENDING = 1, PQ_DESCENDING = 2 };

enum pq_time_unit { PQ_MILLIS = 1, PQ_MICROS = 2, PQ_NANOS = 3 }; /* TimeUnit field ids */

typedef struct { uint32_t n; int32_t *v; } pq_list_i32;
typedef struct { uint32_t n; int64_t *v; } pq_list_i64;
typedef struct { uint32_t n; bool *v; } pq_list_bool;
typedef struct { uint32_t n; pq_bytes *v; } pq_list_bytes;

typedef struct pq_size_statistics {
	bool has_unencoded_byte_array_data_bytes, has_repetition_level_histogram,
	    has_definition_level_histogram;
	int64_t unencoded_byte_array_data_bytes;         /* 1 */
	pq_list_i64 repetition_level_histogram;           /* 2 */
	pq_list_i64 definition_level_histogram;           /* 3 */
} pq_size_statistics;

typedef struct pq_bounding_box {
	bool has_zmin, has_zmax, has_mmin, has_mmax;
	double xmin, xmax, ymin, ymax;                    /* 1-4 */
	double zmin, zmax, mmin, mmax;                    /* 5-8 */
} pq_bounding_box;

typedef struct pq_geospatial_statistics {
	bool has_bbox, has_geospatial_types;
	pq_bounding_box bbox;                             /* 1 */
	pq_list_i32 geospatial_types;                     /* 2 */
} pq_geospatial_statistics;

typedef struct pq_statistics {
	bool has_max, has_min, has_null_count, has_distinct_count, has_max_value,
	    has_min_value, has_is_max_value_exact, has_is_min_value_exact, has_nan_count;
	pq_bytes max;                                     /* 1 (deprecated) */
	pq_bytes min;                                     /* 2 (deprecated) */
	int64_t null_count;                               /* 3 */
	int64_t distinct_count;                           /* 4 */
	pq_bytes max_value;                               /* 5 */
	pq_bytes min_value;                               /* 6 */
	bool is_max_value_exact;                          /* 7 */
	bool is_min_value_exact;                          /* 8 */
	int64_t nan_count;                                /* 9 */
} pq_statistics;

/* Logical type members. Empty structs get a placeholder byte for C. */
typedef struct { char unused; } pq_empty;
typedef struct pq_decimal_type { int32_t scale, precision; } pq_decimal_type; /* 1, 2 */
typedef struct pq_time_unit_u {
	bool has_MILLIS, has_MICROS, has_NANOS;
	pq_empty MILLIS, MICROS, NANOS;                   /* 1, 2, 3 */
} pq_time_unit_u;
typedef struct pq_timestamp_type {
	bool isAdjustedToUTC;                             /* 1 */
	pq_time_unit_u unit;                              /* 2 */
} pq_timestamp_type;
typedef pq_timestamp_type pq_time_type;
typedef struct pq_int_type { int8_t bitWidth; bool isSigned; } pq_int_type; /* 1, 2 */
typedef struct pq_variant_type {
	bool has_specification_version;
	int8_t specification_version;                     /* 1 */
} pq_variant_type;
typedef struct pq_geometry_type { bool has_crs; pq_bytes crs; } pq_geometry_type; /* 1 */
typedef struct pq_geography_type {
	bool has_crs, has_algorithm;
	pq_bytes crs;                                     /* 1 */
	int32_t algorithm;                                /* 2 EdgeInterpolationAlgorithm */
} pq_geography_type;

typedef struct pq_logical_type {
	bool has_STRING, has_MAP, has_LIST, has_ENUM, has_DECIMAL, has_DATE,
	    has_TIME, has_TIMESTAMP, has_INTEGER, has_UNKNOWN, has_JSON, has_BSON,
	    has_UUID, has_FLOAT16, has_VARIANT, has_GEOMETRY, has_GEOGRAPHY;
	pq_empty STRING;                                  /* 1 */
	pq_empty MAP;                                     /* 2 */
	pq_empty LIST;                                    /* 3 */
	pq_empty ENUM;                                    /* 4 */
	pq_decimal_type DECIMAL;                          /* 5 */
	pq_empty DATE;                                    /* 6 */
	pq_time_type TIME;                                /* 7 */
	pq_timestamp_type TIMESTAMP;                      /* 8 */
	pq_int_type INTEGER;                              /* 10 */
	pq_empty UNKNOWN;                                 /* 11 */
	pq_empty JSON;                                    /* 12 */
	pq_empty BSON;                                    /* 13 */
	pq_empty UUID;                                    /* 14 */
	pq_empty FLOAT16;                                 /* 15 */
	pq_variant_type VARIANT;                          /* 16 */
	pq_geometry_type GEOMETRY;                        /* 17 */
	pq_geography_type GEOGRAPHY;                      /* 18 */
	/* A member id this build does not know (set => has none of the above). */
	int16_t unknown_member;
} pq_logical_type;

typedef struct pq_schema_element {
	bool has_type, has_type_length, has_repetition_type, has_num_children,
	    has_converted_type, has_scale, has_precision, has_field_id, has_logicalType;
	int32_t type;                                     /* 1 pq_type */
	int32_t type_length;                              /* 2 */
	int32_t repetition_type;                          /* 3 */
	pq_bytes name;                                    /* 4 */
	int32_t num_children;                             /* 5 */
	int32_t converted_type;                           /* 6 */
	int32_t scale;                                    /* 7 */
	int32_t precision;                                /* 8 */
	int32_t field_id;                                 /* 9 */
	pq_logical_type logicalType;                      /* 10 */
} pq_schema_element;

typedef struct pq_data_page_header {
	bool has_statistics;
	int32_t num_values;                               /* 1 */
	int32_t encoding;                                 /* 2 */
	int32_t definition_level_encoding;                /* 3 */
	int32_t repetition_level_encoding;                /* 4 */
	pq_statistics statistics;                         /* 5 */
} pq_data_page_header;

typedef struct pq_index_page_header { char unused; } pq_index_page_header;

typedef struct pq_dictionary_page_header {
	bool has_is_sorted;
	int32_t num_values;                               /* 1 */
	int32_t encoding;                                 /* 2 */
	bool is_sorted;                                   /* 3 */
} pq_dictionary_page_header;

typedef struct pq_data_page_header_v2 {
	bool has_is_compressed, has_statistics;
	int32_t num_values;                               /* 1 */
	int32_t num_nulls;                                /* 2 */
	int32_t num_rows;                                 /* 3 */
	int32_t encoding;                                 /* 4 */
	int32_t definition_levels_byte_length;            /* 5 */
	int32_t repetition_levels_byte_length;            /* 6 */
	bool is_compressed;                               /* 7, default true */
	pq_statistics statistics;                         /* 8 */
} pq_data_page_header_v2;

typedef struct pq_page_header {
	bool has_crc, has_data_page_header, has_index_page_header,
	    has_dictionary_page_header, has_data_page_header_v2;
	int32_t type;                                     /* 1 pq_page_type */
	int32_t uncompressed_page_size;                   /* 2 */
	int32_t compressed_page_size;                     /* 3 */
	int32_t crc;                                      /* 4 */
	pq_data_page_header data_page_header;             /* 5 */
	pq_index_page_header index_page_header;           /* 6 */
	pq_dictionary_page_header dictionary_page_header; /* 7 */
	pq_data_page_header_v2 data_page_header_v2;       /* 8 */
} pq_page_header;

typedef struct pq_key_value {
	bool has_value;
	pq_bytes key;                                     /* 1 */
	pq_bytes value;                                   /* 2 */
} pq_key_value;

typedef struct pq_sorting_column {
	int32_t column_idx;                               /* 1 */
	bool descending;                                  /* 2 */
	bool nulls_first;                                 /* 3 */
} pq_sorting_column;

typedef struct pq_page_encoding_stats {
	int32_t page_type;                                /* 1 */
	int32_t encoding;                                 /* 2 */
	int32_t count;                                    /* 3 */
} pq_page_encoding_stats;

typedef struct pq_column_meta_data {
	bool has_key_value_metadata, has_index_page_offset, has_dictionary_page_offset,
	    has_statistics, has_encoding_stats, has_bloom_filter_offset,
	    has_bloom_filter_length, has_size_statistics, has_geospatial_statistics;
	int32_t type;                                     /* 1 */
	pq_list_i32 encodings;                            /* 2 */
	pq_list_bytes path_in_schema;                     /* 3 */
	int32_t codec;                                    /* 4 */
	int64_t num_values;                               /* 5 */
	int64_t total_uncompressed_size;                  /* 6 */
	int64_t total_compressed_size;                    /* 7 */
	struct { uint32_t n; pq_key_value *v; } key_value_metadata; /* 8 */
	int64_t data_page_offset;                         /* 9 */
	int64_t index_page_offset;                        /* 10 */
	int64_t dictionary_page_offset;                   /* 11 */
	pq_statistics statistics;                         /* 12 */
	struct { uint32_t n; pq_page_encoding_stats *v; } encoding_stats; /* 13 */
	int64_t bloom_filter_offset;                      /* 14 */
	int32_t bloom_filter_length;                      /* 15 */
	pq_size_statistics size_statistics;               /* 16 */
	pq_geospatial_statistics geospatial_statistics;   /* 17 */
} pq_column_meta_data;

typedef struct pq_encryption_with_column_key {
	bool has_key_metadata;
	pq_list_bytes path_in_schema;                     /* 1 */
	pq_bytes key_metadata;                            /* 2 */
} pq_encryption_with_column_key;

typedef struct pq_column_crypto_meta_data {
	bool has_ENCRYPTION_WITH_FOOTER_KEY, has_ENCRYPTION_WITH_COLUMN_KEY;
	pq_empty ENCRYPTION_WITH_FOOTER_KEY;              /* 1 */
	pq_encryption_with_column_key ENCRYPTION_WITH_COLUMN_KEY; /* 2 */
} pq_column_crypto_meta_data;

typedef struct pq_column_chunk {
	bool has_file_path, has_meta_data, has_offset_index_offset,
	    has_offset_index_length, has_column_index_offset, has_column_index_length,
	    has_crypto_metadata, has_encrypted_column_metadata;
	pq_bytes file_path;                               /* 1 */
	int64_t file_offset;                              /* 2 */
	pq_column_meta_data meta_data;                    /* 3 */
	int64_t offset_index_offset;                      /* 4 */
	int32_t offset_index_length;                      /* 5 */
	int64_t column_index_offset;                      /* 6 */
	int32_t column_index_length;                      /* 7 */
	pq_column_crypto_meta_data crypto_metadata;       /* 8 */
	pq_bytes encrypted_column_metadata;               /* 9 */
} pq_column_chunk;

typedef struct pq_row_group {
	bool has_sorting_columns, has_file_offset, has_total_compressed_size, has_ordinal;
	struct { uint32_t n; pq_column_chunk *v; } columns; /* 1 */
	int64_t total_byte_size;                          /* 2 */
	int64_t num_rows;                                 /* 3 */
	struct { uint32_t n; pq_sorting_column *v; } sorting_columns; /* 4 */
	int64_t file_offset;                              /* 5 */
	int64_t total_compressed_size;                    /* 6 */
	int16_t ordinal;                                  /* 7 */
} pq_row_group;

typedef struct pq_column_order {
	bool has_TYPE_ORDER, has_IEEE_754_TOTAL_ORDER, has_INT96_TIMESTAMP_ORDER;
	pq_empty TYPE_ORDER;                              /* 1 */
	pq_empty IEEE_754_TOTAL_ORDER;                    /* 2 */
	pq_empty INT96_TIMESTAMP_ORDER;                   /* 3 */
} pq_column_order;

typedef struct pq_page_location {
	int64_t offset;                                   /* 1 */
	int32_t compressed_page_size;                     /* 2 */
	int64_t first_row_index;                          /* 3 */
} pq_page_location;

typedef struct pq_offset_index {
	bool has_unencoded_byte_array_data_bytes;
	struct { uint32_t n; pq_page_location *v; } page_locations; /* 1 */
	pq_list_i64 unencoded_byte_array_data_bytes;      /* 2 */
} pq_offset_index;

typedef struct pq_column_index {
	bool has_null_counts, has_repetition_level_histograms,
	    has_definition_level_histograms, has_nan_counts;
	pq_list_bool null_pages;                          /* 1 */
	pq_list_bytes min_values;                         /* 2 */
	pq_list_bytes max_values;                         /* 3 */
	int32_t boundary_order;                           /* 4 */
	pq_list_i64 null_counts;                          /* 5 */
	pq_list_i64 repetition_level_histograms;          /* 6 */
	pq_list_i64 definition_level_histograms;          /* 7 */
	pq_list_i64 nan_counts;                           /* 8 */
} pq_column_index;

typedef struct pq_aes_gcm {
	bool has_aad_prefix, has_aad_file_unique, has_supply_aad_prefix;
	pq_bytes aad_prefix;                              /* 1 */
	pq_bytes aad_file_unique;                         /* 2 */
	bool supply_aad_prefix;                           /* 3 */
} pq_aes_gcm;

typedef struct pq_encryption_algorithm {
	bool has_AES_GCM_V1, has_AES_GCM_CTR_V1;
	pq_aes_gcm AES_GCM_V1;                            /* 1 */
	pq_aes_gcm AES_GCM_CTR_V1;                        /* 2 */
} pq_encryption_algorithm;

typedef struct pq_file_meta_data {
	bool has_key_value_metadata, has_created_by, has_column_orders,
	    has_encryption_algorithm, has_footer_signing_key_metadata;
	int32_t version;                                  /* 1 */
	struct { uint32_t n; pq_schema_element *v; } schema; /* 2 */
	int64_t num_rows;                                 /* 3 */
	struct { uint32_t n; pq_row_group *v; } row_groups; /* 4 */
	struct { uint32_t n; pq_key_value *v; } key_value_metadata; /* 5 */
	pq_bytes created_by;                              /* 6 */
	struct { uint32_t n; pq_column_order *v; } column_orders; /* 7 */
	pq_encryption_algorithm encryption_algorithm;     /* 8 */
	pq_bytes footer_signing_key_metadata;             /* 9 */
} pq_file_meta_data;

typedef struct pq_file_crypto_meta_data {
	bool has_key_metadata;
	pq_encryption_algorithm encryption_algorithm;     /* 1 */
	pq_bytes key_metadata;                            /* 2 */
} pq_file_crypto_meta_data;

typedef struct pq_bloom_filter_header {
	int32_t numBytes;                                 /* 1 */
	struct { bool has_BLOCK; pq_empty BLOCK; } algorithm;          /* 2: 1 */
	struct { bool has_XXHASH; pq_empty XXHASH; } hash;             /* 3: 1 */
	struct { bool has_UNCOMPRESSED; pq_empty UNCOMPRESSED; } compression; /* 4: 1 */
} pq_bloom_filter_header;

/* ---- Table-driven decode / encode / JSON of the structs above ---------- */

/* Identifies a struct kind for the generic functions below. */
typedef enum pq_struct_kind {
	PQ_S_FILE_META_DATA,
	PQ_S_FILE_CRYPTO_META_DATA,
	PQ_S_PAGE_HEADER,
	PQ_S_COLUMN_INDEX,
	PQ_S_OFFSET_INDEX,
	PQ_S_BLOOM_FILTER_HEADER,
	PQ_S_COLUMN_META_DATA,  /* for decrypted encrypted_column_metadata */
	PQ_S_ROW_GROUP,
	PQ_S_COLUMN_CHUNK,
	PQ_S_STATISTICS,
	PQ_S_SCHEMA_ELEMENT,
	PQ_S_KIND_COUNT
} pq_struct_kind;

/* Decodes one compact-protocol struct from buf into *out (a zeroed struct
 * of the kind's C type). Lists are allocated in arena; binary fields point
 * into buf, which must outlive out. *used receives the bytes consumed
 * (page headers are followed by their body). Unknown fields are skipped;
 * depth, list lengths and string lengths are bounded by the input. */
pq_status pq_thrift_decode(pq_struct_kind kind, const uint8_t *buf, size_t len,
			   void *out, size_t *used, pq_arena *arena, pq_error *err);

#endif
