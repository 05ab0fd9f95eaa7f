/* Thrift compact protocol reader and writer (core/format/thrift.c).
 * Expected bytes are worked out by hand from thrift-compact-protocol.md:
 * field header = delta << 4 | type (long form: type, zigzag varint id),
 * zigzag(n) = (n << 1) ^ (n >> 63), varints little-endian base 128. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "format/pq_thrift.h"

#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})

/* A struct with one field of every wire type, ids 1..12 (short form). */
static const uint8_t every_type[] = {
	0x11,                                     /* 1: bool true */
	0x12,                                     /* 2: bool false */
	0x13, 0xfb,                               /* 3: i8 -5 */
	0x14, 0xd7, 0x04,                         /* 4: i16 -300, zigzag 599 */
	0x15, 0x80, 0x89, 0x0f,                   /* 5: i32 123456, zigzag 246912 */
	0x16, 0x01,                               /* 6: i64 -1 */
	0x17, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f,       /* 7: double 1.5 */
	0x18, 0x02, 'h', 'i',                     /* 8: binary "hi" */
	0x19, 0x25, 0x02, 0x01,                   /* 9: list<i32> [1, -1] */
	0x1a, 0x18, 0x01, 'a',                    /* 10: set<binary> {"a"} */
	0x1b, 0x01, 0x86, 0x01, 'k', 0x0e,        /* 11: map<binary,i64> {"k": 7} */
	0x1c, 0x15, 0x0e, 0x00,                   /* 12: struct {1: i32 7} */
	0x00,                                     /* stop */
};

START_TEST(test_every_wire_type)
{
	pq_error err = {0};
	pq_thrift_reader r;
	pq_tr_init(&r, every_type, sizeof every_type, &err);
	ck_assert(pq_tr_struct_begin(&r));
	int16_t last = 0;
	pq_thrift_field f;
	int seen = 0;
	while (pq_tr_field(&r, &last, &f)) {
		seen++;
		ck_assert_int_eq(f.id, seen);
		switch (f.id) {
		case 1: ck_assert_int_eq(f.type, PQ_TT_TRUE); ck_assert(f.bool_value); break;
		case 2: ck_assert_int_eq(f.type, PQ_TT_FALSE); ck_assert(!f.bool_value); break;
		case 3: ck_assert_int_eq(pq_tr_i8(&r), -5); break;
		case 4: ck_assert_int_eq(pq_tr_i16(&r), -300); break;
		case 5: ck_assert_int_eq(pq_tr_i32(&r), 123456); break;
		case 6: ck_assert_int_eq(pq_tr_i64(&r), -1); break;
		case 7: ck_assert(pq_tr_double(&r) == 1.5); break;
		case 8: {
			pq_bytes b = pq_tr_binary(&r);
			ck_assert_uint_eq(b.n, 2);
			ck_assert(memcmp(b.p, "hi", 2) == 0);
			ck_assert(b.p == every_type + 24); /* zero-copy */
			break;
		}
		case 9:
		case 10: {
			uint8_t et;
			uint32_t n;
			ck_assert_int_eq(f.type, f.id == 9 ? PQ_TT_LIST : PQ_TT_SET);
			ck_assert(pq_tr_list_begin(&r, &et, &n));
			if (f.id == 9) {
				ck_assert_int_eq(et, PQ_TT_I32);
				ck_assert_uint_eq(n, 2);
				ck_assert_int_eq(pq_tr_i32(&r), 1);
				ck_assert_int_eq(pq_tr_i32(&r), -1);
			} else {
				ck_assert_int_eq(et, PQ_TT_BINARY);
				ck_assert_uint_eq(n, 1);
				ck_assert_uint_eq(pq_tr_binary(&r).n, 1);
			}
			pq_tr_container_end(&r);
			break;
		}
		case 11: {
			uint8_t kt, vt;
			uint32_t n;
			ck_assert(pq_tr_map_begin(&r, &kt, &vt, &n));
			ck_assert_int_eq(kt, PQ_TT_BINARY);
			ck_assert_int_eq(vt, PQ_TT_I64);
			ck_assert_uint_eq(n, 1);
			ck_assert_uint_eq(pq_tr_binary(&r).n, 1);
			ck_assert_int_eq(pq_tr_i64(&r), 7);
			pq_tr_container_end(&r);
			break;
		}
		case 12: {
			ck_assert_int_eq(f.type, PQ_TT_STRUCT);
			ck_assert(pq_tr_struct_begin(&r));
			int16_t l2 = 0;
			pq_thrift_field g;
			ck_assert(pq_tr_field(&r, &l2, &g));
			ck_assert_int_eq(g.id, 1);
			ck_assert_int_eq(pq_tr_i32(&r), 7);
			ck_assert(!pq_tr_field(&r, &l2, &g));
			pq_tr_struct_end(&r);
			break;
		}
		}
	}
	pq_tr_struct_end(&r);
	ck_assert_int_eq(r.status, PQ_OK);
	ck_assert_int_eq(seen, 12);
	ck_assert_uint_eq(pq_tr_offset(&r), sizeof every_type);
	ck_assert_int_eq(r.depth, 0);

	/* Skipping the whole struct consumes exactly the same bytes. */
	pq_tr_init(&r, every_type, sizeof every_type, &err);
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_OK);
	ck_assert_uint_eq(pq_tr_offset(&r), sizeof every_type);
}
END_TEST

