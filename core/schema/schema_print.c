/* schema.txt: the schema as parquet-java's MessageType.toString() prints it.
 *
 *   message <root> {
 *     <repetition> <type>[(<length>)] <name>[ (<annotation>)][ = <id>];
 *     <repetition> group <name>[ (<annotation>)][ = <id>] {
 *       ...
 *     }
 *   }
 *
 * The annotation is the toString() of the LogicalTypeAnnotation parquet-java
 * derives from the element: the logical type, except when a converted type
 * is set that the logical type does not map to (then the converted type
 * wins, as in parquet-java's ParquetMetadataConverter). */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "pq_schema.h"

static const char *unit_name(const pq_time_unit_u *u)
{
	if (u->has_MILLIS)
		return "MILLIS";
	if (u->has_MICROS)
		return "MICROS";
	if (u->has_NANOS)
		return "NANOS";
	return NULL;
}

static const char *const algorithm_names[] = {"SPHERICAL", "VINCENTY", "THOMAS", "ANDOYER",
					      "KARNEY"};

/* The converted type a logical type corresponds to (parquet-java's
 * toOriginalType), or -1 when it has none. */
static int32_t logical_original(const pq_logical_type *lt)
{
	if (lt->has_STRING)
		return PQ_CT_UTF8;
	if (lt->has_MAP)
		return PQ_CT_MAP;
	if (lt->has_LIST)
		return PQ_CT_LIST;
	if (lt->has_ENUM)
		return PQ_CT_ENUM;
	if (lt->has_DECIMAL)
		return PQ_CT_DECIMAL;
	if (lt->has_DATE)
		return PQ_CT_DATE;
	if (lt->has_TIME)
		return lt->TIME.unit.has_MILLIS	  ? PQ_CT_TIME_MILLIS
		       : lt->TIME.unit.has_MICROS ? PQ_CT_TIME_MICROS
						  : -1;
	if (lt->has_TIMESTAMP)
		return lt->TIMESTAMP.unit.has_MILLIS   ? PQ_CT_TIMESTAMP_MILLIS
		       : lt->TIMESTAMP.unit.has_MICROS ? PQ_CT_TIMESTAMP_MICROS
						       : -1;
	if (lt->has_INTEGER) {
		int32_t base = lt->INTEGER.isSigned ? PQ_CT_INT_8 : PQ_CT_UINT_8;
		switch (lt->INTEGER.bitWidth) {
		case 8: return base;
		case 16: return base + 1;
		case 32: return base + 2;
		case 64: return base + 3;
		default: return -1;
		}
	}
	if (lt->has_JSON)
		return PQ_CT_JSON;
	if (lt->has_BSON)
		return PQ_CT_BSON;
	return -1;
}

/* Appends the logical type's annotation; false when there is none this
 * build can show (no member it knows, or a time without a unit). */
static bool put_logical(const pq_logical_type *lt, pq_buf *out)
{
	if (lt->has_STRING)
		pq_buf_puts(out, "STRING");
	else if (lt->has_MAP)
		pq_buf_puts(out, "MAP");
	else if (lt->has_LIST)
		pq_buf_puts(out, "LIST");
	else if (lt->has_ENUM)
		pq_buf_puts(out, "ENUM");
	else if (lt->has_DECIMAL)
		pq_buf_printf(out, "DECIMAL(%" PRId32 ",%" PRId32 ")", lt->DECIMAL.precision,
			      lt->DECIMAL.scale);
	else if (lt->has_DATE)
		pq_buf_puts(out, "DATE");
	else if (lt->has_TIME || lt->has_TIMESTAMP) {
		const pq_timestamp_type *t = lt->has_TIME ? &lt->TIME : &lt->TIMESTAMP;
		const char *u = unit_name(&t->unit);
		if (!u)
			return false;
		pq_buf_printf(out, "%s(%s,%s)", lt->has_TIME ? "TIME" : "TIMESTAMP", u,
			      t->isAdjustedToUTC ? "true" : "false");
	} else if (lt->has_INTEGER)
		pq_buf_printf(out, "INTEGER(%d,%s)", lt->INTEGER.bitWidth,
			      lt->INTEGER.isSigned ? "true" : "false");
	else if (lt->has_UNKNOWN)
		pq_buf_puts(out, "UNKNOWN");
	else if (lt->has_JSON)
		pq_buf_puts(out, "JSON");
	else if (lt->has_BSON)
		pq_buf_puts(out, "BSON");
	else if (lt->has_UUID)
		pq_buf_puts(out, "UUID");
	else if (lt->has_FLOAT16)
		pq_buf_puts(out, "FLOAT16");
	else if (lt->has_VARIANT)
		pq_buf_printf(out, "VARIANT(%d)",
			      lt->VARIANT.has_specification_version
				      ? lt->VARIANT.specification_version
				      : 0);
	else if (lt->has_GEOMETRY) {
		pq_buf_puts(out, "GEOMETRY");
		if (lt->GEOMETRY.has_crs && lt->GEOMETRY.crs.n) {
			pq_buf_putc(out, '(');
			pq_buf_append(out, lt->GEOMETRY.crs.p, lt->GEOMETRY.crs.n);
			pq_buf_putc(out, ')');
		}
	} else if (lt->has_GEOGRAPHY) {
		/* GEOGRAPHY[(crs][,algorithm])]: crs first, the algorithm name
		 * when stored. */
		const pq_geography_type *g = &lt->GEOGRAPHY;
		bool crs = g->has_crs && g->crs.n;
		pq_buf_puts(out, "GEOGRAPHY");
		if (crs || g->has_algorithm) {
			pq_buf_putc(out, '(');
			if (crs)
				pq_buf_append(out, g->crs.p, g->crs.n);
			if (crs && g->has_algorithm)
				pq_buf_putc(out, ',');
			if (g->has_algorithm) {
				if (g->algorithm >= 0 && g->algorithm < 5)
					pq_buf_puts(out, algorithm_names[g->algorithm]);
				else
					pq_buf_printf(out, "%" PRId32, g->algorithm);
			}
			pq_buf_putc(out, ')');
		}
	} else
		return false;
	return true;
}

