/* The CSV / TSV tokenizer: RFC 4180 records (or TSV lines with values.txt
 * escapes) from an fd, read with pread through one bounded buffer.
 *
 * Field bytes are copied (unquoted / unescaped) into one record buffer, so
 * the read buffer can be refilled at any byte; the record buffer is bounded
 * by max_record, a field by max_field, the field count by max_columns.
 * Physical lines are counted at LF, CRLF and a lone CR outside quotes, and
 * at LF inside quotes (a quoted CRLF counts once). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pq_csv.h"

#define READ_CHUNK (256u << 10)

pq_status pq_csv_reader_init_input(pq_csv_reader *r, pq_csv_input *in, pq_csv_format format,
				   uint8_t delim, pq_error *err)
{
	memset(r, 0, sizeof *r);
	r->own.fd = -1;
	r->in = in;
	r->format = format;
	r->delim = format == PQ_CSV_TAB ? '\t' : delim ? delim : ',';
	r->name = in->name;
	r->max_field = PQ_CSV_MAX_FIELD;
	r->max_record = PQ_CSV_MAX_RECORD;
	r->max_columns = PQ_CSV_MAX_COLUMNS;
	r->line = 1;
	/* Bytes that end a run of plain field bytes. */
	r->stop[r->delim] = 1;
	r->stop['\n'] = r->stop['\r'] = 1;
	if (format == PQ_CSV_TAB)
		r->stop['\\'] = 1;
	r->cap = READ_CHUNK;
	r->buf = malloc(r->cap);
	if (!r->buf)
		return pq_fail(err, PQ_ENOMEM, "%s: no memory for the read buffer", r->name);
	return PQ_OK;
}

pq_status pq_csv_reader_init(pq_csv_reader *r, int fd, pq_csv_format format,
			     const char *name, pq_error *err)
{
	pq_csv_input own;
	pq_status st = pq_csv_input_open(&own, fd, name, PQ_INPUT_PLAIN, 0, err);
	if (st != PQ_OK) {
		pq_csv_input_free(&own);
		return st;
	}
	st = pq_csv_reader_init_input(r, &own, format, ',', err);
	r->own = own;
	r->in = &r->own;
	return st;
}

void pq_csv_reader_free(pq_csv_reader *r)
{
	free(r->buf);
	free(r->rec);
	free(r->fields);
	free(r->starts);
	if (r->in == &r->own)
		pq_csv_input_free(&r->own);
	memset(r, 0, sizeof *r);
}

/* Refills the (fully consumed) buffer with the input's next block. */
static pq_status refill(pq_csv_reader *r, pq_error *err)
{
	r->pos = r->end = 0;
	if (r->eof)
		return PQ_OK;
	size_t got;
	PQ_TRY(pq_csv_input_read(r->in, r->buf, r->cap, &got, err));
	bool first = r->bytes_read == 0;
	if (got == 0)
		r->eof = true;
	r->end = got;
	r->bytes_read += got;
	if (first && !r->no_bom && r->end >= 3 && !memcmp(r->buf, "\xEF\xBB\xBF", 3))
		r->pos = 3; /* the first block: skip a UTF-8 byte order mark */
	return PQ_OK;
}

/* The next byte without consuming it, or -1 at the end of the file. */
static inline pq_status peek(pq_csv_reader *r, int *c, pq_error *err)
{
	if (r->pos < r->end) {
		*c = r->buf[r->pos];
		return PQ_OK;
	}
	PQ_TRY(refill(r, err));
	*c = r->pos == r->end ? -1 : r->buf[r->pos];
	return PQ_OK;
}

static pq_status field_error(pq_csv_reader *r, pq_status st, uint64_t line, pq_error *err,
			     const char *what)
{
	return pq_fail(err, st, "%s: line %llu, column %zu: %s", r->name,
		       (unsigned long long)line, r->nfields + 1, what);
}

/* Appends n bytes to the current field, within the bounds (slow path:
 * limits and growth). */
