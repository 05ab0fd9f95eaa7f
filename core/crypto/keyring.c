/* The key_file parser and its lookups (format: pq_keyring.h, and the
 * contract's "key_file" section). Messages name the file and the line,
 * never a key: a mistyped key_file must not print its secrets. */
#include "config.h"

#include "pq_keyring.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY_FILE_MAX (1u << 20)
#define NAME_MAX_BYTES 4096

typedef enum { E_KEY, E_FOOTER, E_COLUMN, E_AAD, E_CONTAINER } entry_kind;

typedef struct entry {
	entry_kind kind;
	int section;     /* index into globs, -1: before the first section */
	uint8_t *name;   /* key id or column path (E_KEY, E_COLUMN) */
	size_t name_len;
	uint8_t *text;   /* aad_prefix (E_AAD) */
	size_t text_len;
	pq_key key;
} entry;

struct pq_keyring {
	entry *v;
	size_t n, cap;
	char **globs;
	size_t nglobs;
};

typedef struct parser {
	const char *name;
	unsigned line;
	const char *p, *end; /* the rest of the current line */
	pq_error *err;
} parser;

static pq_status bad(parser *ps, const char *what)
{
	return pq_fail(ps->err, PQ_EINVAL, "%s, line %u: %s", ps->name, ps->line, what);
}

static void skip_ws(parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r'))
		ps->p++;
}

/* True when only blanks and a comment remain on the line. */
static bool at_end(parser *ps)
{
	skip_ws(ps);
	return ps->p == ps->end || *ps->p == '#';
}

/* A "..." string with \" and \\ escapes; ps->p is at the opening quote. */
static pq_status quoted(parser *ps, uint8_t *out, size_t cap, size_t *n, const char *what)
{
	char msg[128];
	ps->p++;
	*n = 0;
	for (;;) {
		if (ps->p == ps->end) {
			snprintf(msg, sizeof msg, "%s: the quoted string has no closing quote", what);
			return bad(ps, msg);
		}
		char c = *ps->p++;
		if (c == '"')
			return PQ_OK;
		if (c == '\\') {
			if (ps->p == ps->end || (*ps->p != '"' && *ps->p != '\\')) {
				snprintf(msg, sizeof msg, "%s: only \\\" and \\\\ are escapes in a quoted string", what);
				return bad(ps, msg);
			}
			c = *ps->p++;
		}
		if (*n == cap) {
			snprintf(msg, sizeof msg, "%s: the quoted string is longer than %zu bytes", what, cap);
			return bad(ps, msg);
		}
		out[(*n)++] = (uint8_t)c;
	}
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* KEY: hex or a quoted string of 16, 24 or 32 bytes; what names the line's
 * subject ("key kc1") in messages, which never show the key. */
static pq_status parse_key(parser *ps, pq_key *key, const char *what)
{
	char msg[256];
	skip_ws(ps);
	size_t n = 0;
	if (ps->p < ps->end && *ps->p == '"') {
		uint8_t buf[64];
		pq_status st = quoted(ps, buf, sizeof buf, &n, what);
		if (st != PQ_OK)
			return st;
		if (n != 16 && n != 24 && n != 32) {
			pq_crypto_wipe(buf, sizeof buf);
			snprintf(msg, sizeof msg, "%s: the quoted key has %zu bytes; a key has 16, 24 or 32", what, n);
			return bad(ps, msg);
		}
		memcpy(key->b, buf, n);
		pq_crypto_wipe(buf, sizeof buf);
	} else {
		const char *s = ps->p;
		while (ps->p < ps->end && *ps->p != ' ' && *ps->p != '\t' && *ps->p != '\r' && *ps->p != '#')
			ps->p++;
		size_t digits = (size_t)(ps->p - s);
		if (digits == 0) {
			snprintf(msg, sizeof msg, "%s: no key after the colon (hex, or a quoted string)", what);
			return bad(ps, msg);
		}
		for (size_t i = 0; i < digits; i++)
			if (hexval(s[i]) < 0) {
				snprintf(msg, sizeof msg, "%s: a key is hex digits or a quoted string (character %zu is not hex)",
					 what, i + 1);
				return bad(ps, msg);
			}
		if (digits != 32 && digits != 48 && digits != 64) {
			snprintf(msg, sizeof msg, "%s: the key has %zu hex digits; a key has 32, 48 or 64 (16, 24 or 32 bytes)",
				 what, digits);
			return bad(ps, msg);
		}
		n = digits / 2;
		for (size_t i = 0; i < n; i++)
			key->b[i] = (uint8_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]));
	}
	key->len = (uint8_t)n;
	if (!at_end(ps)) {
		snprintf(msg, sizeof msg, "%s: unexpected text after the key", what);
		return bad(ps, msg);
	}
	return PQ_OK;
}

