/* CSV / TSV input (core/csv*.c) against interface.md "Staging details":
 * the tokenizer's dialect and line numbers, every type inference rule,
 * value parsing for sidecar types and the reasons in error messages
 * (whole conversions: test_csv_convert.c).
 *
 * Golden values are independent: Python's datetime for day counts and
 * epoch seconds, Python's int.to_bytes for two's complement decimals,
 * Python's struct 'e' format for IEEE halves, the contract's own examples
 * for messages. */
#include "config.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "pq_convert.h"
#include "csv/pq_csv.h"
#include "pq_schema.h"

/* ---- helpers ------------------------------------------------------------ */

static int tmpfd_with(const char *content, size_t n)
{
	char path[] = "/tmp/pq_test_csv_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(write(fd, content, n), (ssize_t)n);
	return fd;
}

static pq_buf tok_out = PQ_BUF_INIT;
static pq_error tok_err;

/* Tokenizes everything: "LINE:f|f|f\n" per record; NULL is ~, a quoted
 * field is '...'. Returns the text, or "ERR <status>: <message>". */
static const char *tok_limits(const char *in, size_t n, pq_csv_format fmt, size_t max_field,
			      size_t max_columns)
{
	int fd = tmpfd_with(in, n);
	pq_csv_reader r;
	tok_out.len = 0;
	pq_error_clear(&tok_err);
	ck_assert_int_eq(pq_csv_reader_init(&r, fd, fmt, "x.csv", &tok_err), PQ_OK);
	if (max_field)
		r.max_field = max_field;
	if (max_columns)
		r.max_columns = max_columns;
	for (;;) {
		bool done;
		pq_status st = pq_csv_next(&r, &done, &tok_err);
		if (st != PQ_OK) {
			tok_out.len = 0;
			pq_buf_printf(&tok_out, "ERR %s: %s",
				      st == PQ_EINVAL ? "EINVAL" : st == PQ_ELIMIT ? "ELIMIT" : "other",
				      tok_err.msg);
			break;
		}
		if (done)
			break;
		pq_buf_printf(&tok_out, "%llu:", (unsigned long long)r.record_line);
		for (size_t i = 0; i < r.nfields; i++) {
			const pq_csv_field *f = &r.fields[i];
			if (i)
				pq_buf_putc(&tok_out, '|');
			if (f->null) {
				ck_assert_uint_eq(f->n, 0);
				pq_buf_putc(&tok_out, '~');
				continue;
			}
			if (f->quoted)
				pq_buf_putc(&tok_out, '\'');
			pq_buf_append(&tok_out, f->p, f->n);
			if (f->quoted)
				pq_buf_putc(&tok_out, '\'');
		}
		pq_buf_putc(&tok_out, '\n');
	}
	pq_csv_reader_free(&r);
	close(fd);
	pq_buf_putc(&tok_out, '\0');
	ck_assert(!tok_out.oom);
	return (const char *)tok_out.p;
}

static const char *tok(const char *in, pq_csv_format fmt)
{
	return tok_limits(in, strlen(in), fmt, 0, 0);
}

/* ---- tokenizer ------------------------------------------------------------ */

START_TEST(test_tok_bom_crlf)
{
	ck_assert_str_eq(tok("\xEF\xBB\xBF" "a,b\r\n1,2\r\n", PQ_CSV_COMMA), "1:a|b\n2:1|2\n");
	/* a BOM later in the file is data */
	ck_assert_str_eq(tok("a\n\xEF\xBB\xBFx\n", PQ_CSV_COMMA), "1:a\n2:\xEF\xBB\xBFx\n");
	/* no final line end; a lone CR ends a line too */
	ck_assert_str_eq(tok("a\r1\r2", PQ_CSV_COMMA), "1:a\n2:1\n3:2\n");
}
END_TEST

START_TEST(test_tok_quoted)
{
	ck_assert_str_eq(tok("a,b\n\"x,y\",\"he said \"\"hi\"\"\"\n", PQ_CSV_COMMA),
			 "1:a|b\n2:'x,y'|'he said \"hi\"'\n");
	/* embedded newlines: the next record's line is physical */
	ck_assert_str_eq(tok("a,b\n\"multi\nline\",z\nlast,1\n", PQ_CSV_COMMA),
			 "1:a|b\n2:'multi\nline'|z\n4:last|1\n");
	ck_assert_str_eq(tok("a\r\n\"x\r\ny\r\n\"\r\nz\r\n", PQ_CSV_COMMA),
			 "1:a\n2:'x\r\ny\r\n'\n5:z\n");
	/* a quote inside an unquoted field is kept as written */
	ck_assert_str_eq(tok("a\nx\"y\n", PQ_CSV_COMMA), "1:a\n2:x\"y\n");
}
END_TEST

START_TEST(test_tok_empty_and_blank)
{
	/* unquoted empty = NULL, "" = empty non-NULL */
	ck_assert_str_eq(tok("a,b,c\n,\"\",x\n1,2,\n", PQ_CSV_COMMA),
			 "1:a|b|c\n2:~|''|x\n3:1|2|~\n");
	/* blank lines outside quotes are skipped, lines still counted */
	ck_assert_str_eq(tok("\n\na\n\n\n1\n\r\n2\n\n", PQ_CSV_COMMA), "3:a\n6:1\n8:2\n");
	/* a blank line inside quotes is data */
	ck_assert_str_eq(tok("a\n\"\n\n\"\n", PQ_CSV_COMMA), "1:a\n2:'\n\n'\n");
	ck_assert_str_eq(tok("", PQ_CSV_COMMA), "");
	ck_assert_str_eq(tok("\xEF\xBB\xBF", PQ_CSV_COMMA), "");
}
END_TEST

