/* Descriptor tables of the parquet.thrift structs (core/format/metadata_desc.c),
 * walked by the generic decoder/encoder (core/format/metadata.c) and the JSON
 * printer (core/format/metadata_json.c). Private to those files. */
#ifndef PQ_METADATA_INTERNAL_H
#define PQ_METADATA_INTERNAL_H
#ifndef PQ_FORMAT_INTERNAL
#error "metadata_internal.h is private to core/format/"
#endif


#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_metadata.h"
#include "pq_metadata_codec.h"

/* What a field holds in C (and so which wire type it has). */
typedef enum pq_fkind {
	PQ_FK_BOOL,    /* bool */
	PQ_FK_I8,      /* int8_t */
	PQ_FK_I16,     /* int16_t */
	PQ_FK_I32,     /* int32_t */
	PQ_FK_I64,     /* int64_t */
	PQ_FK_DOUBLE,  /* double */
	PQ_FK_BINARY,  /* pq_bytes, thrift `binary` */
	PQ_FK_STRING,  /* pq_bytes, thrift `string` */
	PQ_FK_ENUM,    /* int32_t with a names table */
	PQ_FK_STRUCT,  /* embedded struct (sub) */
	PQ_FK_LIST     /* {uint32_t n; T *v;}: element kind elem, size elem_size */
} pq_fkind;

typedef struct pq_enum_desc {
	const char *const *names; /* indexed by value; NULL holes */
	int32_t count;
} pq_enum_desc;

typedef struct pq_sdesc pq_sdesc;

typedef struct pq_fdesc {
	int16_t id;             /* thrift field id */
	uint8_t kind;           /* pq_fkind */
	uint8_t elem;           /* pq_fkind of list elements */
	uint8_t role;           /* pq_json_binary_role of binary values */
	bool default_true;      /* optional bool whose absent value means true */
	const char *name;       /* exactly as in parquet.thrift */
	size_t off;             /* the value; for lists the count n */
	size_t voff;            /* lists: the element array pointer */
	ptrdiff_t has;          /* the has_ flag, -1 for required fields */
	size_t elem_size;       /* lists: sizeof one element */
	const pq_sdesc *sub;    /* struct kind / list of struct */
	const pq_enum_desc *en; /* enum kind / list of enum */
} pq_fdesc;

struct pq_sdesc {
	const char *name;           /* thrift struct name, for messages */
	bool is_union;
	ptrdiff_t unknown_member;   /* int16_t for unknown union members, or -1 */
	size_t nfields;
	const pq_fdesc *fields;     /* in field-id order */
};

/* The descriptor and C size of each pq_struct_kind (NULL / 0 when out of
 * range). */
const pq_sdesc *pq_meta_desc(pq_struct_kind kind);
size_t pq_meta_size(pq_struct_kind kind);

/* Descriptors the JSON printer recognises to track row group / column. */
extern const pq_sdesc pq_desc_row_group;
extern const pq_sdesc pq_desc_column_chunk;
extern const pq_sdesc pq_desc_column_meta_data;

#endif