/* A key id or column path: quoted, or the text up to the colon. */
static pq_status parse_name(parser *ps, uint8_t *buf, size_t *n, const char *what)
{
	char msg[128];
	skip_ws(ps);
	if (ps->p < ps->end && *ps->p == '"') {
		PQ_TRY(quoted(ps, buf, NAME_MAX_BYTES, n, what));
		skip_ws(ps);
	} else {
		const char *s = ps->p;
		while (ps->p < ps->end && *ps->p != ':' && *ps->p != '#')
			ps->p++;
		const char *e = ps->p;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		*n = (size_t)(e - s);
		if (*n > NAME_MAX_BYTES) {
			snprintf(msg, sizeof msg, "%s: the name is longer than %d bytes", what, NAME_MAX_BYTES);
			return bad(ps, msg);
		}
		memcpy(buf, s, *n);
	}
	if (*n == 0) {
		snprintf(msg, sizeof msg, "%s: a name is needed before the colon", what);
		return bad(ps, msg);
	}
	if (ps->p == ps->end || *ps->p != ':') {
		snprintf(msg, sizeof msg, "%s: expected a colon after the name", what);
		return bad(ps, msg);
	}
	ps->p++;
	return PQ_OK;
}

static pq_status add(pq_keyring *kr, const entry *e, parser *ps)
{
	if (kr->n == kr->cap) {
		size_t cap = kr->cap ? kr->cap * 2 : 16;
		entry *v = realloc(kr->v, cap * sizeof *v);
		if (!v)
			return pq_fail(ps->err, PQ_ENOMEM, "%s: no memory", ps->name);
		kr->v = v;
		kr->cap = cap;
	}
	kr->v[kr->n++] = *e;
	return PQ_OK;
}

/* "word" then blanks or a colon: true and past the word when it is there. */
static bool word(parser *ps, const char *w, bool colon_next)
{
	size_t n = strlen(w);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, w, n) != 0)
		return false;
	const char *q = ps->p + n;
	if (colon_next) {
		while (q < ps->end && (*q == ' ' || *q == '\t'))
			q++;
		if (q == ps->end || *q != ':')
			return false;
		ps->p = q + 1;
		return true;
	}
	if (q == ps->end || (*q != ' ' && *q != '\t'))
		return false;
	ps->p = q;
	return true;
}

