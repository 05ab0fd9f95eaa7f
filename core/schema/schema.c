/* The schema tree: built from the flattened schema element list, with
 * levels, leaves, directory names and the JSON assembly kind of every node
 * (LogicalTypes.md, "Nested Types" and its backward-compatibility rules). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pq_schema.h"

struct pq_schema {
	pq_arena arena;
	pq_node *nodes;
	uint32_t nnodes;
	pq_leaf *leaves;
	uint32_t nleaves;
};

typedef struct builder {
	pq_schema *s;
	const pq_schema_element *els;
	uint32_t n, next;
	size_t path_bytes; /* all leaf paths so far */
	pq_error *err;
} builder;

/* Copies bytes into the arena with a NUL after them. */
static bool dup_bytes(pq_arena *a, pq_bytes in, pq_bytes *out)
{
	uint8_t *p = pq_arena_alloc(a, in.n + 1);
	if (!p)
		return false;
	if (in.n)
		memcpy(p, in.p, in.n);
	out->p = p;
	out->n = in.n;
	return true;
}

static const char *name_for_msg(const pq_bytes *name)
{
	return name->p ? (const char *)name->p : "?";
}

static pq_status build_node(builder *b, pq_node *parent, pq_node **out);

static pq_status build_children(builder *b, pq_node *n, int32_t count)
{
	const char *nm = name_for_msg(&n->name);
	PQ_CHECK(count >= 0, b->err, PQ_ECORRUPT,
		 "schema element %u (%s): negative num_children %d", n->index, nm, count);
	PQ_CHECK((uint32_t)count <= b->n - b->next, b->err, PQ_ECORRUPT,
		 "schema element %u (%s): num_children %d but only %u elements follow",
		 n->index, nm, count, b->n - b->next);
	if (count == 0)
		return PQ_OK;
	PQ_CHECK(n->depth < PQ_SCHEMA_MAX_DEPTH, b->err, PQ_ELIMIT,
		 "schema element %u (%s): nesting deeper than %d levels", n->index, nm,
		 PQ_SCHEMA_MAX_DEPTH);
	n->children = pq_arena_calloc(&b->s->arena, (size_t)count, sizeof *n->children);
	PQ_CHECK(n->children, b->err, PQ_ENOMEM, "no memory for the schema");
	n->nchildren = (uint32_t)count;
	for (uint32_t i = 0; i < n->nchildren; i++)
		PQ_TRY(build_node(b, n, &n->children[i]));
	return PQ_OK;
}

