/* pqbomb OUT.parquet [pages=N] [page_mb=M]: writes a decompression bomb
 * with the core writer: one REQUIRED BYTE_ARRAY column "s", one row group
 * of N zstd data pages (PLAIN, no dictionary) of about M MiB each once
 * decompressed, all of 4,096-byte strings of 'a': a few KiB on disk,
 * N * M MiB to decode. For the memory tests (test_memory.sh). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/pq_codec.h"
#include "write/pq_writer.h"

#define VALUE_BYTES 4096

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: pqbomb OUT.parquet [pages=N] [page_mb=M]\n");
		return 2;
	}
	unsigned long pages = 4, page_mb = 40;
	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "pages=", 6))
			pages = strtoul(argv[i] + 6, NULL, 10);
		else if (!strncmp(argv[i], "page_mb=", 8))
			page_mb = strtoul(argv[i] + 8, NULL, 10);
		else {
			fprintf(stderr, "pqbomb: unknown argument %s\n", argv[i]);
			return 2;
		}
	}
	if (!pages || !page_mb || page_mb > 200) {
		fprintf(stderr, "pqbomb: pages >= 1 and 1 <= page_mb <= 200\n");
		return 2;
	}
	pq_schema_element el[2];
	memset(el, 0, sizeof el);
	el[0].name = (pq_bytes){(const uint8_t *)"schema", 6};
	el[0].has_num_children = true;
	el[0].num_children = 1;
	el[1].name = (pq_bytes){(const uint8_t *)"s", 1};
	el[1].has_type = true;
	el[1].type = PQ_BYTE_ARRAY;
	el[1].has_repetition_type = true;
	el[1].repetition_type = PQ_REQUIRED;

	pq_write_options o;
	pq_write_options_init(&o);
	o.codec = PQ_CODEC_ZSTD;
	o.dictionary = false;
	o.page_index = false;
	o.crc = false;
	o.page_size = (uint64_t)page_mb << 20;
	o.row_group_rows = UINT64_MAX;

	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	/* one page holds page_mb MiB of values (each 4 bytes of length more) */
	size_t per_page = ((size_t)page_mb << 20) / (VALUE_BYTES + 4);
	static uint8_t a[VALUE_BYTES];
	memset(a, 'a', sizeof a);
	enum { BATCH = 1024 };
	pq_bytes views[BATCH];
	for (int i = 0; i < BATCH; i++)
		views[i] = (pq_bytes){a, sizeof a};
	pq_values v = {.type = PQ_BYTE_ARRAY};
	v.v.ba = views;
	pq_error err = {0};
	pq_writer *w = NULL;
	pq_status st = pq_writer_open(&w, fd, el, 2, &o, NULL, 0, &err);
	for (size_t left = per_page * pages; st == PQ_OK && left;) {
		size_t n = left < BATCH ? left : BATCH;
		v.n = n;
		st = pq_writer_write(w, 0, n, NULL, &v, &err);
		left -= n;
	}
	pq_write_stats stats;
	if (st == PQ_OK)
		st = pq_writer_close(w, &stats, &err);
	pq_writer_free(w);
	if (close(fd) != 0 && st == PQ_OK)
		st = pq_fail(&err, PQ_EIO, "close failed");
	if (st != PQ_OK) {
		fprintf(stderr, "pqbomb: %s\n", err.msg);
		return 1;
	}
	return 0;
}
