/* Table-driven metadata codec (core/metadata*.c) and footer location
 * (core/format/footer.c) on hand-built inputs. Expected bytes are worked out by
 * hand from parquet.thrift field ids and the compact protocol; expected
 * JSON from the rules in pq_metadata_codec.h / interface.md. The real files
 * of the test data are in test_meta_corpus.c. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/pq_footer.h"
#include "pq_metadata.h"
#include "format/pq_metadata_codec.h"
#include "pq_render.h"
#include "util/pq_utf8.h"

#define ARR(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* FileMetaData {1: version 1, 2: schema [{4: name "s"}], 3: num_rows 0,
 * 4: row_groups []} */
static const uint8_t minimal_fmd[] = {
	0x15, 0x02,
	0x19, 0x1c, 0x48, 0x01, 's', 0x00,
	0x16, 0x00,
	0x19, 0x0c,
	0x00,
};

static pq_status decode(pq_struct_kind kind, const uint8_t *p, size_t n, void *out,
			size_t *used, pq_arena *a, pq_error *err)
{
	pq_error_clear(err);
	return pq_thrift_decode(kind, p, n, out, used, a, err);
}

START_TEST(test_decode_minimal)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_error err = {0};
	pq_file_meta_data md;
	size_t used;
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA, minimal_fmd, sizeof minimal_fmd, &md, &used,
				&a, &err), PQ_OK);
	ck_assert_uint_eq(used, sizeof minimal_fmd);
	ck_assert_int_eq(md.version, 1);
	ck_assert_uint_eq(md.schema.n, 1);
	ck_assert_uint_eq(md.schema.v[0].name.n, 1);
	ck_assert(md.schema.v[0].name.p == minimal_fmd + 6); /* zero-copy */
	ck_assert(!md.schema.v[0].has_type);
	ck_assert_int_eq(md.num_rows, 0);
	ck_assert_uint_eq(md.row_groups.n, 0);
	ck_assert(!md.has_created_by && !md.has_key_value_metadata);

	/* The encoder gives back the same bytes. */
	pq_buf b = PQ_BUF_INIT;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &b, &err), PQ_OK);
	ck_assert_uint_eq(b.len, sizeof minimal_fmd);
	ck_assert(memcmp(b.p, minimal_fmd, b.len) == 0);
	pq_buf_free(&b);

	/* Unknown fields (long-form id 100 holding a struct with a list) are
	 * skipped wherever they appear. */
	const uint8_t extra[] = {
		0x15, 0x02,
		0x19, 0x1c, 0x48, 0x01, 's', 0x0c, 0xc8, 0x01, 0x19, 0x26, 0x02, 0x04, 0x00, 0x00,
		0x16, 0x00,
		0x19, 0x0c,
		0x0c, 0xc8, 0x01, 0x19, 0x26, 0x02, 0x04, 0x00,
		0x00,
	};
	pq_file_meta_data md2;
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA, extra, sizeof extra, &md2, &used, &a, &err),
			 PQ_OK);
	ck_assert_uint_eq(used, sizeof extra);
	ck_assert_uint_eq(md2.schema.n, 1);
	ck_assert_uint_eq(md2.schema.v[0].name.n, 1);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_required_missing)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_error err = {0};
	pq_file_meta_data md;
	size_t used = 99;
	/* No schema: version, then num_rows (delta 2), row_groups. */
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA, ARR(0x15, 0x02, 0x26, 0x00, 0x19, 0x0c, 0x00),
				&md, &used, &a, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "FileMetaData: required field schema (2) missing");
	ck_assert_uint_eq(used, 0);

	/* A row group without num_rows: the message names the path. (created_by
	 * follows, or the list would be too short for one RowGroup at all.) */
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA,
				ARR(0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, 's', 0x00, 0x16, 0x00,
				    0x19, 0x1c, 0x19, 0x0c, 0x16, 0x00, 0x00, 0x28, 0x02, 'x', 'y',
				    0x00),
				&md, &used, &a, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "FileMetaData.row_groups[0]: required field num_rows (3) missing");

	/* num_rows sent as i32: skipped, so it is missing, and the message says why. */
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA,
				ARR(0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, 's', 0x00, 0x15, 0x00,
				    0x19, 0x0c, 0x00),
				&md, &used, &a, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "FileMetaData: required field num_rows (3) has wire type i32, "
				  "expected i64");

	/* An optional field with the wrong wire type is skipped: created_by (6) as i32. */
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA,
				ARR(0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, 's', 0x00, 0x16, 0x00,
				    0x19, 0x0c, 0x25, 0x02, 0x00),
				&md, &used, &a, &err), PQ_OK);
	ck_assert(!md.has_created_by);

	/* A truncated name deep inside: the path and the byte offset. */
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA,
				ARR(0x15, 0x02, 0x19, 0x1c, 0x48, 0x05, 's', 0x00),
				&md, &used, &a, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "FileMetaData.schema[0].name: at byte 5: binary length 5 "
				  "exceeds the 2 bytes left");
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_logical_types)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_error err = {0};
	pq_schema_element se;
	size_t used;
	/* {4: name "c", 10: logicalType {19: {}}}: 19 (VECTOR) is not known
	 * here; its id is kept and its contents skipped. */
	const uint8_t unknown[] = {0x48, 0x01, 'c', 0x6c, 0x0c, 0x26, 0x00, 0x00, 0x00};
	ck_assert_int_eq(decode(PQ_S_SCHEMA_ELEMENT, unknown, sizeof unknown, &se, &used, &a, &err),
			 PQ_OK);
	ck_assert(se.has_logicalType);
	ck_assert_int_eq(se.logicalType.unknown_member, 19);
	ck_assert(!se.logicalType.has_STRING && !se.logicalType.has_TIMESTAMP);
	pq_buf b = PQ_BUF_INIT;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_SCHEMA_ELEMENT, &se, &b, &err), PQ_OK);
	ck_assert_uint_eq(b.len, sizeof unknown);
	ck_assert(memcmp(b.p, unknown, b.len) == 0);
	b.len = 0;
	pq_metadata_json(PQ_S_SCHEMA_ELEMENT, &se, NULL, &b);
	pq_buf_putc(&b, '\0');
	ck_assert_str_eq((const char *)b.p, "{\n  \"name\": \"c\",\n  \"logicalType\": {\n"
					    "    \"unknown_member\": 19\n  }\n}\n");

	/* An unknown member with contents: {20: {1: i32 5}}. */
	ck_assert_int_eq(decode(PQ_S_SCHEMA_ELEMENT,
				ARR(0x48, 0x01, 'c', 0x6c, 0x0c, 0x28, 0x15, 0x0a, 0x00, 0x00, 0x00),
				&se, &used, &a, &err), PQ_OK);
	ck_assert_int_eq(se.logicalType.unknown_member, 20);

	/* TIMESTAMP(isAdjustedToUTC=true, unit=MICROS): {8: {1: true, 2: {2: {}}}} */
	const uint8_t ts[] = {0x48, 0x01, 't', 0x6c, 0x8c, 0x11, 0x1c, 0x2c, 0x00, 0x00, 0x00,
			      0x00, 0x00};
	ck_assert_int_eq(decode(PQ_S_SCHEMA_ELEMENT, ts, sizeof ts, &se, &used, &a, &err), PQ_OK);
	ck_assert(se.logicalType.has_TIMESTAMP);
	ck_assert(se.logicalType.TIMESTAMP.isAdjustedToUTC);
	ck_assert(se.logicalType.TIMESTAMP.unit.has_MICROS);
	ck_assert(!se.logicalType.TIMESTAMP.unit.has_MILLIS);
	ck_assert_int_eq(se.logicalType.unknown_member, 0);
	b.len = 0;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_SCHEMA_ELEMENT, &se, &b, &err), PQ_OK);
	ck_assert_uint_eq(b.len, sizeof ts);
	ck_assert(memcmp(b.p, ts, b.len) == 0);
	b.len = 0;
	pq_metadata_json(PQ_S_SCHEMA_ELEMENT, &se, NULL, &b);
	pq_buf_putc(&b, '\0');
	ck_assert_str_eq((const char *)b.p,
			 "{\n  \"name\": \"t\",\n  \"logicalType\": {\n    \"TIMESTAMP\": {\n"
			 "      \"isAdjustedToUTC\": true,\n      \"unit\": {\n"
			 "        \"MICROS\": {}\n      }\n    }\n  }\n}\n");
	pq_buf_free(&b);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_page_header)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_error err = {0};
	pq_page_header ph;
	size_t used;
	/* PageHeader {1: DATA_PAGE_V2, 2: 10, 3: 10, 8: {1: 1, 2: 0, 3: 1, 4:
	 * PLAIN, 5: 0, 6: 0}} followed by the page body. */
	uint8_t buf[] = {0x15, 0x06, 0x15, 0x14, 0x15, 0x14, 0x5c,
			 0x15, 0x02, 0x15, 0x00, 0x15, 0x02, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00,
			 0x00, 0x00, 'B', 'O', 'D', 'Y'};
	ck_assert_int_eq(decode(PQ_S_PAGE_HEADER, buf, sizeof buf, &ph, &used, &a, &err), PQ_OK);
	ck_assert_uint_eq(used, sizeof buf - 4);
	ck_assert_int_eq(ph.type, PQ_PAGE_DATA_V2);
	ck_assert_int_eq(ph.compressed_page_size, 10);
	ck_assert(ph.has_data_page_header_v2 && !ph.has_data_page_header && !ph.has_crc);
	ck_assert_int_eq(ph.data_page_header_v2.num_rows, 1);
	/* is_compressed: absent means true. */
	ck_assert(!ph.data_page_header_v2.has_is_compressed);
	ck_assert(ph.data_page_header_v2.is_compressed);
	/* ... and 7: false (0x12) says otherwise. */
	uint8_t buf2[] = {0x15, 0x06, 0x15, 0x14, 0x15, 0x14, 0x5c,
			  0x15, 0x02, 0x15, 0x00, 0x15, 0x02, 0x15, 0x00, 0x15, 0x00, 0x15, 0x00,
			  0x12, 0x00, 0x00};
	ck_assert_int_eq(decode(PQ_S_PAGE_HEADER, buf2, sizeof buf2, &ph, &used, &a, &err), PQ_OK);
	ck_assert(ph.data_page_header_v2.has_is_compressed);
	ck_assert(!ph.data_page_header_v2.is_compressed);
	pq_buf b = PQ_BUF_INIT;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_PAGE_HEADER, &ph, &b, &err), PQ_OK);
	ck_assert_uint_eq(b.len, sizeof buf2);
	ck_assert(memcmp(b.p, buf2, b.len) == 0);
	pq_buf_free(&b);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_list_bounds)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_error err = {0};
	pq_file_meta_data md;
	size_t used;
	/* schema claims 2^31-1 elements, a few bytes follow: fails before any
	 * allocation. */
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA,
				ARR(0x15, 0x02, 0x19, 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07, 0x48, 0x01,
				    's', 0x00),
				&md, &used, &a, &err), PQ_ECORRUPT);
	ck_assert_uint_eq(a.used, 0);
	ck_assert_msg(strstr(err.msg, "FileMetaData.schema: at byte 3: list of 2147483647"),
		      "%s", err.msg);
	/* row_groups (4) first: 10 RowGroups need at least 7 bytes each (columns,
	 * total_byte_size, num_rows, stop); 20 bytes cannot hold them. */
	uint8_t rg[22] = {0x49, 0xac};
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA, rg, sizeof rg, &md, &used, &a, &err),
			 PQ_ECORRUPT);
	ck_assert_uint_eq(a.used, 0);
	ck_assert_str_eq(err.msg, "FileMetaData.row_groups: list of 10 elements of at least 7 "
				  "bytes cannot fit in the 20 bytes left");
	pq_arena_free(&a);

	/* The arena's limit is a clean error. */
	pq_arena_init(&a, 64);
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA, minimal_fmd, sizeof minimal_fmd, &md, &used,
				&a, &err), PQ_ELIMIT);
	ck_assert_msg(strstr(err.msg, "FileMetaData.schema: 1 elements would pass the metadata "
				      "memory limit of 64 bytes"), "%s", err.msg);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_encode_errors)
{
	pq_error err = {0};
	pq_buf b = PQ_BUF_INIT;
	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	md.schema.n = 2;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &b, &err), PQ_EINVAL);
	ck_assert_str_eq(err.msg, "encoding FileMetaData.schema: list with elements but no array");
	md.schema.n = 0;
	md.has_created_by = true;
	md.created_by.n = 3;
	b.len = 0;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &b, &err), PQ_EINVAL);
	ck_assert_int_eq(pq_thrift_encode(PQ_S_KIND_COUNT, &md, &b, &err), PQ_EINVAL);
	pq_buf_free(&b);
}
END_TEST