static pq_status parse_line(pq_keyring *kr, parser *ps, uint8_t *namebuf)
{
	if (at_end(ps))
		return PQ_OK;
	int section = (int)kr->nglobs - 1;
	entry e = {0};
	e.section = section;
	char what[160];
	if (*ps->p == '[') {
		const char *s = ++ps->p;
		while (ps->p < ps->end && *ps->p != ']')
			ps->p++;
		if (ps->p == ps->end)
			return bad(ps, "a section line is [GLOB]: the ] is missing");
		size_t n = (size_t)(ps->p - s);
		ps->p++;
		if (n == 0)
			return bad(ps, "a section needs a glob between [ and ]");
		if (!at_end(ps))
			return bad(ps, "unexpected text after the section's ]");
		char **g = realloc(kr->globs, (kr->nglobs + 1) * sizeof *g);
		if (!g)
			return pq_fail(ps->err, PQ_ENOMEM, "%s: no memory", ps->name);
		kr->globs = g;
		g[kr->nglobs] = strndup(s, n);
		if (!g[kr->nglobs])
			return pq_fail(ps->err, PQ_ENOMEM, "%s: no memory", ps->name);
		kr->nglobs++;
		return PQ_OK;
	}
	bool is_key = word(ps, "key", false);
	if (is_key || word(ps, "column", false)) {
		e.kind = is_key ? E_KEY : E_COLUMN;
		size_t n;
		PQ_TRY(parse_name(ps, namebuf, &n, is_key ? "key" : "column"));
		snprintf(what, sizeof what, "%s %.*s", is_key ? "key" : "column",
			 (int)(n > 64 ? 64 : n), (const char *)namebuf);
		pq_status kst = parse_key(ps, &e.key, what);
		if (kst != PQ_OK) {
			pq_crypto_wipe(&e.key, sizeof e.key);
			return kst;
		}
		e.name = malloc(n);
		if (!e.name)
			return pq_fail(ps->err, PQ_ENOMEM, "%s: no memory", ps->name);
		memcpy(e.name, namebuf, n);
		e.name_len = n;
		pq_status st = add(kr, &e, ps);
		if (st != PQ_OK)
			free(e.name);
		pq_crypto_wipe(&e.key, sizeof e.key);
		return st;
	}
	if (word(ps, "footer", true)) {
		e.kind = E_FOOTER;
		pq_status st = parse_key(ps, &e.key, "footer");
		if (st == PQ_OK)
			st = add(kr, &e, ps);
		pq_crypto_wipe(&e.key, sizeof e.key);
		return st;
	}
	if (word(ps, "container", true)) {
		/* an ARUNA container's key: ChaCha20-Poly1305 takes 32 bytes only */
		e.kind = E_CONTAINER;
		pq_status st = parse_key(ps, &e.key, "container");
		if (st == PQ_OK && e.key.len != 32)
			st = bad(ps, "container: a container key has 32 bytes (64 hex digits or a "
				     "quoted 32-character string)");
		if (st == PQ_OK)
			st = add(kr, &e, ps);
		pq_crypto_wipe(&e.key, sizeof e.key);
		return st;
	}
	if (word(ps, "aad_prefix", true)) {
		e.kind = E_AAD;
		size_t n = 0;
		skip_ws(ps);
		if (ps->p < ps->end && *ps->p == '"') {
			PQ_TRY(quoted(ps, namebuf, NAME_MAX_BYTES, &n, "aad_prefix"));
			if (!at_end(ps))
				return bad(ps, "aad_prefix: unexpected text after the quoted prefix");
		} else {
			const char *s = ps->p;
			while (ps->p < ps->end && *ps->p != '#')
				ps->p++;
			const char *q = ps->p;
			while (q > s && (q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\r'))
				q--;
			n = (size_t)(q - s);
			if (n > NAME_MAX_BYTES)
				return bad(ps, "aad_prefix: longer than 4096 bytes");
			memcpy(namebuf, s, n);
		}
		if (n == 0)
			return bad(ps, "aad_prefix: the prefix is empty");
		e.text = malloc(n);
		if (!e.text)
			return pq_fail(ps->err, PQ_ENOMEM, "%s: no memory", ps->name);
		memcpy(e.text, namebuf, n);
		e.text_len = n;
		pq_status st = add(kr, &e, ps);
		if (st != PQ_OK)
			free(e.text);
		return st;
	}
	return bad(ps, "expected 'key ID: KEY', 'footer: KEY', 'column PATH: KEY', "
		       "'container: KEY', 'aad_prefix: TEXT' or '[GLOB]'");
}

pq_status pq_keyring_parse(const char *text, size_t len, const char *name, pq_keyring **out,
			   pq_error *err)
{
	*out = NULL;
	pq_keyring *kr = calloc(1, sizeof *kr);
	uint8_t *namebuf = malloc(NAME_MAX_BYTES);
	if (!kr || !namebuf) {
		free(kr);
		free(namebuf);
		return pq_fail(err, PQ_ENOMEM, "%s: no memory", name);
	}
	parser ps = {name, 0, NULL, NULL, err};
	const char *p = text, *end = text + len;
	pq_status st = PQ_OK;
	while (p < end && st == PQ_OK) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		ps.line++;
		ps.p = p;
		ps.end = le;
		if (memchr(p, '\0', (size_t)(le - p)))
			st = bad(&ps, "a NUL byte: the key_file is text");
		else
			st = parse_line(kr, &ps, namebuf);
		p = nl ? nl + 1 : end;
	}
	free(namebuf);
	if (st != PQ_OK) {
		pq_keyring_free(kr);
		return st;
	}
	*out = kr;
	return PQ_OK;
}

pq_status pq_keyring_load(const char *path, pq_keyring **out, pq_error *err)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	PQ_CHECK(fd >= 0, err, PQ_EIO, "key_file %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (off_t)KEY_FILE_MAX) {
		close(fd);
		return pq_fail(err, PQ_EINVAL, "key_file %s: not a regular file of at most 1 MiB", path);
	}
	size_t size = (size_t)st.st_size;
	char *buf = malloc(size ? size : 1);
	if (!buf) {
		close(fd);
		return pq_fail(err, PQ_ENOMEM, "key_file %s: no memory", path);
	}
	size_t got = 0;
	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	pq_status s = got == size ? pq_keyring_parse(buf, size, path, out, err)
				  : pq_fail(err, PQ_EIO, "key_file %s: read failed", path);
	pq_crypto_wipe(buf, size);
	free(buf);
	return s;
}