START_TEST(test_writer_every_wire_type)
{
	pq_buf b = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_tw_init(&w, &b);
	pq_tw_struct_begin(&w);
	pq_tw_field_bool(&w, 1, true);
	pq_tw_field_bool(&w, 2, false);
	pq_tw_field_i8(&w, 3, -5);
	pq_tw_field_i16(&w, 4, -300);
	pq_tw_field_i32(&w, 5, 123456);
	pq_tw_field_i64(&w, 6, -1);
	pq_tw_field_double(&w, 7, 1.5);
	pq_tw_field_binary(&w, 8, "hi", 2);
	pq_tw_field(&w, 9, PQ_TT_LIST);
	pq_tw_list_begin(&w, PQ_TT_I32, 2);
	pq_tw_i32(&w, 1);
	pq_tw_i32(&w, -1);
	pq_tw_field(&w, 10, PQ_TT_SET);
	pq_tw_list_begin(&w, PQ_TT_BINARY, 1);
	pq_tw_binary(&w, "a", 1);
	pq_tw_field(&w, 11, PQ_TT_MAP);
	pq_tw_map_begin(&w, PQ_TT_BINARY, PQ_TT_I64, 1);
	pq_tw_binary(&w, "k", 1);
	pq_tw_i64(&w, 7);
	pq_tw_field(&w, 12, PQ_TT_STRUCT);
	pq_tw_struct_begin(&w);
	pq_tw_field_i32(&w, 1, 7);
	pq_tw_struct_end(&w);
	pq_tw_struct_end(&w);
	ck_assert_int_eq(pq_tw_finish(&w, NULL), PQ_OK);
	ck_assert_uint_eq(b.len, sizeof every_type);
	ck_assert(memcmp(b.p, every_type, b.len) == 0);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_long_form_field_ids)
{
	/* id 300 (zigzag 600 = d8 04), then id 20 (delta 0 -> long form,
	 * zigzag 40 = 0x28), then delta 1 from 20 -> 21. */
	const uint8_t in[] = {0x05, 0xd8, 0x04, 0x0a, 0x05, 0x28, 0x02, 0x15, 0x04, 0x00};
	pq_thrift_reader r;
	pq_tr_init(&r, in, sizeof in, NULL);
	ck_assert(pq_tr_struct_begin(&r));
	int16_t last = 0;
	pq_thrift_field f;
	ck_assert(pq_tr_field(&r, &last, &f));
	ck_assert_int_eq(f.id, 300);
	ck_assert_int_eq(pq_tr_i32(&r), 5);
	ck_assert(pq_tr_field(&r, &last, &f));
	ck_assert_int_eq(f.id, 20);
	ck_assert_int_eq(pq_tr_i32(&r), 1);
	ck_assert(pq_tr_field(&r, &last, &f));
	ck_assert_int_eq(f.id, 21);
	ck_assert_int_eq(pq_tr_i32(&r), 2);
	ck_assert(!pq_tr_field(&r, &last, &f));
	pq_tr_struct_end(&r);
	ck_assert_int_eq(r.status, PQ_OK);

	/* The writer picks the long form for ids 300 and 20 (delta <= 0). */
	pq_buf b = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_tw_init(&w, &b);
	pq_tw_struct_begin(&w);
	pq_tw_field_i32(&w, 300, 5);
	pq_tw_field_i32(&w, 20, 1);
	pq_tw_field_i32(&w, 21, 2);
	pq_tw_struct_end(&w);
	ck_assert_int_eq(pq_tw_finish(&w, NULL), PQ_OK);
	ck_assert_uint_eq(b.len, sizeof in);
	ck_assert(memcmp(b.p, in, sizeof in) == 0);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_negative_delta_and_delta_16)
{
	/* Field 5, then 2 (going down: long form, zigzag 4), then 18 (delta 16:
	 * long form, zigzag 36 = 0x24). Negative ids arrive too (-1: zigzag 1). */
	const uint8_t in[] = {0x55, 0x02, 0x05, 0x04, 0x04, 0x05, 0x24, 0x06, 0x05, 0x01, 0x08, 0x00};
	pq_thrift_reader r;
	pq_tr_init(&r, in, sizeof in, NULL);
	ck_assert(pq_tr_struct_begin(&r));
	int16_t last = 0;
	pq_thrift_field f;
	const int16_t ids[] = {5, 2, 18, -1};
	const int32_t vals[] = {1, 2, 3, 4};
	for (int i = 0; i < 4; i++) {
		ck_assert(pq_tr_field(&r, &last, &f));
		ck_assert_int_eq(f.id, ids[i]);
		ck_assert_int_eq(pq_tr_i32(&r), vals[i]);
	}
	ck_assert(!pq_tr_field(&r, &last, &f));
	pq_tr_struct_end(&r);
	ck_assert_int_eq(r.status, PQ_OK);

	pq_buf b = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_tw_init(&w, &b);
	pq_tw_struct_begin(&w);
	for (int i = 0; i < 4; i++)
		pq_tw_field_i32(&w, ids[i], vals[i]);
	pq_tw_struct_end(&w);
	ck_assert_int_eq(pq_tw_finish(&w, NULL), PQ_OK);
	ck_assert_uint_eq(b.len, sizeof in);
	ck_assert(memcmp(b.p, in, sizeof in) == 0);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_field_id_overflow)
{
	/* Long-form id 32767 (zigzag 65534 = fe ff 03), then delta 1. */
	pq_error err = {0};
	pq_thrift_reader r;
	pq_tr_init(&r, BYTES(0x05, 0xfe, 0xff, 0x03, 0x00, 0x15, 0x00, 0x00), &err);
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "field id 32768 out of range"), "%s", err.msg);
	/* A long-form id beyond i16. */
	pq_tr_init(&r, BYTES(0x05, 0x80, 0x80, 0x04, 0x00, 0x00), &err);
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
}
END_TEST