static char *json_of(pq_struct_kind kind, const void *in, const pq_json_hooks *hooks)
{
	pq_buf b = PQ_BUF_INIT;
	pq_metadata_json(kind, in, hooks, &b);
	pq_buf_putc(&b, '\0');
	ck_assert(!b.oom);
	return (char *)pq_buf_take(&b, NULL);
}

#define BYTESOF(s) ((pq_bytes){(const uint8_t *)(s), sizeof(s) - 1})

START_TEST(test_json_layout_and_strings)
{
	pq_schema_element se[2];
	memset(se, 0, sizeof se);
	se[0].name = BYTESOF("root");
	se[0].has_num_children = true;
	se[0].num_children = 1;
	se[1].name = BYTESOF("a\"b\\c\n\x01\xff\xe2\x82\xac");
	se[1].has_type = true;
	se[1].type = 42; /* not a known Type: a number */
	se[1].has_repetition_type = true;
	se[1].repetition_type = PQ_REPEATED;
	pq_key_value kv[3] = {
		{.key = BYTESOF("k"), .has_value = true, .value = BYTESOF("v")},
		{.key = BYTESOF("empty")},
		{.key = BYTESOF("tab\tok"), .has_value = true, .value = BYTESOF("")},
	};
	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	md.version = 2;
	md.schema.n = 2;
	md.schema.v = se;
	md.num_rows = -5;
	md.has_key_value_metadata = true;
	md.key_value_metadata.n = 3;
	md.key_value_metadata.v = kv;
	md.has_created_by = true;
	md.created_by = BYTESOF("me");
	md.has_footer_signing_key_metadata = true;
	md.footer_signing_key_metadata = BYTESOF("\x00\x41\x7f");
	md.has_encryption_algorithm = true;
	md.encryption_algorithm.has_AES_GCM_CTR_V1 = true;
	md.encryption_algorithm.AES_GCM_CTR_V1.has_aad_prefix = true;
	md.encryption_algorithm.AES_GCM_CTR_V1.aad_prefix = BYTESOF("a\tb");
	char *j = json_of(PQ_S_FILE_META_DATA, &md, NULL);
	const char *want =
	    "{\n"
	    "  \"version\": 2,\n"
	    "  \"schema\": [\n"
	    "    {\n"
	    "      \"name\": \"root\",\n"
	    "      \"num_children\": 1\n"
	    "    },\n"
	    "    {\n"
	    "      \"type\": 42,\n"
	    "      \"repetition_type\": \"REPEATED\",\n"
	    "      \"name\": \"a\\\"b\\\\c\\n\\u0001\xef\xbf\xbd\xe2\x82\xac\"\n"
	    "    }\n"
	    "  ],\n"
	    "  \"num_rows\": -5,\n"
	    "  \"row_groups\": [],\n"
	    "  \"key_value_metadata\": [\n"
	    "    {\n"
	    "      \"key\": \"k\",\n"
	    "      \"value\": \"v\"\n"
	    "    },\n"
	    "    {\n"
	    "      \"key\": \"empty\"\n"
	    "    },\n"
	    "    {\n"
	    "      \"key\": \"tab\\tok\",\n"
	    "      \"value\": \"\"\n"
	    "    }\n"
	    "  ],\n"
	    "  \"created_by\": \"me\",\n"
	    "  \"encryption_algorithm\": {\n"
	    "    \"AES_GCM_CTR_V1\": {\n"
	    "      \"aad_prefix\": \"a\\tb\"\n"
	    "    }\n"
	    "  },\n"
	    "  \"footer_signing_key_metadata\": \"0x00417f\"\n"
	    "}\n";
	ck_assert_str_eq(j, want);
	free(j);
}
END_TEST

