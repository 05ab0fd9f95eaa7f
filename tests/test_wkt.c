/* WKB -> WKT (core/render/render_wkt.c) against interface.md "Geometry as
 * WKT": every type 1-7 in XY, Z, M and ZM, both byte orders, empties,
 * and invalid input (EWKB flags, other codes, members of the wrong type or
 * dimensions, left-over bytes, truncation at every length, deep nesting).
 * WKB is built here byte by byte from the ISO layout (byte order, uint32
 * type code, uint32 counts, IEEE doubles); the expected WKT follows the
 * contract's own examples. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pq_render.h"

/* ---- a WKB writer ---------------------------------------------------- */

typedef struct wb {
	uint8_t b[4096];
	size_t n;
	bool le;
} wb;

static void u32(wb *w, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w->b[w->n++] = (uint8_t)(w->le ? v >> (8 * i) : v >> (8 * (3 - i)));
}

static void f64(wb *w, double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	for (int i = 0; i < 8; i++)
		w->b[w->n++] = (uint8_t)(w->le ? u >> (8 * i) : u >> (8 * (7 - i)));
}

static void hdr(wb *w, uint32_t code)
{
	w->b[w->n++] = w->le ? 1 : 0;
	u32(w, code);
}

static void pts(wb *w, unsigned nc, unsigned n, const double *c)
{
	u32(w, n);
	for (unsigned i = 0; i < n * nc; i++)
		f64(w, c[i]);
}

/* A point's coordinates (no count). */
static void pt(wb *w, unsigned nc, const double *c)
{
	for (unsigned i = 0; i < nc; i++)
		f64(w, c[i]);
}

static pq_buf out = PQ_BUF_INIT;
static const char *why;

static const char *wkt(const wb *w)
{
	out.len = 0;
	why = NULL;
	if (!pq_render_wkt(w->b, w->n, &out, &why)) {
		ck_assert_uint_eq(out.len, 0);
		ck_assert_ptr_nonnull(why);
		return "INVALID";
	}
	pq_buf_putc(&out, '\0');
	return (const char *)out.p;
}

/* ---- valid geometries ------------------------------------------------ */

START_TEST(test_wkt_types)
{
	for (int le = 0; le <= 1; le++) {
		wb w = {.le = le};
		hdr(&w, 1);
		f64(&w, 30);
		f64(&w, 10);
		ck_assert_str_eq(wkt(&w), "POINT (30 10)");

		w.n = 0;
		hdr(&w, 1001);
		f64(&w, 1);
		f64(&w, 2);
		f64(&w, 3);
		ck_assert_str_eq(wkt(&w), "POINT Z (1 2 3)");

		w.n = 0;
		hdr(&w, 2);
		pts(&w, 2, 3, (double[]){30, 10, 10, 30, 40, 40});
		ck_assert_str_eq(wkt(&w), "LINESTRING (30 10, 10 30, 40 40)");

		w.n = 0;
		hdr(&w, 3);
		u32(&w, 2);
		pts(&w, 2, 4, (double[]){35, 10, 45, 45, 15, 40, 35, 10});
		pts(&w, 2, 3, (double[]){20, 30, 35, 35, 20, 30});
		ck_assert_str_eq(wkt(&w), "POLYGON ((35 10, 45 45, 15 40, 35 10), (20 30, 35 35, 20 30))");

		w.n = 0;
		hdr(&w, 4);
		u32(&w, 2);
		hdr(&w, 1);
		f64(&w, 10);
		f64(&w, 40);
		w.le = !le; /* each member has its own byte order */
		hdr(&w, 1);
		f64(&w, 40);
		f64(&w, 30);
		w.le = le;
		ck_assert_str_eq(wkt(&w), "MULTIPOINT ((10 40), (40 30))");

		w.n = 0;
		hdr(&w, 5);
		u32(&w, 2);
		hdr(&w, 2);
		pts(&w, 2, 2, (double[]){10, 10, 20, 20});
		hdr(&w, 2);
		pts(&w, 2, 2, (double[]){40, 40, 30, 30});
		ck_assert_str_eq(wkt(&w), "MULTILINESTRING ((10 10, 20 20), (40 40, 30 30))");

		w.n = 0;
		hdr(&w, 6);
		u32(&w, 1);
		hdr(&w, 3);
		u32(&w, 1);
		pts(&w, 2, 4, (double[]){30, 20, 45, 40, 10, 40, 30, 20});
		ck_assert_str_eq(wkt(&w), "MULTIPOLYGON (((30 20, 45 40, 10 40, 30 20)))");

		w.n = 0;
		hdr(&w, 7);
		u32(&w, 2);
		hdr(&w, 1);
		f64(&w, 40);
		f64(&w, 10);
		hdr(&w, 2);
		pts(&w, 2, 2, (double[]){10, 10, 20, 20});
		ck_assert_str_eq(wkt(&w), "GEOMETRYCOLLECTION (POINT (40 10), LINESTRING (10 10, 20 20))");
	}
}
END_TEST