START_TEST(test_tok_errors)
{
	ck_assert_str_eq(tok("a,b\n1,\"abc\n\n", PQ_CSV_COMMA),
			 "ERR EINVAL: x.csv: line 2, column 2: quoted field not closed before the "
			 "end of the file");
	ck_assert_str_eq(tok("a,b\n\"x\"y,1\n", PQ_CSV_COMMA),
			 "ERR EINVAL: x.csv: line 2, column 1: a closing quote must be followed by "
			 "a comma or the end of the line (write a quote inside a quoted field as "
			 "\"\")");
	ck_assert_str_eq(tok_limits("a\nabcdef\n", 9, PQ_CSV_COMMA, 4, 0),
			 "ERR ELIMIT: x.csv: line 2, column 1: field longer than 4 bytes");
	ck_assert_str_eq(tok_limits("a\n\"ab\ncdef\"\n", 12, PQ_CSV_COMMA, 4, 0),
			 "ERR ELIMIT: x.csv: line 2, column 1: field longer than 4 bytes");
	ck_assert_str_eq(tok_limits("a,b\n1,2,3\n", 10, PQ_CSV_COMMA, 0, 2),
			 "ERR ELIMIT: x.csv: line 2, column 3: more than 2 fields");
}
END_TEST

START_TEST(test_tok_tsv)
{
	ck_assert_str_eq(tok("a\tb\n\\N\tx\\ty\\\\z\\n\n", PQ_CSV_TAB),
			 "1:a|b\n2:~|x\ty\\z\n\n");
	/* empty is not NULL in TSV; unknown escapes and quotes stay as written;
	 * only a field that is exactly \N is NULL */
	ck_assert_str_eq(tok("a\tb\tc\n\t\\q\"x\"\ta\\N\n\\N\\N\t\\r\t\\\n", PQ_CSV_TAB),
			 "1:a|b|c\n2:|\\q\"x\"|a\\N\n3:\\N\\N|\r|\\\n");
	ck_assert_str_eq(tok("a,b\r\n1,2\r\n", PQ_CSV_TAB), "1:a,b\n2:1,2\n");
}
END_TEST

/* Fields across read-buffer boundaries (the buffer is 256 KiB). */
START_TEST(test_tok_long_fields)
{
	size_t big = 700000;
	char *in = malloc(2 * big + 64);
	size_t n = 0;
	n += (size_t)sprintf(in, "a,b\n\"");
	for (size_t i = 0; i < big / 2; i++) {
		in[n++] = 'x';
		in[n++] = i % 1000 == 0 ? '\n' : '"';
		if (i % 1000 != 0)
			in[n++] = '"';
	}
	n += (size_t)sprintf(in + n, "\",end\nlast,1\n");
	int fd = tmpfd_with(in, n);
	pq_csv_reader r;
	pq_error err;
	ck_assert_int_eq(pq_csv_reader_init(&r, fd, PQ_CSV_COMMA, "x.csv", &err), PQ_OK);
	bool done;
	ck_assert_int_eq(pq_csv_next(&r, &done, &err), PQ_OK);
	ck_assert_int_eq(pq_csv_next(&r, &done, &err), PQ_OK);
	ck_assert_uint_eq(r.nfields, 2);
	ck_assert_uint_eq(r.fields[0].n, big);
	ck_assert_int_eq(r.fields[0].p[1], '\n');
	ck_assert_int_eq(r.fields[0].p[3], '"');
	ck_assert_int_eq(memcmp(r.fields[1].p, "end", 3), 0);
	ck_assert_int_eq(pq_csv_next(&r, &done, &err), PQ_OK);
	ck_assert_uint_eq(r.record_line, 3 + big / 2 / 1000);
	ck_assert_int_eq(pq_csv_next(&r, &done, &err), PQ_OK);
	ck_assert(done);
	pq_csv_reader_free(&r);
	close(fd);
	free(in);
}
END_TEST

/* ---- inference ------------------------------------------------------------ */

/* The inferred type of a column of values (NULL-terminated list). */
static const char *infer(const char *const *vals)
{
	static char out[64];
	pq_infer s = {0};
	for (size_t i = 0; vals[i]; i++)
		pq_infer_add(&s, (const uint8_t *)vals[i], strlen(vals[i]));
	pq_schema_element el;
	pq_infer_element(&s, (pq_bytes){(const uint8_t *)"c", 1}, &el);
	ck_assert(el.has_repetition_type && el.repetition_type == PQ_OPTIONAL);
	const pq_logical_type *lt = &el.logicalType;
	switch (el.type) {
	case PQ_BOOLEAN: return "BOOLEAN";
	case PQ_INT64:
		if (el.has_logicalType && lt->has_TIMESTAMP) {
			snprintf(out, sizeof out, "TIMESTAMP(%s,%s)",
				 lt->TIMESTAMP.unit.has_NANOS ? "NANOS" : "MICROS",
				 lt->TIMESTAMP.isAdjustedToUTC ? "true" : "false");
			return out;
		}
		return "INT64";
	case PQ_DOUBLE: return "DOUBLE";
	case PQ_INT32: return el.has_logicalType && lt->has_DATE ? "DATE" : "INT32?";
	case PQ_BYTE_ARRAY: return el.has_logicalType && lt->has_STRING ? "STRING" : "BINARY?";
	default: return "?";
	}
}

#define INFER(...) infer((const char *const[]){__VA_ARGS__, NULL})