START_TEST(test_json_scalars)
{
	pq_column_meta_data cm;
	memset(&cm, 0, sizeof cm);
	int32_t enc[] = {PQ_ENC_PLAIN, PQ_ENC_RLE_DICTIONARY, 77};
	pq_bytes path[] = {BYTESOF("a"), BYTESOF("b.c")};
	cm.type = PQ_FIXED_LEN_BYTE_ARRAY;
	cm.encodings.n = 3;
	cm.encodings.v = enc;
	cm.path_in_schema.n = 2;
	cm.path_in_schema.v = path;
	cm.codec = PQ_CODEC_LZ4_RAW;
	cm.num_values = INT64_MIN;
	cm.total_uncompressed_size = INT64_MAX;
	cm.has_geospatial_statistics = true;
	cm.geospatial_statistics.has_bbox = true;
	cm.geospatial_statistics.bbox.xmin = 0.1;
	cm.geospatial_statistics.bbox.xmax = 1e300;
	cm.geospatial_statistics.bbox.ymin = -0.0;
	cm.geospatial_statistics.bbox.ymax = NAN;
	cm.geospatial_statistics.bbox.has_zmin = true;
	cm.geospatial_statistics.bbox.zmin = -INFINITY;
	cm.has_size_statistics = true;
	cm.size_statistics.has_definition_level_histogram = true; /* empty list */
	char *j = json_of(PQ_S_COLUMN_META_DATA, &cm, NULL);
	const char *want =
	    "{\n"
	    "  \"type\": \"FIXED_LEN_BYTE_ARRAY\",\n"
	    "  \"encodings\": [\"PLAIN\", \"RLE_DICTIONARY\", 77],\n"
	    "  \"path_in_schema\": [\"a\", \"b.c\"],\n"
	    "  \"codec\": \"LZ4_RAW\",\n"
	    "  \"num_values\": -9223372036854775808,\n"
	    "  \"total_uncompressed_size\": 9223372036854775807,\n"
	    "  \"total_compressed_size\": 0,\n"
	    "  \"data_page_offset\": 0,\n"
	    "  \"size_statistics\": {\n"
	    "    \"definition_level_histogram\": []\n"
	    "  },\n"
	    "  \"geospatial_statistics\": {\n"
	    "    \"bbox\": {\n"
	    "      \"xmin\": 0.1,\n"
	    "      \"xmax\": 1e+300,\n"
	    "      \"ymin\": -0,\n"
	    "      \"ymax\": \"NaN\",\n"
	    "      \"zmin\": \"-Infinity\"\n"
	    "    }\n"
	    "  }\n"
	    "}\n";
	ck_assert_str_eq(j, want);
	free(j);
}
END_TEST

