/* pqarunabench CONTAINER KEYHEX [THREADS]: the in-memory cost of an ARUNA
 * container (scripts/bench aruna): the whole file read into memory, then
 * every chunk authenticated, decrypted and decompressed by core
 * (pq_aruna_open over a memory source) on THREADS threads (default 2),
 * each taking every THREADS-th chunk. Prints plaintext MB/s, the figure
 * `cat file.parquet` through the mount is compared with. Then seals the
 * plaintext again (pq_aruna_seal, THREADS threads) and prints that too. */
#include "config.h"

#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pq_aruna.h"
#include "test_files.h"

typedef struct work {
	pq_source *s;
	unsigned t, n;
	int failed;
} work;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* user + system CPU seconds of the process so far */
static double cpu_secs(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void *reader(void *arg)
{
	work *w = arg;
	uint64_t size = pq_source_size(w->s);
	uint8_t *buf = malloc(PQ_ARUNA_CHUNK);
	pq_error err = {0};
	for (uint64_t off = (uint64_t)w->t * PQ_ARUNA_CHUNK; buf && off < size;
	     off += (uint64_t)w->n * PQ_ARUNA_CHUNK) {
		size_t len = size - off < PQ_ARUNA_CHUNK ? (size_t)(size - off) : PQ_ARUNA_CHUNK;
		if (pq_source_pread(w->s, buf, len, off, &err) != PQ_OK) {
			fprintf(stderr, "%s\n", err.msg);
			w->failed = 1;
			break;
		}
	}
	free(buf);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3 || strlen(argv[2]) != 64) {
		fprintf(stderr, "usage: pqarunabench CONTAINER KEYHEX [THREADS]\n");
		return 2;
	}
	uint8_t key[32];
	for (int i = 0; i < 32; i++)
		sscanf(argv[2] + 2 * i, "%2hhx", &key[i]);
	unsigned n = argc > 3 ? (unsigned)atoi(argv[3]) : 2;
	if (n < 1 || n > 64)
		n = 2;
	size_t len;
	char *bytes = test_read_file(argv[1], &len);
	if (!bytes) {
		perror(argv[1]);
		return 1;
	}
	pq_source *raw, *s;
	pq_error err = {0};
	if (pq_source_mem_new(bytes, len, false, &raw, &err) != PQ_OK ||
	    pq_aruna_open(raw, key, (uint64_t)n * 16 * PQ_ARUNA_CHUNK, NULL, &s, &err) != PQ_OK) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	pq_source_unref(raw);
	double t0 = now(), c0 = cpu_secs();
	pthread_t tid[64];
	work w[64];
	for (unsigned t = 0; t < n; t++) {
		w[t] = (work){s, t, n, 0};
		pthread_create(&tid[t], NULL, reader, &w[t]);
	}
	int failed = 0;
	for (unsigned t = 0; t < n; t++) {
		pthread_join(tid[t], NULL);
		failed |= w[t].failed;
	}
	double dt = now() - t0, dc = cpu_secs() - c0;
	uint64_t size = pq_source_size(s);
	printf("decrypt+decompress in memory, %u threads: %.0f MB plaintext in %.3f s = %.0f MB/s "
	       "(CPU %.2f s)\n", n, (double)size / 1e6, dt, (double)size / 1e6 / dt, dc);
	/* sealing: the plaintext, in memory first */
	char path[] = "/tmp/pqarunabench-XXXXXX";
	int fd = mkstemp(path);
	uint8_t *plain = malloc(size ? size : 1);
	pq_source *ps = NULL;
	if (fd >= 0 && plain && pq_source_pread(s, plain, size, 0, &err) == PQ_OK &&
	    pq_source_mem_new(plain, size, false, &ps, &err) == PQ_OK) {
		unlink(path);
		pq_aruna_write_opts o = {.threads = n};
		t0 = now();
		if (pq_aruna_seal(ps, key, &o, fd, &err) != PQ_OK) {
			fprintf(stderr, "%s\n", err.msg);
			failed = 1;
		}
		dt = now() - t0;
		printf("compress+seal (zstd 3), %u threads: %.0f MB/s of plaintext\n", n,
		       (double)size / 1e6 / dt);
	}
	if (fd >= 0)
		close(fd);
	pq_source_unref(ps);
	free(plain);
	pq_source_unref(s);
	free(bytes);
	return failed;
}