START_TEST(test_nested_skip)
{
	/* Field 1: struct { 1: list<map<binary, struct{1: list<bool>}>> [ {"x":
	 * {1: [true, false]}} ], 2: double, 3: set<i64> (long-form header) },
	 * then field 2: i32 42. */
	const uint8_t in[] = {
		0x1c,
		0x19, 0x1b,                 /* list of 1 map */
		0x01, 0x8c, 0x01, 'x',      /* map size 1, binary -> struct; key "x" */
		0x19, 0x21, 0x01, 0x02,     /* struct field 1: list<bool> [true, false] */
		0x00,                       /* end of value struct */
		0x17, 1, 2, 3, 4, 5, 6, 7, 8,
		0x1a, 0xf6, 0x10,           /* set<i64> of 16 (long form) */
		2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
		0x00,                       /* end of field 1 */
		0x15, 0x54,                 /* field 2: i32 42 */
		0x00,
	};
	pq_thrift_reader r;
	pq_tr_init(&r, in, sizeof in, NULL);
	ck_assert(pq_tr_struct_begin(&r));
	int16_t last = 0;
	pq_thrift_field f;
	ck_assert(pq_tr_field(&r, &last, &f));
	ck_assert_int_eq(f.id, 1);
	pq_tr_skip(&r, f.type);
	ck_assert(pq_tr_field(&r, &last, &f));
	ck_assert_int_eq(f.id, 2);
	ck_assert_int_eq(pq_tr_i32(&r), 42);
	ck_assert(!pq_tr_field(&r, &last, &f));
	pq_tr_struct_end(&r);
	ck_assert_int_eq(r.status, PQ_OK);
	ck_assert_uint_eq(pq_tr_offset(&r), sizeof in);
	ck_assert_int_eq(r.depth, 0);
}
END_TEST

