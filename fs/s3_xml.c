/* S3's XML answers with expat (s3_xml.h). Elements are matched by their
 * local name (S3 puts everything in one default namespace); only the
 * direct children of ListBucketResult, Contents and CommonPrefixes count,
 * so a Key inside Owner or elsewhere is never taken for an object's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <expat.h>

#include "s3_xml.h"

#define TEXT_MAX 4096
/* a key as sent: URL-encoded, each byte may take three */
#define PFS_S3_KEY_TEXT_MAX (3 * PFS_S3_KEY_MAX)
#define DEPTH_MAX 16

typedef struct parser {
	XML_Parser x;
	char stack[DEPTH_MAX][48]; /* local names of the open elements (cut) */
	int depth;
	char text[TEXT_MAX + 1];
	size_t tlen;
	bool too_long;
	pfs_s3_page *page;
	pfs_s3_obj cur;     /* the Contents being read */
	bool bad;
	char why[160];
	/* pfs_s3_xml_value */
	const char *want;
	char *out;
	size_t outn;
	bool found;
} parser;

static const char *local_name(const char *n)
{
	const char *s = strrchr(n, ' '); /* namespace separator, if any */
	return s ? s + 1 : n;
}

static void fail(parser *p, const char *why)
{
	if (!p->bad)
		snprintf(p->why, sizeof p->why, "%s", why);
	p->bad = true;
	XML_StopParser(p->x, XML_FALSE);
}

static const char *parent(const parser *p, int up)
{
	int i = p->depth - 1 - up;
	return i >= 0 && i < DEPTH_MAX ? p->stack[i] : "";
}

static void on_start(void *u, const XML_Char *name, const XML_Char **attrs)
{
	(void)attrs;
	parser *p = u;
	if (p->depth >= DEPTH_MAX) {
		fail(p, "nested too deeply");
		return;
	}
	snprintf(p->stack[p->depth++], sizeof p->stack[0], "%s", local_name(name));
	p->tlen = 0;
	p->too_long = false;
	if (p->page && !strcmp(p->stack[p->depth - 1], "Contents") &&
	    !strcmp(parent(p, 1), "ListBucketResult")) {
		memset(&p->cur, 0, sizeof p->cur);
		p->cur.size = UINT64_MAX;
	}
}

static void on_text(void *u, const XML_Char *s, int len)
{
	parser *p = u;
	if (len < 0)
		return;
	if (p->tlen + (size_t)len > TEXT_MAX) {
		p->too_long = true;
		return;
	}
	memcpy(p->text + p->tlen, s, (size_t)len);
	p->tlen += (size_t)len;
}

static bool add_obj(parser *p)
{
	pfs_s3_page *g = p->page;
	if (g->nobjs + g->nprefixes >= PFS_S3_PAGE_MAX)
		return false;
	if (g->nobjs == g->objcap) {
		size_t nc = g->objcap ? g->objcap * 2 : 64;
		pfs_s3_obj *no = realloc(g->objs, nc * sizeof *no);
		if (!no)
			return false;
		g->objs = no;
		g->objcap = nc;
	}
	g->objs[g->nobjs++] = p->cur;
	memset(&p->cur, 0, sizeof p->cur);
	return true;
}

