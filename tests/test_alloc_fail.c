/* Allocation failure, as SQLite's test_malloc does it: the Nth allocation
 * of an operation fails, for N = 1, 2, 3, ... until the operation runs
 * without reaching N. Linked with -Wl,--wrap=malloc,... so every
 * allocation core/ makes passes through here (libraries' own, zstd's or
 * OpenSSL's, do not).
 *
 * Operations: opening and rendering every view (tests/fuzz/fuzz_views.c)
 * of the project's own files (the fuzz seed corpus: pqwrite and
 * parquetfs-convert output, encrypted ones with their keys) and, with
 * ../shared/testdata, of a few conformance files (all of them with
 * PFS_LONG=1); a CSV conversion; key_file and schema text parsing.
 *
 * Each run must not crash (ASan/UBSan watch under the sanitize build) and
 * must leak nothing (LeakSanitizer at exit), and every view must come out
 * as in the run without failures or with an error: a status that is not
 * PQ_OK or an output buffer marked out of memory. A view that succeeds
 * with different bytes is a failure turned into wrong output.
 *
 * PQ_ALLOC_STRIDE=K tries every Kth N (default: about 150 runs per
 * operation, 40 under ASan; PFS_LONG=1: every N). Not a check test: no libcheck, whose own
 * allocations would be wrapped too. */
#define _GNU_SOURCE
#include "config.h"

#include <dirent.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz_views.h"
#include "pq_arena.h"
#include "pq_convert.h"
#include "pq_keyring.h"
#include "pq_metadata.h"
#include "pq_schema.h"
#include "test_files.h"

/* ---- the failing allocator ------------------------------------------------- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static atomic_long alloc_count; /* allocations since the operation began */
static long fail_at;            /* 0: none fails */
static atomic_bool fail_hit;

static bool fail_now(void)
{
	long n = atomic_fetch_add(&alloc_count, 1) + 1;
	if (fail_at && n == fail_at) {
		atomic_store(&fail_hit, true);
		return true;
	}
	return false;
}

void *__wrap_malloc(size_t n) { return fail_now() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return fail_now() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return fail_now() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return fail_now() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return fail_now() ? NULL : __real_strndup(s, n); }

static void arm(long n)
{
	atomic_store(&alloc_count, 0);
	atomic_store(&fail_hit, false);
	fail_at = n;
}

/* ---- operations --------------------------------------------------------------- */

#define LOG_CAP 65536
static fuzz_outcome ref_v[LOG_CAP], run_v[LOG_CAP];
static int failures;

static void failf(const char *what, long n, const char *detail)
{
	printf("FAIL: %s, allocation %ld failing: %s\n", what, n, detail);
	failures++;
}

/* Runs per operation by default: fewer under the sanitizers (~4x slower). */
#if defined(__SANITIZE_ADDRESS__)
#define RUNS 40
#else
#define RUNS 150
#endif

static long stride_for(long total)
{
	const char *s = getenv("PQ_ALLOC_STRIDE");
	if (s && atol(s) > 0)
		return atol(s);
	const char *lng = getenv("PFS_LONG");
	if (lng && *lng == '1')
		return 1;
	return total > RUNS ? total / RUNS : 1;
}

/* Compares a run with a failure against the reference run: each view it
 * shows must be the reference's, or an error. */
static void compare(const char *what, long n, const fuzz_log *ref, const fuzz_log *run)
{
	size_t j = 0;
	for (size_t i = 0; i < run->n; i++) {
		const fuzz_outcome *o = &run->v[i];
		while (j < ref->n && ref->v[j].key != o->key)
			j++;
		if (j == ref->n) {
			char k[64];
			snprintf(k, sizeof k, "view %016llx not in the reference run", (unsigned long long)o->key);
			failf(what, n, k);
			return;
		}
		const fuzz_outcome *r = &ref->v[j++];
		if (o->status != PQ_OK || o->oom)
			continue;
		if (r->status != o->status || r->len != o->len || r->digest != o->digest) {
			char k[160];
			snprintf(k, sizeof k, "view %016llx succeeded with other bytes: status %d len %llu (reference: status %d len %llu)",
				 (unsigned long long)o->key, (int)o->status, (unsigned long long)o->len,
				 (int)r->status, (unsigned long long)r->len);
			failf(what, n, k);
			return;
		}
	}
}