START_TEST(test_bool_lists)
{
	/* Element type 1 (the common one) and 2 (the original spec); values 1
	 * true, 2 and 0 false. */
	uint8_t et;
	uint32_t n;
	pq_thrift_reader r;
	pq_tr_init(&r, BYTES(0x31, 0x01, 0x02, 0x01, 0x32, 0x00, 0x01, 0x02), NULL);
	ck_assert(pq_tr_list_begin(&r, &et, &n));
	ck_assert_uint_eq(n, 3);
	ck_assert(pq_tr_bool_elem(&r));
	ck_assert(!pq_tr_bool_elem(&r));
	ck_assert(pq_tr_bool_elem(&r));
	pq_tr_container_end(&r);
	ck_assert(pq_tr_list_begin(&r, &et, &n));
	ck_assert_int_eq(et, PQ_TT_FALSE);
	ck_assert(!pq_tr_bool_elem(&r));
	ck_assert(pq_tr_bool_elem(&r));
	ck_assert(!pq_tr_bool_elem(&r));
	pq_tr_container_end(&r);
	ck_assert_int_eq(r.status, PQ_OK);

	pq_buf b = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_tw_init(&w, &b);
	pq_tw_list_begin(&w, PQ_TT_TRUE, 3);
	pq_tw_bool_elem(&w, true);
	pq_tw_bool_elem(&w, false);
	pq_tw_bool_elem(&w, true);
	ck_assert_uint_eq(b.len, 4);
	ck_assert(memcmp(b.p, (const uint8_t[]){0x31, 0x01, 0x02, 0x01}, 4) == 0);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_truncated_at_every_byte)
{
	for (size_t len = 0; len < sizeof every_type; len++) {
		uint8_t *copy = malloc(len ? len : 1); /* ASan sees any overread */
		memcpy(copy, every_type, len);
		pq_error err = {0};
		pq_thrift_reader r;
		pq_tr_init(&r, copy, len, &err);
		pq_tr_skip(&r, PQ_TT_STRUCT);
		ck_assert_msg(r.status == PQ_ECORRUPT, "prefix %zu: status %d", len, r.status);
		ck_assert_msg(strncmp(err.msg, "at byte ", 8) == 0, "%s", err.msg);
		ck_assert_int_eq(pq_tr_i32(&r), 0); /* sticky: later reads are zero */
		free(copy);
	}
}
END_TEST