static pq_status add_leaf(builder *b, pq_node *n)
{
	pq_schema *s = b->s;
	pq_leaf *lf = &s->leaves[s->nleaves];
	lf->index = s->nleaves;
	lf->node = n;
	n->leaf = (int32_t)s->nleaves;
	s->nleaves++;
	lf->physical = n->el.type;
	lf->type_length = n->el.type == PQ_FIXED_LEN_BYTE_ARRAY ? n->el.type_length
			: n->el.type == PQ_INT96		 ? 12
								 : 0;
	lf->max_def = n->max_def;
	lf->max_rep = n->max_rep;
	lf->render = pq_render_type_of(&n->el);
	/* Paths repeat their ancestors' names: bound what a footer of long
	 * names nested deep can make us allocate. */
	size_t plen = n->depth ? n->depth - 1u : 0;
	for (const pq_node *p = n; p->parent; p = p->parent)
		plen += p->name.n;
	b->path_bytes += plen;
	PQ_CHECK(b->path_bytes <= PQ_SCHEMA_MAX_PATH_BYTES, b->err, PQ_ELIMIT,
		 "schema element %u: column paths exceed %u bytes in all", n->index,
		 PQ_SCHEMA_MAX_PATH_BYTES);
	lf->ncomponents = n->depth;
	lf->components = pq_arena_calloc(&s->arena, n->depth, sizeof *lf->components);
	PQ_CHECK(lf->components, b->err, PQ_ENOMEM, "no memory for the schema");
	pq_buf path = PQ_BUF_INIT, dir = PQ_BUF_INIT;
	uint32_t i = n->depth;
	for (const pq_node *p = n; p->parent; p = p->parent)
		lf->components[--i] = p->name;
	for (i = 0; i < lf->ncomponents; i++) {
		if (i) {
			pq_buf_putc(&path, '.');
			pq_buf_putc(&dir, '.');
		}
		pq_buf_append(&path, lf->components[i].p, lf->components[i].n);
		pq_name_escape(lf->components[i].p, lf->components[i].n, &dir);
	}
	pq_buf_putc(&path, '\0');
	pq_buf_putc(&dir, '\0');
	pq_bytes pb = {path.p, path.len ? path.len - 1 : 0};
	pq_bytes db = {dir.p, dir.len ? dir.len - 1 : 0};
	pq_bytes pc = {0}, dc = {0};
	bool ok = !path.oom && !dir.oom && dup_bytes(&s->arena, pb, &pc) &&
		  dup_bytes(&s->arena, db, &dc);
	pq_buf_free(&path);
	pq_buf_free(&dir);
	PQ_CHECK(ok, b->err, PQ_ENOMEM, "no memory for the schema");
	lf->path = (const char *)pc.p;
	lf->path_len = pc.n;
	lf->dir = (const char *)dc.p;
	return PQ_OK;
}

static pq_status build_node(builder *b, pq_node *parent, pq_node **out)
{
	PQ_CHECK(b->next < b->n, b->err, PQ_ECORRUPT, "schema list ends early");
	uint32_t idx = b->next++;
	const pq_schema_element *el = &b->els[idx];
	pq_node *n = &b->s->nodes[idx];
	*out = n;
	n->index = idx;
	n->parent = parent;
	n->leaf = -1;
	n->el = *el;
	PQ_CHECK(el->name.p, b->err, PQ_ECORRUPT, "schema element %u has no name", idx);
	PQ_CHECK(dup_bytes(&b->s->arena, el->name, &n->name), b->err, PQ_ENOMEM,
		 "no memory for the schema");
	n->el.name = n->name;
	/* Geospatial CRS strings are the only other bytes the element holds. */
	if (el->has_logicalType && el->logicalType.has_GEOMETRY && el->logicalType.GEOMETRY.has_crs)
		PQ_CHECK(dup_bytes(&b->s->arena, el->logicalType.GEOMETRY.crs,
				   &n->el.logicalType.GEOMETRY.crs),
			 b->err, PQ_ENOMEM, "no memory for the schema");
	if (el->has_logicalType && el->logicalType.has_GEOGRAPHY &&
	    el->logicalType.GEOGRAPHY.has_crs)
		PQ_CHECK(dup_bytes(&b->s->arena, el->logicalType.GEOGRAPHY.crs,
				   &n->el.logicalType.GEOGRAPHY.crs),
			 b->err, PQ_ENOMEM, "no memory for the schema");
	const char *nm = (const char *)n->name.p;

	bool group = !el->has_type;
	if (!parent) {
		PQ_CHECK(group, b->err, PQ_ECORRUPT,
			 "schema root (%s) is a primitive, not a group", nm);
		n->repetition = PQ_REQUIRED;
	} else {
		/* Missing repetition: treated as required (what most readers do). */
		n->repetition = el->has_repetition_type ? el->repetition_type : PQ_REQUIRED;
		PQ_CHECK(n->repetition >= PQ_REQUIRED && n->repetition <= PQ_REPEATED, b->err,
			 PQ_ECORRUPT, "schema element %u (%s): unknown repetition type %d", idx,
			 nm, n->repetition);
		n->depth = (uint16_t)(parent->depth + 1);
		n->max_def = (uint16_t)(parent->max_def + (n->repetition != PQ_REQUIRED));
		n->max_rep = (uint16_t)(parent->max_rep + (n->repetition == PQ_REPEATED));
	}
	n->first_leaf = b->s->nleaves;
	if (group) {
		PQ_TRY(build_children(b, n, el->has_num_children ? el->num_children : 0));
	} else {
		PQ_CHECK(!el->has_num_children || el->num_children == 0, b->err, PQ_ECORRUPT,
			 "schema element %u (%s) has both a type and %d children", idx, nm,
			 el->num_children);
		PQ_CHECK(el->type >= PQ_BOOLEAN && el->type <= PQ_FIXED_LEN_BYTE_ARRAY, b->err,
			 PQ_ECORRUPT, "schema element %u (%s): unknown physical type %d", idx, nm,
			 el->type);
		PQ_CHECK(el->type != PQ_FIXED_LEN_BYTE_ARRAY ||
				 (el->has_type_length && el->type_length > 0),
			 b->err, PQ_ECORRUPT,
			 "schema element %u (%s): FIXED_LEN_BYTE_ARRAY without a positive type_length",
			 idx, nm);
		PQ_TRY(add_leaf(b, n));
	}
	n->nleaves = b->s->nleaves - n->first_leaf;
	return PQ_OK;
}

