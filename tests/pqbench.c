/* pqbench FILE [SECONDS]: decode throughput per column (read, decompress,
 * decode levels and values into typed arrays; no rendering). Each column is
 * decoded repeatedly for about SECONDS (default 1) and the best pass counts.
 *
 * pqbench --sizes FILE [RUNS]: the size pass (pq_file_measure) at 1 and 2
 * threads against rendering data.csv once through pq_row_reader on one
 * thread; best of RUNS (default 1) each, wall and CPU seconds, and the
 * ratio the filesystem cares about (pass at 2 threads / rendering). */
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
#include "pq_sizes.h"

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

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* data.csv rendered (header and every row group) into a buffer reset as
 * it goes: the bytes, or -1. */
static int64_t render_csv(const pq_file *f, pq_error *err)
{
	pq_buf b = PQ_BUF_INIT;
	pq_text_csv_header(f, &b);
	int64_t total = (int64_t)b.len;
	for (uint32_t r = 0; r < pq_file_num_row_groups(f); r++) {
		pq_row_reader *rr;
		if (pq_row_reader_open(f, r, PQ_ROWS_CSV, &rr, err) != PQ_OK)
			return -1;
		bool done = false;
		while (!done) {
			b.len = 0;
			if (pq_row_reader_next(rr, 1 << 20, &b, &done, err) != PQ_OK) {
				pq_row_reader_free(rr);
				pq_buf_free(&b);
				return -1;
			}
			total += (int64_t)b.len;
		}
		pq_row_reader_free(rr);
	}
	pq_buf_free(&b);
	return total;
}

static int bench_sizes(const pq_file *f, int runs)
{
	pq_error err;
	pq_error_clear(&err);
	double best[3] = {1e30, 1e30, 1e30}, cpu[3] = {0, 0, 0};
	int64_t csv = 0;
	uint64_t measured[3] = {0, 0, 0};
	for (int k = 0; k < runs; k++) {
		for (int m = 0; m < 3; m++) {
			double t0 = now(), c0 = cpu_now();
			if (m == 0) {
				if ((csv = render_csv(f, &err)) < 0) {
					fprintf(stderr, "pqbench: %s\n", err.msg);
					return 1;
				}
			} else {
				pq_sizes_options o = {.threads = (unsigned)m};
				pq_file_sizes *s;
				if (pq_file_measure(f, &o, &s, &err) != PQ_OK) {
					fprintf(stderr, "pqbench: %s\n", err.msg);
					return 1;
				}
				measured[m] = s->csv;
				pq_file_sizes_free(s);
			}
			double t = now() - t0;
			if (t < best[m]) {
				best[m] = t;
				cpu[m] = cpu_now() - c0;
			}
		}
	}
	printf("render data.csv, 1 thread:   %7.3f s wall %7.3f s cpu  (%lld bytes, %.0f MB/s)\n",
	       best[0], cpu[0], (long long)csv, (double)csv / best[0] / 1e6);
	for (int m = 1; m < 3; m++)
		printf("size pass, %d thread%s:        %7.3f s wall %7.3f s cpu  (%.2fx the rendering)\n", m,
		       m > 1 ? "s" : " ", best[m], cpu[m], best[m] / best[0]);
	bool same = measured[1] == (uint64_t)csv && measured[2] == (uint64_t)csv;
	printf("sizes agree with the rendering: %s\n", same ? "yes" : "NO");
	return same ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--sizes") == 0) {
		int fd = open(argv[2], O_RDONLY);
		pq_error err;
		pq_error_clear(&err);
		pq_file *f;
		if (fd < 0 || pq_file_open_fd(fd, argv[2], NULL, &f, &err) != PQ_OK) {
			fprintf(stderr, "pqbench: %s: cannot open (%s)\n", argv[2], err.msg);
			return 1;
		}
		int rc = bench_sizes(f, argc > 3 ? atoi(argv[3]) : 1);
		pq_file_free(f);
		close(fd);
		return rc;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: pqbench FILE [SECONDS] | pqbench --sizes FILE [RUNS]\n");
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
