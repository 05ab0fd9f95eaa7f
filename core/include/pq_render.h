/* Value rendering: the one rule set of interface.md "Rendering values",
 * used by data.csv, data.jsonl, values.txt and the statistics in metadata.
 *
 * A column's schema element is reduced once to a pq_render_type (its render
 * kind plus the few parameters the kind needs); rendering a value is then a
 * switch on the kind, with no allocation beyond appending to a pq_buf.
 *
 * Each value is rendered in one of the four modes of pq_text.h (TEXT,
 * VALUES, CSV, JSON).
 *
 * Choices where interface.md is silent (for doc/):
 *  - A value whose physical type does not fit its kind (DATE on a DOUBLE
 *    column, UUID on FLBA(7), ...) is rendered by its physical type alone.
 *  - DECIMAL with a negative scale appends zeros (`12300` for 123, s = -2);
 *    |scale| > PQ_DECIMAL_SCALE_MAX is written as `<unscaled>e<-scale>`
 *    (still an exact JSON number). A BYTE_ARRAY/FLBA decimal with more than
 *    PQ_DECIMAL_BYTES_MAX significant bytes (after sign extension) is shown
 *    by the binary rule (`0x…`); an empty one is 0.
 *  - UNKNOWN (PQ_R_NULL) renders `null` (TEXT, JSON), `\N` (VALUES), the
 *    empty field (CSV).
 *  - TIME / TIMESTAMP with a unit other than MILLIS/MICROS/NANOS: the plain
 *    integer.
 */
#ifndef PQ_RENDER_H
#define PQ_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_text.h"
#include "pq_metadata.h"
#include "pq_values.h"

typedef enum pq_render_kind {
	PQ_R_BOOLEAN,
	PQ_R_INT,       /* signed decimal, from INT32 / INT64 */
	PQ_R_UINT,      /* unsigned decimal of the INT32 / INT64 bits */
	PQ_R_FLOAT,     /* FLOAT, shortest round trip at 32 bits */
	PQ_R_DOUBLE,    /* DOUBLE, shortest round trip at 64 bits */
	PQ_R_FLOAT16,   /* FLBA(2), little-endian IEEE half */
	PQ_R_DECIMAL,   /* INT32, INT64, or BYTE_ARRAY / FLBA big-endian two's
			   complement of any length; scale in .scale */
	PQ_R_DATE,      /* INT32 days since 1970-01-01 */
	PQ_R_TIME,      /* .unit, .utc */
	PQ_R_TIMESTAMP, /* .unit, .utc */
	PQ_R_INT96,     /* 12 bytes: nanoseconds of day (i64 LE), Julian day (u32 LE) */
	PQ_R_STRING,    /* STRING, ENUM: text, invalid UTF-8 -> U+FFFD */
	PQ_R_JSON_TEXT, /* JSON logical type: rendered exactly as STRING */
	PQ_R_UUID,      /* FLBA(16) */
	PQ_R_INTERVAL,  /* FLBA(12): months, days, millis as u32 LE */
	PQ_R_GEO,       /* GEOMETRY / GEOGRAPHY: WKB as WKT; invalid WKB as
			   `0x` + lowercase hex */
	PQ_R_BINARY,    /* text when valid UTF-8 without forbidden control
			   bytes, else `0x` + hex */
	PQ_R_NULL       /* UNKNOWN: always null */
} pq_render_kind;

typedef struct pq_render_type {
	pq_render_kind kind;
	int32_t physical;    /* enum pq_type */
	int32_t type_length; /* FLBA width (12 for INT96) */
	int32_t scale;       /* DECIMAL */
	int32_t unit;        /* TIME / TIMESTAMP: PQ_MILLIS, PQ_MICROS, PQ_NANOS */
	bool utc;            /* TIME / TIMESTAMP: isAdjustedToUTC -> trailing `Z` */
} pq_render_type;

#define PQ_DECIMAL_SCALE_MAX 1000
#define PQ_DECIMAL_BYTES_MAX 256
/* Buffer size for the pq_format_* functions below (result NUL-terminated). */
#define PQ_FORMAT_BUF 64

/* ---- types ----------------------------------------------------------- */

/* The render type of a leaf schema element: logical type first, then the
 * converted type (also when the logical type is one this build does not
 * know), then the physical type. Legacy TIME_* / TIMESTAMP_* converted
 * types are UTC. Annotations that do not fit the physical type are ignored. */
pq_render_type pq_render_type_of(const pq_schema_element *e);
/* The render type of a bare physical type (no annotation). */
pq_render_type pq_render_type_physical(int32_t physical, int32_t type_length);
/* Short name of a kind: "bool", "int", "uint", "float", "decimal", "date",
 * "time", "timestamp", "int96", "string", "json", "uuid", "interval",
 * "geo", "bytes", "null". */
const char *pq_render_kind_name(pq_render_kind kind);

/* ---- values ---------------------------------------------------------- */

/* Appends value i of v (i < v->n, else nothing) rendered in mode. The
 * physical type of v (v->type) decides how the value is read; when it does
 * not fit t->kind the value is rendered by its physical type. */
