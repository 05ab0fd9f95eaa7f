/* The Thrift compact protocol, as Parquet uses it for all its metadata.
 *
 * Reader: reads from one byte range with a sticky error. The first failure
 * is recorded (status + message with the byte offset); every later read
 * returns zero and every loop ends, so callers test once per field or once
 * at the end. Everything read is bounded before use: nesting depth, varint
 * length, string lengths and container counts (each element needs at least
 * its minimum wire size in the bytes that remain, so a count can never make
 * a caller allocate more than the input justifies).
 *
 * Writer: appends to a pq_buf (whose out-of-memory flag is sticky too) and
 * keeps the field-id delta state of every open struct.
 *
 * Wire format (thrift-compact-protocol.md): field header = delta << 4 | type,
 * or type followed by the zigzag-varint i16 id when the delta is not 1..15;
 * bool fields carry their value in the type (1 true, 2 false); i8 is one raw
 * byte; i16/i32/i64 are zigzag varints; double is 8 bytes little-endian;
 * binary is a varint length and the bytes; list/set header = size << 4 |
 * element type, size 15 meaning a varint size follows; map header = varint
 * size, then (key type << 4 | value type) when the size is not zero. */
#ifndef PQ_THRIFT_H
#define PQ_THRIFT_H
#ifndef PQ_CORE_BUILD
#error "pq_thrift.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_bytes.h"
#include "pq_error.h"

/* Compact-protocol wire types. */
enum pq_thrift_type {
	PQ_TT_STOP = 0,
	PQ_TT_TRUE = 1,   /* bool field true; also the bool list element type */
	PQ_TT_FALSE = 2,  /* bool field false; also accepted as bool element type */
	PQ_TT_I8 = 3,
	PQ_TT_I16 = 4,
	PQ_TT_I32 = 5,
	PQ_TT_I64 = 6,
	PQ_TT_DOUBLE = 7,
	PQ_TT_BINARY = 8,
	PQ_TT_LIST = 9,
	PQ_TT_SET = 10,
	PQ_TT_MAP = 11,
	PQ_TT_STRUCT = 12,
	PQ_TT_UUID = 13   /* newer Thrift: 16 raw bytes; only ever skipped */
};

/* Named limits. */
#define PQ_THRIFT_MAX_DEPTH 64     /* open structs + containers */
#define PQ_THRIFT_MAX_VARINT 10    /* bytes of one varint (64 bits) */
#define PQ_THRIFT_MAX_COUNT 0x7fffffffu /* elements of one container */

/* ---- Reader ----------------------------------------------------------- */

typedef struct pq_thrift_reader {
	const uint8_t *start, *p, *end;
	pq_error *err;     /* may be NULL */
	pq_status status;  /* first failure, sticky */
	int depth;
} pq_thrift_reader;

typedef struct pq_thrift_field {
	int16_t id;
	uint8_t type;      /* enum pq_thrift_type; PQ_TT_TRUE/FALSE for bools */
	bool bool_value;   /* for bool fields */
} pq_thrift_field;

void pq_tr_init(pq_thrift_reader *r, const uint8_t *buf, size_t len, pq_error *err);
static inline bool pq_tr_ok(const pq_thrift_reader *r) { return r->status == PQ_OK; }
/* Bytes consumed so far, and bytes left. */
static inline size_t pq_tr_offset(const pq_thrift_reader *r) { return (size_t)(r->p - r->start); }
static inline size_t pq_tr_left(const pq_thrift_reader *r) { return (size_t)(r->end - r->p); }
/* Marks the reader failed with st (if it has not failed yet) without
 * writing a message: for callers that word their own. */
void pq_tr_set_failed(pq_thrift_reader *r, pq_status st);

/* Struct framing: begin checks the depth limit (false when over it or
 * failed); end must follow every begin, also a failed one. field returns
 * false at the STOP byte (consumed) or on error; *last_id starts at 0 for
 * each struct. */
bool pq_tr_struct_begin(pq_thrift_reader *r);
void pq_tr_struct_end(pq_thrift_reader *r);
bool pq_tr_field(pq_thrift_reader *r, int16_t *last_id, pq_thrift_field *f);

