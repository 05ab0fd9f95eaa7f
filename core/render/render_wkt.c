/* GEOMETRY / GEOGRAPHY values: ISO WKB (Geospatial.md) to OGC WKT, per
 * interface.md "Geometry as WKT". One pass over the bytes, writing as it
 * reads; every count is checked against the bytes left before it is
 * trusted, collections nest at most WKB_MAX_DEPTH deep, and any departure
 * from ISO WKB (EWKB flags, other type codes, truncation, left-over bytes,
 * members of the wrong type or dimensions) makes the value invalid: the
 * caller then shows its hex. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "pq_render.h"

#define WKB_MAX_DEPTH 64

enum { W_POINT = 1, W_LINESTRING, W_POLYGON, W_MULTIPOINT, W_MULTILINESTRING,
       W_MULTIPOLYGON, W_COLLECTION };

static const char *const type_name[] = {
	"", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON",
	"GEOMETRYCOLLECTION",
};
/* dimension code (type / 1000): XY, XYZ, XYM, XYZM */
static const char *const dim_tag[] = {"", " Z", " M", " ZM"};
static const unsigned dim_coords[] = {2, 3, 3, 4};

typedef struct wkb {
	const uint8_t *p, *end;
	pq_buf *out;
	const char *why;
	pq_wkb_box box; /* when track */
	bool track;
} wkb;

static bool bad(wkb *w, const char *why)
{
	if (!w->why)
		w->why = why;
	return false;
}

static size_t left(const wkb *w) { return (size_t)(w->end - w->p); }

static bool get_u32(wkb *w, bool le, uint32_t *v)
{
	if (left(w) < 4)
		return bad(w, "WKB is truncated");
	const uint8_t *p = w->p;
	*v = le ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
		: (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
	w->p += 4;
	return true;
}

static double get_f64(wkb *w, bool le) /* 8 bytes known to be there */
{
	uint64_t u = 0;
	for (int i = 0; i < 8; i++)
		u = u << 8 | w->p[le ? 7 - i : i];
	w->p += 8;
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* A geometry's byte order and type code: *type 1-7, *dim 0-3. */
static bool header(wkb *w, bool *le, unsigned *type, unsigned *dim)
{
	if (left(w) < 5)
		return bad(w, "WKB is truncated");
	if (w->p[0] > 1)
		return bad(w, "WKB byte order is neither 0 nor 1");
	*le = w->p[0] == 1;
	w->p++;
	uint32_t code;
	get_u32(w, *le, &code);
	if (code & 0xE0000000u)
		return bad(w, "WKB has EWKB flags (Z, M or SRID)");
	*type = code % 1000;
	*dim = code / 1000;
	if (*type < W_POINT || *type > W_COLLECTION || *dim > 3)
		return bad(w, "WKB geometry type code is not ISO WKB's");
	return true;
}

/* The axis (x y z m) of coordinate i of a point with nc coordinates of
 * dimension code dim. */
static unsigned axis(unsigned i, unsigned dim)
{
	return i < 2 ? i : dim == 2 ? 3 : i;
}

static void put_coords(wkb *w, bool le, unsigned nc, unsigned dim)
{
	char buf[PQ_FORMAT_BUF];
	for (unsigned i = 0; i < nc; i++) {
		if (i)
			pq_buf_putc(w->out, ' ');
		double d = get_f64(w, le);
		pq_buf_append(w->out, buf, pq_format_double(d, buf));
		if (w->track && !isnan(d)) {
			unsigned a = axis(i, dim);
			if (!w->box.has[a] || d < w->box.min[a])
				w->box.min[a] = d;
			if (!w->box.has[a] || d > w->box.max[a])
				w->box.max[a] = d;
			w->box.has[a] = true;
		}
	}
}

/* count points of nc coordinates: "(x y, x y)", or "EMPTY" when none. */
static bool points(wkb *w, bool le, unsigned nc, unsigned dim)
{
	uint32_t n;
	if (!get_u32(w, le, &n))
		return false;
	if ((uint64_t)n * nc * 8 > left(w))
		return bad(w, "WKB point count exceeds its bytes");
	if (n == 0) {
		pq_buf_puts(w->out, "EMPTY");
		return true;
	}
	pq_buf_putc(w->out, '(');
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			pq_buf_append(w->out, ", ", 2);
		put_coords(w, le, nc, dim);
	}
	pq_buf_putc(w->out, ')');
	return true;
}

static bool geometry(wkb *w, unsigned want_type, unsigned want_dim, unsigned depth);

/* The text after "TYPE[ dims] " of a geometry whose header was read. */
static bool body(wkb *w, bool le, unsigned type, unsigned dim, unsigned depth)
{
	unsigned nc = dim_coords[dim];
	switch (type) {
	case W_POINT: {
		if (left(w) < (size_t)nc * 8)
			return bad(w, "WKB is truncated");
		bool all_nan = true;
		for (unsigned i = 0; i < nc; i++) {
			double d;
			memcpy(&d, w->p + 8 * i, 8); /* any byte order: NaN is NaN either way */
			all_nan = all_nan && isnan(d);
		}
		if (all_nan) {
			w->p += (size_t)nc * 8;
			pq_buf_puts(w->out, "EMPTY");
			return true;
		}
		pq_buf_putc(w->out, '(');
		put_coords(w, le, nc, dim);
		pq_buf_putc(w->out, ')');
		return true;
	}
	case W_LINESTRING:
		return points(w, le, nc, dim);
	case W_POLYGON:
	default: { /* polygon, multi-geometry or collection: a count of parts */
		uint32_t n;
		if (!get_u32(w, le, &n))
			return false;
		/* a ring takes 4 bytes at least, a member geometry 5 */
		if ((uint64_t)n * (type == W_POLYGON ? 4 : 5) > left(w))
			return bad(w, "WKB part count exceeds its bytes");
		if (n == 0) {
			pq_buf_puts(w->out, "EMPTY");
			return true;
		}
		if (depth >= WKB_MAX_DEPTH)
			return bad(w, "WKB collections nest too deep");
		pq_buf_putc(w->out, '(');
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				pq_buf_append(w->out, ", ", 2);
			bool ok = type == W_POLYGON ? points(w, le, nc, dim)
				: type == W_COLLECTION ? geometry(w, 0, dim, depth + 1)
						       : geometry(w, type - 3, dim, depth + 1);
			if (!ok)
				return false;
		}
		pq_buf_putc(w->out, ')');
		return true;
	}
	}
}