START_TEST(test_wkt_dimensions)
{
	wb w = {.le = true};
	hdr(&w, 2002);
	pts(&w, 3, 2, (double[]){1, 2, 3, 4, 5, 6});
	ck_assert_str_eq(wkt(&w), "LINESTRING M (1 2 3, 4 5 6)");
	w.n = 0;
	hdr(&w, 3001);
	pt(&w, 4, (double[]){1, 2, 3, 4});
	ck_assert_str_eq(wkt(&w), "POINT ZM (1 2 3 4)");
	w.n = 0;
	hdr(&w, 3001);
	f64(&w, -0.5);
	f64(&w, 1e21);
	f64(&w, 0.1);
	f64(&w, -0.0);
	ck_assert_str_eq(wkt(&w), "POINT ZM (-0.5 1e+21 0.1 -0)");
	w.n = 0;
	hdr(&w, 1007);
	u32(&w, 1);
	hdr(&w, 1001);
	f64(&w, 1);
	f64(&w, 2);
	f64(&w, 3);
	ck_assert_str_eq(wkt(&w), "GEOMETRYCOLLECTION Z (POINT Z (1 2 3))");
	w.n = 0;
	hdr(&w, 3004);
	u32(&w, 1);
	hdr(&w, 3001);
	pt(&w, 4, (double[]){1, 2, 3, 4});
	ck_assert_str_eq(wkt(&w), "MULTIPOINT ZM ((1 2 3 4))");
}
END_TEST

START_TEST(test_wkt_empty)
{
	wb w = {.le = true};
	hdr(&w, 1);
	f64(&w, NAN);
	f64(&w, NAN);
	ck_assert_str_eq(wkt(&w), "POINT EMPTY");
	w.n = 0;
	hdr(&w, 1001);
	f64(&w, 1);
	f64(&w, NAN);
	f64(&w, NAN);
	ck_assert_str_eq(wkt(&w), "POINT Z (1 NaN NaN)");
	w.n = 0;
	hdr(&w, 2);
	u32(&w, 0);
	ck_assert_str_eq(wkt(&w), "LINESTRING EMPTY");
	w.n = 0;
	hdr(&w, 1003);
	u32(&w, 0);
	ck_assert_str_eq(wkt(&w), "POLYGON Z EMPTY");
	w.n = 0;
	hdr(&w, 7);
	u32(&w, 0);
	ck_assert_str_eq(wkt(&w), "GEOMETRYCOLLECTION EMPTY");
	w.n = 0;
	hdr(&w, 3);
	u32(&w, 1);
	u32(&w, 0);
	ck_assert_str_eq(wkt(&w), "POLYGON (EMPTY)");
	w.n = 0;
	hdr(&w, 4);
	u32(&w, 2);
	hdr(&w, 1);
	f64(&w, NAN);
	f64(&w, NAN);
	hdr(&w, 1);
	f64(&w, 1);
	f64(&w, 2);
	ck_assert_str_eq(wkt(&w), "MULTIPOINT (EMPTY, (1 2))");
	w.n = 0;
	hdr(&w, 2);
	pts(&w, 2, 2, (double[]){NAN, NAN, 1, 2});
	ck_assert_str_eq(wkt(&w), "LINESTRING (NaN NaN, 1 2)");
	w.n = 0;
	hdr(&w, 7);
	u32(&w, 1);
	hdr(&w, 1);
	f64(&w, NAN);
	f64(&w, NAN);
	ck_assert_str_eq(wkt(&w), "GEOMETRYCOLLECTION (POINT EMPTY)");
}
END_TEST