/* A hook that names what it was asked about. */
typedef struct hook_log {
	int calls;
	const pq_file_meta_data *md;
} hook_log;

static bool test_hook(void *ctx, const pq_json_binary_info *info, pq_bytes value, pq_buf *out)
{
	hook_log *log = ctx;
	if (info->role == PQ_JB_OTHER)
		return false;
	log->calls++;
	if (log->md) {
		const pq_column_chunk *cc =
		    &log->md->row_groups.v[info->row_group].columns.v[info->column];
		ck_assert_ptr_eq(info->column_meta, &cc->meta_data);
		ck_assert_ptr_eq(info->parent, &cc->meta_data.statistics);
	}
	pq_buf_printf(out, "\"%s.%s rg=%lld col=%lld idx=%lld role=%d n=%zu\"", info->struct_name,
		      info->field_name, (long long)info->row_group, (long long)info->column,
		      (long long)info->index, (int)info->role, value.n);
	return true;
}

START_TEST(test_json_hooks)
{
	pq_column_chunk cols[2][2];
	pq_row_group rgs[2];
	memset(cols, 0, sizeof cols);
	memset(rgs, 0, sizeof rgs);
	for (int i = 0; i < 2; i++) {
		rgs[i].columns.n = 2;
		rgs[i].columns.v = cols[i];
		for (int c = 0; c < 2; c++) {
			cols[i][c].has_meta_data = true;
			cols[i][c].meta_data.has_statistics = true;
			cols[i][c].meta_data.statistics.has_min_value = true;
			cols[i][c].meta_data.statistics.min_value = BYTESOF("\x01\x02");
			cols[i][c].has_encrypted_column_metadata = c == 1;
			cols[i][c].encrypted_column_metadata = BYTESOF("\x01");
		}
	}
	cols[1][1].meta_data.statistics.has_max = true;
	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	md.row_groups.n = 2;
	md.row_groups.v = rgs;
	hook_log log = {0, &md};
	pq_json_hooks hooks = {&log, test_hook};
	char *j = json_of(PQ_S_FILE_META_DATA, &md, &hooks);
	ck_assert_int_eq(log.calls, 5);
	ck_assert_msg(strstr(j, "\"min_value\": \"Statistics.min_value rg=1 col=0 idx=-1 role=4 "
				"n=2\""), "%s", j);
	ck_assert_msg(strstr(j, "\"max\": \"Statistics.max rg=1 col=1 idx=-1 role=1 n=0\""), "%s", j);
	/* Not a statistic: the default rendering. */
	ck_assert_msg(strstr(j, "\"encrypted_column_metadata\": \"0x01\""), "%s", j);
	free(j);

	/* ColumnIndex bounds: one call per element, with its index. */
	bool nulls[2] = {false, true};
	pq_bytes mins[2] = {BYTESOF("abc"), BYTESOF("")};
	pq_column_index ci;
	memset(&ci, 0, sizeof ci);
	ci.null_pages.n = 2;
	ci.null_pages.v = nulls;
	ci.min_values.n = 2;
	ci.min_values.v = mins;
	ci.boundary_order = PQ_DESCENDING;
	log.calls = 0;
	log.md = NULL;
	j = json_of(PQ_S_COLUMN_INDEX, &ci, &hooks);
	ck_assert_int_eq(log.calls, 2);
	ck_assert_msg(strstr(j, "\"null_pages\": [false, true],\n"
				"  \"min_values\": [\"ColumnIndex.min_values rg=-1 col=-1 idx=0 "
				"role=5 n=3\", \"ColumnIndex.min_values rg=-1 col=-1 idx=1 role=5 "
				"n=0\"],\n  \"max_values\": [],\n  \"boundary_order\": \"DESCENDING\""),
		      "%s", j);
	free(j);
	/* Without hooks: the binary rule. */
	j = json_of(PQ_S_COLUMN_INDEX, &ci, NULL);
	ck_assert_msg(strstr(j, "\"min_values\": [\"abc\", \"\"]"), "%s", j);
	free(j);
}
END_TEST

