/* A small strict RFC 8259 JSON parser for tests: reads the facts.json
 * files of the test data and checks that our JSON output is valid JSON.
 * Written independently of core/format/metadata_json.c on purpose. */
#ifndef MINIJSON_H
#define MINIJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct mj mj;
struct mj {
	char type;       /* o a s n t f z (object array string number true false null) */
	char *str;       /* strings (NUL-terminated, may hold NULs: see len) and numbers (raw text) */
	size_t len;
	double num;
	size_t n;        /* object members / array items */
	char **keys;
	mj **items;
};

typedef struct mj_parser {
	const char *p, *end;
	int depth;
	bool bad;
} mj_parser;

static void mj_free(mj *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		mj_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
}

static void mj_ws(mj_parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static int mj_hex(char c)
{
	if (c >= '0' && c <= '9') return c - '0';
	if (c >= 'a' && c <= 'f') return c - 'a' + 10;
	if (c >= 'A' && c <= 'F') return c - 'A' + 10;
	return -1;
}

static void mj_put_utf8(char *out, size_t *k, uint32_t cp)
{
	if (cp < 0x80) {
		out[(*k)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*k)++] = (char)(0xc0 | cp >> 6);
		out[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*k)++] = (char)(0xe0 | cp >> 12);
		out[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*k)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*k)++] = (char)(0xf0 | cp >> 18);
		out[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*k)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* Strict UTF-8 check of one sequence; returns its length or 0. */
static size_t mj_utf8(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;
	uint32_t cp, min;
	if (c < 0x80) return 1;
	if ((c & 0xe0) == 0xc0) { len = 2; cp = c & 0x1f; min = 0x80; }
	else if ((c & 0xf0) == 0xe0) { len = 3; cp = c & 0x0f; min = 0x800; }
	else if ((c & 0xf8) == 0xf0) { len = 4; cp = c & 0x07; min = 0x10000; }
	else return 0;
	if (n < len) return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80) return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
	return len;
}

static char *mj_string(mj_parser *ps, size_t *len)
{
	/* at the opening quote */
	ps->p++;
	size_t cap = (size_t)(ps->end - ps->p) + 1, k = 0;
	char *out = malloc(cap);
	if (!out) { ps->bad = true; return NULL; }
	while (ps->p < ps->end && *ps->p != '"') {
		unsigned char c = (unsigned char)*ps->p;
		if (c < 0x20) goto bad;
		if (c == '\\') {
			if (++ps->p >= ps->end) goto bad;
			char e = *ps->p++;
			switch (e) {
			case '"': out[k++] = '"'; break;
			case '\\': out[k++] = '\\'; break;
			case '/': out[k++] = '/'; break;
			case 'b': out[k++] = '\b'; break;
			case 'f': out[k++] = '\f'; break;
			case 'n': out[k++] = '\n'; break;
			case 'r': out[k++] = '\r'; break;
			case 't': out[k++] = '\t'; break;
			case 'u': {
				uint32_t cp = 0;
				for (int i = 0; i < 4; i++) {
					if (ps->p >= ps->end || mj_hex(*ps->p) < 0) goto bad;
					cp = cp << 4 | (uint32_t)mj_hex(*ps->p++);
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					uint32_t lo = 0;
					if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') goto bad;
					ps->p += 2;
					for (int i = 0; i < 4; i++) {
						if (mj_hex(*ps->p) < 0) goto bad;
						lo = lo << 4 | (uint32_t)mj_hex(*ps->p++);
					}
					if (lo < 0xdc00 || lo > 0xdfff) goto bad;
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				} else if (cp >= 0xdc00 && cp <= 0xdfff) {
					goto bad;
				}
				mj_put_utf8(out, &k, cp);
				break;
			}
			default: goto bad;
			}
			continue;
		}
		size_t u = mj_utf8((const unsigned char *)ps->p, (size_t)(ps->end - ps->p));
		if (!u) goto bad;
		memcpy(out + k, ps->p, u);
		k += u;
		ps->p += u;
	}
	if (ps->p >= ps->end) goto bad;
	ps->p++;
	out[k] = '\0';
	*len = k;
	return out;
bad:
	free(out);
	ps->bad = true;
	return NULL;
}