/* ---- invalid --------------------------------------------------------- */

START_TEST(test_wkt_invalid)
{
	wb w = {.le = true};
	ck_assert_str_eq(wkt(&w), "INVALID"); /* no bytes */
	ck_assert(!pq_render_wkt(NULL, 0, &out, NULL));
	uint32_t bad_codes[] = {0, 8, 17, 4001, 1000, 0x80000001u, 0x20000001u, 0x40000001u};
	for (size_t i = 0; i < sizeof bad_codes / sizeof bad_codes[0]; i++) {
		w.n = 0;
		hdr(&w, bad_codes[i]);
		f64(&w, 1);
		f64(&w, 2);
		f64(&w, 3);
		f64(&w, 4);
		ck_assert_msg(strcmp(wkt(&w), "INVALID") == 0, "code 0x%x", bad_codes[i]);
	}
	w.n = 0; /* byte order 2 */
	hdr(&w, 1);
	w.b[0] = 2;
	f64(&w, 1);
	f64(&w, 2);
	ck_assert_str_eq(wkt(&w), "INVALID");
	w.n = 0; /* left-over byte */
	hdr(&w, 1);
	f64(&w, 1);
	f64(&w, 2);
	w.b[w.n++] = 0;
	ck_assert_str_eq(wkt(&w), "INVALID");
	ck_assert_str_eq(why, "WKB is followed by left-over bytes");
	w.n = 0; /* MULTIPOINT holding a LINESTRING */
	hdr(&w, 4);
	u32(&w, 1);
	hdr(&w, 2);
	pts(&w, 2, 1, (double[]){1, 2});
	ck_assert_str_eq(wkt(&w), "INVALID");
	w.n = 0; /* member dimensions differ (collection XY, member Z) */
	hdr(&w, 7);
	u32(&w, 1);
	hdr(&w, 1001);
	f64(&w, 1);
	f64(&w, 2);
	f64(&w, 3);
	ck_assert_str_eq(wkt(&w), "INVALID");
	w.n = 0; /* a huge count */
	hdr(&w, 2);
	u32(&w, 0xFFFFFFFFu);
	f64(&w, 1);
	ck_assert_str_eq(wkt(&w), "INVALID");
	w.n = 0;
	hdr(&w, 7);
	u32(&w, 0x10000000u);
	ck_assert_str_eq(wkt(&w), "INVALID");
}
END_TEST

START_TEST(test_wkt_nesting)
{
	/* collections inside collections: 64 levels render, 65 do not */
	for (unsigned depth = 64; depth <= 65; depth++) {
		wb w = {.le = true};
		for (unsigned i = 0; i < depth; i++) {
			hdr(&w, 7);
			u32(&w, 1);
		}
		hdr(&w, 7);
		u32(&w, 0);
		const char *s = wkt(&w);
		if (depth == 64)
			ck_assert_uint_eq(strlen(s), 64 * (strlen("GEOMETRYCOLLECTION ") + 2) +
							     strlen("GEOMETRYCOLLECTION EMPTY"));
		else
			ck_assert_str_eq(s, "INVALID");
	}
}
END_TEST

/* Every prefix of a valid WKB is invalid; none is read past its end. */
START_TEST(test_wkt_truncation)
{
	wb w = {.le = false};
	hdr(&w, 3007);
	u32(&w, 3);
	hdr(&w, 3003);
	u32(&w, 1);
	pts(&w, 4, 4, (double[]){0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0});
	hdr(&w, 3006);
	u32(&w, 1);
	hdr(&w, 3003);
	u32(&w, 0);
	hdr(&w, 3001);
	f64(&w, 1);
	f64(&w, 2);
	f64(&w, 3);
	f64(&w, 4);
	ck_assert_str_eq(wkt(&w), "GEOMETRYCOLLECTION ZM (POLYGON ZM ((0 0 0 0, 1 0 0 0, 1 1 0 0, "
				  "0 0 0 0)), MULTIPOLYGON ZM (EMPTY), POINT ZM (1 2 3 4))");
	for (size_t n = 0; n < w.n; n++) {
		uint8_t *copy = malloc(n ? n : 1);
		memcpy(copy, w.b, n);
		out.len = 0;
		ck_assert_msg(!pq_render_wkt(copy, n, &out, NULL), "length %zu renders", n);
		ck_assert_uint_eq(out.len, 0);
		free(copy);
	}
}
END_TEST