static void nested(uint8_t *buf, size_t depth, uint8_t header)
{
	memset(buf, header, depth);
	memset(buf + depth, 0, depth + 1);
}

START_TEST(test_depth_limit)
{
	/* The outer struct plus 63 nested struct fields: 64 levels, allowed. */
	uint8_t buf[256];
	pq_error err = {0};
	pq_thrift_reader r;
	nested(buf, 63, 0x1c);
	pq_tr_init(&r, buf, 63 * 2 + 1, &err);
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_OK);
	ck_assert_int_eq(r.depth, 0);
	nested(buf, 64, 0x1c);
	pq_tr_init(&r, buf, 64 * 2 + 1, &err);
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_ELIMIT);
	ck_assert_msg(strstr(err.msg, "nesting deeper than 64"), "%s", err.msg);
	/* Lists of lists: each header 0x19 = one list of lists. */
	memset(buf, 0x19, 100);
	pq_tr_init(&r, buf, 100, &err);
	pq_tr_skip(&r, PQ_TT_LIST);
	ck_assert_int_eq(r.status, PQ_ELIMIT);
	/* A thousand levels cannot overflow the C stack. */
	uint8_t *deep = malloc(2001);
	nested(deep, 1000, 0x1c);
	pq_tr_init(&r, deep, 2001, &err);
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_ELIMIT);
	free(deep);
}
END_TEST

START_TEST(test_huge_counts)
{
	pq_error err = {0};
	pq_thrift_reader r;
	uint8_t et, kt, vt;
	uint32_t n;
	/* list<i32> claiming 2^31-1 elements, 3 bytes follow. */
	pq_tr_init(&r, BYTES(0xf5, 0xff, 0xff, 0xff, 0xff, 0x07, 1, 2, 3), &err);
	ck_assert(!pq_tr_list_begin(&r, &et, &n));
	pq_tr_container_end(&r);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "list of 2147483647 elements cannot fit in the 3 bytes left"),
		      "%s", err.msg);
	/* Beyond the named limit. */
	pq_tr_init(&r, BYTES(0xf5, 0x80, 0x80, 0x80, 0x80, 0x08), &err);
	ck_assert(!pq_tr_list_begin(&r, &et, &n));
	ck_assert_int_eq(r.status, PQ_ELIMIT);
	/* Doubles need 8 bytes each: 2 fit in 16 bytes, not in 15. */
	uint8_t dbl[17] = {0x27};
	pq_tr_init(&r, dbl, sizeof dbl, &err);
	ck_assert(pq_tr_list_begin(&r, &et, &n));
	ck_assert_uint_eq(n, 2);
	pq_tr_init(&r, dbl, 16, &err);
	ck_assert(!pq_tr_list_begin(&r, &et, &n));
	/* Maps: each entry needs key + value bytes. */
	pq_tr_init(&r, BYTES(0x03, 0x55, 1, 1, 1, 1, 1), &err);
	ck_assert(!pq_tr_map_begin(&r, &kt, &vt, &n));
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	pq_tr_init(&r, BYTES(0x03, 0x55, 1, 1, 1, 1, 1, 1), &err);
	ck_assert(pq_tr_map_begin(&r, &kt, &vt, &n));
	ck_assert_uint_eq(n, 3);
	/* An empty map is one byte, no types. */
	pq_tr_init(&r, BYTES(0x00), &err);
	ck_assert(pq_tr_map_begin(&r, &kt, &vt, &n));
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(pq_tr_offset(&r), 1);
	/* Strings longer than the input. */
	pq_tr_init(&r, BYTES(0x90, 0x4e, 'a', 'b'), &err);
	pq_bytes b = pq_tr_binary(&r);
	ck_assert_ptr_null(b.p);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "binary length 10000 exceeds the 2 bytes left"), "%s",
		      err.msg);
}
END_TEST

