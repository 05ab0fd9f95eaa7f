/* The option code without FUSE: init/free of pfs_options and validation of
 * the writer options (codec=, compression_level=, ...), shared by the daemon
 * (src/options.c) and parquetfs-convert (src/convert.c), so both refuse the
 * same values with the same messages. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pfs_options.h"
#include "pq_metadata.h"

void pfs_options_init(pfs_options *o)
{
	memset(o, 0, sizeof *o);
	o->crc_check = true;
}

void pfs_options_free(pfs_options *o)
{
	char **s[] = {&o->source, &o->key_file, &o->cache_size_s, &o->staging,
		      &o->codec_s, &o->compression_level_s, &o->row_group_rows_s,
		      &o->page_size_s, &o->data_page_version_s, &o->dictionary_s,
		      &o->bloom_filter, &o->page_index_s, &o->crc_s, &o->bloom_fpp_s,
		      &o->encrypt, &o->encrypt_columns, &o->encryption_algorithm_s,
		      &o->aad_prefix, &o->container, &o->source_abs, &o->index_dir_s, &o->index_dir,
		      &o->index_size_s,
		      &o->crc_check_s,
		      &o->poll_us_s, &o->mem_wait_s,
		      &o->delimiter_s, &o->replace_s,
		      &o->endpoint, &o->region, &o->profile, &o->ca_file, &o->metadata_ttl_s,
		      &o->retries_s, &o->timeout_s, &o->connect_timeout_s, &o->cache_dir_s, &o->cache_dir_size_s,
		      &o->spool_dir_s, &o->spool_dir, &o->cache_dir};
	for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
		free(*s[i]);
		*s[i] = NULL;
	}
	free(o->bloom_list);
	o->bloom_list = NULL;
	o->write.bloom_columns = NULL;
}

bool pfs_parse_size(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (!strcmp(end, "iB") || !strcmp(end, "B")))
		end += strlen(end);
	else if (!shift && !strcmp(end, "B"))
		end++;
	if (*end)
		return false;
	if (shift && v > (UINT64_MAX >> shift))
		return false;
	*out = (uint64_t)v << shift;
	return true;
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
	if (!s || !*s)
		return false;
	errno = 0;
	char *end;
	long v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

static bool parse_onoff(const char *s, bool *out)
{
	static const char *const on[] = {"on", "yes", "true", "1"};
	static const char *const off[] = {"off", "no", "false", "0"};
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, on[i])) {
			*out = true;
			return true;
		}
		if (!strcasecmp(s, off[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* delimiter=: one of , ; | or the word tab (also comma, semicolon,
 * pipe). An empty value is ',': `-o delimiter=,` reaches us as
 * "delimiter=" because options are split at commas. */
static bool parse_delimiter(const char *s, uint8_t *out)
{
	static const struct {
		const char *word;
		uint8_t c;
	} d[] = {{"", ','}, {",", ','}, {";", ';'}, {"|", '|'}, {"tab", '\t'}, {"\t", '\t'},
		 {"comma", ','}, {"semicolon", ';'}, {"pipe", '|'}};
	for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
		if (!strcasecmp(s, d[i].word)) {
			*out = d[i].c;
			return true;
		}
	return false;
}

static const struct {
	const char *name;
	int id;
	int lo, hi; /* compression_level range; lo > hi: no levels */
} codecs[] = {
	{"uncompressed", PQ_CODEC_UNCOMPRESSED, 1, 0},
	{"snappy", PQ_CODEC_SNAPPY, 1, 0},
	{"gzip", PQ_CODEC_GZIP, 1, 9},
	{"brotli", PQ_CODEC_BROTLI, 0, 11},
	{"zstd", PQ_CODEC_ZSTD, 1, 22},
	{"lz4_raw", PQ_CODEC_LZ4_RAW, 1, 0},
};

/* "A;B;C" with no empty item; with pairs, every item is NAME:ID. */
bool pfs_option_list_ok(const char *s, bool pairs)
{
	if (!s || !*s)
		return false;
	const char *p = s;
	for (;;) {
		const char *e = strchr(p, ';');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n == 0)
			return false;
		if (pairs) {
			/* the key id follows the last ':' (column names may hold ':') */
			const char *c = NULL;
			for (size_t i = 0; i < n; i++)
				if (p[i] == ':')
					c = p + i;
			if (!c || c == p || c == p + n - 1)
				return false;
		}
		if (!e)
			return true;
		p = e + 1;
	}
}

/* bloom_filter=A;B;C (validated: no empty item) as a NULL-terminated
 * array, the strings copied behind it: one allocation. */