/* The newest fields of parquet.thrift: Statistics.nan_count (9),
 * ColumnIndex.nan_counts (8), ColumnOrder IEEE_754_TOTAL_ORDER (2) and
 * INT96_TIMESTAMP_ORDER (3). */
START_TEST(test_newest_fields)
{
	pq_arena a;
	pq_arena_init(&a, 0);
	pq_error err = {0};
	size_t used;
	/* Statistics {3: null_count 1, 9: nan_count 2}: i64 is compact type 6,
	 * zigzag varints. */
	static const uint8_t st_bytes[] = {0x36, 0x02, 0x66, 0x04, 0x00};
	pq_statistics st;
	ck_assert_int_eq(decode(PQ_S_STATISTICS, st_bytes, sizeof st_bytes, &st, &used, &a, &err),
			 PQ_OK);
	ck_assert(st.has_null_count && st.null_count == 1);
	ck_assert(st.has_nan_count && st.nan_count == 2);
	pq_buf b = PQ_BUF_INIT;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_STATISTICS, &st, &b, &err), PQ_OK);
	ck_assert(b.len == sizeof st_bytes && memcmp(b.p, st_bytes, b.len) == 0);
	char *j = json_of(PQ_S_STATISTICS, &st, NULL);
	ck_assert_msg(strstr(j, "\"nan_count\": 2"), "%s", j);
	free(j);

	/* ColumnIndex nan_counts: encoded, decoded, shown. */
	bool nulls[1] = {false};
	pq_bytes mm[1] = {BYTESOF("\x01\x00\x00\x00")};
	int64_t nans[1] = {5};
	pq_column_index ci;
	memset(&ci, 0, sizeof ci);
	ci.null_pages.n = ci.min_values.n = ci.max_values.n = 1;
	ci.null_pages.v = nulls;
	ci.min_values.v = ci.max_values.v = mm;
	ci.has_nan_counts = true;
	ci.nan_counts.n = 1;
	ci.nan_counts.v = nans;
	b.len = 0;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_COLUMN_INDEX, &ci, &b, &err), PQ_OK);
	/* the last field: header 0x89 (id 8 after 4: delta 4, list), 1 x i64, 10 */
	ck_assert(b.len > 4 && memcmp(b.p + b.len - 4, "\x49\x16\x0a\x00", 4) == 0);
	pq_column_index back;
	ck_assert_int_eq(decode(PQ_S_COLUMN_INDEX, b.p, b.len, &back, &used, &a, &err), PQ_OK);
	ck_assert(back.has_nan_counts && back.nan_counts.n == 1 && back.nan_counts.v[0] == 5);
	j = json_of(PQ_S_COLUMN_INDEX, &back, NULL);
	ck_assert_msg(strstr(j, "\"nan_counts\": [5]"), "%s", j);
	free(j);

	/* ColumnOrder union members 2 and 3 in FileMetaData.column_orders. */
	pq_column_order orders[3];
	memset(orders, 0, sizeof orders);
	orders[0].has_TYPE_ORDER = true;
	orders[1].has_IEEE_754_TOTAL_ORDER = true;
	orders[2].has_INT96_TIMESTAMP_ORDER = true;
	pq_file_meta_data md;
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA, minimal_fmd, sizeof minimal_fmd, &md, &used, &a,
				&err), PQ_OK);
	md.has_column_orders = true;
	md.column_orders.n = 3;
	md.column_orders.v = orders;
	b.len = 0;
	ck_assert_int_eq(pq_thrift_encode(PQ_S_FILE_META_DATA, &md, &b, &err), PQ_OK);
	pq_file_meta_data md2;
	ck_assert_int_eq(decode(PQ_S_FILE_META_DATA, b.p, b.len, &md2, &used, &a, &err), PQ_OK);
	ck_assert_uint_eq(md2.column_orders.n, 3);
	ck_assert(md2.column_orders.v[0].has_TYPE_ORDER);
	ck_assert(md2.column_orders.v[1].has_IEEE_754_TOTAL_ORDER &&
		  !md2.column_orders.v[1].has_TYPE_ORDER);
	ck_assert(md2.column_orders.v[2].has_INT96_TIMESTAMP_ORDER);
	j = json_of(PQ_S_FILE_META_DATA, &md2, NULL);
	ck_assert_msg(strstr(j, "IEEE_754_TOTAL_ORDER") && strstr(j, "INT96_TIMESTAMP_ORDER"), "%s", j);
	free(j);
	pq_buf_free(&b);
	pq_arena_free(&a);
}
END_TEST