/* Bounds per axis: x y z m; an M geometry's third coordinate is m; NaN
 * skipped; invalid WKB leaves the box alone. */
START_TEST(test_wkt_box)
{
	pq_wkb_box box = {0};
	wb w = {.le = true};
	hdr(&w, 2002);
	pts(&w, 3, 2, (double[]){1, -2, 300, -5, 7, NAN});
	out.len = 0;
	ck_assert(pq_render_wkt_box(w.b, w.n, &out, NULL, &box));
	ck_assert(box.has[0] && box.has[1] && !box.has[2] && box.has[3]);
	ck_assert(box.min[0] == -5 && box.max[0] == 1 && box.min[1] == -2 && box.max[1] == 7);
	ck_assert(box.min[3] == 300 && box.max[3] == 300);
	w.n = 0;
	hdr(&w, 1001);
	pt(&w, 3, (double[]){10, 0, -1});
	out.len = 0;
	ck_assert(pq_render_wkt_box(w.b, w.n, &out, NULL, &box));
	ck_assert(box.max[0] == 10 && box.min[1] == -2 && box.has[2] && box.min[2] == -1);
	w.n = 0;
	hdr(&w, 1);
	f64(&w, 1000);
	out.len = 0;
	ck_assert(!pq_render_wkt_box(w.b, w.n, &out, NULL, &box)); /* truncated */
	ck_assert(box.max[0] == 10);
}
END_TEST

/* Through the value renderer: quoting per mode, hex for invalid WKB. */
START_TEST(test_wkt_modes)
{
	pq_render_type t = {.kind = PQ_R_GEO, .physical = PQ_BYTE_ARRAY};
	wb w = {.le = true};
	hdr(&w, 2);
	pts(&w, 2, 2, (double[]){1, 2, 3, 4});
	pq_bytes b = {w.b, w.n};
	pq_values v = {.type = PQ_BYTE_ARRAY, .n = 1, .v.ba = &b};
	const char *want[] = {"LINESTRING (1 2, 3 4)", "LINESTRING (1 2, 3 4)",
			      "\"LINESTRING (1 2, 3 4)\"", "\"LINESTRING (1 2, 3 4)\""};
	for (int m = PQ_MODE_TEXT; m <= PQ_MODE_JSON; m++) {
		out.len = 0;
		pq_render_value(&t, &v, 0, (pq_render_mode)m, &out);
		pq_buf_putc(&out, '\0');
		ck_assert_str_eq((const char *)out.p, want[m]);
	}
	w.n = 0;
	hdr(&w, 1);
	f64(&w, 1);
	f64(&w, 2);
	b.n = w.n;
	out.len = 0;
	pq_render_value(&t, &v, 0, PQ_MODE_CSV, &out); /* no comma: unquoted */
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "POINT (1 2)");
	b.n = 3;
	out.len = 0;
	pq_render_value(&t, &v, 0, PQ_MODE_JSON, &out);
	pq_buf_putc(&out, '\0');
	ck_assert_str_eq((const char *)out.p, "\"0x010100\"");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("wkt");
	TCase *tc = tcase_create("wkb");
	tcase_add_test(tc, test_wkt_types);
	tcase_add_test(tc, test_wkt_dimensions);
	tcase_add_test(tc, test_wkt_empty);
	tcase_add_test(tc, test_wkt_invalid);
	tcase_add_test(tc, test_wkt_nesting);
	tcase_add_test(tc, test_wkt_truncation);
	tcase_add_test(tc, test_wkt_modes);
	tcase_add_test(tc, test_wkt_box);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	pq_buf_free(&out);
	return failed ? 1 : 0;
}
