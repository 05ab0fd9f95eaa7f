/* Type inference over all non-NULL values of a CSV column (interface.md
 * "Type inference"). Each value is classified once; the column keeps which
 * classes it has seen and becomes STRING as soon as they cannot mix.
 *
 * Choices where the contract is silent (doc/convert.md):
 *  - an integer outside int64 is a DOUBLE value in a column that has
 *    other DOUBLE values (fractions or exponents), and keeps a column of
 *    integers only STRING (it would lose digits as a DOUBLE);
 *  - nan / inf / infinity take either sign, `+inf` included;
 *  - a NANOS column (a value with 7-9 fraction digits) whose values do not
 *    all fit int64 nanoseconds (years 1677-2262) stays STRING. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <strings.h>

#include "pq_csv.h"

enum cls { C_STRING, C_BOOL, C_INT, C_BIGINT, C_DOUBLE, C_DATE, C_TS };

static enum cls classify(pq_infer *s, const uint8_t *p, size_t n)
{
	uint8_t c0 = n ? (uint8_t)(p[0] | 0x20) : 0;
	if ((c0 == 't' && n == 4 && !strncasecmp((const char *)p, "true", 4)) ||
	    (c0 == 'f' && n == 5 && !strncasecmp((const char *)p, "false", 5)))
		return C_BOOL;
	if (n == 0)
		return C_STRING;
	uint8_t c = p[0];
	if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'n' || c == 'N' ||
	    c == 'i' || c == 'I') {
		pq_cv_number num;
		if (pq_cv_number_shape(p, n, &num)) {
			if (num.special)
				return C_DOUBLE;
			if (num.plus || num.leading_zero)
				return C_STRING;
			double d;
			float f;
			if (!num.dot && !num.exp) {
				/* -?(0|[1-9][0-9]*) within int64 */
				size_t i = num.minus ? 1 : 0;
				uint64_t v = 0;
				bool big = false;
				for (; i < n && !big; i++) {
					unsigned dg = (unsigned)(p[i] - '0');
					if (v > (UINT64_MAX - dg) / 10)
						big = true;
					else
						v = v * 10 + dg;
				}
				if (!big && (num.minus ? v > (uint64_t)INT64_MAX + 1
						       : v > (uint64_t)INT64_MAX))
					big = true;
				if (!big)
					return C_INT;
				/* outside int64: a number only as a finite double */
				if (!pq_cv_strtod(p, n, false, &d, &f) || isinf(d))
					return C_STRING;
				return C_BIGINT;
			}
			/* Without an exponent, fewer than 300 digits can neither
			 * overflow nor underflow: no need to convert. */
			if (!num.exp && num.int_digits + num.frac_digits < 300)
				return C_DOUBLE;
			if (!pq_cv_strtod(p, n, false, &d, &f) || isinf(d) || (d == 0 && num.nonzero))
				return C_STRING;
			return C_DOUBLE;
		}
	}
	if (c >= '0' && c <= '9' && n >= 10) {
		pq_cv_ts ts;
		if (!pq_cv_parse_ts(p, n, &ts))
			return C_STRING;
		if (!ts.has_time)
			return C_DATE;
		if (ts.frac_digits > 6)
			s->nanos = true;
		int64_t v;
		if (!pq_cv_ts_value(&ts, PQ_NANOS, &v))
			s->nanos_overflow = true;
		if (ts.has_offset)
			s->saw_offset = true;
		else
			s->saw_naive = true;
		return C_TS;
	}
	return C_STRING;
}

void pq_infer_add(pq_infer *s, const uint8_t *p, size_t n)
{
	if (s->kind == PQ_INFER_STRING)
		return;
	pq_cv_trim(&p, &n);
	enum cls c = classify(s, p, n);
	pq_infer_kind k;
	switch (c) {
	case C_BOOL: k = PQ_INFER_BOOLEAN; break;
	case C_INT: s->saw_int = true; k = PQ_INFER_INT64; break;
	case C_BIGINT: s->saw_bigint = true; k = PQ_INFER_INT64; break;
	case C_DOUBLE: s->saw_double = true; k = PQ_INFER_DOUBLE; break;
	case C_DATE: s->saw_date = true; k = PQ_INFER_DATE; break;
	case C_TS: k = PQ_INFER_TIMESTAMP; break;
	default: k = PQ_INFER_STRING; break;
	}
	if (k == PQ_INFER_STRING) {
		s->kind = k;
		return;
	}
	bool numeric = k == PQ_INFER_INT64 || k == PQ_INFER_DOUBLE;
	bool temporal = k == PQ_INFER_DATE || k == PQ_INFER_TIMESTAMP;
	switch (s->kind) {
	case PQ_INFER_NONE:
		s->kind = k;
		break;
	case PQ_INFER_BOOLEAN:
		if (k != PQ_INFER_BOOLEAN)
			s->kind = PQ_INFER_STRING;
		break;
	case PQ_INFER_INT64:
	case PQ_INFER_DOUBLE:
		s->kind = !numeric ? PQ_INFER_STRING : s->saw_double ? PQ_INFER_DOUBLE : PQ_INFER_INT64;
		break;
	case PQ_INFER_DATE:
	case PQ_INFER_TIMESTAMP:
		s->kind = !temporal ? PQ_INFER_STRING
			  : (s->saw_naive || s->saw_offset) ? PQ_INFER_TIMESTAMP : PQ_INFER_DATE;
		break;
	default:
		break;
	}
	/* A date or naive timestamp never mixes with an offset timestamp. */
	if (s->kind == PQ_INFER_TIMESTAMP && s->saw_offset && (s->saw_naive || s->saw_date))
		s->kind = PQ_INFER_STRING;
}

