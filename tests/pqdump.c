/* pqdump FILE ENTRY [COLUMN [ROW_GROUP]]: prints one entry of a Parquet
 * file's tree without mounting it (tests, benchmarks, debugging).
 * ENTRY: data.csv data.jsonl values levels schema metadata verify
 * sizes [THREADS [MEM_MAX]]: the size pass's results (pq_sizes.h), one
 * "name value" line each; sizes of entries that would fail read "failed". */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/pq_dump.h"
#include "pq_schema.h"
#include "pq_sizes.h"

static int find_column(const pq_file *f, const char *name)
{
	const pq_schema *s = pq_file_schema(f);
	for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
		const pq_leaf *l = pq_schema_leaf(s, c);
		if (strcmp(l->dir, name) == 0 || strcmp(l->path, name) == 0)
			return (int)c;
	}
	char *end;
	long v = strtol(name, &end, 10);
	return *end == '\0' && v >= 0 && (uint32_t)v < pq_file_num_columns(f) ? (int)v : -1;
}

static void put_size(pq_buf *o, const char *name, uint64_t v)
{
	if (v == PQ_SIZE_FAILED)
		pq_buf_printf(o, "%s failed\n", name);
	else
		pq_buf_printf(o, "%s %llu\n", name, (unsigned long long)v);
}

static pq_status dump_sizes(const pq_file *f, unsigned threads, uint64_t mem_max, pq_buf *o,
			    pq_error *err)
{
	pq_sizes_options opt = {.threads = threads, .mem_max = mem_max};
	pq_file_sizes *s;
	PQ_TRY(pq_file_measure(f, &opt, &s, err));
	char name[96];
	put_size(o, "csv_header", s->csv_header);
	put_size(o, "data.csv", s->csv);
	put_size(o, "data.jsonl", s->jsonl);
	put_size(o, "verify.txt", s->verify);
	for (uint32_t c = 0; c < s->num_columns; c++) {
		snprintf(name, sizeof name, "column %u values.txt", c);
		put_size(o, name, s->col_values[c]);
	}
	for (uint32_t r = 0; r < s->num_row_groups; r++) {
		snprintf(name, sizeof name, "rg %u data.csv", r);
		put_size(o, name, s->rg_csv[r]);
		snprintf(name, sizeof name, "rg %u data.jsonl", r);
		put_size(o, name, s->rg_jsonl[r]);
		for (uint32_t c = 0; c < s->num_columns; c++) {
			const pq_chunk_sizes *cs = &s->chunks[(size_t)r * s->num_columns + c];
			if (cs->status != PQ_OK)
				pq_buf_printf(o, "rg %u column %u: %s: %s\n", r, c,
					      pq_status_name(cs->status), cs->msg ? cs->msg : "");
			snprintf(name, sizeof name, "rg %u column %u values.txt", r, c);
			put_size(o, name, cs->values);
			snprintf(name, sizeof name, "rg %u column %u levels.txt", r, c);
			put_size(o, name, cs->levels);
			for (uint32_t p = 0; p < cs->num_pages; p++) {
				snprintf(name, sizeof name, "rg %u column %u page %u values.txt", r, c, p);
				put_size(o, name, cs->pages[p].values);
				snprintf(name, sizeof name, "rg %u column %u page %u levels.txt", r, c, p);
				put_size(o, name, cs->pages[p].levels);
			}
		}
	}
	put_size(o, "pages_measured", s->pages_measured);
	put_size(o, "pages_shared", s->pages_shared);
	put_size(o, "footprint", s->footprint);
	pq_file_sizes_free(s);
	return PQ_OK;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: pqdump FILE data.csv|data.jsonl|values|levels|schema|metadata|verify [COLUMN [ROW_GROUP]]\n       pqdump FILE sizes [THREADS [MEM_MAX]]\n");
		return 2;
	}
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
		fprintf(stderr, "pqdump: %s: %s\n", argv[1], err.msg);
		close(fd);
		return 1;
	}
	uint32_t rg = argc > 4 && strcmp(argv[2], "sizes") != 0 ? (uint32_t)strtoul(argv[4], NULL, 10) : PQ_ALL;
	pq_buf out = PQ_BUF_INIT;
	pq_status s = PQ_OK;
	const char *e = argv[2];
	if (strcmp(e, "data.csv") == 0 || strcmp(e, "data.jsonl") == 0) {
		/* streamed, as the mount serves it: memory stays small */
		fflush(stdout);
		s = pq_dump_rows_fd(f, argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : PQ_ALL,
				    e[5] == 'c' ? PQ_ROWS_CSV : PQ_ROWS_JSONL, STDOUT_FILENO, &err);
	} else if (strcmp(e, "values") == 0 || strcmp(e, "levels") == 0) {
		int c = argc > 3 ? find_column(f, argv[3]) : -1;
		if (c < 0) {
			fprintf(stderr, "pqdump: no such column\n");
			s = PQ_EINVAL;
		} else {
			s = pq_dump_column(f, rg, (uint32_t)c, e[0] == 'l', &out, &err);
		}
	} else if (strcmp(e, "schema") == 0) {
		pq_text_schema(f, &out);
	} else if (strcmp(e, "metadata") == 0) {
		pq_text_file_metadata(f, &out);
	} else if (strcmp(e, "metadata.json") == 0) {
		pq_json_file_metadata(f, &out);
	} else if (strcmp(e, "sizes") == 0) {
		s = dump_sizes(f, argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 0,
			       argc > 4 ? strtoull(argv[4], NULL, 10) : 0, &out, &err);
	} else if (strcmp(e, "verify") == 0) {
		s = pq_text_verify(f, &out, &err);
	} else {
		fprintf(stderr, "pqdump: unknown entry %s\n", e);
		s = PQ_EINVAL;
	}
	if (s == PQ_OK && out.len)
		fwrite(out.p, 1, out.len, stdout);
	if (s != PQ_OK && err.msg[0])
		fprintf(stderr, "pqdump: %s\n", err.msg);
	pq_buf_free(&out);
	pq_file_free(f);
	close(fd);
	return s == PQ_OK ? 0 : 1;
}
