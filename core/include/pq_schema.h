/* The schema tree of a Parquet file, built from the flattened
 * FileMetaData.schema list (depth-first, num_children), and its text form.
 *
 * Every node knows its definition and repetition levels and how it is
 * assembled into JSON (the LIST / MAP backward-compatibility rules of
 * LogicalTypes.md are resolved here, once); every leaf (in schema order,
 * which is column chunk order) knows its path, escaped directory name and
 * render type. A pq_schema owns copies of everything it needs: it does not
 * point into the pq_file_meta_data it was built from. It is immutable after
 * building and may be shared between threads. */
#ifndef PQ_SCHEMA_H
#define PQ_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_bytes.h"
#include "pq_error.h"
#include "pq_metadata.h"
#include "pq_render.h"

/* Safety bounds on hostile footers (PQ_ELIMIT beyond them). */
#define PQ_SCHEMA_MAX_DEPTH 128              /* nesting below the root */
#define PQ_SCHEMA_MAX_ELEMENTS 262144u       /* schema elements */
#define PQ_SCHEMA_MAX_PATH_BYTES (64u << 20) /* all leaf paths together */

/* How a node becomes JSON. */
typedef enum pq_assembly_kind {
	PQ_AK_PRIMITIVE, /* a leaf value */
	PQ_AK_STRUCT,    /* group -> object keyed by child names, schema order */
	PQ_AK_LIST,      /* LIST-annotated group -> array of `element` values */
	PQ_AK_MAP,       /* MAP (or lone MAP_KEY_VALUE) group -> object of key: value */
	PQ_AK_REPEATED,  /* repeated field outside LIST/MAP -> array of its values */
	PQ_AK_VARIANT    /* VARIANT group -> one JSON value (VariantShredding.md) */
} pq_assembly_kind;

typedef struct pq_node pq_node;

struct pq_node {
	pq_bytes name;             /* NUL-terminated copy (names may hold NUL) */
	uint32_t index;            /* position in the schema element list */
	int32_t repetition;        /* enum pq_repetition; the root is REQUIRED */
	pq_schema_element el;      /* the element; name/crs point into the schema */
	uint16_t max_def, max_rep; /* levels of a leaf slot where this node is present */
	uint16_t depth;            /* root 0, top-level fields 1 */
	pq_node *parent;           /* NULL for the root */
	pq_node **children;
	uint32_t nchildren;
	int32_t leaf;              /* leaf (column) index, -1 for groups */
	uint32_t first_leaf, nleaves; /* the leaves below, contiguous */
	/* kind: how the node renders as a field of its parent group;
	 * PQ_AK_REPEATED when it is a repeated field not taken over by a LIST or
	 * MAP parent. value_kind: how one value of the node renders (never
	 * PQ_AK_REPEATED). A repeated layer taken over by its LIST/MAP parent has
	 * kind == value_kind. */
	pq_assembly_kind kind, value_kind;
	/* LIST: the repeated layer and the element node. In a 2-level list
	 * (legacy) the element is the repeated layer itself. */
	pq_node *list_rep, *element;
	/* MAP: the repeated key_value layer, key and value (NULL when the map
	 * has no value column: values render as null). */
	pq_node *map_rep, *key, *value;
	pq_bytes json_key;         /* `"name":` JSON-escaped, for objects */
	/* VARIANT (value_kind PQ_AK_VARIANT) and the groups that shred its
	 * parts (an object's field groups, an array's element group): their
	 * `metadata` (the variant only), `value` and `typed_value` children,
	 * NULL when absent. A typed_value group that shreds an object has its
	 * field groups in v_fields, sorted by name (unsigned bytes), so that
	 * they merge with the fields of `value` in key order. A VARIANT group
	 * whose shape does not follow VariantShredding.md (no binary metadata,
	 * other children, a shredded group that is not one) stays a STRUCT. */
	pq_node *v_metadata, *v_value, *v_typed;
	pq_node **v_fields;
	uint32_t nv_fields;
};

typedef struct pq_leaf {
	uint32_t index;            /* column index (chunk order) */
	const pq_node *node;
	const char *path;          /* dotted path_in_schema, NUL-terminated */
	size_t path_len;           /* (a name may hold NUL bytes: use this) */
	const char *dir;           /* escaped directory name (interface.md Names) */
	pq_bytes *components;      /* path components (root excluded) */
	uint32_t ncomponents;
	int32_t physical;          /* enum pq_type */
	int32_t type_length;       /* FIXED_LEN_BYTE_ARRAY width, else 0 (12 for INT96) */
	uint16_t max_def, max_rep;
	pq_render_type render;     /* pq_render_type_of(element) */
} pq_leaf;

typedef struct pq_schema pq_schema;

/* Builds the tree from md->schema. Bounds: element count, depth, every
 * num_children against the elements left, names present, root a group,
 * every element consumed. */
pq_status pq_schema_build(const pq_file_meta_data *md, pq_schema **out, pq_error *err);
/* The same from a bare element list (e.g. from pq_schema_parse). */
pq_status pq_schema_build_list(const pq_schema_element *els, uint32_t n, pq_schema **out,
			       pq_error *err);
void pq_schema_free(pq_schema *s);

const pq_node *pq_schema_root(const pq_schema *s);
size_t pq_schema_num_nodes(const pq_schema *s);
size_t pq_schema_num_leaves(const pq_schema *s);
const pq_leaf *pq_schema_leaf(const pq_schema *s, size_t i); /* NULL out of range */
/* The leaf whose escaped directory name is dir, or NULL. */
const pq_leaf *pq_schema_leaf_by_dir(const pq_schema *s, const char *dir);

/* Appends the escaped form of one name component (interface.md "Names"):
 * `%` -> %25, `/` -> %2F, `.` -> %2E, bytes below 0x20 -> %XX (upper hex). */
void pq_name_escape(const uint8_t *p, size_t n, pq_buf *out);

/* ---- text form (schema.txt), as parquet-java's MessageType.toString() --- */

/* Appends the whole schema text, ending with "}\n". */
void pq_schema_print(const pq_schema *s, pq_buf *out);
/* Appends the annotation parquet-java shows for an element, without the
 * parentheses (`STRING`, `DECIMAL(9,2)`, `TIMESTAMP(MICROS,true)`,
 * `INTEGER(8,false)`, `MAP_KEY_VALUE`, ...): the logical type, unless a
 * converted type is set that the logical type does not imply, then the
 * converted type's. Returns false (nothing appended) when there is none. */
bool pq_schema_annotation(const pq_schema_element *el, pq_buf *out);

/* Parses schema text (the syntax pq_schema_print writes; also the legacy
 * converted-type names such as UTF8 or TIMESTAMP_MILLIS as annotations, and
 * names containing spaces) into a flattened element list allocated in
 * arena, as a writer stores it: logicalType and the matching converted type
 * (and scale/precision for DECIMAL), type_length for FIXED_LEN_BYTE_ARRAY,
 * field ids. Annotations must fit their type (STRING on binary, DECIMAL
 * precision within the physical width, ...). Errors (PQ_EINVAL) say
 * "line L, column C: ...". */
pq_status pq_schema_parse(const char *text, size_t len, pq_arena *arena,
			  pq_schema_element **out, uint32_t *n, pq_error *err);

#endif
