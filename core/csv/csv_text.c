/* Text checks for CSV values: trimming, a validating JSON
 * scanner (RFC 8259) and quoting a value for an error message. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pq_csv.h"
#include "util/pq_utf8.h"

#define JSON_MAX_DEPTH 256

void pq_cv_trim(const uint8_t **p, size_t *n)
{
	const uint8_t *s = *p;
	size_t len = *n;
	while (len && (s[0] == ' ' || s[0] == '\t')) {
		s++;
		len--;
	}
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	*p = s;
	*n = len;
}

/* ---- JSON ------------------------------------------------------------- */

typedef struct json {
	const uint8_t *p;
	size_t n, i;
} json;

static void json_ws(json *j)
{
	while (j->i < j->n && (j->p[j->i] == ' ' || j->p[j->i] == '\t' || j->p[j->i] == '\n' ||
			       j->p[j->i] == '\r'))
		j->i++;
}

static bool json_lit(json *j, const char *w)
{
	size_t l = strlen(w);
	if (j->n - j->i < l || memcmp(j->p + j->i, w, l))
		return false;
	j->i += l;
	return true;
}

static bool is_hex(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool json_string(json *j)
{
	j->i++; /* the opening quote */
	while (j->i < j->n) {
		uint8_t c = j->p[j->i];
		if (c == '"') {
			j->i++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (j->n - j->i < 2)
				return false;
			uint8_t e = j->p[j->i + 1];
			if (e == 'u') {
				if (j->n - j->i < 6)
					return false;
				for (size_t k = 2; k < 6; k++)
					if (!is_hex(j->p[j->i + k]))
						return false;
				j->i += 6;
			} else if (strchr("\"\\/bfnrt", e) && e) {
				j->i += 2;
			} else {
				return false;
			}
			continue;
		}
		if (c < 0x80) {
			j->i++;
			continue;
		}
		size_t bad, l = pq_utf8_seq(j->p + j->i, j->n - j->i, &bad);
		if (!l)
			return false;
		j->i += l;
	}
	return false;
}

static bool json_digits(json *j)
{
	size_t s = j->i;
	while (j->i < j->n && j->p[j->i] >= '0' && j->p[j->i] <= '9')
		j->i++;
	return j->i > s;
}

static bool json_number(json *j)
{
	if (j->p[j->i] == '-')
		j->i++;
	if (j->i < j->n && j->p[j->i] == '0')
		j->i++;
	else if (!json_digits(j))
		return false;
	if (j->i < j->n && j->p[j->i] == '.') {
		j->i++;
		if (!json_digits(j))
			return false;
	}
	if (j->i < j->n && (j->p[j->i] == 'e' || j->p[j->i] == 'E')) {
		j->i++;
		if (j->i < j->n && (j->p[j->i] == '+' || j->p[j->i] == '-'))
			j->i++;
		if (!json_digits(j))
			return false;
	}
	return true;
}

static bool json_value(json *j, unsigned depth)
{
	json_ws(j);
	if (j->i >= j->n)
		return false;
	uint8_t c = j->p[j->i];
	if (c == '"')
		return json_string(j);
	if (c == '-' || (c >= '0' && c <= '9'))
		return json_number(j);
	if (c == 't')
		return json_lit(j, "true");
	if (c == 'f')
		return json_lit(j, "false");
	if (c == 'n')
		return json_lit(j, "null");
	if (c != '[' && c != '{')
		return false;
	if (depth >= JSON_MAX_DEPTH)
		return false;
	uint8_t close = c == '[' ? ']' : '}';
	j->i++;
	json_ws(j);
	if (j->i < j->n && j->p[j->i] == close) {
		j->i++;
		return true;
	}
	for (;;) {
		if (close == '}') {
			json_ws(j);
			if (j->i >= j->n || j->p[j->i] != '"' || !json_string(j))
				return false;
			json_ws(j);
			if (j->i >= j->n || j->p[j->i] != ':')
				return false;
			j->i++;
		}
		if (!json_value(j, depth + 1))
			return false;
		json_ws(j);
		if (j->i >= j->n)
			return false;
		if (j->p[j->i] == ',') {
			j->i++;
			continue;
		}
		if (j->p[j->i] != close)
			return false;
		j->i++;
		return true;
	}
}

bool pq_cv_json_valid(const uint8_t *p, size_t n)
{
	json j = {p, n, 0};
	if (!json_value(&j, 0))
		return false;
	json_ws(&j);
	return j.i == n;
}

/* ---- messages --------------------------------------------------------- */

#define QUOTE_MAX 60

void pq_cv_quote(const uint8_t *p, size_t n, char *out, size_t outlen)
{
	size_t cut = n;
	if (cut > QUOTE_MAX) {
		cut = QUOTE_MAX;
		while (cut > 0 && (p[cut] & 0xC0) == 0x80)
			cut--; /* not inside a UTF-8 sequence */
	}
	bool utf8 = pq_utf8_first_invalid(p, cut) == cut;
	size_t o = 0;
	if (outlen < 8) {
		if (outlen)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	for (size_t i = 0; i < cut && o + 8 < outlen; i++) {
		uint8_t c = p[i];
		const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
				  : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
		if (esc) {
			memcpy(out + o, esc, 2);
			o += 2;
		} else if (c < 0x20 || c == 0x7F || (c >= 0x80 && !utf8)) {
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	if (cut < n && o + 4 < outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o++] = '"';
	out[o] = '\0';
}