static void file_op(const char *what, const uint8_t *p, size_t len, const char *keys_text)
{
	pq_keyring *kr = NULL;
	pq_error err;
	pq_error_clear(&err);
	if (keys_text &&
	    pq_keyring_parse(keys_text, strlen(keys_text), "keys", &kr, &err) != PQ_OK) {
		failf(what, 0, err.msg);
		return;
	}
	fuzz_log ref = {ref_v, 0, LOG_CAP, false}, run = {run_v, 0, LOG_CAP, false};
	arm(0);
	(void)fuzz_file_bytes(p, len, kr, &ref);
	long total = atomic_load(&alloc_count), stride = stride_for(total), runs = 0;
	for (long n = 1;; n += stride) {
		run.n = 0;
		arm(n);
		(void)fuzz_file_bytes(p, len, kr, &run);
		bool hit = atomic_load(&fail_hit);
		arm(0);
		if (!hit)
			break;
		runs++;
		compare(what, n, &ref, &run);
	}
	printf("ok: %s: %ld allocations, %ld runs with one failing\n", what, total, runs);
	pq_keyring_free(kr);
}

static int memfd_with(const char *s)
{
	int fd = memfd_create("alloc-in", MFD_CLOEXEC);
	size_t n = strlen(s);
	if (fd >= 0 && write(fd, s, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The converted bytes, or NULL; status in *st. */
static uint8_t *convert(int in, pq_status *st, size_t *len, char *msg, size_t msg_cap)
{
	static const char schema[] = "message m {\n  required int64 id;\n  optional binary name (STRING);\n"
				     "  optional int32 price (DECIMAL(9,2));\n  optional double x;\n}\n";
	int out = memfd_create("alloc-out", MFD_CLOEXEC);
	if (out < 0)
		return NULL;
	pq_write_options wo;
	pq_write_options_init(&wo);
	wo.codec = PQ_CODEC_ZSTD;
	wo.row_group_rows = 64;
	wo.page_size = 512;
	wo.data_page_version = 2;
	static const char *const bloom[] = {"name", NULL};
	wo.bloom_columns = bloom;
	pq_error err;
	pq_error_clear(&err);
	pq_convert_stats stats;
	*st = pq_convert_csv(in, out, "alloc.csv", PQ_CSV_COMMA, schema, &wo, &stats, &err);
	snprintf(msg, msg_cap, "%s", err.msg);
	uint8_t *bytes = NULL;
	off_t end = lseek(out, 0, SEEK_END);
	if (*st == PQ_OK && end > 0) {
		/* read back without the wrapped allocator failing it */
		long saved = fail_at;
		fail_at = 0;
		bytes = __real_malloc((size_t)end);
		fail_at = saved;
		if (bytes && pread(out, bytes, (size_t)end, 0) != end) {
			free(bytes);
			bytes = NULL;
		}
		*len = (size_t)end;
	}
	close(out);
	return bytes;
}

static void convert_op(void)
{
	char *csv = malloc(1 << 16);
	size_t o = (size_t)snprintf(csv, 1 << 16, "id,name,price,x\n");
	for (int i = 0; i < 300; i++)
		o += (size_t)snprintf(csv + o, (1 << 16) - o, "%d,name %d,%d.%02d,%s\n", i, i % 37,
				      i * 7 % 1000, i % 100, i % 5 ? "1.5e3" : "");
	int in = memfd_with(csv);
	free(csv);
	pq_status st;
	size_t ref_len = 0, len;
	char msg[PQ_ERROR_MSG_MAX];
	arm(0);
	uint8_t *ref = convert(in, &st, &ref_len, msg, sizeof msg);
	long total = atomic_load(&alloc_count), stride = stride_for(total), runs = 0;
	if (!ref) {
		failf("conversion", 0, msg);
		close(in);
		return;
	}
	for (long n = 1;; n += stride) {
		arm(n);
		uint8_t *got = convert(in, &st, &len, msg, sizeof msg);
		bool hit = atomic_load(&fail_hit);
		arm(0);
		if (!hit) {
			free(got);
			break;
		}
		runs++;
		if (st == PQ_OK && (!got || len != ref_len || memcmp(got, ref, len)))
			failf("conversion", n, "succeeded with other bytes");
		else if (st != PQ_OK && !msg[0])
			failf("conversion", n, "failed without a message");
		free(got);
	}
	free(ref);
	close(in);
	printf("ok: conversion: %ld allocations, %ld runs with one failing\n", total, runs);
}

/* key_file and schema text: parse, use, free. */
static void text_op(const char *what, const char *text, bool keyfile)
{
	long runs = 0, total = 0;
	for (long n = 0;; n++) {
		arm(n);
		pq_error err;
		pq_error_clear(&err);
		pq_status st;
		if (keyfile) {
			pq_keyring *kr = NULL;
			st = pq_keyring_parse(text, strlen(text), "k.txt", &kr, &err);
			pq_keyring_free(kr);
		} else {
			pq_arena a;
			pq_arena_init(&a, 1u << 20);
			pq_schema_element *els;
			uint32_t nel;
			st = pq_schema_parse(text, strlen(text), &a, &els, &nel, &err);
			if (st == PQ_OK) {
				pq_schema *s;
				st = pq_schema_build_list(els, nel, &s, &err);
				if (st == PQ_OK)
					pq_schema_free(s);
			}
			pq_arena_free(&a);
		}
		bool hit = atomic_load(&fail_hit);
		long count = atomic_load(&alloc_count);
		arm(0);
		if (n == 0) {
			total = count;
			if (st != PQ_OK)
				failf(what, 0, err.msg);
			continue;
		}
		if (!hit)
			break;
		runs++;
		if (st == PQ_OK)
			failf(what, n, "succeeded although an allocation failed");
		else if (!err.msg[0])
			failf(what, n, "failed without a message");
	}
	printf("ok: %s: %ld allocations, %ld runs with one failing\n", what, total, runs);
}

static void dir_files(const char *dir, const char *keys, int max, off_t max_bytes)
{
	DIR *d = opendir(dir);
	if (!d) {
		printf("FAIL: cannot open %s\n", dir);
		failures++;
		return;
	}
	struct dirent *e;
	int seen = 0;
	while ((e = readdir(d)) && seen < max) {
		if (!strstr(e->d_name, ".parquet"))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0 || st.st_size > max_bytes)
			continue;
		size_t n;
		char *p = test_read_file(path, &n);
		if (!p) {
			printf("FAIL: cannot read %s\n", path);
			failures++;
			continue;
		}
		file_op(e->d_name, (const uint8_t *)p, n, keys);
		free(p);
		seen++;
	}
	closedir(d);
}

int main(void)
{
	static const char keys[] =
		"key kf: \"0123456789abcdef\"\n"
		"key kx: 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";
	setvbuf(stdout, NULL, _IOLBF, 0);
	text_op("key_file", "# k\nfooter: 000102030405060708090a0b0c0d0e0f\n[a/*]\nkey kf: \"0123456789abcdef\"\n"
		"column a.b: \"1234567890123450\"\naad_prefix: p\n", true);
	text_op("schema text", "message m {\n  required int64 id;\n  optional group l (LIST) {\n"
		"    repeated group list {\n      optional binary element (STRING);\n    }\n  }\n}\n", false);
	convert_op();
	dir_files(SRCDIR "/tests/fuzz/corpus/file", NULL, 1000, 1 << 20);
	dir_files(SRCDIR "/tests/fuzz/corpus/encrypted", keys, 1000, 1 << 20);
	const char *lng = getenv("PFS_LONG");
	bool all = lng && *lng == '1';
	DIR *d = opendir(TESTDATA_DIR "/parquet-testing/data");
	if (d) {
		closedir(d);
		dir_files(TESTDATA_DIR "/parquet-testing/data", NULL, all ? 100000 : 4,
			  all ? 4 << 20 : 16 << 10);
	} else {
		printf("note: no ../shared/testdata: the conformance files are not tried\n");
	}
	printf("%s\n", failures ? "FAIL" : "PASS");
	return failures ? 1 : 0;
}
