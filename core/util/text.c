/* Text rendering: U+FFFD replacement, the binary rule, hex, and the
 * escaping of each output mode (CSV, JSON, values.txt). UTF-8 sequences
 * are checked by pq_utf8_seq (pq_utf8.h). */
#include "config.h"

#include <string.h>

#include "pq_text.h"
#include "pq_utf8.h"

static const uint8_t replacement[3] = {0xEF, 0xBF, 0xBD}; /* U+FFFD */

/* ASCII bytes that the binary rule does not accept as text. */
static bool forbidden_control(uint8_t c)
{
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F;
}

bool pq_binary_is_text(const uint8_t *p, size_t n)
{
	size_t i = 0, bad;
	while (i < n) {
		uint8_t c = p[i];
		if (c < 0x80) {
			if (forbidden_control(c))
				return false;
			i++;
			continue;
		}
		size_t len = pq_utf8_seq(p + i, n - i, &bad);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

/* Which ASCII bytes need an escape, per mode (1 = escape). CSV doubles
 * `"` (only ever inside a quoted field: a field holding `"` is quoted). */
#define CTL8(a) 1, 1, 1, 1, 1, 1, 1, 1
static const uint8_t esc_values[128] = {['\\'] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};
static const uint8_t esc_csv[128] = {['"'] = 1};
static const uint8_t esc_json[128] = {CTL8(0), CTL8(1), CTL8(2), CTL8(3),
				      ['"'] = 1, ['\\'] = 1};
static const uint8_t esc_none[128] = {0};

static void put_escape(pq_render_mode mode, uint8_t c, pq_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	if (mode == PQ_MODE_CSV) {
		pq_buf_append(out, "\"\"", 2);
		return;
	}
	char e;
	switch (c) {
	case '\\': e = '\\'; break;
	case '"': e = '"'; break;
	case '\n': e = 'n'; break;
	case '\r': e = 'r'; break;
	case '\t': e = 't'; break;
	case '\b': e = 'b'; break;
	case '\f': e = 'f'; break;
	default: {
		char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
		pq_buf_append(out, u, 6);
		return;
	}
	}
	char s[2] = {'\\', e};
	pq_buf_append(out, s, 2);
}

/* Copies runs of text that need nothing, escaping per table and replacing
 * invalid UTF-8; one pass. */
static void emit(const uint8_t *p, size_t n, pq_render_mode mode, const uint8_t *esc,
		 pq_buf *out)
{
	size_t i = 0, run = 0, bad;
	while (i < n) {
		uint8_t c = p[i];
		if (c < 0x80) {
			if (!esc[c]) {
				i++;
				continue;
			}
			pq_buf_append(out, p + run, i - run);
			put_escape(mode, c, out);
			run = ++i;
			continue;
		}
		size_t len = pq_utf8_seq(p + i, n - i, &bad);
		if (len) {
			i += len;
			continue;
		}
		pq_buf_append(out, p + run, i - run);
		pq_buf_append(out, replacement, sizeof replacement);
		i += bad;
		run = i;
	}
	pq_buf_append(out, p + run, n - run);
}

static bool csv_needs_quotes(const uint8_t *p, size_t n)
{
	if (n == 0)
		return true; /* the empty string, as opposed to NULL */
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (c == ',' || c == '"' || c == '\n' || c == '\r')
			return true;
	}
	return false;
}

void pq_render_text(const uint8_t *p, size_t n, pq_render_mode mode, pq_buf *out)
{
	if (n == 0) { /* p may be NULL */
		if (mode == PQ_MODE_CSV || mode == PQ_MODE_JSON)
			pq_buf_append(out, "\"\"", 2);
		return;
	}
	switch (mode) {
	case PQ_MODE_TEXT:
		emit(p, n, mode, esc_none, out);
		return;
	case PQ_MODE_VALUES:
		emit(p, n, mode, esc_values, out);
		return;
	case PQ_MODE_CSV:
		if (!csv_needs_quotes(p, n)) {
			emit(p, n, mode, esc_none, out);
			return;
		}
		pq_buf_putc(out, '"');
		emit(p, n, mode, esc_csv, out);
		pq_buf_putc(out, '"');
		return;
	case PQ_MODE_JSON:
		pq_buf_putc(out, '"');
		emit(p, n, mode, esc_json, out);
		pq_buf_putc(out, '"');
		return;
	}
}

/* What each ASCII byte adds, in 16-bit lanes summed over a stretch of
 * the string: JSON escape bytes (lane 0), values.txt escape bytes (1),
 * CSV bytes that force quotes (2), CSV `"` to double (3). */
#define LANE(json, values, csvq, csvd)                                                         \
	((uint64_t)(json) | (uint64_t)(values) << 16 | (uint64_t)(csvq) << 32 |                \
	 (uint64_t)(csvd) << 48)
static uint64_t measure_lanes[128];

static void measure_init(void)
{
	for (unsigned c = 0; c < 128; c++) {
		unsigned j = 0;
		if (esc_json[c])
			j = c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' ||
				    c == '\f'
				    ? 1
				    : 5; /* \u00xx */
		measure_lanes[c] = LANE(j, esc_values[c], c == ',' || c == '"' || c == '\n' || c == '\r',
					c == '"');
	}
}

/* Adds the lanes of an ASCII stretch (at most 8192 bytes: 5 * 8192 fits a lane). */
static void add_lanes(uint64_t w, uint64_t *json, uint64_t *values, uint64_t *csvq, uint64_t *csvd)
{
	*json += w & 0xFFFF;
	*values += w >> 16 & 0xFFFF;
	*csvq += w >> 32 & 0xFFFF;
	*csvd += w >> 48;
}

/* Eight bytes that every mode shows as they are: ASCII, none below 0x20,
 * none of `"` `,` `\\` (word tricks: a byte below k, a byte equal to b). */
static inline bool plain8(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t q = w ^ (ones * '"'), c = w ^ (ones * ','), b = w ^ (ones * '\\');
	uint64_t hit = w | ((w - ones * 0x20) & ~w) | ((q - ones) & ~q) | ((c - ones) & ~c) |
		       ((b - ones) & ~b);
	return (hit & high) == 0;
}

void pq_text_measure(const uint8_t *p, size_t n, uint64_t *values, uint64_t *csv,
		     uint64_t *json)
{
	static int ready; /* benign: every thread writes the same table */
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
		measure_init();
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	if (n == 0) {
		*csv += 2;
		*json += 2;
		return;
	}
	/* len: the text with U+FFFD for invalid subparts, escapes not counted */
	uint64_t len = n, ej = 0, ev = 0, cq = 0, cd = 0, w = 0;
	size_t i = 0, stretch = 0, bad;
	while (i < n) {
		if (n - i >= 8) { /* text that needs nothing, a word at a time */
			uint64_t word;
			memcpy(&word, p + i, 8);
			if (plain8(word)) {
				i += 8;
				continue;
			}
		}
		uint8_t c = p[i];
		if (c < 0x80) {
			w += measure_lanes[c];
			i++;
			if (++stretch == 8192) {
				add_lanes(w, &ej, &ev, &cq, &cd);
				w = 0;
				stretch = 0;
			}
			continue;
		}
		size_t l = pq_utf8_seq(p + i, n - i, &bad);
		if (l) {
			i += l;
			continue;
		}
		len = len - bad + sizeof replacement;
		i += bad;
	}
	add_lanes(w, &ej, &ev, &cq, &cd);
	*values += len + ev;
	*csv += len + (cq ? 2 + cd : 0);
	*json += len + 2 + ej;
}

void pq_render_json_string(const uint8_t *p, size_t n, pq_buf *out)
{
	pq_render_text(p, n, PQ_MODE_JSON, out);
}

void pq_render_csv_field(const uint8_t *p, size_t n, pq_buf *out)
{
	pq_render_text(p, n, PQ_MODE_CSV, out);
}

void pq_render_values_escape(const uint8_t *p, size_t n, pq_buf *out)
{
	pq_render_text(p, n, PQ_MODE_VALUES, out);
}

void pq_render_hex(const uint8_t *p, size_t n, pq_render_mode mode, pq_buf *out)
{
	static const char hex[] = "0123456789abcdef";
	bool quote = mode == PQ_MODE_JSON;
	if (n > (SIZE_MAX - 4) / 2 || !pq_buf_grow(out, 2 * n + 4))
		return;
	uint8_t *o = out->p + out->len;
	if (quote)
		*o++ = '"';
	*o++ = '0';
	*o++ = 'x';
	for (size_t i = 0; i < n; i++) {
		*o++ = (uint8_t)hex[p[i] >> 4];
		*o++ = (uint8_t)hex[p[i] & 15];
	}
	if (quote)
		*o++ = '"';
	out->len = (size_t)(o - out->p);
}

void pq_render_binary(const uint8_t *p, size_t n, pq_render_mode mode, pq_buf *out)
{
	if (pq_binary_is_text(p, n))
		pq_render_text(p, n, mode, out);
	else
		pq_render_hex(p, n, mode, out);
}