/* ---- assembly kinds ---------------------------------------------------- */

static bool is_list(const pq_schema_element *e)
{
	return (e->has_logicalType && e->logicalType.has_LIST) ||
	       (e->has_converted_type && e->converted_type == PQ_CT_LIST);
}

static bool is_map(const pq_schema_element *e)
{
	return (e->has_logicalType && e->logicalType.has_MAP) ||
	       (e->has_converted_type && e->converted_type == PQ_CT_MAP);
}

static bool is_map_key_value(const pq_schema_element *e)
{
	return e->has_converted_type && e->converted_type == PQ_CT_MAP_KEY_VALUE;
}

static bool name_is(const pq_bytes *name, const char *s)
{
	size_t n = strlen(s);
	return name->n == n && memcmp(name->p, s, n) == 0;
}

/* LogicalTypes.md, LIST backward-compatibility rules 1-5: which node of
 * `parent (LIST) { repeated rep ... }` is the element. */
static pq_node *list_element(const pq_node *list, pq_node *rep)
{
	if (rep->leaf >= 0 || rep->nchildren != 1)
		return rep; /* rules 1, 2 */
	if (rep->children[0]->repetition == PQ_REPEATED)
		return rep; /* rule 3 */
	if (name_is(&rep->name, "array"))
		return rep; /* rule 4 */
	if (rep->name.n == list->name.n + 6 && memcmp(rep->name.p, list->name.p, list->name.n) == 0 &&
	    memcmp(rep->name.p + list->name.n, "_tuple", 6) == 0)
		return rep; /* rule 4 */
	return rep->children[0]; /* rule 5: 3-level */
}

/* Nodes come in pre-order, so every parent is classified before its
 * children and can mark the repeated layer it takes over. */
static void classify(pq_schema *s)
{
	for (uint32_t i = 0; i < s->nnodes; i++) {
		pq_node *n = &s->nodes[i];
		n->value_kind = n->leaf >= 0 ? PQ_AK_PRIMITIVE : PQ_AK_STRUCT;
		bool consumed = n->parent && (n->parent->list_rep == n || n->parent->map_rep == n);
		if (n->leaf < 0 && n->parent) {
			pq_node *c = n->nchildren == 1 ? n->children[0] : NULL;
			bool rep_child = c && c->repetition == PQ_REPEATED;
			/* A MAP_KEY_VALUE group inside a MAP group is its key_value
			 * layer; elsewhere it stands for MAP (legacy writers). */
			bool parent_map = is_map(&n->parent->el);
			if (is_list(&n->el) && rep_child) {
				n->value_kind = PQ_AK_LIST;
				n->list_rep = c;
				n->element = list_element(n, c);
			} else if ((is_map(&n->el) || (is_map_key_value(&n->el) && !parent_map)) &&
				   rep_child && c->leaf < 0 && c->nchildren >= 1 &&
				   c->nchildren <= 2) {
				n->value_kind = PQ_AK_MAP;
				n->map_rep = c;
				n->key = c->children[0];
				n->value = c->nchildren == 2 ? c->children[1] : NULL;
			}
		}
		n->kind = n->repetition == PQ_REPEATED && !consumed ? PQ_AK_REPEATED : n->value_kind;
	}
}