static pq_status put_slow(pq_csv_reader *r, const uint8_t *p, size_t n, uint64_t line,
			  pq_error *err)
{
	size_t field_len = r->rec_len - r->starts[r->nfields];
	if (n > r->max_field - field_len) {
		char what[96];
		snprintf(what, sizeof what, "field longer than %zu bytes", r->max_field);
		return field_error(r, PQ_ELIMIT, line, err, what);
	}
	if (n > r->max_record - r->rec_len) {
		char what[96];
		snprintf(what, sizeof what, "record longer than %zu bytes", r->max_record);
		return field_error(r, PQ_ELIMIT, line, err, what);
	}
	if (r->rec_cap - r->rec_len < n) {
		size_t cap = r->rec_cap ? r->rec_cap : 4096;
		while (cap - r->rec_len < n)
			cap *= 2;
		uint8_t *p2 = realloc(r->rec, cap);
		if (!p2)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for a record", r->name);
		r->rec = p2;
		r->rec_cap = cap;
	}
	memcpy(r->rec + r->rec_len, p, n);
	r->rec_len += n;
	return PQ_OK;
}

/* The common case inline: room in the record, far from the limits. */
static inline pq_status put(pq_csv_reader *r, const uint8_t *p, size_t n, uint64_t line,
			    pq_error *err)
{
	if (n == 0)
		return PQ_OK;
	if (r->rec_cap - r->rec_len >= n && r->rec_len + n <= r->fast_limit) {
		memcpy(r->rec + r->rec_len, p, n);
		r->rec_len += n;
		return PQ_OK;
	}
	return put_slow(r, p, n, line, err);
}

static pq_status begin_field(pq_csv_reader *r, pq_error *err)
{
	if (r->nfields >= r->max_columns) {
		char what[96];
		snprintf(what, sizeof what, "more than %zu fields", r->max_columns);
		return field_error(r, PQ_ELIMIT, r->line, err, what);
	}
	if (r->nfields == r->fields_cap) {
		size_t cap = r->fields_cap ? r->fields_cap * 2 : 64;
		pq_csv_field *f = realloc(r->fields, cap * sizeof *f);
		if (!f)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for fields", r->name);
		r->fields = f;
		size_t *s = realloc(r->starts, cap * sizeof *s);
		if (!s)
			return pq_fail(err, PQ_ENOMEM, "%s: no memory for fields", r->name);
		r->starts = s;
		r->fields_cap = cap;
	}
	r->starts[r->nfields] = r->rec_len;
	r->fields[r->nfields] = (pq_csv_field){.line = r->line};
	/* Below this record length neither the field nor the record limit
	 * can be reached. */
	size_t fl = r->max_field > SIZE_MAX - r->rec_len ? SIZE_MAX : r->rec_len + r->max_field;
	r->fast_limit = fl < r->max_record ? fl : r->max_record;
	return PQ_OK;
}

/* Consumes a line end (the byte at pos is CR or LF). */
static pq_status line_end(pq_csv_reader *r, pq_error *err)
{
	int c = r->buf[r->pos++];
	if (c == '\r') {
		PQ_TRY(peek(r, &c, err));
		if (c == '\n')
			r->pos++;
	}
	r->line++;
	return PQ_OK;
}

#define ONES UINT64_C(0x0101010101010101)
#define HIGHS UINT64_C(0x8080808080808080)

/* Non-zero when a byte of x is zero (may also flag bytes above a zero one:
 * callers only use it to stop a fast loop). */
static inline uint64_t zero_byte(uint64_t x)
{
	return (x - ONES) & ~x & HIGHS;
}

/* The first byte in [q, e) that ends a run of plain field bytes (or e):
 * eight bytes at a time while none of them is special. */