/* LogicalTypeAnnotation.fromOriginalType(...).toString(). */
static bool put_converted(const pq_schema_element *e, pq_buf *out)
{
	static const char *const simple[] = {
		[PQ_CT_UTF8] = "STRING", [PQ_CT_MAP] = "MAP", [PQ_CT_MAP_KEY_VALUE] = "MAP_KEY_VALUE",
		[PQ_CT_LIST] = "LIST", [PQ_CT_ENUM] = "ENUM", [PQ_CT_DATE] = "DATE",
		[PQ_CT_TIME_MILLIS] = "TIME(MILLIS,true)", [PQ_CT_TIME_MICROS] = "TIME(MICROS,true)",
		[PQ_CT_TIMESTAMP_MILLIS] = "TIMESTAMP(MILLIS,true)",
		[PQ_CT_TIMESTAMP_MICROS] = "TIMESTAMP(MICROS,true)",
		[PQ_CT_UINT_8] = "INTEGER(8,false)", [PQ_CT_UINT_16] = "INTEGER(16,false)",
		[PQ_CT_UINT_32] = "INTEGER(32,false)", [PQ_CT_UINT_64] = "INTEGER(64,false)",
		[PQ_CT_INT_8] = "INTEGER(8,true)", [PQ_CT_INT_16] = "INTEGER(16,true)",
		[PQ_CT_INT_32] = "INTEGER(32,true)", [PQ_CT_INT_64] = "INTEGER(64,true)",
		[PQ_CT_JSON] = "JSON", [PQ_CT_BSON] = "BSON", [PQ_CT_INTERVAL] = "INTERVAL",
	};
	int32_t ct = e->converted_type;
	if (ct == PQ_CT_DECIMAL) {
		pq_buf_printf(out, "DECIMAL(%" PRId32 ",%" PRId32 ")",
			      e->has_precision ? e->precision : 0, e->has_scale ? e->scale : 0);
		return true;
	}
	if (ct < 0 || ct >= (int32_t)(sizeof simple / sizeof *simple) || !simple[ct])
		return false;
	pq_buf_puts(out, simple[ct]);
	return true;
}

bool pq_schema_annotation(const pq_schema_element *el, pq_buf *out)
{
	size_t mark = out->len;
	bool lt = el->has_logicalType && put_logical(&el->logicalType, out);
	if (!el->has_converted_type)
		return lt;
	if (lt && logical_original(&el->logicalType) == el->converted_type)
		return true;
	/* The converted type is not what the logical type implies (or there
	 * is no usable logical type): parquet-java uses the converted type. */
	out->len = mark;
	if (put_converted(el, out))
		return true;
	/* A converted type this build does not know: keep the logical type. */
	return el->has_logicalType && put_logical(&el->logicalType, out);
}

static const char *type_name(int32_t t)
{
	static const char *const names[] = {"boolean", "int32", "int64", "int96",
					    "float", "double", "binary", "fixed_len_byte_array"};
	return t >= 0 && t < 8 ? names[t] : "binary";
}

static void indent(pq_buf *out, unsigned depth)
{
	for (unsigned i = 0; i < depth; i++)
		pq_buf_puts(out, "  ");
}

static void put_tail(const pq_node *n, pq_buf *out)
{
	pq_buf_append(out, n->name.p, n->name.n);
	size_t mark = out->len;
	pq_buf_puts(out, " (");
	if (pq_schema_annotation(&n->el, out))
		pq_buf_putc(out, ')');
	else
		out->len = mark;
	if (n->el.has_field_id)
		pq_buf_printf(out, " = %" PRId32, n->el.field_id);
}

static void print_node(const pq_node *n, pq_buf *out)
{
	static const char *const reps[] = {"required", "optional", "repeated"};
	indent(out, n->depth);
	pq_buf_puts(out, reps[n->repetition]);
	if (n->leaf >= 0) {
		pq_buf_putc(out, ' ');
		pq_buf_puts(out, type_name(n->el.type));
		if (n->el.type == PQ_FIXED_LEN_BYTE_ARRAY)
			pq_buf_printf(out, "(%" PRId32 ")", n->el.type_length);
		pq_buf_putc(out, ' ');
		put_tail(n, out);
		pq_buf_puts(out, ";\n");
		return;
	}
	pq_buf_puts(out, " group ");
	put_tail(n, out);
	pq_buf_puts(out, " {\n");
	for (uint32_t i = 0; i < n->nchildren; i++)
		print_node(n->children[i], out);
	indent(out, n->depth);
	pq_buf_puts(out, "}\n");
}

void pq_schema_print(const pq_schema *s, pq_buf *out)
{
	const pq_node *root = pq_schema_root(s);
	pq_buf_puts(out, "message ");
	pq_buf_append(out, root->name.p, root->name.n);
	pq_buf_puts(out, " {\n");
	for (uint32_t i = 0; i < root->nchildren; i++)
		print_node(root->children[i], out);
	pq_buf_puts(out, "}\n");
}