void pq_keyring_free(pq_keyring *kr)
{
	if (!kr)
		return;
	for (size_t i = 0; i < kr->n; i++) {
		pq_crypto_wipe(&kr->v[i].key, sizeof kr->v[i].key);
		free(kr->v[i].name);
		free(kr->v[i].text);
	}
	free(kr->v);
	for (size_t i = 0; i < kr->nglobs; i++)
		free(kr->globs[i]);
	free(kr->globs);
	free(kr);
}

static bool applies(const pq_keyring *kr, const entry *e, const char *path)
{
	/* The contract's glob: `*` and `?` never match '/' (FNM_PATHNAME), '\\'
	 * is an ordinary byte (FNM_NOESCAPE). A section line ends at its first
	 * ']', so a glob holds no complete bracket expression: a '[' in it is
	 * unterminated, which fnmatch matches as itself. */
	return e->section < 0 ||
	       fnmatch(kr->globs[e->section], path ? path : "", FNM_PATHNAME | FNM_NOESCAPE) == 0;
}

bool pq_keyring_key(const pq_keyring *kr, const char *path, const uint8_t *id, size_t id_len,
		    pq_key *out)
{
	bool found = false;
	for (size_t i = 0; kr && i < kr->n; i++) {
		const entry *e = &kr->v[i];
		if (e->kind == E_KEY && e->name_len == id_len && memcmp(e->name, id, id_len) == 0 &&
		    applies(kr, e, path)) {
			*out = e->key;
			found = true;
		}
	}
	return found;
}

bool pq_keyring_footer_key(const pq_keyring *kr, const char *path, pq_key *out)
{
	bool found = false;
	for (size_t i = 0; kr && i < kr->n; i++)
		if (kr->v[i].kind == E_FOOTER && applies(kr, &kr->v[i], path)) {
			*out = kr->v[i].key;
			found = true;
		}
	return found;
}

bool pq_keyring_container_key(const pq_keyring *kr, const char *path, pq_key *out)
{
	bool found = false;
	for (size_t i = 0; kr && i < kr->n; i++)
		if (kr->v[i].kind == E_CONTAINER && applies(kr, &kr->v[i], path)) {
			*out = kr->v[i].key;
			found = true;
		}
	return found;
}

bool pq_keyring_column_key(const pq_keyring *kr, const char *path, const char *column,
			   size_t column_len, pq_key *out)
{
	bool found = false;
	for (size_t i = 0; kr && i < kr->n; i++) {
		const entry *e = &kr->v[i];
		if (e->kind == E_COLUMN && e->name_len == column_len &&
		    memcmp(e->name, column, column_len) == 0 && applies(kr, e, path)) {
			*out = e->key;
			found = true;
		}
	}
	return found;
}

bool pq_keyring_aad_prefix(const pq_keyring *kr, const char *path, const uint8_t **p, size_t *n)
{
	bool found = false;
	for (size_t i = 0; kr && i < kr->n; i++)
		if (kr->v[i].kind == E_AAD && applies(kr, &kr->v[i], path)) {
			*p = kr->v[i].text;
			*n = kr->v[i].text_len;
			found = true;
		}
	return found;
}
