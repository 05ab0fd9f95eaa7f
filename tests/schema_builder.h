/* Building flattened schema element lists by hand, for the schema and
 * assembly tests. Names must outlive the list (string literals). */
#ifndef SCHEMA_BUILDER_H
#define SCHEMA_BUILDER_H

#include <check.h>
#include <string.h>

#include "pq_metadata.h"

#define MAXEL 300
typedef struct els {
	pq_schema_element v[MAXEL];
	uint32_t n;
} els;

static inline pq_schema_element *add(els *e, const char *name, int rep)
{
	ck_assert_uint_lt(e->n, MAXEL);
	pq_schema_element *x = &e->v[e->n++];
	memset(x, 0, sizeof *x);
	x->name.p = (const uint8_t *)name;
	x->name.n = strlen(name);
	if (rep >= 0) {
		x->has_repetition_type = true;
		x->repetition_type = rep;
	}
	return x;
}

static inline pq_schema_element *grp(els *e, const char *name, int rep, int nchildren)
{
	pq_schema_element *x = add(e, name, rep);
	x->has_num_children = true;
	x->num_children = nchildren;
	return x;
}

static inline pq_schema_element *prim(els *e, const char *name, int rep, int type)
{
	pq_schema_element *x = add(e, name, rep);
	x->has_type = true;
	x->type = type;
	return x;
}

static inline pq_schema_element *conv(pq_schema_element *x, int ct)
{
	x->has_converted_type = true;
	x->converted_type = ct;
	return x;
}

#endif