static mj *mj_value(mj_parser *ps);

static bool mj_push(mj *v, char *key, mj *item)
{
	mj **items = realloc(v->items, (v->n + 1) * sizeof *items);
	if (!items) return false;
	v->items = items;
	if (v->type == 'o') {
		char **keys = realloc(v->keys, (v->n + 1) * sizeof *keys);
		if (!keys) return false;
		v->keys = keys;
		keys[v->n] = key;
	}
	items[v->n++] = item;
	return true;
}

static mj *mj_value(mj_parser *ps)
{
	mj_ws(ps);
	if (ps->bad || ps->p >= ps->end || ps->depth > 200) { ps->bad = true; return NULL; }
	mj *v = calloc(1, sizeof *v);
	if (!v) { ps->bad = true; return NULL; }
	char c = *ps->p;
	if (c == '{' || c == '[') {
		v->type = c == '{' ? 'o' : 'a';
		char close = c == '{' ? '}' : ']';
		ps->p++;
		ps->depth++;
		mj_ws(ps);
		if (ps->p < ps->end && *ps->p == close) {
			ps->p++;
			ps->depth--;
			return v;
		}
		for (;;) {
			char *key = NULL;
			if (v->type == 'o') {
				mj_ws(ps);
				size_t kl;
				if (ps->p >= ps->end || *ps->p != '"' || !(key = mj_string(ps, &kl))) break;
				mj_ws(ps);
				if (ps->p >= ps->end || *ps->p != ':') { free(key); break; }
				ps->p++;
			}
			mj *item = mj_value(ps);
			if (!item || !mj_push(v, key, item)) { free(key); mj_free(item); break; }
			mj_ws(ps);
			if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
			if (ps->p < ps->end && *ps->p == close) {
				ps->p++;
				ps->depth--;
				return v;
			}
			break;
		}
		ps->bad = true;
		mj_free(v);
		return NULL;
	}
	if (c == '"') {
		v->type = 's';
		if (!(v->str = mj_string(ps, &v->len))) { mj_free(v); return NULL; }
		return v;
	}
	static const char *const lits[] = {"true", "false", "null"};
	for (int i = 0; i < 3; i++) {
		size_t l = strlen(lits[i]);
		if ((size_t)(ps->end - ps->p) >= l && memcmp(ps->p, lits[i], l) == 0) {
			v->type = "tfz"[i];
			ps->p += l;
			return v;
		}
	}
	/* number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
	const char *s = ps->p, *q = s;
	if (q < ps->end && *q == '-') q++;
	if (q < ps->end && *q == '0') q++;
	else if (q < ps->end && *q >= '1' && *q <= '9') { while (q < ps->end && *q >= '0' && *q <= '9') q++; }
	else goto bad;
	if (q < ps->end && *q == '.') {
		q++;
		if (q >= ps->end || *q < '0' || *q > '9') goto bad;
		while (q < ps->end && *q >= '0' && *q <= '9') q++;
	}
	if (q < ps->end && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < ps->end && (*q == '+' || *q == '-')) q++;
		if (q >= ps->end || *q < '0' || *q > '9') goto bad;
		while (q < ps->end && *q >= '0' && *q <= '9') q++;
	}
	v->type = 'n';
	v->len = (size_t)(q - s);
	v->str = malloc(v->len + 1);
	if (!v->str) goto bad;
	memcpy(v->str, s, v->len);
	v->str[v->len] = '\0';
	v->num = strtod(v->str, NULL);
	ps->p = q;
	return v;
bad:
	ps->bad = true;
	mj_free(v);
	return NULL;
}

/* Parses a whole document; NULL when it is not valid JSON. */
static mj *mj_parse(const char *s, size_t n)
{
	mj_parser ps = {s, s + n, 0, false};
	mj *v = mj_value(&ps);
	mj_ws(&ps);
	if (!v || ps.bad || ps.p != ps.end) {
		mj_free(v);
		return NULL;
	}
	return v;
}

static mj *mj_get(const mj *o, const char *key)
{
	if (!o || o->type != 'o')
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return o->items[i];
	return NULL;
}

static mj *mj_at(const mj *a, size_t i)
{
	return a && a->type == 'a' && i < a->n ? a->items[i] : NULL;
}

#endif
