/* pqdump FILE ENTRY [COLUMN [ROW_GROUP]]: prints one entry of a Parquet
 * file's tree without mounting it (tests, benchmarks, debugging).
 * ENTRY: data.csv data.jsonl values levels schema metadata verify */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/pq_dump.h"
#include "pq_schema.h"

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

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: pqdump FILE data.csv|data.jsonl|values|levels|schema|metadata|verify [COLUMN [ROW_GROUP]]\n");
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
	uint32_t rg = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : PQ_ALL;
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
	} else if (strcmp(e, "verify") == 0) {
		pq_text_verify(f, &out);
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
