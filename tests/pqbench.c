/* pqbench FILE [SECONDS]: decode throughput per column (read, decompress,
 * decode levels and values into typed arrays; no rendering). Each column is
 * decoded repeatedly for about SECONDS (default 1) and the best pass counts. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "read/pq_dump.h"
#include "format/pq_metadata_codec.h"
#include "pq_schema.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One pass over a column in all row groups; returns values decoded. */
static int pass(const pq_file *f, uint32_t col, uint64_t *values, uint64_t *bytes, pq_error *err)
{
	*values = *bytes = 0;
	for (uint32_t r = 0; r < pq_file_num_row_groups(f); r++) {
		pq_chunk_layout *l;
		if (pq_chunk_layout_load(f, r, col, &l, err) != PQ_OK)
			return -1;
		pq_page_data *dict = NULL;
		int rc = 0;
		if (l->dict && pq_page_decode(f, l, l->dict, NULL, &dict, err) != PQ_OK)
			rc = -1;
		for (uint32_t p = 0; rc == 0 && p < l->num_pages; p++) {
			pq_page_data *pd;
			if (pq_page_decode(f, l, &l->pages[p], dict, &pd, err) != PQ_OK) {
				rc = -1;
				break;
			}
			*values += pd->nslots;
			*bytes += (uint64_t)l->pages[p].header.uncompressed_page_size;
			pq_page_data_unref(pd);
		}
		pq_page_data_unref(dict);
		pq_chunk_layout_free(l);
		if (rc)
			return rc;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pqbench FILE [SECONDS]\n");
		return 2;
	}
	double secs = argc > 2 ? atof(argv[2]) : 1.0;
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0) {
		perror(argv[1]);
		return 1;
	}
	pq_error err;
	pq_error_clear(&err);
	pq_file *f;
	if (pq_file_open_fd(fd, argv[1], NULL, &f, &err) != PQ_OK) {
		fprintf(stderr, "pqbench: %s\n", err.msg);
		return 1;
	}
	printf("%-20s %-8s %-14s %-24s %12s %10s %12s %10s\n", "column", "type", "codec",
	       "encodings", "values", "MB", "Mvalues/s", "MB/s");
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		const pq_leaf *leaf = pq_schema_leaf(pq_file_schema(f), c);
		const pq_column_meta_data *m = pq_file_chunk_meta(f, 0, c);
		char encs[128] = "";
		for (uint32_t i = 0; m && i < m->encodings.n; i++) {
			const char *e = pq_encoding_name(m->encodings.v[i]);
			if (e && strcmp(e, "RLE") != 0 && strcmp(e, "BIT_PACKED") != 0) {
				strncat(encs, encs[0] ? "," : "", sizeof encs - strlen(encs) - 1);
				strncat(encs, e, sizeof encs - strlen(encs) - 1);
			}
		}
		double best = 1e30, start = now();
		uint64_t values = 0, bytes = 0;
		do {
			double t0 = now();
			if (pass(f, c, &values, &bytes, &err) != 0) {
				fprintf(stderr, "pqbench: %s\n", err.msg);
				return 1;
			}
			double t = now() - t0;
			if (t < best)
				best = t;
		} while (now() - start < secs);
		printf("%-20s %-8s %-14s %-24s %12llu %10.1f %12.1f %10.1f\n", leaf->path,
		       pq_type_name(leaf->physical), m ? pq_codec_enum_name(m->codec) : "?", encs,
		       (unsigned long long)values, (double)bytes / 1e6, (double)values / best / 1e6,
		       (double)bytes / best / 1e6);
	}
	pq_file_free(f);
	close(fd);
	return 0;
}