static char **split_list(const char *list)
{
	size_t n = 1, len = strlen(list);
	for (const char *c = list; *c; c++)
		n += *c == ';';
	char **v = malloc((n + 1) * sizeof *v + len + 1);
	if (!v)
		return NULL;
	char *text = memcpy((char *)(v + n + 1), list, len + 1);
	size_t i = 0;
	for (char *tok = text, *semi; tok; tok = semi) {
		semi = strchr(tok, ';');
		if (semi)
			*semi++ = '\0';
		v[i++] = tok;
	}
	v[i] = NULL;
	return v;
}

bool pfs_options_check_writer(pfs_options *o, char *msg, size_t msglen)
{
	pq_write_options *w = &o->write;
	pq_write_options_init(w);
	free(o->bloom_list);
	o->bloom_list = NULL;
	size_t ci = 0, nc = sizeof codecs / sizeof codecs[0];
	while (ci < nc && codecs[ci].id != w->codec)
		ci++;
	if (o->codec_s) {
		for (ci = 0; ci < nc; ci++)
			if (!strcasecmp(o->codec_s, codecs[ci].name))
				break;
		if (ci == nc) {
			snprintf(msg, msglen, "codec=%s: expected uncompressed, snappy, gzip, "
				 "brotli, zstd or lz4_raw", o->codec_s);
			return false;
		}
		w->codec = codecs[ci].id;
	}
	if (o->compression_level_s) {
		long v;
		if (ci == nc || codecs[ci].lo > codecs[ci].hi) {
			snprintf(msg, msglen, "compression_level=%s: codec %s has no levels",
				 o->compression_level_s, ci == nc ? "?" : codecs[ci].name);
			return false;
		}
		if (!parse_int(o->compression_level_s, codecs[ci].lo, codecs[ci].hi, &v)) {
			snprintf(msg, msglen, "compression_level=%s: %s takes %d to %d",
				 o->compression_level_s, codecs[ci].name, codecs[ci].lo,
				 codecs[ci].hi);
			return false;
		}
		w->compression_level = (int)v;
		w->has_compression_level = true;
	}
	if (o->row_group_rows_s && (!pfs_parse_size(o->row_group_rows_s, &w->row_group_rows) ||
				    w->row_group_rows == 0 || w->row_group_rows > INT64_MAX)) {
		snprintf(msg, msglen, "row_group_rows=%s: expected a positive number of rows",
			 o->row_group_rows_s);
		return false;
	}
	if (o->page_size_s && (!pfs_parse_size(o->page_size_s, &w->page_size) ||
			       w->page_size == 0 || w->page_size > (1u << 30))) {
		snprintf(msg, msglen, "page_size=%s: expected a size from 1 to 1G", o->page_size_s);
		return false;
	}
	if (o->data_page_version_s) {
		long v;
		if (!parse_int(o->data_page_version_s, 1, 2, &v)) {
			snprintf(msg, msglen, "data_page_version=%s: expected 1 or 2",
				 o->data_page_version_s);
			return false;
		}
		w->data_page_version = (int)v;
	}
	struct { const char *name, *val; bool *out; } flags[] = {
		{"dictionary", o->dictionary_s, &w->dictionary},
		{"page_index", o->page_index_s, &w->page_index},
		{"crc", o->crc_s, &w->crc},
	};
	for (size_t i = 0; i < 3; i++) {
		if (flags[i].val && !parse_onoff(flags[i].val, flags[i].out)) {
			snprintf(msg, msglen, "%s=%s: expected on or off", flags[i].name, flags[i].val);
			return false;
		}
	}
	if (o->bloom_filter && !pfs_option_list_ok(o->bloom_filter, false)) {
		snprintf(msg, msglen, "bloom_filter=%s: expected COLUMN[;COLUMN...]", o->bloom_filter);
		return false;
	}
	if (o->bloom_fpp_s) {
		char *end;
		errno = 0;
		double v = strtod(o->bloom_fpp_s, &end);
		if (errno || *end || !*o->bloom_fpp_s || !(v > 0.0 && v < 1.0)) {
			snprintf(msg, msglen, "bloom_fpp=%s: expected a probability between 0 and 1 "
				 "(exclusive)", o->bloom_fpp_s);
			return false;
		}
		w->bloom_fpp = v;
	}
	if (o->delimiter_s && !parse_delimiter(o->delimiter_s, &o->delimiter)) {
		snprintf(msg, msglen, "delimiter=%s: expected , ; | or tab", o->delimiter_s);
		return false;
	}
	if (o->replace_s) {
		bool yes;
		if (!parse_onoff(o->replace_s, &yes)) {
			snprintf(msg, msglen, "replace=%s: expected yes or no", o->replace_s);
			return false;
		}
		o->no_replace = !yes;
	}
	if (o->bloom_filter) {
		o->bloom_list = split_list(o->bloom_filter);
		if (!o->bloom_list) {
			snprintf(msg, msglen, "out of memory");
			return false;
		}
		w->bloom_columns = (const char *const *)o->bloom_list;
	}
	return true;
}
