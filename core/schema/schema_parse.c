/* Parsing schema text (schema.txt syntax, the staging sidecar) into a
 * flattened schema element list.
 *
 *   schema  := 'message' NAME '{' field* '}'
 *   field   := REPETITION ( 'group' NAME annot? id? '{' field* '}' ';'?
 *                         | PRIMITIVE NAME annot? id? ';' )
 *   PRIMITIVE := boolean | int32 | int64 | int96 | float | double | binary
 *              | fixed_len_byte_array '(' INT ')'
 *   annot   := '(' WORD [ '(' params ')' ] ')'
 *   id      := '=' INT
 *
 * Keywords and annotation names are case-insensitive. A NAME runs to the
 * next `(`, `=`, `;`, `{`, `}` or line end (trailing blanks dropped), so
 * names with spaces (as parquet-java prints them) read back. */
#include "config.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pq_schema.h"

typedef struct parser {
	const char *p;
	size_t len, pos;
	unsigned line;
	size_t line_start;
	pq_arena *arena;
	pq_schema_element *els;
	uint32_t n, cap;
	pq_error *err;
} parser;

static pq_status perr(parser *ps, pq_status st, const char *fmt, ...) PQ_PRINTF(3, 4);

static pq_status perr(parser *ps, pq_status st, const char *fmt, ...)
{
	char msg[PQ_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return pq_fail(ps->err, st, "line %u, column %zu: %s", ps->line,
		       ps->pos - ps->line_start + 1, msg);
}

static void skip_ws(parser *ps)
{
	while (ps->pos < ps->len) {
		char c = ps->p[ps->pos];
		if (c == '\n') {
			ps->line++;
			ps->line_start = ps->pos + 1;
		} else if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v') {
			return;
		}
		ps->pos++;
	}
}

static int peek(parser *ps)
{
	skip_ws(ps);
	return ps->pos < ps->len ? (unsigned char)ps->p[ps->pos] : -1;
}

static bool accept(parser *ps, char c)
{
	if (peek(ps) != (unsigned char)c)
		return false;
	ps->pos++;
	return true;
}

