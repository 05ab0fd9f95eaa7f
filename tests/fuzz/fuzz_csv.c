/* Fuzz target: CSV/TSV → Parquet conversion with options (the staging/
 * path and parquetfs-convert), then the written file read back through
 * every view. A conversion that succeeds must give a file that opens.
 *
 * Input: one options byte, then (when its bit 1 is set) sidecar schema
 * text up to a line "%%", then the CSV/TSV bytes. Seeds: corpus/csv/. */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_views.h"
#include "pq_convert.h"
#include "pq_metadata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd_with(const uint8_t *p, size_t n)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	data++, size--;
	char *schema = NULL;
	if (opt & 2) {
		const uint8_t *sep = memmem(data, size, "\n%%\n", 4);
		size_t n = sep ? (size_t)(sep - data) : size;
		schema = malloc(n + 1);
		if (!schema)
			return 0;
		memcpy(schema, data, n);
		schema[n] = '\0';
		size_t skip = sep ? n + 4 : n;
		data += skip, size -= skip;
	}
	static const int codecs[4] = {PQ_CODEC_UNCOMPRESSED, PQ_CODEC_SNAPPY, PQ_CODEC_ZSTD,
				      PQ_CODEC_GZIP};
	pq_write_options wo;
	pq_write_options_init(&wo);
	wo.codec = codecs[(opt >> 2) & 3];
	wo.dictionary = !(opt & 16);
	wo.data_page_version = opt & 32 ? 2 : 1;
	wo.page_index = !(opt & 64);
	wo.crc = opt & 64;
	if (opt & 128) {
		wo.row_group_rows = 3;
		wo.page_size = 64;
	}
	int in = memfd_with(data, size), out = memfd_create("fuzz-out", MFD_CLOEXEC);
	if (in >= 0 && out >= 0) {
		pq_error err;
		pq_error_clear(&err);
		pq_convert_stats stats;
		pq_status st = pq_convert_csv(in, out, "fuzz.csv", opt & 1 ? PQ_CSV_TAB : PQ_CSV_COMMA,
					      schema, &wo, &stats, &err);
		if (st == PQ_OK) {
			pq_file *f;
			if (pq_file_open_fd(out, "fuzz.parquet", NULL, &f, &err) != PQ_OK) {
				fprintf(stderr, "converted file does not open: %s\n", err.msg);
				abort();
			}
			fuzz_views(f, NULL);
			pq_file_free(f);
		} else if (!err.msg[0]) {
			fprintf(stderr, "conversion failed without a message\n");
			abort();
		}
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	free(schema);
	return 0;
}