/* ---- VARIANT ------------------------------------------------------------ */

static bool is_binary_leaf(const pq_node *n)
{
	return n && n->leaf >= 0 && n->el.type == PQ_BYTE_ARRAY && n->repetition != PQ_REPEATED;
}

static int name_cmp(const void *a, const void *b)
{
	const pq_node *x = *(pq_node *const *)a, *y = *(pq_node *const *)b;
	int c = memcmp(x->name.p, y->name.p, x->name.n < y->name.n ? x->name.n : y->name.n);
	return c ? c : (x->name.n > y->name.n) - (x->name.n < y->name.n);
}

/* Fills the v_ fields of group g (the variant when top) and of the
 * shredded groups below it; false when the shape is not a variant's. */
static bool shred_shape(pq_schema *s, pq_node *g, bool top)
{
	if (g->leaf >= 0 || g->repetition == PQ_REPEATED)
		return false;
	for (uint32_t i = 0; i < g->nchildren; i++) {
		pq_node *c = g->children[i];
		if (top && name_is(&c->name, "metadata") && !g->v_metadata)
			g->v_metadata = c;
		else if (name_is(&c->name, "value") && !g->v_value)
			g->v_value = c;
		else if (name_is(&c->name, "typed_value") && !g->v_typed)
			g->v_typed = c;
		else
			return false;
	}
	if (top && !is_binary_leaf(g->v_metadata))
		return false;
	if (g->v_value && !is_binary_leaf(g->v_value))
		return false;
	if (!g->v_value && !g->v_typed)
		return false;
	pq_node *t = g->v_typed;
	if (!t || t->leaf >= 0)
		return !t || t->repetition != PQ_REPEATED;
	if (t->repetition == PQ_REPEATED)
		return false;
	if (t->value_kind == PQ_AK_LIST)
		return t->element != t->list_rep && shred_shape(s, t->element, false);
	if (t->value_kind != PQ_AK_STRUCT || t->nchildren == 0)
		return false;
	t->v_fields = pq_arena_calloc(&s->arena, t->nchildren, sizeof *t->v_fields);
	if (!t->v_fields)
		return false;
	t->nv_fields = t->nchildren;
	for (uint32_t i = 0; i < t->nchildren; i++) {
		if (!shred_shape(s, t->children[i], false))
			return false;
		t->v_fields[i] = t->children[i];
	}
	qsort(t->v_fields, t->nv_fields, sizeof *t->v_fields, name_cmp);
	return true;
}

static void classify_variants(pq_schema *s)
{
	for (uint32_t i = 0; i < s->nnodes; i++) {
		pq_node *n = &s->nodes[i];
		const pq_schema_element *e = &n->el;
		if (n->leaf >= 0 || !n->parent || !e->has_logicalType || !e->logicalType.has_VARIANT)
			continue;
		if (shred_shape(s, n, true)) {
			n->value_kind = PQ_AK_VARIANT;
			if (n->kind != PQ_AK_REPEATED)
				n->kind = PQ_AK_VARIANT;
		} else {
			n->v_metadata = n->v_value = n->v_typed = NULL;
		}
	}
}