void pq_render_value(const pq_render_type *t, const pq_values *v, size_t i,
		     pq_render_mode mode, pq_buf *out);

/* Renders values [first, first + count) of v (clipped to v->n) one after
 * another, each followed by sep when sep is not 0; ends (may be NULL) gets
 * out->len after each value. The same bytes as pq_render_value per value,
 * written by a loop per kind for the common kinds. */
void pq_render_batch(const pq_render_type *t, const pq_values *v, size_t first, size_t count,
		     pq_render_mode mode, char sep, pq_buf *out, size_t *ends);

/* Lengths of rendered values, per mode, summed (no separators). */
typedef struct pq_render_sizes {
	uint64_t values;     /* PQ_MODE_VALUES */
	uint64_t csv;        /* PQ_MODE_CSV */
	uint64_t json;       /* PQ_MODE_JSON */
	uint64_t json_empty; /* values whose JSON text is empty (a row shows `null`) */
	bool oom;            /* a value could not be rendered to be counted: no sizes */
} pq_render_sizes;

/* Adds to *sum the lengths pq_render_value gives values [first, first +
 * count) of v (clipped to v->n) in VALUES, CSV and JSON mode, measured
 * without rendering where the kind allows (integers, decimals, dates,
 * times, strings: one scan for the three modes); the rest is formatted
 * once into a stack buffer, or rendered into a scratch buffer. */
void pq_render_measure(const pq_render_type *t, const pq_values *v, size_t first, size_t count,
		       pq_render_sizes *sum);

/* Renders one PLAIN-encoded value given as bytes (statistics min/max,
 * page-index bounds): BOOLEAN 1 byte, INT32 4 LE, INT64 8 LE, INT96 12,
 * FLOAT 4, DOUBLE 8, BYTE_ARRAY the bytes, FLBA the bytes (exactly
 * type_length of them for UUID, FLOAT16 and INTERVAL). Returns false, and
 * appends nothing, when the byte count does not fit (the caller shows hex). */
bool pq_render_plain_bytes(const pq_render_type *t, const uint8_t *p, size_t n,
			   pq_render_mode mode, pq_buf *out);

/* GEOMETRY / GEOGRAPHY: ISO WKB p[0..n) appended as WKT (interface.md
 * "Geometry as WKT"; ASCII letters, digits, spaces, `(),.-+`, nothing to
 * escape but `,` in CSV). false, with nothing appended and *why (when why
 * is not NULL) saying what is wrong, when the bytes are not valid WKB. */
bool pq_render_wkt(const uint8_t *p, size_t n, pq_buf *out, const char **why);
/* The bounds of WKB coordinates, per axis x, y, z, m (NaN skipped; an axis
 * no coordinate has keeps has[axis] false). */
typedef struct pq_wkb_box {
	double min[4], max[4];
	bool has[4];
} pq_wkb_box;
/* pq_render_wkt, also widening *box (when not NULL) by the coordinates of a
 * valid value. */
bool pq_render_wkt_box(const uint8_t *p, size_t n, pq_buf *out, const char **why,
		       pq_wkb_box *box);

/* ---- atoms: each writes a NUL-terminated string, returns its length --- */

size_t pq_format_i64(int64_t v, char *buf);  /* buf >= 21 */
size_t pq_format_u64(uint64_t v, char *buf); /* buf >= 21 */
/* Shortest round-trip digits at the type's width, JavaScript layout
 * (Number.prototype.toString), `-0`, `NaN`, `Infinity`, `-Infinity`;
 * buf >= 32. */
size_t pq_format_double(double d, char *buf);
size_t pq_format_float(float f, char *buf);
size_t pq_format_float16(uint16_t h, char *buf);
/* The exact value of an IEEE half as a double. */
double pq_half_to_double(uint16_t h);

/* Dates and times; buf >= PQ_FORMAT_BUF. Every int64 input is handled
 * without overflow. */
size_t pq_format_date(int64_t days, char *buf);
/* Value outside [0, 24 h] (24:00:00 itself is in range) or unit unknown:
 * the plain integer. */
size_t pq_format_time(int64_t v, int32_t unit, bool utc, char *buf);
/* Unit unknown: the plain integer. */
size_t pq_format_timestamp(int64_t v, int32_t unit, bool utc, char *buf);
size_t pq_format_int96(const uint8_t p[12], char *buf);
size_t pq_format_interval(const uint8_t p[12], char *buf);
size_t pq_format_uuid(const uint8_t p[16], char *buf);

/* Decimals (appended, their length is unbounded). */
void pq_render_decimal_i64(int64_t unscaled, int32_t scale, pq_buf *out);
/* Big-endian two's complement p[0..n) (n = 0 is zero). Returns false,
 * appending nothing, when it has more than PQ_DECIMAL_BYTES_MAX
 * significant bytes. */
bool pq_render_decimal_be(const uint8_t *p, size_t n, int32_t scale, pq_buf *out);

#endif