START_TEST(test_varints)
{
	pq_error err = {0};
	pq_thrift_reader r;
	/* Ten bytes: the largest value. */
	pq_tr_init(&r, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), &err);
	ck_assert(pq_tr_varint(&r) == UINT64_MAX);
	ck_assert_int_eq(r.status, PQ_OK);
	/* zigzag(INT64_MIN) = UINT64_MAX */
	pq_tr_init(&r, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01), &err);
	ck_assert(pq_tr_i64(&r) == INT64_MIN);
	/* The tenth byte may only hold bit 63. */
	pq_tr_init(&r, BYTES(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02), &err);
	(void)pq_tr_varint(&r);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "at byte 9: varint overflows 64 bits"), "%s", err.msg);
	/* Eleven bytes with continuation bits. */
	pq_tr_init(&r, BYTES(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00),
		   &err);
	(void)pq_tr_varint(&r);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "at byte 9: varint longer than 10 bytes"), "%s", err.msg);
	/* Non-minimal but short encodings are fine: 0x80 0x00 is 0. */
	pq_tr_init(&r, BYTES(0x80, 0x00), &err);
	ck_assert(pq_tr_varint(&r) == 0);
	ck_assert_int_eq(r.status, PQ_OK);
	/* i32 range: zigzag 2^32 is 2^31. */
	pq_tr_init(&r, BYTES(0x80, 0x80, 0x80, 0x80, 0x10), &err);
	ck_assert_int_eq(pq_tr_i32(&r), 0);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "i32 value 2147483648 out of range"), "%s", err.msg);
	pq_tr_init(&r, BYTES(0xff, 0xff, 0xff, 0xff, 0x0f), &err); /* INT32_MIN */
	ck_assert_int_eq(pq_tr_i32(&r), INT32_MIN);
	pq_tr_init(&r, BYTES(0x80, 0x80, 0x04), &err); /* 32768 */
	ck_assert_int_eq(pq_tr_i16(&r), 0);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);

	/* Writer: spec-style examples. */
	pq_buf b = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_tw_init(&w, &b);
	pq_tw_i64(&w, INT64_MIN);
	pq_tw_i64(&w, INT64_MAX);
	pq_tw_i32(&w, -64);
	pq_tw_i32(&w, 64);
	const uint8_t want[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
				0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
				0x7f, 0x80, 0x01};
	ck_assert_uint_eq(b.len, sizeof want);
	ck_assert(memcmp(b.p, want, sizeof want) == 0);
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_sticky_error)
{
	pq_error err = {0};
	pq_thrift_reader r;
	pq_tr_init(&r, BYTES(0x15, 0x02, 0x90), &err); /* truncated varint at byte 2 */
	(void)pq_tr_i8(&r);
	(void)pq_tr_i8(&r);
	(void)pq_tr_varint(&r);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	char first[PQ_ERROR_MSG_MAX];
	strcpy(first, err.msg);
	ck_assert_msg(strstr(first, "at byte 3: truncated varint"), "%s", first);
	ck_assert(pq_tr_double(&r) == 0);
	ck_assert_uint_eq(pq_tr_binary(&r).n, 0);
	pq_thrift_field f;
	int16_t last = 0;
	ck_assert(!pq_tr_field(&r, &last, &f));
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_str_eq(err.msg, first);
}
END_TEST

START_TEST(test_invalid_types)
{
	pq_error err = {0};
	pq_thrift_reader r;
	uint8_t et;
	uint32_t n;
	pq_tr_init(&r, BYTES(0x1e, 0x00), &err); /* field type 14 */
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	ck_assert_msg(strstr(err.msg, "invalid field type 14"), "%s", err.msg);
	pq_tr_init(&r, BYTES(0x10, 0x00), &err); /* list of type 0 */
	ck_assert(!pq_tr_list_begin(&r, &et, &n));
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	pq_tr_init(&r, BYTES(0x10), &err); /* a stop byte with a delta */
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_ECORRUPT);
	/* uuid (13) values are 16 bytes and can be skipped. */
	uint8_t uuid[19] = {0x1d};
	pq_tr_init(&r, uuid, sizeof uuid, &err);
	pq_tr_skip(&r, PQ_TT_STRUCT);
	ck_assert_int_eq(r.status, PQ_OK);
	ck_assert_uint_eq(pq_tr_offset(&r), 18);
}
END_TEST

