/* The contract's text rules, with no Parquet in them: the output modes,
 * their escaping, U+FFFD for invalid UTF-8, the binary rule and hex. Used
 * by value rendering (pq_render.h) and by the metadata JSON (format/).
 *
 * Each value is rendered in one of four modes:
 *   PQ_MODE_TEXT    the text itself (metadata.txt, headers)
 *   PQ_MODE_VALUES  a values.txt line: `\` -> `\\`, LF -> `\n`, CR -> `\r`,
 *                   TAB -> `\t` (NULL `\N` is the caller's)
 *   PQ_MODE_CSV     one RFC 4180 field: quoted, `"` doubled, when it holds
 *                   `,` `"` CR or LF; an empty string is `""` (NULL, the empty
 *                   field, is the caller's)
 *   PQ_MODE_JSON    one JSON value: integers, decimals and finite floats as
 *                   numbers; NaN / Infinity / -Infinity as strings; booleans
 *                   as true/false; everything else as a string escaping `"`,
 *                   `\`, `\n` `\r` `\t` `\b` `\f` and other bytes < 0x20 as
 *                   `\u00xx` (lowercase), all else raw UTF-8.
 * In every mode, text kinds replace each maximal invalid UTF-8 subpart
 * (Unicode "substitution of maximal subparts") with U+FFFD.
 */
#ifndef PQ_TEXT_H
#define PQ_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"

typedef enum pq_render_mode {
	PQ_MODE_TEXT,
	PQ_MODE_VALUES,
	PQ_MODE_CSV,
	PQ_MODE_JSON
} pq_render_mode;

/* Appends text p[0..n) in mode (quoted in CSV when needed and in JSON),
 * invalid UTF-8 replaced by U+FFFD. */
void pq_render_text(const uint8_t *p, size_t n, pq_render_mode mode, pq_buf *out);
/* Shorthands: a quoted, escaped JSON string; one CSV field; values.txt
 * escapes. All replace invalid UTF-8 by U+FFFD. */
void pq_render_json_string(const uint8_t *p, size_t n, pq_buf *out);
void pq_render_csv_field(const uint8_t *p, size_t n, pq_buf *out);
void pq_render_values_escape(const uint8_t *p, size_t n, pq_buf *out);
/* The binary rule: text (in mode) when pq_binary_is_text, else hex. */
void pq_render_binary(const uint8_t *p, size_t n, pq_render_mode mode, pq_buf *out);
/* `0x` + lowercase hex (quoted in JSON mode). */
void pq_render_hex(const uint8_t *p, size_t n, pq_render_mode mode, pq_buf *out);

/* The lengths pq_render_text would give p[0..n) in VALUES, CSV and JSON
 * mode, from one scan (added to *values, *csv, *json): the size pass
 * measures strings with it instead of rendering them. */
void pq_text_measure(const uint8_t *p, size_t n, uint64_t *values, uint64_t *csv,
		     uint64_t *json);

/* Valid UTF-8 with no byte in 0x00-0x08, 0x0B, 0x0C, 0x0E-0x1F, 0x7F. */
bool pq_binary_is_text(const uint8_t *p, size_t n);

#endif