START_TEST(test_enum_names)
{
	ck_assert_str_eq(pq_type_name(PQ_FIXED_LEN_BYTE_ARRAY), "FIXED_LEN_BYTE_ARRAY");
	ck_assert_ptr_null(pq_type_name(8));
	ck_assert_ptr_null(pq_type_name(-1));
	ck_assert_str_eq(pq_encoding_name(PQ_ENC_BYTE_STREAM_SPLIT), "BYTE_STREAM_SPLIT");
	ck_assert_str_eq(pq_encoding_name(PQ_ENC_PLAIN_DICTIONARY), "PLAIN_DICTIONARY");
	ck_assert_ptr_null(pq_encoding_name(10));
	ck_assert_str_eq(pq_page_type_name(PQ_PAGE_DATA_V2), "DATA_PAGE_V2");
	ck_assert_str_eq(pq_converted_type_name(PQ_CT_INTERVAL), "INTERVAL");
	ck_assert_str_eq(pq_converted_type_name(PQ_CT_UINT_8), "UINT_8");
	ck_assert_ptr_null(pq_converted_type_name(22));
	ck_assert_str_eq(pq_repetition_name(PQ_REPEATED), "REPEATED");
	ck_assert_str_eq(pq_boundary_order_name(PQ_DESCENDING), "DESCENDING");
	ck_assert_str_eq(pq_codec_enum_name(PQ_CODEC_LZ4_RAW), "LZ4_RAW");
	ck_assert_str_eq(pq_codec_enum_name(PQ_CODEC_BROTLI), "BROTLI");
	ck_assert_str_eq(pq_edge_algorithm_name(4), "KARNEY");
	ck_assert_str_eq(pq_struct_kind_name(PQ_S_BLOOM_FILTER_HEADER), "BloomFilterHeader");
}
END_TEST