/* The kind is a function of the classes seen (a BOOLEAN state has seen
 * only booleans, INT64 / DOUBLE only numbers, DATE / TIMESTAMP only dates
 * and timestamps) and the flags, which only ever get set: so merging is
 * OR-ing the flags and deciding the kind from both kinds, as
 * pq_infer_add decides it value by value. */
void pq_infer_merge(pq_infer *s, const pq_infer *o)
{
	if (o->kind == PQ_INFER_NONE)
		return;
	pq_infer_kind a = s->kind, b = o->kind;
	s->saw_int |= o->saw_int;
	s->saw_double |= o->saw_double;
	s->saw_bigint |= o->saw_bigint;
	s->saw_date |= o->saw_date;
	s->saw_naive |= o->saw_naive;
	s->saw_offset |= o->saw_offset;
	s->nanos |= o->nanos;
	s->nanos_overflow |= o->nanos_overflow;
	bool num_a = a == PQ_INFER_INT64 || a == PQ_INFER_DOUBLE;
	bool num_b = b == PQ_INFER_INT64 || b == PQ_INFER_DOUBLE;
	bool tmp_a = a == PQ_INFER_DATE || a == PQ_INFER_TIMESTAMP;
	bool tmp_b = b == PQ_INFER_DATE || b == PQ_INFER_TIMESTAMP;
	if (a == PQ_INFER_NONE)
		s->kind = b;
	else if (a == PQ_INFER_STRING || b == PQ_INFER_STRING)
		s->kind = PQ_INFER_STRING;
	else if (a == PQ_INFER_BOOLEAN || b == PQ_INFER_BOOLEAN)
		s->kind = a == b ? PQ_INFER_BOOLEAN : PQ_INFER_STRING;
	else if (num_a && num_b)
		s->kind = s->saw_double ? PQ_INFER_DOUBLE : PQ_INFER_INT64;
	else if (tmp_a && tmp_b)
		s->kind = (s->saw_naive || s->saw_offset) ? PQ_INFER_TIMESTAMP : PQ_INFER_DATE;
	else
		s->kind = PQ_INFER_STRING;
	if (s->kind == PQ_INFER_TIMESTAMP && s->saw_offset && (s->saw_naive || s->saw_date))
		s->kind = PQ_INFER_STRING;
}

void pq_infer_element(const pq_infer *s, pq_bytes name, pq_schema_element *el)
{
	memset(el, 0, sizeof *el);
	el->name = name;
	el->has_type = el->has_repetition_type = true;
	el->repetition_type = PQ_OPTIONAL;
	pq_infer_kind k = s->kind;
	if (k == PQ_INFER_TIMESTAMP && s->nanos && s->nanos_overflow)
		k = PQ_INFER_STRING;
	/* integers only, one outside int64: no digit of an identifier is lost */
	if (k == PQ_INFER_INT64 && s->saw_bigint)
		k = PQ_INFER_STRING;
	pq_logical_type *lt = &el->logicalType;
	switch (k) {
	case PQ_INFER_BOOLEAN:
		el->type = PQ_BOOLEAN;
		break;
	case PQ_INFER_INT64:
		el->type = PQ_INT64;
		break;
	case PQ_INFER_DOUBLE:
		el->type = PQ_DOUBLE;
		break;
	case PQ_INFER_DATE:
		el->type = PQ_INT32;
		el->has_logicalType = lt->has_DATE = true;
		el->has_converted_type = true;
		el->converted_type = PQ_CT_DATE;
		break;
	case PQ_INFER_TIMESTAMP:
		el->type = PQ_INT64;
		el->has_logicalType = lt->has_TIMESTAMP = true;
		lt->TIMESTAMP.isAdjustedToUTC = s->saw_offset;
		if (s->nanos) {
			lt->TIMESTAMP.unit.has_NANOS = true;
		} else {
			lt->TIMESTAMP.unit.has_MICROS = true;
			if (s->saw_offset) { /* the converted type exists for UTC only */
				el->has_converted_type = true;
				el->converted_type = PQ_CT_TIMESTAMP_MICROS;
			}
		}
		break;
	default:
		el->type = PQ_BYTE_ARRAY;
		el->has_logicalType = lt->has_STRING = true;
		el->has_converted_type = true;
		el->converted_type = PQ_CT_UTF8;
		break;
	}
}