/* Container headers (list and set share one). They check the depth limit,
 * the element types and that n elements can fit in the remaining bytes;
 * false on error (then *n is 0). Call pq_tr_container_end after the
 * elements, also when the header failed. */
bool pq_tr_list_begin(pq_thrift_reader *r, uint8_t *elem_type, uint32_t *n);
bool pq_tr_map_begin(pq_thrift_reader *r, uint8_t *key_type, uint8_t *value_type, uint32_t *n);
void pq_tr_container_end(pq_thrift_reader *r);

/* Values. Integers are range-checked against their width. */
uint64_t pq_tr_varint(pq_thrift_reader *r);
int64_t pq_tr_i64(pq_thrift_reader *r);
int32_t pq_tr_i32(pq_thrift_reader *r);
int16_t pq_tr_i16(pq_thrift_reader *r);
int8_t pq_tr_i8(pq_thrift_reader *r);
double pq_tr_double(pq_thrift_reader *r);
/* A view into the input (zero-copy). */
pq_bytes pq_tr_binary(pq_thrift_reader *r);
/* A bool list element: 1 is true; 0 and 2 are false (both are written). */
bool pq_tr_bool_elem(pq_thrift_reader *r);

/* Skips the value of a field of any wire type, containers and structs
 * included (a bool field has no value bytes). */
void pq_tr_skip(pq_thrift_reader *r, uint8_t type);

/* Smallest encoded size of one value of a wire type (0 for invalid types). */
size_t pq_thrift_min_size(uint8_t type);
/* "i32", "struct", ... for messages. */
const char *pq_thrift_type_name(uint8_t type);

/* ---- Writer ----------------------------------------------------------- */

typedef struct pq_thrift_writer {
	pq_buf *out;
	int depth;                               /* open structs */
	int16_t last_id[PQ_THRIFT_MAX_DEPTH];
	bool too_deep;
} pq_thrift_writer;

void pq_tw_init(pq_thrift_writer *w, pq_buf *out);
void pq_tw_struct_begin(pq_thrift_writer *w);
void pq_tw_struct_end(pq_thrift_writer *w);       /* writes STOP */
/* A field header; for bools use pq_tw_field_bool. */
void pq_tw_field(pq_thrift_writer *w, int16_t id, uint8_t type);
void pq_tw_field_bool(pq_thrift_writer *w, int16_t id, bool v);
void pq_tw_field_i8(pq_thrift_writer *w, int16_t id, int8_t v);
void pq_tw_field_i16(pq_thrift_writer *w, int16_t id, int16_t v);
void pq_tw_field_i32(pq_thrift_writer *w, int16_t id, int32_t v);
void pq_tw_field_i64(pq_thrift_writer *w, int16_t id, int64_t v);
void pq_tw_field_double(pq_thrift_writer *w, int16_t id, double v);
void pq_tw_field_binary(pq_thrift_writer *w, int16_t id, const void *p, size_t n);
/* Container headers; the elements follow as bare values. */
void pq_tw_list_begin(pq_thrift_writer *w, uint8_t elem_type, uint32_t n);
void pq_tw_map_begin(pq_thrift_writer *w, uint8_t key_type, uint8_t value_type, uint32_t n);
/* Bare values (list elements). */
void pq_tw_i8(pq_thrift_writer *w, int8_t v);
void pq_tw_i16(pq_thrift_writer *w, int16_t v);
void pq_tw_i32(pq_thrift_writer *w, int32_t v);
void pq_tw_i64(pq_thrift_writer *w, int64_t v);
void pq_tw_double(pq_thrift_writer *w, double v);
void pq_tw_binary(pq_thrift_writer *w, const void *p, size_t n);
void pq_tw_bool_elem(pq_thrift_writer *w, bool v);
/* PQ_OK, or why the output is unusable (out of memory, nesting too deep,
 * unbalanced structs). */
pq_status pq_tw_finish(const pq_thrift_writer *w, pq_error *err);

#endif