START_TEST(test_infer_bool_int)
{
	ck_assert_str_eq(INFER("true", "FALSE", "True"), "BOOLEAN");
	ck_assert_str_eq(INFER("yes"), "STRING");
	ck_assert_str_eq(INFER("1", "-2", "0", "-0"), "INT64");
	ck_assert_str_eq(INFER(" 12 ", "3\t"), "INT64");
	ck_assert_str_eq(INFER("007"), "STRING");
	ck_assert_str_eq(INFER("1", "+1"), "STRING");
	ck_assert_str_eq(INFER("-01"), "STRING");
	ck_assert_str_eq(INFER("9223372036854775807", "-9223372036854775808"), "INT64");
	ck_assert_str_eq(INFER("9223372036854775808"), "STRING");
	ck_assert_str_eq(INFER("-9223372036854775809"), "STRING");
	ck_assert_str_eq(INFER("99999999999999999999999"), "STRING");
	ck_assert_str_eq(INFER("true", "1"), "STRING");
	ck_assert_str_eq(INFER("1", "x"), "STRING");
	ck_assert_str_eq(INFER("1 2"), "STRING");
	ck_assert_str_eq(INFER("-"), "STRING");
	ck_assert_str_eq(INFER(" "), "STRING");
}
END_TEST

START_TEST(test_infer_double)
{
	ck_assert_str_eq(INFER("1", "2.5"), "DOUBLE");
	ck_assert_str_eq(INFER(".5", "5.", "1e-3", "-2.5E+10"), "DOUBLE");
	ck_assert_str_eq(INFER("nan", "-inf", "Infinity", "INF", "-NaN", "+infinity"), "DOUBLE");
	ck_assert_str_eq(INFER("1", "nan"), "DOUBLE");
	ck_assert_str_eq(INFER("1e400"), "STRING");
	ck_assert_str_eq(INFER("-1e400"), "STRING");
	ck_assert_str_eq(INFER("1e-400"), "STRING");
	ck_assert_str_eq(INFER("0e-400", "0.0"), "DOUBLE");
	ck_assert_str_eq(INFER("4.9e-324"), "DOUBLE");
	ck_assert_str_eq(INFER("007.5"), "STRING");
	ck_assert_str_eq(INFER("0.5", "0e5"), "DOUBLE");
	ck_assert_str_eq(INFER("+1.5"), "STRING");
	ck_assert_str_eq(INFER("1.5", "+1"), "STRING");
	ck_assert_str_eq(INFER("."), "STRING");
	ck_assert_str_eq(INFER("1e"), "STRING");
	ck_assert_str_eq(INFER("0x10"), "STRING");
	ck_assert_str_eq(INFER("nanx"), "STRING");
	ck_assert_str_eq(INFER("1.5", "true"), "STRING");
	/* an integer outside int64 is a DOUBLE value beside other DOUBLE
	 * values, in either order; alone or with integers only: STRING */
	ck_assert_str_eq(INFER("0.1", "123456789012345678901234567890", "2.5e-324"), "DOUBLE");
	ck_assert_str_eq(INFER("123456789012345678901234567890", "0.1"), "DOUBLE");
	ck_assert_str_eq(INFER("1", "-99999999999999999999", "1e3"), "DOUBLE");
	ck_assert_str_eq(INFER("1", "99999999999999999999"), "STRING");
	ck_assert_str_eq(INFER("99999999999999999999", "1"), "STRING");
	ck_assert_str_eq(INFER("99999999999999999999", "x"), "STRING");
	ck_assert_str_eq(INFER("0.5", "0123456789012345678901"), "STRING");
}
END_TEST