static bool add_prefix(parser *p, char *s)
{
	pfs_s3_page *g = p->page;
	if (g->nobjs + g->nprefixes >= PFS_S3_PAGE_MAX)
		return false;
	if (g->nprefixes == g->prefcap) {
		size_t nc = g->prefcap ? g->prefcap * 2 : 16;
		char **np = realloc(g->prefixes, nc * sizeof *np);
		if (!np)
			return false;
		g->prefixes = np;
		g->prefcap = nc;
	}
	g->prefixes[g->nprefixes++] = s;
	return true;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	if (!*s)
		return false;
	uint64_t x = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

static void on_end_list(parser *p, const char *name, const char *up)
{
	const char *t = p->text;
	if (!strcmp(up, "Contents") && !strcmp(parent(p, 1), "ListBucketResult")) {
		if (!strcmp(name, "Key")) {
			if (p->tlen == 0 || p->tlen > PFS_S3_KEY_TEXT_MAX || p->too_long)
				return fail(p, "an object key is empty or too long");
			free(p->cur.key);
			if (!(p->cur.key = strdup(t)))
				return fail(p, "no memory");
		} else if (!strcmp(name, "Size")) {
			if (!parse_u64(t, &p->cur.size) || p->cur.size > ((uint64_t)1 << 53))
				return fail(p, "an object size is not a number");
		} else if (!strcmp(name, "ETag")) {
			if (p->tlen >= sizeof p->cur.etag)
				return fail(p, "an ETag is too long");
			memcpy(p->cur.etag, t, p->tlen + 1);
		} else if (!strcmp(name, "LastModified")) {
			p->cur.mtime = pfs_s3_parse_time(t);
		}
	} else if (!strcmp(name, "Contents") && !strcmp(up, "ListBucketResult")) {
		if (!p->cur.key || p->cur.size == UINT64_MAX)
			return fail(p, "an object without Key or Size");
		if (!add_obj(p))
			return fail(p, "too many entries in one page");
	} else if (!strcmp(name, "Prefix") && !strcmp(up, "CommonPrefixes") &&
		   !strcmp(parent(p, 1), "ListBucketResult")) {
		if (p->tlen == 0 || p->tlen > PFS_S3_KEY_TEXT_MAX || p->too_long)
			return fail(p, "a common prefix is empty or too long");
		char *s = strdup(t);
		if (!s || !add_prefix(p, s)) {
			free(s);
			return fail(p, "too many entries in one page");
		}
	} else if (!strcmp(up, "ListBucketResult")) {
		if (!strcmp(name, "EncodingType")) {
			p->page->url_encoded = !strcmp(t, "url");
		} else if (!strcmp(name, "IsTruncated")) {
			p->page->truncated = !strcmp(t, "true");
		} else if (!strcmp(name, "NextContinuationToken") && p->tlen) {
			if (p->too_long)
				return fail(p, "a continuation token is too long");
			free(p->page->next_token);
			if (!(p->page->next_token = strdup(t)))
				return fail(p, "no memory");
		}
	}
}

static void on_end(void *u, const XML_Char *name)
{
	parser *p = u;
	if (p->depth <= 0)
		return;
	p->text[p->tlen] = '\0';
	if (memchr(p->text, '\0', p->tlen)) /* expat never gives one; be sure */
		return fail(p, "a NUL in text");
	const char *n = local_name(name);
	p->depth--;
	const char *up = parent(p, 0);
	if (p->page) {
		on_end_list(p, n, up);
	} else if (p->want && !p->found && !strcmp(n, p->want)) {
		if (!p->too_long && p->tlen < p->outn) {
			memcpy(p->out, p->text, p->tlen + 1);
			p->found = true;
		}
		XML_StopParser(p->x, XML_FALSE);
	}
	p->tlen = 0;
	p->too_long = false;
}

static bool run(parser *p, const char *xml, size_t n)
{
	if (n > (size_t)INT32_MAX)
		return false;
	p->x = XML_ParserCreateNS(NULL, ' ');
	if (!p->x)
		return false;
	XML_SetUserData(p->x, p);
	XML_SetElementHandler(p->x, on_start, on_end);
	XML_SetCharacterDataHandler(p->x, on_text);
	enum XML_Status st = XML_Parse(p->x, xml, (int)n, XML_TRUE);
	bool ok = st == XML_STATUS_OK || (st == XML_STATUS_SUSPENDED) ||
		  (XML_GetErrorCode(p->x) == XML_ERROR_ABORTED && !p->bad);
	if (!ok && !p->bad)
		snprintf(p->why, sizeof p->why, "%s at line %lu",
			 XML_ErrorString(XML_GetErrorCode(p->x)),
			 (unsigned long)XML_GetCurrentLineNumber(p->x));
	XML_ParserFree(p->x);
	return ok && !p->bad;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

bool pfs_s3_url_decode(char *s)
{
	/* checked whole first: a key that does not decode stays as received,
	 * for the log line that names it */
	for (const char *r = s; *r; r++) {
		if (*r != '%')
			continue;
		int hi = hexval(r[1]), lo = hi < 0 ? -1 : hexval(r[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return false;
		r += 2;
	}
	char *w = s;
	for (const char *r = s; *r; r++) {
		if (*r == '+') {
			*w++ = ' ';
		} else if (*r == '%') {
			*w++ = (char)(hexval(r[1]) * 16 + hexval(r[2]));
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
	return true;
}

/* One key or prefix of a url-encoded page decoded: true to keep it; else
 * it is counted, and the first such one kept (as received) for the log. */
static bool decode_name(pfs_s3_page *g, char *name)
{
	if (pfs_s3_url_decode(name) && name[0])
		return true;
	g->nbad++;
	if (!g->bad_example)
		g->bad_example = name;
	else
		free(name);
	return false;
}

/* A page whose server said EncodingType url: every key and prefix
 * decoded; one that does not decode is left out (and counted), never the
 * whole page. */
static void decode_page(pfs_s3_page *g)
{
	size_t w = 0;
	for (size_t i = 0; i < g->nobjs; i++)
		if (decode_name(g, g->objs[i].key))
			g->objs[w++] = g->objs[i];
	g->nobjs = w;
	w = 0;
	for (size_t i = 0; i < g->nprefixes; i++)
		if (decode_name(g, g->prefixes[i]))
			g->prefixes[w++] = g->prefixes[i];
	g->nprefixes = w;
}

pq_status pfs_s3_parse_list(const char *xml, size_t n, pfs_s3_page *out, pq_error *err)
{
	memset(out, 0, sizeof *out);
	parser *p = calloc(1, sizeof *p);
	if (!p)
		return pq_fail(err, PQ_ENOMEM, "no memory");
	p->page = out;
	bool ok = run(p, xml, n);
	free(p->cur.key);
	if (ok && out->truncated && !out->next_token)
		ok = false, snprintf(p->why, sizeof p->why, "truncated without a continuation token");
	if (ok && out->url_encoded)
		decode_page(out);
	/* (as sent, a key may take three bytes for each of its own) */
	for (size_t i = 0; ok && i < out->nobjs; i++)
		if (strlen(out->objs[i].key) > PFS_S3_KEY_MAX)
			ok = false, snprintf(p->why, sizeof p->why, "an object key is too long");
	for (size_t i = 0; ok && i < out->nprefixes; i++)
		if (strlen(out->prefixes[i]) > PFS_S3_KEY_MAX)
			ok = false, snprintf(p->why, sizeof p->why, "a common prefix is too long");
	pq_status st = PQ_OK;
	if (!ok) {
		st = pq_fail(err, PQ_ECORRUPT, "bad ListObjectsV2 answer: %s", p->why);
		pfs_s3_page_free(out);
	}
	free(p);
	return st;
}

void pfs_s3_page_free(pfs_s3_page *g)
{
	for (size_t i = 0; i < g->nobjs; i++)
		free(g->objs[i].key);
	for (size_t i = 0; i < g->nprefixes; i++)
		free(g->prefixes[i]);
	free(g->objs);
	free(g->prefixes);
	free(g->next_token);
	free(g->bad_example);
	memset(g, 0, sizeof *g);
}

bool pfs_s3_xml_value(const char *xml, size_t n, const char *tag, char *out, size_t outn)
{
	if (!xml || !n || !outn)
		return false;
	parser *p = calloc(1, sizeof *p);
	if (!p)
		return false;
	p->want = tag;
	p->out = out;
	p->outn = outn;
	(void)run(p, xml, n);
	bool found = p->found;
	free(p);
	return found;
}

time_t pfs_s3_parse_time(const char *s)
{
	int y, mo, d, h, mi, sec;
	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec) != 6 || y < 1970 ||
	    y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
		return 0;
	struct tm tm = {.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
			.tm_hour = h, .tm_min = mi, .tm_sec = sec};
	time_t t = timegm(&tm);
	return t < 0 ? 0 : t;
}