static inline const uint8_t *scan_plain(const pq_csv_reader *r, const uint8_t *q,
					const uint8_t *e)
{
	uint64_t d = ONES * r->delim, lf = ONES * '\n',
		 cr = ONES * '\r', bs = ONES * (r->format == PQ_CSV_TAB ? '\\' : '\n');
	while (e - q >= 8) {
		uint64_t w;
		memcpy(&w, q, 8);
		if (zero_byte(w ^ d) | zero_byte(w ^ lf) | zero_byte(w ^ cr) | zero_byte(w ^ bs))
			break;
		q += 8;
	}
	while (q < e && !r->stop[*q])
		q++;
	return q;
}

/* A quoted CSV field, from after its opening quote to after the closing one. */
static pq_status quoted_field(pq_csv_reader *r, pq_error *err)
{
	uint64_t line = r->fields[r->nfields].line;
	for (;;) {
		int c;
		PQ_TRY(peek(r, &c, err));
		if (c < 0)
			return field_error(r, PQ_EINVAL, line, err,
					   "quoted field not closed before the end of the file");
		const uint8_t *s = r->buf + r->pos, *e = r->buf + r->end;
		const uint8_t *q = memchr(s, '"', (size_t)(e - s));
		if (!q)
			q = e;
		for (const uint8_t *nl = s; (nl = memchr(nl, '\n', (size_t)(q - nl))); nl++)
			r->line++;
		PQ_TRY(put(r, s, (size_t)(q - s), line, err));
		r->pos = (size_t)(q - r->buf);
		if (q == e)
			continue;
		r->pos++; /* the quote */
		PQ_TRY(peek(r, &c, err));
		if (c != '"')
			return PQ_OK;
		r->pos++;
		PQ_TRY(put(r, (const uint8_t *)"\"", 1, line, err));
	}
}

/* An unquoted field up to (not including) its delimiter or line end. TSV
 * escapes are decoded; *raw_n_escape tells whether the raw text was `\N`. */
static pq_status plain_field(pq_csv_reader *r, bool *is_null_escape, pq_error *err)
{
	uint8_t delim = r->delim;
	uint64_t line = r->fields[r->nfields].line;
	size_t raw = 0;
	bool first_backslash_n = false;
	*is_null_escape = false;
	for (;;) {
		int c;
		PQ_TRY(peek(r, &c, err));
		if (c < 0 || c == delim || c == '\n' || c == '\r')
			break;
		const uint8_t *s = r->buf + r->pos, *e = r->buf + r->end;
		const uint8_t *q = scan_plain(r, s, e);
		PQ_TRY(put(r, s, (size_t)(q - s), line, err));
		raw += (size_t)(q - s);
		r->pos = (size_t)(q - r->buf);
		if (q == e || *q != '\\')
			continue;
		/* TSV escape: \t \n \r \\ decode; anything else stays as written. */
		r->pos++;
		PQ_TRY(peek(r, &c, err));
		uint8_t out = 0;
		switch (c) {
		case 't': out = '\t'; break;
		case 'n': out = '\n'; break;
		case 'r': out = '\r'; break;
		case '\\': out = '\\'; break;
		default: break;
		}
		if (out) {
			r->pos++;
			PQ_TRY(put(r, &out, 1, line, err));
			raw += 2;
			continue;
		}
		if (c == 'N' && raw == 0)
			first_backslash_n = true;
		PQ_TRY(put(r, (const uint8_t *)"\\", 1, line, err));
		raw++;
	}
	*is_null_escape = first_backslash_n && raw == 2;
	return PQ_OK;
}

/* Bit i set when w[i] is a delimiter, CR, LF or x (the quote, or TSV's
 * backslash), for the (up to) 64 bytes from w on. */