/* One geometry with its header. want_type 0: any type, written with its
 * name (a collection's member); else the member of a MULTI* of that type,
 * written as its body alone. want_dim: the container's dimensions (or
 * anything at the top: 4). */
static bool geometry(wkb *w, unsigned want_type, unsigned want_dim, unsigned depth)
{
	bool le;
	unsigned type, dim;
	if (!header(w, &le, &type, &dim))
		return false;
	if (want_dim <= 3 && dim != want_dim)
		return bad(w, "WKB member's dimensions differ from its collection's");
	if (want_type && type != want_type)
		return bad(w, "WKB multi-geometry member of the wrong type");
	if (!want_type) {
		pq_buf_puts(w->out, type_name[type]);
		pq_buf_puts(w->out, dim_tag[dim]);
		pq_buf_putc(w->out, ' ');
	}
	return body(w, le, type, dim, depth);
}

bool pq_render_wkt(const uint8_t *p, size_t n, pq_buf *out, const char **why)
{
	return pq_render_wkt_box(p, n, out, why, NULL);
}

bool pq_render_wkt_box(const uint8_t *p, size_t n, pq_buf *out, const char **why,
		       pq_wkb_box *box)
{
	wkb w = {.p = p, .end = p ? p + n : p, .out = out, .track = box != NULL};
	size_t mark = out->len;
	bool ok = p && geometry(&w, 0, 4, 0);
	if (!p)
		bad(&w, "WKB is empty");
	if (ok && w.p != w.end)
		ok = bad(&w, "WKB is followed by left-over bytes");
	if (!ok) {
		out->len = mark;
		if (why)
			*why = w.why;
		return false;
	}
	for (int a = 0; box && a < 4; a++) {
		if (!w.box.has[a])
			continue;
		if (!box->has[a] || w.box.min[a] < box->min[a])
			box->min[a] = w.box.min[a];
		if (!box->has[a] || w.box.max[a] > box->max[a])
			box->max[a] = w.box.max[a];
		box->has[a] = true;
	}
	return true;
}
