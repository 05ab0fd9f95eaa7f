/* pqcryptbench KEY_FILE PLAIN.parquet ENCRYPTED.parquet [PASSES]: the cost
 * of decryption on the read side. Both files should hold the same data
 * (e.g. written by DuckDB with and without ENCRYPTION_CONFIG). Prints, for
 * each, the best of PASSES (default 3) timings of decoding every column
 * (read, decrypt, decompress, decode) and of rendering data.csv, then the
 * raw AES-GCM and AES-CTR module throughput of this machine (1 MiB modules). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pq_crypto.h"
#include "read/pq_dump.h"
#include "pq_keyring.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pq_file *open_file(const char *path, const pq_keyring *kr, int *fd)
{
	struct stat st;
	*fd = open(path, O_RDONLY);
	if (*fd < 0 || fstat(*fd, &st) != 0) {
		perror(path);
		return NULL;
	}
	const char *base = strrchr(path, '/');
	pq_file *f;
	pq_error err;
	if (pq_file_open_fd(*fd, base ? base + 1 : path, kr, &f, &err) != PQ_OK) {
		fprintf(stderr, "%s: %s\n", path, err.msg);
		return NULL;
	}
	return f;
}

/* Best-of-passes seconds for decoding all columns and for data.csv. */
static int measure(const pq_file *f, int passes, double *cols, double *csv, size_t *csv_len)
{
	*cols = *csv = 1e30;
	pq_error err;
	for (int p = 0; p < passes; p++) {
		double t0 = now();
		pq_buf out = PQ_BUF_INIT;
		for (uint32_t c = 0; c < pq_file_num_columns(f); c++) {
			out.len = 0;
			if (pq_dump_column(f, PQ_ALL, c, false, &out, &err) != PQ_OK) {
				fprintf(stderr, "column %u: %s\n", c, err.msg);
				pq_buf_free(&out);
				return -1;
			}
		}
		double t1 = now();
		out.len = 0;
		if (pq_dump_rows(f, PQ_ALL, PQ_ROWS_CSV, &out, &err) != PQ_OK) {
			fprintf(stderr, "data.csv: %s\n", err.msg);
			pq_buf_free(&out);
			return -1;
		}
		double t2 = now();
		*csv_len = out.len;
		pq_buf_free(&out);
		if (t1 - t0 < *cols)
			*cols = t1 - t0;
		if (t2 - t1 < *csv)
			*csv = t2 - t1;
	}
	return 0;
}

static void raw_throughput(void)
{
	const size_t mod = 1u << 20, total = 256u << 20;
	uint8_t *plain = calloc(1, mod), *m = malloc(mod + 64), *out = malloc(mod + 64);
	pq_key k = {{0}, 16};
	pq_error err;
	for (int ci = 0; ci < 2; ci++) {
		pq_cipher c = ci ? PQ_CIPHER_CTR : PQ_CIPHER_GCM;
		size_t n, on;
		pq_module_encrypt(c, &k, (const uint8_t *)"aad", 3, NULL, plain, mod, m, &n, &err);
		double t0 = now();
		for (size_t done = 0; done < total; done += mod)
			pq_module_decrypt(c, &k, (const uint8_t *)"aad", 3, m, n, out, &on, &err);
		double t = now() - t0;
		printf("AES-128-%s module decryption: %.0f MB/s\n", ci ? "CTR" : "GCM",
		       (double)total / t / 1e6);
	}
	free(plain);
	free(m);
	free(out);
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: pqcryptbench KEY_FILE PLAIN.parquet ENCRYPTED.parquet [PASSES]\n");
		return 2;
	}
	int passes = argc > 4 ? atoi(argv[4]) : 3;
	pq_keyring *kr;
	pq_error err;
	if (pq_keyring_load(argv[1], &kr, &err) != PQ_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	double r[2][2];
	size_t len[2] = {0, 0};
	for (int i = 0; i < 2; i++) {
		int fd;
		pq_file *f = open_file(argv[2 + i], kr, &fd);
		if (!f || measure(f, passes < 1 ? 1 : passes, &r[i][0], &r[i][1], &len[i]) != 0)
			return 1;
		printf("%-10s decode all columns %.3f s, data.csv %.3f s (%zu bytes)\n",
		       i ? "encrypted" : "plain", r[i][0], r[i][1], len[i]);
		pq_file_free(f);
		close(fd);
	}
	printf("slowdown: columns %+.1f%%, data.csv %+.1f%%\n", 100.0 * (r[1][0] / r[0][0] - 1),
	       100.0 * (r[1][1] / r[0][1] - 1));
	raw_throughput();
	pq_keyring_free(kr);
	return len[0] == len[1] ? 0 : 1;
}