START_TEST(test_infer_dates)
{
	ck_assert_str_eq(INFER("2024-02-29", "2023-12-31", " 0001-01-01 "), "DATE");
	ck_assert_str_eq(INFER("9999-12-31"), "DATE");
	ck_assert_str_eq(INFER("2024-02-30"), "STRING");
	ck_assert_str_eq(INFER("2023-02-29"), "STRING");
	ck_assert_str_eq(INFER("1900-02-29"), "STRING");
	ck_assert_str_eq(INFER("2000-02-29"), "DATE");
	ck_assert_str_eq(INFER("0000-01-01"), "STRING");
	ck_assert_str_eq(INFER("2024-1-01"), "STRING");
	ck_assert_str_eq(INFER("2024-13-01"), "STRING");
	ck_assert_str_eq(INFER("2024/01/01"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01", "1"), "STRING");
}
END_TEST

START_TEST(test_infer_timestamps)
{
	ck_assert_str_eq(INFER("2024-01-01T10:00", "2024-01-01 10:00:00.123456"),
			 "TIMESTAMP(MICROS,false)");
	ck_assert_str_eq(INFER("2024-01-01T10:00:00.1234567"), "TIMESTAMP(NANOS,false)");
	ck_assert_str_eq(INFER("2024-01-01T10:00:00.123456789", "2024-01-01T10:00"),
			 "TIMESTAMP(NANOS,false)");
	ck_assert_str_eq(INFER("2024-01-01T10:00:00.1234567891"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10:00Z", "2024-01-01T10:00+02:00",
			       "2024-01-01T10:00-0530", "2024-01-01 10:00:00.5+01", "2024-01-01T10:00z"),
			 "TIMESTAMP(MICROS,true)");
	ck_assert_str_eq(INFER("2024-01-01T10:00:00.0000001Z"), "TIMESTAMP(NANOS,true)");
	/* mixed offsets and naive values */
	ck_assert_str_eq(INFER("2024-01-01T10:00Z", "2024-01-01T10:00"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10:00", "2024-01-01T10:00+01:00"), "STRING");
	/* DATE with naive timestamps is TIMESTAMP, with offset ones STRING */
	ck_assert_str_eq(INFER("2024-01-01", "2024-01-01T10:00"), "TIMESTAMP(MICROS,false)");
	ck_assert_str_eq(INFER("2024-01-01T10:00", "2024-01-01"), "TIMESTAMP(MICROS,false)");
	ck_assert_str_eq(INFER("2024-01-01", "2024-01-01T10:00Z"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10:00Z", "2024-01-01"), "STRING");
	/* bad clocks and offsets */
	ck_assert_str_eq(INFER("2024-01-01T24:00"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10:60"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10:00:00."), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10:00+1"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01T10:00+01:0"), "STRING");
	ck_assert_str_eq(INFER("2024-01-01X10:00"), "STRING");
	ck_assert_str_eq(INFER("2024-02-30T10:00"), "STRING");
	/* NANOS must fit int64 nanoseconds (1677-2262); MICROS always fits */
	ck_assert_str_eq(INFER("3000-01-01T00:00:00.1234567"), "STRING");
	/* the int64 nanosecond limits themselves fit */
	ck_assert_str_eq(INFER("2262-04-11T23:47:16.854775807", "1677-09-21T00:12:43.145224192"),
			 "TIMESTAMP(NANOS,false)");
	ck_assert_str_eq(INFER("2262-04-11T23:47:16.854775808"), "STRING");
	ck_assert_str_eq(INFER("1677-09-21T00:12:43.145224191"), "STRING");
	ck_assert_str_eq(INFER("3000-01-01T00:00:00.123456"), "TIMESTAMP(MICROS,false)");
	ck_assert_str_eq(INFER("1000-01-01T00:00", "2024-01-01T00:00:00.1234567"), "STRING");
}
END_TEST

START_TEST(test_infer_all_null)
{
	ck_assert_str_eq(infer((const char *const[]){NULL}), "STRING");
}
END_TEST

/* ---- values ------------------------------------------------------------ */

static pq_arena ty_arena;

/* The conversion of one field declared as in schema.txt. */
static pq_cv_type ctype(const char *decl)
{
	char text[256];
	snprintf(text, sizeof text, "message m {\n  %s;\n}\n", decl);
	pq_schema_element *els;
	uint32_t n;
	pq_error err;
	ck_assert_msg(pq_schema_parse(text, strlen(text), &ty_arena, &els, &n, &err) == PQ_OK,
		      "%s: %s", decl, err.msg);
	pq_cv_type t;
	const char *why = pq_cv_type_of(&els[1], &t);
	ck_assert_msg(why == NULL, "%s: %s", decl, why);
	return t;
}

static char why_buf[256];
static pq_cv_value val;
static pq_buf big = PQ_BUF_INIT;

static bool parse(const char *decl, const char *text)
{
	pq_cv_type t = ctype(decl);
	why_buf[0] = '\0';
	return pq_cv_parse(&t, (const uint8_t *)text, strlen(text), &val, &big, why_buf,
			   sizeof why_buf);
}

static const char *why(const char *decl, const char *text)
{
	ck_assert_msg(!parse(decl, text), "%s accepted %s", decl, text);
	return why_buf;
}

static const char *hex(void)
{
	static char out[2 * 64 + 1];
	size_t n = val.n < 64 ? val.n : 64;
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", val.p[i]);
	out[2 * n] = '\0';
	return out;
}

START_TEST(test_value_decimal)
{
	const char *d92 = "required int32 d (DECIMAL(9,2))";
	ck_assert(parse(d92, "1.5"));
	ck_assert_int_eq(val.v.i32, 150);
	ck_assert(parse(d92, "-0.05"));
	ck_assert_int_eq(val.v.i32, -5);
	ck_assert(parse(d92, "12"));
	ck_assert_int_eq(val.v.i32, 1200);
	ck_assert(parse(d92, " 3.1 "));
	ck_assert_int_eq(val.v.i32, 310);
	ck_assert(parse(d92, "1234567.89"));
	ck_assert_int_eq(val.v.i32, 123456789);
	ck_assert(parse(d92, "-0001234567.8"));
	ck_assert_int_eq(val.v.i32, -123456780);
	ck_assert(parse(d92, ".5"));
	ck_assert_int_eq(val.v.i32, 50);
	ck_assert(parse(d92, "7."));
	ck_assert_int_eq(val.v.i32, 700);
	ck_assert_str_eq(why(d92, "1.234"), "has more than 2 fraction digits for DECIMAL(9,2)");
	ck_assert_str_eq(why(d92, "1.230"), "has more than 2 fraction digits for DECIMAL(9,2)");
	ck_assert_str_eq(why(d92, "12345678.9"), "is out of range for DECIMAL(9,2)");
	ck_assert_str_eq(why(d92, "abc"), "is not a DECIMAL(9,2)");
	ck_assert_str_eq(why(d92, "1e3"), "is not a DECIMAL(9,2)");
	ck_assert_str_eq(why(d92, "nan"), "is not a DECIMAL(9,2)");
	ck_assert_str_eq(why("required int32 d (DECIMAL(5,0))", "1.0"),
			 "has more than 0 fraction digits for DECIMAL(5,0)");
	ck_assert_str_eq(why("required int32 d (DECIMAL(5,1))", "1.25"),
			 "has more than 1 fraction digit for DECIMAL(5,1)");
	ck_assert(parse("required int64 d (DECIMAL(18,4))", "-99999999999999.9999"));
	ck_assert_int_eq(val.v.i64, -999999999999999999LL);
	/* wide: FLBA two's complement at full width, BYTE_ARRAY minimal */
	ck_assert(parse("required fixed_len_byte_array(9) d (DECIMAL(20,3))", "-1.5"));
	ck_assert_str_eq(hex(), "fffffffffffffffa24");
	ck_assert(parse("required binary d (DECIMAL(38,0))", "12345678901234567890123456789"));
	ck_assert_str_eq(hex(), "27e41b3246bec9b16e398115");
	ck_assert(parse("required binary d (DECIMAL(38,0))", "-12345678901234567890123456789"));
	ck_assert_str_eq(hex(), "d81be4cdb941364e91c67eeb");
	ck_assert(parse("required binary d (DECIMAL(10,2))", "-1.28"));
	ck_assert_str_eq(hex(), "80");
	ck_assert(parse("required binary d (DECIMAL(10,2))", "1.28"));
	ck_assert_str_eq(hex(), "0080");
	ck_assert(parse("required binary d (DECIMAL(10,2))", "0"));
	ck_assert_str_eq(hex(), "00");
}
END_TEST

START_TEST(test_value_ints)
{
	ck_assert(parse("required int32 i", " 42 "));
	ck_assert_int_eq(val.v.i32, 42);
	ck_assert(parse("required int32 i", "-2147483648"));
	ck_assert_int_eq(val.v.i32, INT32_MIN);
	ck_assert(parse("required int32 i", "+007"));
	ck_assert_int_eq(val.v.i32, 7);
	ck_assert_str_eq(why("required int32 i", "abc"), "is not an INT32");
	ck_assert_str_eq(why("required int32 i", "1.0"), "is not an INT32");
	ck_assert_str_eq(why("required int32 i", ""), "is not an INT32");
	ck_assert_str_eq(why("required int32 i", "2147483648"), "is out of range for INT32");
	ck_assert_str_eq(why("required int64 i", "99999999999999999999"),
			 "is out of range for INT64");
	ck_assert(parse("required int64 i", "-9223372036854775808"));
	ck_assert_int_eq(val.v.i64, INT64_MIN);
	ck_assert_str_eq(why("required int32 i (INTEGER(8,true))", "128"),
			 "is out of range for INTEGER(8,true)");
	ck_assert(parse("required int32 i (INTEGER(8,true))", "-128"));
	ck_assert_int_eq(val.v.i32, -128);
	ck_assert_str_eq(why("required int32 i (INT_16)", "-32769"),
			 "is out of range for INTEGER(16,true)");
	ck_assert(parse("required int32 i (INTEGER(32,false))", "4294967295"));
	ck_assert_int_eq(val.v.i32, -1);
	ck_assert_str_eq(why("required int32 i (INTEGER(32,false))", "-1"),
			 "is out of range for INTEGER(32,false)");
	ck_assert_str_eq(why("required int32 i (UINT_8)", "256"),
			 "is out of range for INTEGER(8,false)");
	ck_assert(parse("required int64 i (UINT_64)", "18446744073709551615"));
	ck_assert_int_eq(val.v.i64, -1);
	ck_assert(parse("required boolean b", " TRUE "));
	ck_assert_int_eq(val.v.b, 1);
	ck_assert(parse("required boolean b", "false"));
	ck_assert_int_eq(val.v.b, 0);
	ck_assert_str_eq(why("required boolean b", "yes"), "is not a BOOLEAN");
}
END_TEST

START_TEST(test_value_floats)
{
	ck_assert(parse("required float f", "0.1"));
	ck_assert(val.v.f32 == 0.1f);
	/* parsed as float, not through double: 1.00000005960464477550 is just
	 * above the midpoint between 1 and 1+2^-23, and just below it in double */
	ck_assert(parse("required float f", "1.000000059604644775390625000001"));
	ck_assert(val.v.f32 == 1.00000011920928955078125f);
	ck_assert_str_eq(why("required float f", "1e39"), "is out of range for FLOAT");
	ck_assert_str_eq(why("required float f", "1e-50"), "is out of range for FLOAT");
	ck_assert_str_eq(why("required float f", "one"), "is not a FLOAT");
	ck_assert(parse("required float f", "-inf"));
	ck_assert(isinf(val.v.f32) && val.v.f32 < 0);
	ck_assert(parse("required double d", "NaN"));
	ck_assert(isnan(val.v.f64));
	ck_assert(parse("required double d", "+1.5e3"));
	ck_assert(val.v.f64 == 1500.0);
	ck_assert_str_eq(why("required double d", "1e400"), "is out of range for DOUBLE");
	ck_assert_str_eq(why("required double d", "0x1p3"), "is not a DOUBLE");
	/* short decimals take a fast path (no strtod): the same double as
	 * strtod, sign of zero included, for random texts of 1-17 digits */
	ck_assert(parse("required double d", "-0.00"));
	ck_assert(val.v.f64 == 0 && signbit(val.v.f64));
	srand(14);
	for (int k = 0; k < 200000; k++) {
		char txt[64];
		int nd = 1 + rand() % 17, dot = rand() % (nd + 1), o = 0;
		if (rand() % 2)
			txt[o++] = '-';
		for (int i = 0; i < nd; i++) {
			if (i == dot && rand() % 4)
				txt[o++] = '.';
			txt[o++] = (char)('0' + rand() % 10);
		}
		txt[o] = '\0';
		if (!parse("required double d", txt))
			continue; /* a leading dot without digits after a sign is fine too */
		double want = strtod(txt, NULL);
		ck_assert_msg(memcmp(&val.v.f64, &want, 8) == 0, "%s: %.17g, strtod %.17g", txt,
			      val.v.f64, want);
	}
	/* FLOAT16 (Python struct 'e') */
	const char *h = "required fixed_len_byte_array(2) h (FLOAT16)";
	ck_assert(parse(h, "0.1"));
	ck_assert_str_eq(hex(), "662e");
	ck_assert(parse(h, "65504"));
	ck_assert_str_eq(hex(), "ff7b");
	ck_assert(parse(h, "6e-8"));
	ck_assert_str_eq(hex(), "0100");
	ck_assert(parse(h, "-2.5"));
	ck_assert_str_eq(hex(), "00c1");
	ck_assert(parse(h, "1.00048828125")); /* exactly halfway: to even */
	ck_assert_str_eq(hex(), "003c");
	ck_assert(parse(h, "1.00048828125000001")); /* above halfway */
	ck_assert_str_eq(hex(), "013c");
	ck_assert(parse(h, "-1.00048828125000001"));
	ck_assert_str_eq(hex(), "01bc");
	ck_assert_str_eq(why(h, "65520"), "is out of range for FLOAT16");
	ck_assert_str_eq(why(h, "1e-9"), "is out of range for FLOAT16");
}
END_TEST

START_TEST(test_value_times)
{
	ck_assert(parse("required int32 d (DATE)", "1970-01-02"));
	ck_assert_int_eq(val.v.i32, 1);
	ck_assert(parse("required int32 d (DATE)", "0001-01-01"));
	ck_assert_int_eq(val.v.i32, -719162);
	ck_assert(parse("required int32 d (DATE)", "9999-12-31"));
	ck_assert_int_eq(val.v.i32, 2932896);
	ck_assert_str_eq(why("required int32 d (DATE)", "2024-02-30"), "is not a DATE");
	ck_assert_str_eq(why("required int32 d (DATE)", "2024-01-01T00:00"), "is not a DATE");

	const char *tm = "required int32 t (TIME(MILLIS,false))";
	ck_assert(parse(tm, "12:34:56.789"));
	ck_assert_int_eq(val.v.i32, 45296789);
	ck_assert(parse(tm, "00:01"));
	ck_assert_int_eq(val.v.i32, 60000);
	ck_assert_str_eq(why(tm, "12:34:56.7891"),
			 "has more than 3 fraction digits for TIME(MILLIS,false)");
	ck_assert_str_eq(why(tm, "12:00+01:00"),
			 "has a UTC offset but TIME(MILLIS,false) is not UTC-adjusted");
	ck_assert_str_eq(why(tm, "24:00"), "is not a TIME(MILLIS,false)");
	ck_assert(parse("required int64 t (TIME(MICROS,true))", "00:30+01:00"));
	ck_assert_int_eq(val.v.i64, 84600000000LL);
	ck_assert(parse("required int64 t (TIME(NANOS,true))", "23:59:59.999999999Z"));
	ck_assert_int_eq(val.v.i64, 86399999999999LL);

	const char *tsm = "required int64 t (TIMESTAMP(MILLIS,true))";
	ck_assert(parse(tsm, "2024-01-01T00:00:00+01:00"));
	ck_assert_int_eq(val.v.i64, (1704067200LL - 3600) * 1000);
	ck_assert(parse(tsm, "2024-01-01 00:00:00.5-0030"));
	ck_assert_int_eq(val.v.i64, (1704067200LL + 1800) * 1000 + 500);
	ck_assert(parse(tsm, "1970-01-01"));
	ck_assert_int_eq(val.v.i64, 0);
	ck_assert(parse(tsm, "1969-12-31T23:59:59.999"));
	ck_assert_int_eq(val.v.i64, -1);
	ck_assert_str_eq(why(tsm, "2024-01-01T00:00:00.0001"),
			 "has more than 3 fraction digits for TIMESTAMP(MILLIS,true)");
	ck_assert(parse("required int64 t (TIMESTAMP(NANOS,false))", "1970-01-01T00:00:00.000000001"));
	ck_assert_int_eq(val.v.i64, 1);
	ck_assert(parse("required int64 t (TIMESTAMP(NANOS,false))", "1677-09-21T00:12:43.145224192"));
	ck_assert_int_eq(val.v.i64, INT64_MIN);
	ck_assert(parse("required int64 t (TIMESTAMP(NANOS,false))", "2262-04-11T23:47:16.854775807"));
	ck_assert_int_eq(val.v.i64, INT64_MAX);
	ck_assert(parse("required int64 t (TIMESTAMP(MICROS,false))", "1969-12-31T23:59:59.999999"));
	ck_assert_int_eq(val.v.i64, -1);
	ck_assert_str_eq(why("required int64 t (TIMESTAMP(NANOS,false))", "2300-01-01T00:00"),
			 "is out of range for TIMESTAMP(NANOS,false)");
	ck_assert_str_eq(why("required int64 t (TIMESTAMP(MICROS,false))", "2024-01-01T00:00Z"),
			 "has a UTC offset but TIMESTAMP(MICROS,false) is not UTC-adjusted");
	ck_assert_str_eq(why("required int64 t (TIMESTAMP(MICROS,false))", "yesterday"),
			 "is not a TIMESTAMP(MICROS,false)");
	/* legacy converted type: UTC-adjusted */
	ck_assert(parse("required int64 t (TIMESTAMP_MICROS)", "1970-01-01T00:00:01+00:00"));
	ck_assert_int_eq(val.v.i64, 1000000);
}
END_TEST

START_TEST(test_value_bytes)
{
	const char *u = "required fixed_len_byte_array(16) u (UUID)";
	ck_assert(parse(u, "123E4567-e89b-12d3-a456-426614174000"));
	ck_assert_str_eq(hex(), "123e4567e89b12d3a456426614174000");
	ck_assert_str_eq(why(u, "123e4567e89b12d3a456426614174000"), "is not a UUID");
	ck_assert_str_eq(why(u, "123e4567-e89b-12d3-a456-42661417400g"), "is not a UUID");
	ck_assert_str_eq(why(u, "123e4567-e89b-12d3-a456-4266141740001"), "is not a UUID");

	ck_assert(parse("required binary s (STRING)", " caf\xC3\xA9 "));
	ck_assert_uint_eq(val.n, 7); /* spaces kept in strings */
	ck_assert_str_eq(why("required binary s (STRING)", "a\xFF"),
			 "is not valid UTF-8 (byte 0xff at offset 1) for STRING");
	ck_assert_str_eq(why("required binary s (STRING)", "\xED\xA0\x80"), /* surrogate */
			 "is not valid UTF-8 (byte 0xed at offset 0) for STRING");
	ck_assert_str_eq(why("required binary s (STRING)", "\xC0\xAF"), /* overlong */
			 "is not valid UTF-8 (byte 0xc0 at offset 0) for STRING");
	ck_assert_str_eq(why("required binary e (ENUM)", "\xF4\x90\x80\x80"), /* > U+10FFFF */
			 "is not valid UTF-8 (byte 0xf4 at offset 0) for ENUM");
	ck_assert(parse("required binary e (ENUM)", "\xF0\x9F\x98\x80"));
	ck_assert(parse("required binary b", "\xFF\x00"));

	const char *j = "required binary j (JSON)";
	ck_assert(parse(j, "{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\n\"],\"b\":{}}"));
	ck_assert(parse(j, " [ ] "));
	ck_assert(parse(j, "0"));
	ck_assert(parse(j, "\"caf\xC3\xA9\""));
	ck_assert_str_eq(why(j, "{a:1}"), "is not valid JSON");
	ck_assert_str_eq(why(j, "[1,]"), "is not valid JSON");
	ck_assert_str_eq(why(j, "01"), "is not valid JSON");
	ck_assert_str_eq(why(j, "1 2"), "is not valid JSON");
	ck_assert_str_eq(why(j, "\"a\tb\""), "is not valid JSON");
	ck_assert_str_eq(why(j, "\"\\x\""), "is not valid JSON");
	ck_assert_str_eq(why(j, "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
				"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
				"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
				"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
				"[[[[[[[[[[[[[[[[]"),
			 "is not valid JSON");

	ck_assert(parse("required fixed_len_byte_array(3) f", "abc"));
	ck_assert_str_eq(why("required fixed_len_byte_array(3) f", "ab"),
			 "is not 3 bytes long for FIXED_LEN_BYTE_ARRAY(3)");
}
END_TEST

START_TEST(test_value_quote)
{
	char q[128];
	pq_cv_quote((const uint8_t *)"a\"b\\c\n\x01", 7, q, sizeof q);
	ck_assert_str_eq(q, "\"a\\\"b\\\\c\\n\\x01\"");
	pq_cv_quote((const uint8_t *)"a\xFF", 2, q, sizeof q);
	ck_assert_str_eq(q, "\"a\\xff\"");
	pq_cv_quote((const uint8_t *)"caf\xC3\xA9", 5, q, sizeof q);
	ck_assert_str_eq(q, "\"caf\xC3\xA9\"");
	char longv[100];
	memset(longv, 'x', sizeof longv);
	pq_cv_quote((const uint8_t *)longv, sizeof longv, q, sizeof q);
	ck_assert_uint_eq(strlen(q), 60 + 5);
	ck_assert_str_eq(q + 61, "...\"");
}
END_TEST

/* ---- input: delimiter detection, gzip / zstd blocks --------------------------- */

static char detect(const char *text)
{
	int fd = tmpfd_with(text, strlen(text));
	pq_csv_input in;
	pq_error err;
	ck_assert_int_eq(pq_csv_input_open(&in, fd, "x.csv", PQ_INPUT_AUTO, 0, &err), PQ_OK);
	uint8_t d = 0;
	ck_assert_int_eq(pq_csv_detect_delimiter(&in, &d, &err), PQ_OK);
	pq_csv_input_free(&in);
	close(fd);
	return (char)d;
}

START_TEST(test_input_delimiter)
{
	ck_assert_int_eq(detect("a,b\n1,2\n"), ',');
	ck_assert_int_eq(detect("a;b\n1;2\n"), ';');
	ck_assert_int_eq(detect("a|b|c\n1|2|3\n"), '|');
	ck_assert_int_eq(detect("a\tb\n1\t2\n"), '\t');
	/* both split evenly: the first in the order , ; | tab */
	ck_assert_int_eq(detect("a;b,c\n1;2,3\n"), ',');
	/* quotes respected: the ; inside a quoted field does not count */
	ck_assert_int_eq(detect("a;b\n1;\"x;y\"\n\"p,q\";2\n"), ';');
	/* one column, or no delimiter splits evenly: , */
	ck_assert_int_eq(detect("a\n1\n"), ',');
	ck_assert_int_eq(detect("a;b\n1;2;3\n"), ',');
	ck_assert_int_eq(detect(""), ',');
	/* only the first 20 records count */
	char text[400] = "";
	for (int i = 0; i < 20; i++)
		strcat(text, "x;y\n");
	strcat(text, "1;2;3\n");
	ck_assert_int_eq(detect(text), ';');
	/* a quoted newline inside the first records */
	ck_assert_int_eq(detect("a|b\n\"l1\nl2\"|2\n"), '|');
}
END_TEST

static size_t gz(const char *text, uint8_t *out, size_t cap)
{
	z_stream z = {0};
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)(uintptr_t)text;
	z.avail_in = (uInt)strlen(text);
	z.next_out = out;
	z.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t n = cap - z.avail_out;
	deflateEnd(&z);
	return n;
}

/* The whole (decompressed) content of fd, or "ERR <message>". */
static const char *read_all(int fd, pq_input_codec codec, uint64_t max_out)
{
	pq_csv_input in;
	pq_error err;
	tok_out.len = 0;
	pq_status st = pq_csv_input_open(&in, fd, "x.csv.gz", codec, max_out, &err);
	for (int pass = 0; st == PQ_OK && pass < 2; pass++) {
		tok_out.len = 0;
		if (pass)
			st = pq_csv_input_rewind(&in, &err);
		uint8_t buf[7]; /* small blocks: many calls */
		size_t got = 1;
		while (st == PQ_OK && got) {
			st = pq_csv_input_read(&in, buf, sizeof buf, &got, &err);
			pq_buf_append(&tok_out, buf, got);
		}
	}
	if (st != PQ_OK) {
		tok_out.len = 0;
		pq_buf_printf(&tok_out, "ERR %s", err.msg);
	}
	pq_csv_input_free(&in);
	pq_buf_putc(&tok_out, '\0');
	return (const char *)tok_out.p;
}

START_TEST(test_input_gzip_zstd)
{
	uint8_t packed[4096];
	const char *a = "id,name\n1,alice\n", *b = "2,bob\n";
	size_t n = gz(a, packed, sizeof packed);
	n += gz(b, packed + n, sizeof packed - n); /* two members: cat a.gz b.gz */
	int fd = tmpfd_with((const char *)packed, n);
	ck_assert_str_eq(read_all(fd, PQ_INPUT_AUTO, 0), "id,name\n1,alice\n2,bob\n");
	ck_assert_str_eq(read_all(fd, PQ_INPUT_GZIP, 0), "id,name\n1,alice\n2,bob\n");
	/* the cap on decompressed bytes */
	ck_assert_str_eq(read_all(fd, PQ_INPUT_GZIP, 10),
			 "ERR x.csv.gz: decompresses to more than 10 bytes (the cap for a file of "
			 "its size; a likely decompression bomb)");
	close(fd);
	/* truncated: the stream ends inside a member */
	fd = tmpfd_with((const char *)packed, n - 5);
	ck_assert_str_eq(read_all(fd, PQ_INPUT_AUTO, 0),
			 "ERR x.csv.gz: gzip: the file ends inside a compressed member");
	close(fd);
	/* a .gz that is not gzip */
	fd = tmpfd_with("id\n1\n", 5);
	ck_assert_str_eq(read_all(fd, PQ_INPUT_AUTO, 0), "id\n1\n");
	ck_assert(strstr(read_all(fd, PQ_INPUT_GZIP, 0), "ERR x.csv.gz: gzip: "));
	close(fd);
	/* zstd: two frames */
	const char *text = "a\tb\n1\t2\n";
	size_t zn = ZSTD_compress(packed, sizeof packed, text, strlen(text), 3);
	ck_assert(!ZSTD_isError(zn));
	size_t zn2 = ZSTD_compress(packed + zn, sizeof packed - zn, "3\t4\n", 4, 19);
	ck_assert(!ZSTD_isError(zn2));
	fd = tmpfd_with((const char *)packed, zn + zn2);
	ck_assert_str_eq(read_all(fd, PQ_INPUT_AUTO, 0), "a\tb\n1\t2\n3\t4\n");
	close(fd);
	fd = tmpfd_with((const char *)packed, zn - 3);
	ck_assert_str_eq(read_all(fd, PQ_INPUT_ZSTD, 0),
			 "ERR x.csv.gz: zstd: the file ends inside a compressed frame");
	close(fd);
	/* a pipe: read once, never rewound */
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "x,y\n", 4), 4);
	close(p[1]);
	ck_assert_str_eq(read_all(p[0], PQ_INPUT_AUTO, 0),
			 "ERR x.csv.gz: a pipe cannot be read twice");
	close(p[0]);
}
END_TEST

int main(void)
{
	pq_arena_init(&ty_arena, 0);
	Suite *s = suite_create("csv");
	TCase *tc = tcase_create("tokenizer");
	tcase_add_test(tc, test_tok_bom_crlf);
	tcase_add_test(tc, test_tok_quoted);
	tcase_add_test(tc, test_tok_empty_and_blank);
	tcase_add_test(tc, test_tok_errors);
	tcase_add_test(tc, test_tok_tsv);
	tcase_add_test(tc, test_tok_long_fields);
	tcase_add_test(tc, test_input_delimiter);
	tcase_add_test(tc, test_input_gzip_zstd);
	suite_add_tcase(s, tc);
	tc = tcase_create("inference");
	tcase_add_test(tc, test_infer_bool_int);
	tcase_add_test(tc, test_infer_double);
	tcase_add_test(tc, test_infer_dates);
	tcase_add_test(tc, test_infer_timestamps);
	tcase_add_test(tc, test_infer_all_null);
	suite_add_tcase(s, tc);
	tc = tcase_create("values");
	tcase_add_test(tc, test_value_decimal);
	tcase_add_test(tc, test_value_ints);
	tcase_add_test(tc, test_value_floats);
	tcase_add_test(tc, test_value_times);
	tcase_add_test(tc, test_value_bytes);
	tcase_add_test(tc, test_value_quote);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	pq_arena_free(&ty_arena);
	pq_buf_free(&tok_out);
	pq_buf_free(&big);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