static pq_status make_json_keys(pq_schema *s, pq_error *err)
{
	pq_buf b = PQ_BUF_INIT;
	for (uint32_t i = 0; i < s->nnodes; i++) {
		pq_node *n = &s->nodes[i];
		b.len = 0;
		pq_render_json_string(n->name.p, n->name.n, &b);
		pq_buf_putc(&b, ':');
		pq_bytes k = {b.p, b.len};
		if (b.oom || !dup_bytes(&s->arena, k, &n->json_key)) {
			pq_buf_free(&b);
			return pq_fail(err, PQ_ENOMEM, "no memory for the schema");
		}
	}
	pq_buf_free(&b);
	return PQ_OK;
}

pq_status pq_schema_build_list(const pq_schema_element *els, uint32_t n, pq_schema **out,
			       pq_error *err)
{
	*out = NULL;
	PQ_CHECK(n > 0 && els, err, PQ_ECORRUPT, "schema has no elements");
	PQ_CHECK(n <= PQ_SCHEMA_MAX_ELEMENTS, err, PQ_ELIMIT,
		 "schema has %u elements, more than the limit of %u", n, PQ_SCHEMA_MAX_ELEMENTS);
	pq_schema *s = calloc(1, sizeof *s);
	PQ_CHECK(s, err, PQ_ENOMEM, "no memory for the schema");
	pq_arena_init(&s->arena, 0);
	uint32_t prims = 0;
	for (uint32_t i = 0; i < n; i++)
		prims += els[i].has_type;
	s->nnodes = n;
	s->nodes = pq_arena_calloc(&s->arena, n, sizeof *s->nodes);
	s->leaves = pq_arena_calloc(&s->arena, prims ? prims : 1, sizeof *s->leaves);
	pq_status st = PQ_OK;
	if (!s->nodes || !s->leaves)
		st = pq_fail(err, PQ_ENOMEM, "no memory for a schema of %u elements", n);
	builder b = {s, els, n, 0, 0, err};
	pq_node *root = NULL;
	if (st == PQ_OK)
		st = build_node(&b, NULL, &root);
	if (st == PQ_OK && b.next != n)
		st = pq_fail(err, PQ_ECORRUPT,
			     "schema has %u elements but the root's tree holds only %u", n, b.next);
	if (st == PQ_OK) {
		classify(s);
		classify_variants(s);
		st = make_json_keys(s, err);
	}
	if (st != PQ_OK) {
		pq_schema_free(s);
		return st;
	}
	*out = s;
	return PQ_OK;
}

pq_status pq_schema_build(const pq_file_meta_data *md, pq_schema **out, pq_error *err)
{
	return pq_schema_build_list(md->schema.v, md->schema.n, out, err);
}

void pq_schema_free(pq_schema *s)
{
	if (!s)
		return;
	pq_arena_free(&s->arena);
	free(s);
}

const pq_node *pq_schema_root(const pq_schema *s) { return &s->nodes[0]; }
size_t pq_schema_num_nodes(const pq_schema *s) { return s->nnodes; }
size_t pq_schema_num_leaves(const pq_schema *s) { return s->nleaves; }

const pq_leaf *pq_schema_leaf(const pq_schema *s, size_t i)
{
	return s && i < s->nleaves ? &s->leaves[i] : NULL;
}

const pq_leaf *pq_schema_leaf_by_dir(const pq_schema *s, const char *dir)
{
	for (uint32_t i = 0; i < s->nleaves; i++)
		if (strcmp(s->leaves[i].dir, dir) == 0)
			return &s->leaves[i];
	return NULL;
}

void pq_name_escape(const uint8_t *p, size_t n, pq_buf *out)
{
	static const char hex[] = "0123456789ABCDEF";
	for (size_t i = 0; i < n; i++) {
		uint8_t c = p[i];
		if (c == '%' || c == '/' || c == '.' || c < 0x20) {
			char e[3] = {'%', hex[c >> 4], hex[c & 15]};
			pq_buf_append(out, e, 3);
		} else {
			pq_buf_putc(out, (char)c);
		}
	}
}