static pq_status expect(parser *ps, char c, const char *what)
{
	if (accept(ps, c))
		return PQ_OK;
	return perr(ps, PQ_EINVAL, "expected '%c' %s", c, what);
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* A keyword-like word; len 0 when none is there. */
static void word(parser *ps, const char **w, size_t *len)
{
	skip_ws(ps);
	size_t start = ps->pos;
	while (ps->pos < ps->len && word_char(ps->p[ps->pos]))
		ps->pos++;
	*w = ps->p + start;
	*len = ps->pos - start;
}

static bool word_is(const char *w, size_t len, const char *kw)
{
	return strlen(kw) == len && strncasecmp(w, kw, len) == 0;
}

static pq_status integer(parser *ps, int64_t lo, int64_t hi, const char *what, int64_t *out)
{
	skip_ws(ps);
	bool neg = ps->pos < ps->len && ps->p[ps->pos] == '-';
	size_t start = ps->pos + neg;
	int64_t v = 0;
	size_t i = start;
	for (; i < ps->len && ps->p[i] >= '0' && ps->p[i] <= '9'; i++) {
		if (v > (INT64_MAX - 9) / 10)
			return perr(ps, PQ_EINVAL, "%s is too large", what);
		v = v * 10 + (ps->p[i] - '0');
	}
	if (i == start)
		return perr(ps, PQ_EINVAL, "expected a number for %s", what);
	if (neg)
		v = -v;
	if (v < lo || v > hi)
		return perr(ps, PQ_EINVAL, "%s %lld is out of range %lld..%lld", what, (long long)v,
			    (long long)lo, (long long)hi);
	ps->pos = i;
	*out = v;
	return PQ_OK;
}

static pq_status boolean(parser *ps, const char *what, bool *out)
{
	const char *w;
	size_t n;
	word(ps, &w, &n);
	if (word_is(w, n, "true"))
		*out = true;
	else if (word_is(w, n, "false"))
		*out = false;
	else
		return perr(ps, PQ_EINVAL, "expected true or false for %s", what);
	return PQ_OK;
}

static pq_status new_element(parser *ps, uint32_t *idx)
{
	if (ps->n == ps->cap) {
		if (ps->cap >= PQ_SCHEMA_MAX_ELEMENTS)
			return perr(ps, PQ_ELIMIT, "more than %u schema elements",
				    PQ_SCHEMA_MAX_ELEMENTS);
		uint32_t cap = ps->cap ? ps->cap * 2 : 16;
		pq_schema_element *v = realloc(ps->els, (size_t)cap * sizeof *v);
		if (!v)
			return pq_fail(ps->err, PQ_ENOMEM, "no memory for the schema");
		ps->els = v;
		ps->cap = cap;
	}
	*idx = ps->n++;
	memset(&ps->els[*idx], 0, sizeof ps->els[*idx]);
	return PQ_OK;
}

/* A field or message name: up to the next delimiter, trailing blanks cut.
 * Only the message name may be empty (some writers leave it so). */
static pq_status name(parser *ps, bool may_be_empty, pq_bytes *out)
{
	skip_ws(ps);
	size_t start = ps->pos, end = start;
	while (ps->pos < ps->len && !strchr("(=;{}\n\r", ps->p[ps->pos])) {
		ps->pos++;
		if (ps->p[ps->pos - 1] != ' ' && ps->p[ps->pos - 1] != '\t')
			end = ps->pos;
	}
	if (end == start && !may_be_empty)
		return perr(ps, PQ_EINVAL, "expected a name");
	uint8_t *p = pq_arena_alloc(ps->arena, end - start + 1);
	if (!p)
		return pq_fail(ps->err, PQ_ENOMEM, "no memory for the schema");
	memcpy(p, ps->p + start, end - start);
	out->p = p;
	out->n = end - start;
	return PQ_OK;
}

/* ---- annotations --------------------------------------------------------- */

static const char *const converted_names[] = {
	"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
	"TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
	"UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
static const char *const algorithms[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER",
					 "KARNEY"};

static void set_unit(pq_time_unit_u *u, int unit)
{
	u->has_MILLIS = unit == PQ_MILLIS;
	u->has_MICROS = unit == PQ_MICROS;
	u->has_NANOS = unit == PQ_NANOS;
}

static pq_status time_params(parser *ps, pq_schema_element *e, bool is_time)
{
	const char *w;
	size_t n;
	word(ps, &w, &n);
	int unit = word_is(w, n, "MILLIS") ? PQ_MILLIS
		   : word_is(w, n, "MICROS") ? PQ_MICROS
		   : word_is(w, n, "NANOS")  ? PQ_NANOS
					     : 0;
	if (!unit)
		return perr(ps, PQ_EINVAL, "expected MILLIS, MICROS or NANOS");
	PQ_TRY(expect(ps, ',', "between unit and isAdjustedToUTC"));
	bool utc;
	PQ_TRY(boolean(ps, "isAdjustedToUTC", &utc));
	pq_timestamp_type *t = is_time ? &e->logicalType.TIME : &e->logicalType.TIMESTAMP;
	t->isAdjustedToUTC = utc;
	set_unit(&t->unit, unit);
	if (is_time)
		e->logicalType.has_TIME = true;
	else
		e->logicalType.has_TIMESTAMP = true;
	/* The converted type exists only for UTC MILLIS / MICROS. */
	if (utc && unit != PQ_NANOS) {
		e->has_converted_type = true;
		e->converted_type = is_time ? (unit == PQ_MILLIS ? PQ_CT_TIME_MILLIS : PQ_CT_TIME_MICROS)
					    : (unit == PQ_MILLIS ? PQ_CT_TIMESTAMP_MILLIS
								 : PQ_CT_TIMESTAMP_MICROS);
	}
	return PQ_OK;
}

/* The raw text of a parenthesized parameter list (after its '('), up to the
 * matching ')', which is consumed. */
static pq_status raw_params(parser *ps, const char **p, size_t *n)
{
	size_t start = ps->pos;
	int depth = 0;
	for (; ps->pos < ps->len; ps->pos++) {
		char c = ps->p[ps->pos];
		if (c == '\n')
			break;
		if (c == '(')
			depth++;
		else if (c == ')' && depth-- == 0) {
			*p = ps->p + start;
			*n = ps->pos - start;
			ps->pos++;
			return PQ_OK;
		}
	}
	return perr(ps, PQ_EINVAL, "unterminated annotation parameters");
}

static pq_status geo_params(parser *ps, pq_schema_element *e, bool geography)
{
	const char *p = NULL;
	size_t n = 0;
	PQ_TRY(raw_params(ps, &p, &n));
	pq_logical_type *lt = &e->logicalType;
	size_t crs_len = n;
	if (geography) {
		/* A trailing algorithm name (after the last comma, or alone). */
		size_t cut = n;
		while (cut > 0 && p[cut - 1] != ',')
			cut--;
		for (int32_t a = 0; a < 5; a++) {
			size_t al = strlen(algorithms[a]);
			if (n - cut == al && strncasecmp(p + cut, algorithms[a], al) == 0) {
				lt->GEOGRAPHY.has_algorithm = true;
				lt->GEOGRAPHY.algorithm = a;
				crs_len = cut ? cut - 1 : 0;
			}
		}
	}
	if (crs_len) {
		uint8_t *c = pq_arena_memdup(ps->arena, p, crs_len);
		if (!c)
			return pq_fail(ps->err, PQ_ENOMEM, "no memory for the schema");
		pq_bytes *crs = geography ? &lt->GEOGRAPHY.crs : &lt->GEOMETRY.crs;
		crs->p = c;
		crs->n = crs_len;
		if (geography)
			lt->GEOGRAPHY.has_crs = true;
		else
			lt->GEOMETRY.has_crs = true;
	}
	return PQ_OK;
}

/* Parses `NAME[(params)]` (inside the annotation parentheses) into e. */
static pq_status annotation(parser *ps, pq_schema_element *e)
{
	const char *w;
	size_t n;
	word(ps, &w, &n);
	if (!n)
		return perr(ps, PQ_EINVAL, "expected an annotation name");
	pq_logical_type *lt = &e->logicalType;
	e->has_logicalType = true;
	bool params = accept(ps, '(');
	bool want_params = false;
	if (word_is(w, n, "DECIMAL")) {
		int64_t prec, scale;
		if (!params)
			return perr(ps, PQ_EINVAL, "DECIMAL needs (precision,scale)");
		PQ_TRY(integer(ps, 1, INT32_MAX, "DECIMAL precision", &prec));
		PQ_TRY(expect(ps, ',', "between DECIMAL precision and scale"));
		PQ_TRY(integer(ps, 0, INT32_MAX, "DECIMAL scale", &scale));
		lt->has_DECIMAL = true;
		lt->DECIMAL.precision = (int32_t)prec;
		lt->DECIMAL.scale = (int32_t)scale;
		e->has_converted_type = e->has_precision = e->has_scale = true;
		e->converted_type = PQ_CT_DECIMAL;
		e->precision = (int32_t)prec;
		e->scale = (int32_t)scale;
		want_params = true;
	} else if (word_is(w, n, "TIME") || word_is(w, n, "TIMESTAMP")) {
		if (!params)
			return perr(ps, PQ_EINVAL, "%.*s needs (unit,isAdjustedToUTC)", (int)n, w);
		PQ_TRY(time_params(ps, e, n == 4));
		want_params = true;
	} else if (word_is(w, n, "INTEGER")) {
		int64_t bw;
		bool sign;
		if (!params)
			return perr(ps, PQ_EINVAL, "INTEGER needs (bitWidth,isSigned)");
		PQ_TRY(integer(ps, 8, 64, "INTEGER bit width", &bw));
		if (bw != 8 && bw != 16 && bw != 32 && bw != 64)
			return perr(ps, PQ_EINVAL, "INTEGER bit width must be 8, 16, 32 or 64");
		PQ_TRY(expect(ps, ',', "between INTEGER bit width and isSigned"));
		PQ_TRY(boolean(ps, "isSigned", &sign));
		lt->has_INTEGER = true;
		lt->INTEGER.bitWidth = (int8_t)bw;
		lt->INTEGER.isSigned = sign;
		e->has_converted_type = true;
		e->converted_type = (sign ? PQ_CT_INT_8 : PQ_CT_UINT_8) +
				    (bw == 8 ? 0 : bw == 16 ? 1 : bw == 32 ? 2 : 3);
		want_params = true;
	} else if (word_is(w, n, "VARIANT")) {
		lt->has_VARIANT = true;
		if (params) {
			int64_t v;
			PQ_TRY(integer(ps, 0, 127, "VARIANT specification version", &v));
			lt->VARIANT.has_specification_version = true;
			lt->VARIANT.specification_version = (int8_t)v;
			want_params = true;
		}
	} else if (word_is(w, n, "GEOMETRY") || word_is(w, n, "GEOGRAPHY")) {
		bool geog = n == 9;
		if (geog)
			lt->has_GEOGRAPHY = true;
		else
			lt->has_GEOMETRY = true;
		if (params)
			PQ_TRY(geo_params(ps, e, geog));
		return PQ_OK; /* raw_params consumed the ')' */
	} else if (word_is(w, n, "STRING") || word_is(w, n, "UTF8")) {
		lt->has_STRING = true;
		e->has_converted_type = true;
		e->converted_type = PQ_CT_UTF8;
	} else if (word_is(w, n, "UNKNOWN")) {
		lt->has_UNKNOWN = true;
	} else if (word_is(w, n, "UUID")) {
		lt->has_UUID = true;
	} else if (word_is(w, n, "FLOAT16")) {
		lt->has_FLOAT16 = true;
	} else {
		int32_t ct = -1;
		for (int32_t i = 0; i < (int32_t)(sizeof converted_names / sizeof *converted_names); i++)
			if (word_is(w, n, converted_names[i]))
				ct = i;
		if (ct < 0)
			return perr(ps, PQ_EINVAL, "unknown annotation '%.*s'", (int)n, w);
		e->has_converted_type = true;
		e->converted_type = ct;
		switch (ct) {
		case PQ_CT_MAP: lt->has_MAP = true; break;
		case PQ_CT_LIST: lt->has_LIST = true; break;
		case PQ_CT_ENUM: lt->has_ENUM = true; break;
		case PQ_CT_DATE: lt->has_DATE = true; break;
		case PQ_CT_JSON: lt->has_JSON = true; break;
		case PQ_CT_BSON: lt->has_BSON = true; break;
		case PQ_CT_TIME_MILLIS:
		case PQ_CT_TIME_MICROS:
			lt->has_TIME = true;
			lt->TIME.isAdjustedToUTC = true;
			set_unit(&lt->TIME.unit, ct == PQ_CT_TIME_MILLIS ? PQ_MILLIS : PQ_MICROS);
			break;
		case PQ_CT_TIMESTAMP_MILLIS:
		case PQ_CT_TIMESTAMP_MICROS:
			lt->has_TIMESTAMP = true;
			lt->TIMESTAMP.isAdjustedToUTC = true;
			set_unit(&lt->TIMESTAMP.unit, ct == PQ_CT_TIMESTAMP_MILLIS ? PQ_MILLIS : PQ_MICROS);
			break;
		case PQ_CT_MAP_KEY_VALUE:
		case PQ_CT_INTERVAL:
			/* No logical type (parquet-java stores none either). */
			e->has_logicalType = false;
			break;
		default: /* INT_* / UINT_* */
			lt->has_INTEGER = true;
			lt->INTEGER.isSigned = ct >= PQ_CT_INT_8;
			lt->INTEGER.bitWidth = (int8_t)(8 << ((ct - PQ_CT_UINT_8) % 4));
			break;
		}
	}
	if (params && !want_params)
		return perr(ps, PQ_EINVAL, "annotation '%.*s' takes no parameters", (int)n, w);
	if (params)
		PQ_TRY(expect(ps, ')', "after the annotation parameters"));
	return PQ_OK;
}

/* Largest DECIMAL precision an n-byte two's complement holds:
 * floor((8n - 1) * log10(2)). */
static int64_t flba_max_precision(int32_t n)
{
	return (int64_t)((8.0 * n - 1) * 0.30102999566398119521);
}

/* Whether the annotation fits the type (a message, or NULL). */
static const char *check_fit(const pq_schema_element *e, bool group)
{
	const pq_logical_type *lt = &e->logicalType;
	bool ann = e->has_logicalType || e->has_converted_type;
	if (group) {
		if (!ann || lt->has_VARIANT || (e->has_converted_type &&
		    (e->converted_type == PQ_CT_MAP || e->converted_type == PQ_CT_LIST ||
		     e->converted_type == PQ_CT_MAP_KEY_VALUE)))
			return NULL;
		return "this annotation needs a primitive type, not a group";
	}
	int32_t t = e->type, len = e->type_length;
	if (!ann || lt->has_UNKNOWN)
		return NULL;
	if (lt->has_MAP || lt->has_LIST || lt->has_VARIANT ||
	    (e->has_converted_type && e->converted_type == PQ_CT_MAP_KEY_VALUE))
		return "this annotation needs a group";
	if (lt->has_STRING || lt->has_ENUM || lt->has_JSON || lt->has_BSON || lt->has_GEOMETRY ||
	    lt->has_GEOGRAPHY)
		return t == PQ_BYTE_ARRAY ? NULL : "this annotation needs binary";
	if (lt->has_UUID)
		return t == PQ_FIXED_LEN_BYTE_ARRAY && len == 16 ? NULL
								 : "UUID needs fixed_len_byte_array(16)";
	if (lt->has_FLOAT16)
		return t == PQ_FIXED_LEN_BYTE_ARRAY && len == 2 ? NULL
								: "FLOAT16 needs fixed_len_byte_array(2)";
	if (e->has_converted_type && e->converted_type == PQ_CT_INTERVAL)
		return t == PQ_FIXED_LEN_BYTE_ARRAY && len == 12
			       ? NULL
			       : "INTERVAL needs fixed_len_byte_array(12)";
	if (lt->has_DATE)
		return t == PQ_INT32 ? NULL : "DATE needs int32";
	if (lt->has_TIME) {
		if (lt->TIME.unit.has_MILLIS)
			return t == PQ_INT32 ? NULL : "TIME(MILLIS) needs int32";
		return t == PQ_INT64 ? NULL : "TIME(MICROS/NANOS) needs int64";
	}
	if (lt->has_TIMESTAMP)
		return t == PQ_INT64 ? NULL : "TIMESTAMP needs int64";
	if (lt->has_INTEGER)
		return (lt->INTEGER.bitWidth == 64 ? t == PQ_INT64 : t == PQ_INT32)
			       ? NULL
			       : "INTEGER(64) needs int64, INTEGER(8/16/32) int32";
	if (lt->has_DECIMAL) {
		int64_t p = lt->DECIMAL.precision, max = t == PQ_INT32 ? 9
							: t == PQ_INT64 ? 18
							: t == PQ_FIXED_LEN_BYTE_ARRAY ? flba_max_precision(len)
							: t == PQ_BYTE_ARRAY ? INT32_MAX
									     : 0;
		if (max == 0)
			return "DECIMAL needs int32, int64, binary or fixed_len_byte_array";
		if (p > max)
			return "DECIMAL precision exceeds what the type holds";
		if (lt->DECIMAL.scale > p)
			return "DECIMAL scale exceeds its precision";
	}
	return NULL;
}

static pq_status fields(parser *ps, uint32_t parent, unsigned depth);

static pq_status field(parser *ps, unsigned depth)
{
	const char *w;
	size_t n;
	uint32_t idx;
	size_t at_line = ps->line, at_pos = ps->pos, at_start = ps->line_start;
	PQ_TRY(new_element(ps, &idx));
	pq_schema_element e = {0};
	word(ps, &w, &n);
	e.has_repetition_type = true;
	if (word_is(w, n, "required"))
		e.repetition_type = PQ_REQUIRED;
	else if (word_is(w, n, "optional"))
		e.repetition_type = PQ_OPTIONAL;
	else if (word_is(w, n, "repeated"))
		e.repetition_type = PQ_REPEATED;
	else
		return perr(ps, PQ_EINVAL, "expected required, optional or repeated");
	word(ps, &w, &n);
	static const char *const types[] = {"boolean", "int32", "int64", "int96",
					    "float", "double", "binary", "fixed_len_byte_array"};
	bool group = word_is(w, n, "group");
	if (!group) {
		int32_t t = -1;
		for (int32_t i = 0; i < 8; i++)
			if (word_is(w, n, types[i]))
				t = i;
		if (t < 0)
			return perr(ps, PQ_EINVAL, "expected group or a primitive type, not '%.*s'",
				    (int)n, w);
		e.has_type = true;
		e.type = t;
		if (t == PQ_FIXED_LEN_BYTE_ARRAY) {
			int64_t len;
			PQ_TRY(expect(ps, '(', "after fixed_len_byte_array"));
			PQ_TRY(integer(ps, 1, INT32_MAX, "fixed_len_byte_array length", &len));
			PQ_TRY(expect(ps, ')', "after the fixed_len_byte_array length"));
			e.has_type_length = true;
			e.type_length = (int32_t)len;
		}
	}
	PQ_TRY(name(ps, false, &e.name));
	if (accept(ps, '(')) {
		PQ_TRY(annotation(ps, &e));
		PQ_TRY(expect(ps, ')', "after the annotation"));
	}
	if (accept(ps, '=')) {
		int64_t id;
		PQ_TRY(integer(ps, INT32_MIN, INT32_MAX, "field id", &id));
		e.has_field_id = true;
		e.field_id = (int32_t)id;
	}
	const char *misfit = check_fit(&e, group);
	if (misfit) {
		ps->line = (unsigned)at_line;
		ps->pos = at_pos;
		ps->line_start = at_start;
		return perr(ps, PQ_EINVAL, "field '%.*s': %s", (int)e.name.n,
			    (const char *)e.name.p, misfit);
	}
	ps->els[idx] = e;
	if (!group)
		return expect(ps, ';', "after a primitive field");
	if (depth >= PQ_SCHEMA_MAX_DEPTH)
		return perr(ps, PQ_ELIMIT, "groups nested deeper than %d levels",
			    PQ_SCHEMA_MAX_DEPTH);
	PQ_TRY(expect(ps, '{', "to open the group"));
	PQ_TRY(fields(ps, idx, depth + 1));
	PQ_TRY(expect(ps, '}', "to close the group"));
	accept(ps, ';');
	return PQ_OK;
}

static pq_status fields(parser *ps, uint32_t parent, unsigned depth)
{
	int32_t count = 0;
	while (peek(ps) != '}' && peek(ps) != -1) {
		PQ_TRY(field(ps, depth));
		count++;
	}
	ps->els[parent].has_num_children = true;
	ps->els[parent].num_children = count;
	return PQ_OK;
}

pq_status pq_schema_parse(const char *text, size_t len, pq_arena *arena,
			  pq_schema_element **out, uint32_t *n, pq_error *err)
{
	parser ps = {.p = text, .len = len, .line = 1, .arena = arena, .err = err};
	*out = NULL;
	*n = 0;
	const char *w;
	size_t wl;
	uint32_t root;
	word(&ps, &w, &wl);
	pq_status st = PQ_OK;
	if (!word_is(w, wl, "message"))
		st = perr(&ps, PQ_EINVAL, "expected 'message'");
	if (st == PQ_OK)
		st = new_element(&ps, &root);
	if (st == PQ_OK)
		st = name(&ps, true, &ps.els[root].name);
	if (st == PQ_OK)
		st = expect(&ps, '{', "after the message name");
	if (st == PQ_OK)
		st = fields(&ps, root, 1);
	if (st == PQ_OK)
		st = expect(&ps, '}', "to close the message");
	if (st == PQ_OK && peek(&ps) != -1)
		st = perr(&ps, PQ_EINVAL, "unexpected text after the message");
	if (st == PQ_OK) {
		*out = pq_arena_memdup(arena, ps.els, (size_t)ps.n * sizeof *ps.els);
		if (!*out)
			st = pq_fail(err, PQ_ENOMEM, "no memory for the schema");
		else
			*n = ps.n;
	}
	free(ps.els);
	return st;
}