START_TEST(test_json_string_escapes)
{
	pq_buf b = PQ_BUF_INIT;
	/* Truncated and overlong sequences, a surrogate, U+10FFFF, DEL. */
	const uint8_t s[] = {'x', 0xe2, 0x82, 'y', 0xc0, 0xaf, 0xed, 0xa0, 0x80,
			     0xf4, 0x8f, 0xbf, 0xbf, 0x7f, 0x1f, 0xe2, 0x82};
	pq_render_json_string(s, sizeof s, &b);
	pq_buf_putc(&b, '\0');
	ck_assert_str_eq((const char *)b.p,
			 "\"x\xef\xbf\xbdy\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			 "\xf4\x8f\xbf\xbf\x7f\\u001f\xef\xbf\xbd\"");
	ck_assert(pq_utf8_first_invalid((const uint8_t *)"\xf4\x8f\xbf\xbf", 4) == 4);
	ck_assert(pq_utf8_first_invalid((const uint8_t *)"\xf4\x90\x80\x80", 4) != 4);
	ck_assert(pq_utf8_first_invalid((const uint8_t *)"\xe0\x80\x80", 3) != 3);
	pq_buf_free(&b);
}
END_TEST

/* ---- Footer location --------------------------------------------------- */

static void tail_of(uint8_t tail[8], uint32_t len, const char *magic)
{
	tail[0] = (uint8_t)len;
	tail[1] = (uint8_t)(len >> 8);
	tail[2] = (uint8_t)(len >> 16);
	tail[3] = (uint8_t)(len >> 24);
	memcpy(tail + 4, magic, 4);
}

