/* Fuzz target: schema text (the sidecar .schema of a conversion and the
 * schema.txt syntax): parse, build the tree, print it, check it as a
 * conversion would. Seeds: tests/fuzz/corpus/schema/. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pq_arena.h"
#include "pq_buf.h"
#include "pq_convert.h"
#include "pq_metadata.h"
#include "pq_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pq_error err;
	pq_error_clear(&err);
	pq_arena a;
	pq_arena_init(&a, 64u << 20);
	pq_schema_element *els;
	uint32_t n;
	if (pq_schema_parse((const char *)data, size, &a, &els, &n, &err) == PQ_OK) {
		pq_schema *s;
		if (pq_schema_build_list(els, n, &s, &err) == PQ_OK) {
			pq_buf out = PQ_BUF_INIT;
			pq_schema_print(s, &out);
			for (uint32_t i = 0; i < n; i++)
				(void)pq_schema_annotation(&els[i], &out);
			pq_buf_free(&out);
			pq_schema_free(s);
		}
	}
	pq_arena_free(&a);
	/* pq_convert_check_schema takes a C string. */
	char *text = malloc(size + 1);
	if (text) {
		memcpy(text, data, size);
		text[size] = '\0';
		(void)pq_convert_check_schema(text, "fuzz.schema", &err);
		free(text);
	}
	return 0;
}
