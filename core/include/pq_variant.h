/* VARIANT values (VariantEncoding.md) rendered as JSON (interface.md
 * "Variant as JSON"), and the pieces record assembly needs to merge a
 * shredded variant (VariantShredding.md) back: the metadata dictionary and
 * the fields of an object value.
 *
 * Every byte is hostile: sizes, offsets and field ids are checked against
 * the bytes there are, nesting is capped at PQ_VARIANT_MAX_DEPTH, and a
 * value that cannot be decoded is reported (pq_variant_diag), never trusted.
 * Nothing here allocates except an index for an object whose keys are not
 * stored in order (bounded by the value's size).
 *
 * Choices where the contract is silent (for doc/):
 *  - An object whose keys are not stored in key-name order is still
 *    rendered in key-name order (a note, for verify.txt); duplicate keys
 *    are all written, in stored order (a note).
 *  - A metadata version other than 1 is an error (the spec lets readers
 *    refuse newer versions).
 *  - A primitive type id above 20 (a type added later) is an error.
 *  - Bytes after the end of a top-level value are a note, not an error. */
#ifndef PQ_VARIANT_H
#define PQ_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_bytes.h"

/* Arrays and objects nested deeper than this are an error. */
#define PQ_VARIANT_MAX_DEPTH 128

/* What went wrong with a variant: error (it cannot be decoded: rendered as
 * hex) and note (decoded and rendered, but an invariant of the spec does not
 * hold: keys out of order or repeated, invalid UTF-8, trailing bytes).
 * Static strings; the first of each kind is kept. */
typedef struct pq_variant_diag {
	const char *error;
	const char *note;
} pq_variant_diag;

/* A parsed metadata dictionary: views into the caller's bytes. */
typedef struct pq_variant_meta {
	const uint8_t *offsets; /* count + 1 offsets of osize bytes each */
	const uint8_t *strings;
	size_t nstrings;        /* bytes in strings */
	uint32_t count;         /* dictionary_size */
	uint8_t osize;
	bool sorted;            /* the sorted_strings flag */
} pq_variant_meta;

/* An object value's header, parsed and bounded. */
typedef struct pq_variant_object {
	const uint8_t *ids, *offsets, *fields;
	size_t nfields;         /* bytes of the fields region */
	uint32_t count;
	uint8_t id_size, off_size;
} pq_variant_object;

/* Parses metadata p[0..n): header version 1, sizes and every offset
 * bounded and non-decreasing. false with d->error set when it is bad. */
bool pq_variant_meta_parse(const uint8_t *p, size_t n, pq_variant_meta *m, pq_variant_diag *d);
/* Key id of a parsed dictionary (false when id is out of range). */
bool pq_variant_meta_key(const pq_variant_meta *m, uint32_t id, pq_bytes *key);

/* Appends value p[0..n) as JSON. false, with d->error set and out cut
 * back to its length on entry, when the value cannot be decoded. */
bool pq_render_variant(const pq_variant_meta *m, const uint8_t *p, size_t n, pq_buf *out,
		       pq_variant_diag *d);

/* Both steps for an unshredded variant: metadata and value bytes to JSON,
 * or the JSON string "0x…" (hex of the value bytes) when either is bad. */
void pq_render_variant_json(const uint8_t *meta, size_t mn, const uint8_t *val, size_t vn,
			    pq_buf *out, pq_variant_diag *d);

/* Whether value p[0..n) is an object: 1 (o filled, its header and
 * offsets bounded), 0 (some other valid header), -1 (d->error set: empty
 * or truncated). */
int pq_variant_object_open(const uint8_t *p, size_t n, pq_variant_object *o,
			   pq_variant_diag *d);
/* Field i < o->count: its key (from m) and the bytes from its value's start
 * to the end of the fields region. false (d->error set) when the field id or
 * offset is out of range. */
bool pq_variant_object_field(const pq_variant_meta *m, const pq_variant_object *o, uint32_t i,
			     pq_bytes *key, pq_bytes *value, pq_variant_diag *d);

/* Unsigned byte order of two keys (memcmp, then length): <0, 0, >0. */
int pq_variant_key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);

#endif