static inline uint64_t special64(const pq_csv_reader *r, const uint8_t *w, const uint8_t *e,
				 uint8_t x)
{
	uint64_t m = 0;
#if defined(__SSE2__)
	if (e - w >= 64) {
		__m128i d = _mm_set1_epi8((char)r->delim), lf = _mm_set1_epi8('\n'),
			cr = _mm_set1_epi8('\r'), xx = _mm_set1_epi8((char)x);
		for (int k = 0; k < 4; k++) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(w + 16 * k));
			__m128i hit = _mm_or_si128(
				_mm_or_si128(_mm_cmpeq_epi8(v, d), _mm_cmpeq_epi8(v, lf)),
				_mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, xx)));
			m |= (uint64_t)(uint16_t)_mm_movemask_epi8(hit) << (16 * k);
		}
		return m;
	}
#endif
	size_t n = e - w < 64 ? (size_t)(e - w) : 64;
	for (size_t i = 0; i < n; i++)
		if (w[i] == r->delim || w[i] == '\n' || w[i] == '\r' || w[i] == x)
			m |= (uint64_t)1 << i;
	return m;
}

static inline unsigned first_bit(uint64_t m)
{
#if defined(__GNUC__)
	return (unsigned)__builtin_ctzll(m);
#else
	unsigned i = 0;
	while (!(m & 1)) {
		m >>= 1;
		i++;
	}
	return i;
#endif
}

/* The common record: no quote (CSV) or backslash (TSV), whole in the
 * buffer, within the limits. One scan finds its fields and one copy puts
 * the record into rec (delimiters included: a field's bytes are given by
 * its start and length). false, with nothing consumed, for anything else:
 * the general path below then reads it (and reports what is wrong). */
static bool fast_record(pq_csv_reader *r)
{
	const uint8_t *b = r->buf, *s = b + r->pos, *e = b + r->end, *q;
	bool tsv = r->format == PQ_CSV_TAB;
	uint8_t x = tsv ? '\\' : '"';
	if (r->fields_cap == 0 || r->max_columns == 0 || (!tsv && s < e && *s == '"'))
		return false;
	size_t n = 0;
	r->starts[0] = 0;
	/* the special bytes of 64 bytes at a time, in file order */
	const uint8_t *w = s;
	uint64_t mask = special64(r, w, e, x);
	for (;;) {
		while (mask == 0) {
			w += 64;
			if (w >= e)
				return false; /* the record goes on in the next block */
			mask = special64(r, w, e, x);
		}
		q = w + first_bit(mask);
		mask &= mask - 1;
		if (*q == x) {
			if (tsv)
				return false; /* an escape: the general path decodes it */
			continue; /* a quote inside an unquoted field is data */
		}
		if ((size_t)(q - s) - r->starts[n] > r->max_field)
			return false;
		n++;
		if (*q != r->delim)
			break; /* CR or LF */
		if (n == r->fields_cap || n >= r->max_columns)
			return false;
		r->starts[n] = (size_t)(q + 1 - s);
		if (!tsv && q + 1 < e && q[1] == '"')
			return false; /* a quoted field */
	}
	size_t len = (size_t)(q - s);
	if (*q == '\r') {
		if (q + 1 == e)
			return false; /* an LF may follow in the next block */
		q += q[1] == '\n' ? 2 : 1;
	} else {
		q++;
	}
	if (len > r->max_record)
		return false;
	if (r->rec_cap < len) {
		size_t cap = r->rec_cap ? r->rec_cap : 4096;
		while (cap < len)
			cap *= 2;
		uint8_t *p2 = realloc(r->rec, cap);
		if (!p2)
			return false; /* the general path says so */
		r->rec = p2;
		r->rec_cap = cap;
	}
	memcpy(r->rec, s, len);
	r->rec_len = len;
	for (size_t i = 0; i < n; i++) {
		size_t end = i + 1 < n ? r->starts[i + 1] - 1 : len;
		size_t fn = end - r->starts[i];
		r->fields[i] = (pq_csv_field){.p = r->rec + r->starts[i], .n = fn, .line = r->line,
					      .null = !tsv && fn == 0};
	}
	r->nfields = n;
	r->pos = (size_t)(q - b);
	r->line++;
	r->records++;
	return true;
}