START_TEST(test_footer_locate)
{
	pq_error err = {0};
	pq_footer_loc loc;
	uint8_t tail[8];
	const uint8_t *par1 = (const uint8_t *)"PAR1", *pare = (const uint8_t *)"PARE";

	tail_of(tail, 100, "PAR1");
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_OK);
	ck_assert_uint_eq(loc.offset, 892);
	ck_assert_uint_eq(loc.length, 100);
	ck_assert(!loc.encrypted);

	tail_of(tail, 988, "PAR1"); /* everything between the magics */
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_OK);
	ck_assert_uint_eq(loc.offset, 4);

	tail_of(tail, 100, "PARE");
	ck_assert_int_eq(pq_footer_locate(pare, tail, 1000, &loc, &err), PQ_OK);
	ck_assert(loc.encrypted);
	pq_file_meta_data md;
	pq_arena a;
	pq_arena_init(&a, 0);
	uint8_t footer[100] = {0};
	ck_assert_int_eq(pq_footer_decode(&loc, footer, 100, &md, NULL, &a, &err), PQ_EUNSUPPORTED);
	ck_assert_msg(strstr(err.msg, "encrypted footer"), "%s", err.msg);

	tail_of(tail, 100, "abcd");
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "the file is truncated or still being written: it starts with "
				  "PAR1 but ends with 'abcd', not the footer's PAR1");
	tail_of(tail, 100, "\x00\x01'Z");
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "the file is truncated or still being written: it starts with "
				  "PAR1 but ends with '\\x00\\x01\\x27Z', not the footer's PAR1");
	/* not starting with a magic either: not a Parquet file at all */
	tail_of(tail, 100, "abcd");
	ck_assert_int_eq(pq_footer_locate((const uint8_t *)"PK\x03\x04", tail, 1000, &loc, &err),
			 PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "not a Parquet file: magic at end is 'abcd', expected PAR1");

	tail_of(tail, 100, "PAR1");
	ck_assert_int_eq(pq_footer_locate(pare, tail, 1000, &loc, &err), PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, "not a Parquet file: magic at start is 'PARE', expected PAR1 "
				  "like the end");

	tail_of(tail, 0, "PAR1");
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "footer length is 0"), "%s", err.msg);

	tail_of(tail, 123456, "PAR1");
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_ECORRUPT);
	ck_assert_msg(strncmp(err.msg, "footer length 123456 exceeds file size 1000", 43) == 0,
		      "%s", err.msg);
	tail_of(tail, 989, "PAR1");
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_ECORRUPT);

	ck_assert_int_eq(pq_footer_locate(par1, tail, 11, &loc, &err), PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "11 bytes is too short"), "%s", err.msg);

	tail_of(tail, PQ_FOOTER_MAX_LEN + 1, "PAR1");
	ck_assert_int_eq(pq_footer_locate(par1, tail, (uint64_t)1 << 40, &loc, &err), PQ_ELIMIT);

	/* Decoding a plaintext footer, with trailing bytes (a signature). */
	uint8_t withsig[sizeof minimal_fmd + 28];
	memcpy(withsig, minimal_fmd, sizeof minimal_fmd);
	memset(withsig + sizeof minimal_fmd, 0xee, 28);
	tail_of(tail, sizeof withsig, "PAR1");
	ck_assert_int_eq(pq_footer_locate(par1, tail, 1000, &loc, &err), PQ_OK);
	size_t used;
	ck_assert_int_eq(pq_footer_decode(&loc, withsig, sizeof withsig, &md, &used, &a, &err),
			 PQ_OK);
	ck_assert_uint_eq(used, sizeof minimal_fmd);
	ck_assert_int_eq(pq_footer_decode(&loc, withsig, 10, &md, &used, &a, &err), PQ_EINVAL);
	/* A bad footer says where it is. */
	withsig[0] = 0x1e;
	ck_assert_int_eq(pq_footer_decode(&loc, withsig, sizeof withsig, &md, &used, &a, &err),
			 PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "footer at offset 951 (41 bytes): FileMetaData: at byte 0: "
				      "invalid field type 14"), "%s", err.msg);
	pq_arena_free(&a);
}
END_TEST

static Suite *metadata_suite(void)
{
	Suite *s = suite_create("metadata");
	TCase *tc = tcase_create("codec");
	tcase_add_test(tc, test_decode_minimal);
	tcase_add_test(tc, test_required_missing);
	tcase_add_test(tc, test_logical_types);
	tcase_add_test(tc, test_page_header);
	tcase_add_test(tc, test_newest_fields);
	tcase_add_test(tc, test_list_bounds);
	tcase_add_test(tc, test_encode_errors);
	tcase_add_test(tc, test_json_layout_and_strings);
	tcase_add_test(tc, test_json_scalars);
	tcase_add_test(tc, test_json_hooks);
	tcase_add_test(tc, test_enum_names);
	tcase_add_test(tc, test_json_string_escapes);
	tcase_add_test(tc, test_footer_locate);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(metadata_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