START_TEST(test_doubles)
{
	const double vals[] = {0.0, -0.0, 1e308, -2.5e-310, INFINITY};
	pq_buf b = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_tw_init(&w, &b);
	for (size_t i = 0; i < 5; i++)
		pq_tw_double(&w, vals[i]);
	pq_tw_double(&w, NAN);
	ck_assert_uint_eq(b.len, 48);
	/* -0.0 is 0x8000000000000000, little-endian. */
	ck_assert(memcmp(b.p + 8, (const uint8_t[]){0, 0, 0, 0, 0, 0, 0, 0x80}, 8) == 0);
	pq_thrift_reader r;
	pq_tr_init(&r, b.p, b.len, NULL);
	for (size_t i = 0; i < 5; i++) {
		double d = pq_tr_double(&r);
		ck_assert(memcmp(&d, &vals[i], sizeof d) == 0);
	}
	ck_assert(isnan(pq_tr_double(&r)));
	pq_buf_free(&b);
}
END_TEST

START_TEST(test_writer_errors)
{
	pq_buf b = PQ_BUF_INIT;
	pq_thrift_writer w;
	pq_error err = {0};
	pq_tw_init(&w, &b);
	pq_tw_struct_begin(&w);
	ck_assert_int_eq(pq_tw_finish(&w, &err), PQ_EINVAL);
	pq_tw_init(&w, &b);
	for (int i = 0; i < PQ_THRIFT_MAX_DEPTH + 2; i++)
		pq_tw_struct_begin(&w);
	for (int i = 0; i < PQ_THRIFT_MAX_DEPTH + 2; i++)
		pq_tw_struct_end(&w);
	ck_assert_int_eq(pq_tw_finish(&w, &err), PQ_ELIMIT);
	pq_buf_free(&b);
	/* Lists of 15 and more use the long header: 0xf0 | type, varint size. */
	pq_tw_init(&w, &b);
	pq_tw_list_begin(&w, PQ_TT_I32, 14);
	pq_tw_list_begin(&w, PQ_TT_I32, 15);
	pq_tw_list_begin(&w, PQ_TT_STRUCT, 300);
	ck_assert_uint_eq(b.len, 6);
	ck_assert(memcmp(b.p, (const uint8_t[]){0xe5, 0xf5, 0x0f, 0xfc, 0xac, 0x02}, 6) == 0);
	pq_buf_free(&b);
}
END_TEST

static Suite *thrift_suite(void)
{
	Suite *s = suite_create("thrift");
	TCase *tc = tcase_create("compact");
	tcase_add_test(tc, test_every_wire_type);
	tcase_add_test(tc, test_writer_every_wire_type);
	tcase_add_test(tc, test_long_form_field_ids);
	tcase_add_test(tc, test_negative_delta_and_delta_16);
	tcase_add_test(tc, test_field_id_overflow);
	tcase_add_test(tc, test_nested_skip);
	tcase_add_test(tc, test_bool_lists);
	tcase_add_test(tc, test_truncated_at_every_byte);
	tcase_add_test(tc, test_depth_limit);
	tcase_add_test(tc, test_huge_counts);
	tcase_add_test(tc, test_varints);
	tcase_add_test(tc, test_sticky_error);
	tcase_add_test(tc, test_invalid_types);
	tcase_add_test(tc, test_doubles);
	tcase_add_test(tc, test_writer_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(thrift_suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