pq_status pq_csv_next(pq_csv_reader *r, bool *done, pq_error *err)
{
	*done = false;
	r->rec_len = 0;
	r->nfields = 0;
	int c;
	for (;;) { /* skip blank lines */
		PQ_TRY(peek(r, &c, err));
		if (c < 0) {
			*done = true;
			return PQ_OK;
		}
		if (c != '\n' && c != '\r')
			break;
		PQ_TRY(line_end(r, err));
	}
	r->record_line = r->line;
	r->record_off = r->bytes_read - (r->end - r->pos);
	if (fast_record(r))
		return PQ_OK;
	uint8_t delim = r->delim;
	for (;;) {
		PQ_TRY(begin_field(r, err));
		pq_csv_field *f = &r->fields[r->nfields];
		PQ_TRY(peek(r, &c, err));
		if (r->format == PQ_CSV_COMMA && c == '"') {
			r->pos++;
			f->quoted = true;
			PQ_TRY(quoted_field(r, err));
			PQ_TRY(peek(r, &c, err));
			if (c >= 0 && c != delim && c != '\n' && c != '\r')
				return field_error(r, PQ_EINVAL, r->line, err,
						   "a closing quote must be followed by a comma "
						   "or the end of the line (write a quote inside "
						   "a quoted field as \"\")");
		} else {
			bool null_escape;
			PQ_TRY(plain_field(r, &null_escape, err));
			if (r->format == PQ_CSV_TAB) {
				if (null_escape) {
					f->null = true;
					r->rec_len = r->starts[r->nfields];
				}
			} else if (r->rec_len == r->starts[r->nfields]) {
				f->null = true;
			}
		}
		r->nfields++;
		PQ_TRY(peek(r, &c, err));
		if (c == delim) {
			r->pos++;
			continue;
		}
		if (c >= 0)
			PQ_TRY(line_end(r, err));
		break;
	}
	for (size_t i = 0; i < r->nfields; i++) {
		size_t end = i + 1 < r->nfields ? r->starts[i + 1] : r->rec_len;
		r->fields[i].p = r->rec ? r->rec + r->starts[i] : (const uint8_t *)"";
		r->fields[i].n = end - r->starts[i];
	}
	r->records++;
	return PQ_OK;
}

#define DETECT_RECORDS 20

/* Whether delimiter c splits each of the first records (quotes respected)
 * into the same number of fields, more than one. A syntax error is a no;
 * an I/O or decompression failure is returned. */
static pq_status splits_evenly(pq_csv_input *in, uint8_t c, bool *yes, pq_error *err)
{
	*yes = false;
	PQ_TRY(pq_csv_input_rewind(in, err));
	pq_csv_reader r;
	pq_status st = pq_csv_reader_init_input(&r, in, PQ_CSV_COMMA, c, err);
	size_t want = 0, n = 0;
	bool even = true;
	while (st == PQ_OK && n < DETECT_RECORDS) {
		bool done;
		pq_error e;
		pq_status s2 = pq_csv_next(&r, &done, &e);
		if (s2 == PQ_EINVAL) {
			even = false; /* a quote out of place: not this delimiter */
			break;
		}
		if (s2 != PQ_OK) {
			*err = e;
			st = s2;
			break;
		}
		if (done)
			break;
		if (n++ == 0)
			want = r.nfields;
		else if (r.nfields != want)
			even = false;
		if (!even)
			break;
	}
	pq_csv_reader_free(&r);
	*yes = st == PQ_OK && even && n > 0 && want > 1;
	return st;
}

pq_status pq_csv_detect_delimiter(pq_csv_input *in, uint8_t *delim, pq_error *err)
{
	static const uint8_t cands[] = {',', ';', '|', '\t'};
	*delim = ',';
	for (size_t i = 0; i < sizeof cands; i++) {
		bool yes;
		PQ_TRY(splits_evenly(in, cands[i], &yes, err));
		if (yes) {
			*delim = cands[i];
			break;
		}
	}
	return pq_csv_input_rewind(in, err);
}
