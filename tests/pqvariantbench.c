/* pqvariantbench [ROWS]: data.jsonl rendering throughput of a VARIANT
 * column next to a JSON string column holding the same documents, and of a
 * GEOMETRY column next to a STRING column holding its WKT. The columns are
 * fed to record assembly from memory (one batch each: decoding is not
 * measured; the writer makes flat files only), the best of 3 passes counts,
 * MB/s are of the rendered output. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "read/pq_assemble.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pq_schema_element el(const char *name, int rep, int type, int nchildren)
{
	pq_schema_element e;
	memset(&e, 0, sizeof e);
	e.name.p = (const uint8_t *)name;
	e.name.n = strlen(name);
	if (rep >= 0) {
		e.has_repetition_type = true;
		e.repetition_type = rep;
	}
	if (type >= 0) {
		e.has_type = true;
		e.type = type;
	} else {
		e.has_num_children = true;
		e.num_children = nchildren;
	}
	return e;
}

/* Renders rows of the leaves in cols (BYTE_ARRAY, required, one batch) as
 * JSONL through pq_assemble_rows; returns the best MB/s of output. */
static double render(pq_schema_element *schema, uint32_t n, size_t ncols, pq_bytes **cols,
		     size_t rows, size_t *bytes)
{
	pq_error err;
	pq_error_clear(&err);
	pq_schema *s;
	if (pq_schema_build_list(schema, n, &s, &err) != PQ_OK) {
		fprintf(stderr, "pqvariantbench: %s\n", err.msg);
		exit(1);
	}
	double best = 1e30;
	pq_buf out = PQ_BUF_INIT;
	for (int pass = 0; pass < 3; pass++) {
		pq_leaf_cursor cur[2];
		memset(cur, 0, sizeof cur);
		for (size_t c = 0; c < ncols; c++) {
			cur[c].nslots = rows;
			cur[c].vals = (pq_values){.type = PQ_BYTE_ARRAY, .n = rows, .v.ba = cols[c]};
		}
		out.len = 0;
		uint64_t done;
		double t0 = now();
		if (pq_assemble_rows(s, cur, rows, PQ_ROWS_JSONL, &out, &done, &err) != PQ_OK ||
		    done != rows) {
			fprintf(stderr, "pqvariantbench: %s\n", err.msg);
			exit(1);
		}
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	*bytes = out.len;
	pq_buf_free(&out);
	pq_schema_free(s);
	return (double)*bytes / best / 1e6;
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int main(int argc, char **argv)
{
	size_t rows = argc > 1 ? (size_t)atol(argv[1]) : 200000;
	/* keys (sorted): id name score tags */
	static const uint8_t meta[] = {0x11, 4, 0, 2, 6, 11, 15, 'i', 'd', 'n', 'a', 'm', 'e',
				       's', 'c', 'o', 'r', 'e', 't', 'a', 'g', 's'};
	pq_bytes *mcol = calloc(rows, sizeof *mcol), *vcol = calloc(rows, sizeof *vcol);
	pq_bytes *jcol = calloc(rows, sizeof *jcol), *gcol = calloc(rows, sizeof *gcol);
	pq_bytes *wcol = calloc(rows, sizeof *wcol);
	uint8_t *vbuf = malloc(rows * 64), *gbuf = malloc(rows * 64);
	char *jbuf = malloc(rows * 96), *wbuf = malloc(rows * 96);
	size_t jlen = 0, wlen = 0;
	for (size_t i = 0; i < rows; i++) {
		/* {"id":i,"name":"user_NNNNNN","score":i/4 (double),"tags":["a","bc"]} */
		uint8_t *v = vbuf + i * 64, *o = v;
		char name[16];
		snprintf(name, sizeof name, "user_%06zu", i % 1000000);
		uint8_t f_id[5] = {0x14};
		le32(f_id + 1, (uint32_t)i);
		uint8_t f_name[12] = {(uint8_t)(11 << 2 | 1)};
		memcpy(f_name + 1, name, 11);
		double score = (double)i / 4;
		uint8_t f_score[9] = {0x1C};
		memcpy(f_score + 1, &score, 8);
		uint8_t tags[10] = {0x03, 2, 0, 2, 5, 0x05, 'a', 0x09, 'b', 'c'};
		*o++ = 0x02;
		*o++ = 4;
		for (uint8_t k = 0; k < 4; k++)
			*o++ = k;
		uint8_t offs[5] = {0, 5, 17, 26, 36};
		memcpy(o, offs, 5);
		o += 5;
		memcpy(o, f_id, 5), o += 5;
		memcpy(o, f_name, 12), o += 12;
		memcpy(o, f_score, 9), o += 9;
		memcpy(o, tags, 10), o += 10;
		mcol[i] = (pq_bytes){meta, sizeof meta};
		vcol[i] = (pq_bytes){v, (size_t)(o - v)};
		char *j = jbuf + jlen;
		int n = snprintf(j, 96, "{\"id\":%zu,\"name\":\"%s\",\"score\":%.17g,\"tags\":[\"a\",\"bc\"]}",
				 i, name, score);
		jcol[i] = (pq_bytes){(const uint8_t *)j, (size_t)n};
		jlen += (size_t)n;
		/* LINESTRING of 3 points */
		uint8_t *g = gbuf + i * 64;
		g[0] = 1;
		le32(g + 1, 2);
		le32(g + 5, 3);
		double pts[6] = {(double)i, 1.5, (double)i + 0.25, -2, 10, (double)(i % 977)};
		memcpy(g + 9, pts, 48);
		gcol[i] = (pq_bytes){g, 57};
		char *w = wbuf + wlen;
		n = snprintf(w, 96, "LINESTRING (%zu 1.5, %.17g -2, 10 %zu)", i, (double)i + 0.25, i % 977);
		wcol[i] = (pq_bytes){(const uint8_t *)w, (size_t)n};
		wlen += (size_t)n;
	}
	pq_schema_element s1[4] = {el("m", -1, -1, 1), el("v", PQ_REQUIRED, -1, 2),
				   el("metadata", PQ_REQUIRED, PQ_BYTE_ARRAY, 0),
				   el("value", PQ_REQUIRED, PQ_BYTE_ARRAY, 0)};
	s1[1].has_logicalType = s1[1].logicalType.has_VARIANT = true;
	pq_schema_element s2[2] = {el("m", -1, -1, 1), el("v", PQ_REQUIRED, PQ_BYTE_ARRAY, 0)};
	s2[1].has_logicalType = s2[1].logicalType.has_JSON = true;
	pq_schema_element s3[2] = {el("m", -1, -1, 1), el("g", PQ_REQUIRED, PQ_BYTE_ARRAY, 0)};
	s3[1].has_logicalType = s3[1].logicalType.has_GEOMETRY = true;
	pq_schema_element s4[2] = {el("m", -1, -1, 1), el("g", PQ_REQUIRED, PQ_BYTE_ARRAY, 0)};
	s4[1].has_logicalType = s4[1].logicalType.has_STRING = true;
	struct {
		const char *name;
		pq_schema_element *schema;
		size_t ncols;
		pq_bytes *cols[2];
	} runs[4] = {{"variant", s1, 2, {mcol, vcol}}, {"json-string", s2, 1, {jcol}},
		     {"geometry", s3, 1, {gcol}}, {"wkt-string", s4, 1, {wcol}}};
	uint32_t nel[4] = {4, 2, 2, 2};
	printf("%-12s %10s %12s %10s\n", "column", "rows", "jsonl MB", "MB/s");
	for (int k = 0; k < 4; k++) {
		size_t bytes;
		double mbs = render(runs[k].schema, nel[k], runs[k].ncols, runs[k].cols, rows, &bytes);
		printf("%-12s %10zu %12.1f %10.1f\n", runs[k].name, rows, (double)bytes / 1e6, mbs);
	}
	free(mcol), free(vcol), free(jcol), free(gcol), free(wcol);
	free(vbuf), free(gbuf), free(jbuf), free(wbuf);
	return 0;
}
