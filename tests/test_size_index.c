/* The size index (fs/size_index.c): an entry written is read back equal;
 * an entry damaged anywhere (every byte flipped, every truncation), one of
 * another key or of a file with other counts is refused, never trusted; a
 * directory that cannot be written fails cleanly. The chunk shapes (page
 * layout sizes) likewise. The numbers are made up here: the index stores
 * whatever the size pass found. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "size_index.h"

#define NRG 3
#define NCOL 2

static char dir[64];

/* Sizes of a made-up file: 3 row groups, 2 columns, chunks of 1-3 pages,
 * one chunk failed (so its aggregates are PQ_SIZE_FAILED). */
static pq_file_sizes *made_up(void)
{
	pq_file_sizes *s = calloc(1, sizeof *s);
	ck_assert_ptr_nonnull(s);
	s->num_row_groups = NRG;
	s->num_columns = NCOL;
	s->rg_csv = calloc(NRG, sizeof *s->rg_csv);
	s->rg_jsonl = calloc(NRG, sizeof *s->rg_jsonl);
	s->col_values = calloc(NCOL, sizeof *s->col_values);
	s->chunks = calloc(NRG * NCOL, sizeof *s->chunks);
	s->csv_header = 12;
	s->csv = 12;
	for (uint32_t r = 0; r < NRG; r++) {
		s->rg_csv[r] = r == 2 ? PQ_SIZE_FAILED : 1000 + r;
		s->rg_jsonl[r] = r == 2 ? PQ_SIZE_FAILED : 3000 + r;
		for (uint32_t c = 0; c < NCOL; c++) {
			pq_chunk_sizes *cs = &s->chunks[r * NCOL + c];
			cs->num_pages = r + 1;
			cs->pages = calloc(cs->num_pages, sizeof *cs->pages);
			bool bad = r == 2 && c == 1;
			cs->status = bad ? PQ_ECORRUPT : PQ_OK;
			for (uint32_t p = 0; p < cs->num_pages; p++) {
				cs->pages[p].values = bad && p == 1 ? PQ_SIZE_FAILED : 100 * (p + 1) + c;
				cs->pages[p].levels = bad && p == 1 ? PQ_SIZE_FAILED : c ? 7 : 0;
				cs->values += cs->pages[p].values;
				cs->levels += cs->pages[p].levels;
			}
			if (bad)
				cs->values = cs->levels = PQ_SIZE_FAILED;
		}
	}
	s->csv = s->jsonl = PQ_SIZE_FAILED;
	for (uint32_t c = 0; c < NCOL; c++) {
		uint64_t v = 0;
		for (uint32_t r = 0; r < NRG; r++) {
			uint64_t x = s->chunks[r * NCOL + c].values;
			v = v == PQ_SIZE_FAILED || x == PQ_SIZE_FAILED ? PQ_SIZE_FAILED : v + x;
		}
		s->col_values[c] = v;
	}
	s->verify = 321;
	s->pages_measured = 12;
	return s;
}

static void same_sizes(const pq_file_sizes *a, const pq_file_sizes *b)
{
	ck_assert_uint_eq(a->csv_header, b->csv_header);
	ck_assert_uint_eq(a->csv, b->csv);
	ck_assert_uint_eq(a->jsonl, b->jsonl);
	ck_assert_uint_eq(a->verify, b->verify);
	for (uint32_t r = 0; r < NRG; r++) {
		ck_assert_uint_eq(a->rg_csv[r], b->rg_csv[r]);
		ck_assert_uint_eq(a->rg_jsonl[r], b->rg_jsonl[r]);
	}
	for (uint32_t c = 0; c < NCOL; c++)
		ck_assert_uint_eq(a->col_values[c], b->col_values[c]);
	for (uint32_t i = 0; i < NRG * NCOL; i++) {
		const pq_chunk_sizes *x = &a->chunks[i], *y = &b->chunks[i];
		ck_assert_int_eq(x->status == PQ_OK, y->status == PQ_OK);
		ck_assert_uint_eq(x->num_pages, y->num_pages);
		ck_assert_uint_eq(x->values, y->values);
		ck_assert_uint_eq(x->levels, y->levels);
		for (uint32_t p = 0; p < x->num_pages; p++) {
			ck_assert_uint_eq(x->pages[p].values, y->pages[p].values);
			ck_assert_uint_eq(x->pages[p].levels, y->pages[p].levels);
		}
	}
}

/* Shapes of the same file: chunk (2, 1) unknown, chunk (0, 0) with a
 * dictionary, fields unknown here and there. */
static pfs_file_shapes *made_up_shapes(void)
{
	pfs_file_shapes *sh = pfs_shapes_new(NRG, NCOL);
	ck_assert_ptr_nonnull(sh);
	for (uint32_t r = 0; r < NRG; r++) {
		for (uint32_t c = 0; c < NCOL; c++) {
			pfs_chunk_shape *cs = &sh->chunks[r * NCOL + c];
			if (r == 2 && c == 1)
				continue;
			cs->known = true;
			cs->num_pages = r + 1;
			cs->pages = calloc(cs->num_pages, sizeof *cs->pages);
			for (uint32_t p = 0; p < cs->num_pages; p++)
				cs->pages[p] = (pfs_page_shape){10 * p + c, 20 * p + r,
								p == 1 ? PFS_SHAPE_UNKNOWN : 300 + p,
								400 + p};
			cs->dict_values = PFS_SHAPE_UNKNOWN;
			cs->bloom_bin = c ? 1024 : PFS_SHAPE_UNKNOWN;
			cs->bloom_txt = c ? 77 + r : PFS_SHAPE_UNKNOWN;
			cs->col_index = 500 + r;
			cs->off_index = r ? 600 + c : PFS_SHAPE_UNKNOWN;
			if (r == 0 && c == 0) {
				cs->has_dict = true;
				cs->dict = (pfs_page_shape){5, 6, 7, 8};
				cs->dict_values = 99;
			}
		}
	}
	return sh;
}

static void same_page_shape(const pfs_page_shape *a, const pfs_page_shape *b)
{
	ck_assert_uint_eq(a->raw, b->raw);
	ck_assert_uint_eq(a->data, b->data);
	ck_assert_uint_eq(a->hdr_txt, b->hdr_txt);
	ck_assert_uint_eq(a->hdr_json, b->hdr_json);
}

static void same_shapes(const pfs_file_shapes *a, const pfs_file_shapes *b)
{
	ck_assert_uint_eq(a->num_row_groups, b->num_row_groups);
	ck_assert_uint_eq(a->num_columns, b->num_columns);
	for (uint32_t i = 0; i < NRG * NCOL; i++) {
		const pfs_chunk_shape *x = &a->chunks[i], *y = &b->chunks[i];
		ck_assert_int_eq(x->known, y->known);
		if (!x->known)
			continue;
		ck_assert_int_eq(x->has_dict, y->has_dict);
		ck_assert_uint_eq(x->num_pages, y->num_pages);
		ck_assert_uint_eq(x->dict_values, y->dict_values);
		ck_assert_uint_eq(x->bloom_bin, y->bloom_bin);
		ck_assert_uint_eq(x->bloom_txt, y->bloom_txt);
		ck_assert_uint_eq(x->col_index, y->col_index);
		ck_assert_uint_eq(x->off_index, y->off_index);
		if (x->has_dict)
			same_page_shape(&x->dict, &y->dict);
		for (uint32_t p = 0; p < x->num_pages; p++)
			same_page_shape(&x->pages[p], &y->pages[p]);
	}
}

static pfs_index_key key_of(const char *rel)
{
	pq_identity id;
	pq_identity_set(&id, "dev-ino-size-mtime", 18);
	uint8_t fp[16] = {0};
	pfs_index_key k;
	pfs_index_key_make(&id, rel, fp, &k);
	return k;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	uint8_t *p = malloc(1 << 16);
	*n = fread(p, 1, 1 << 16, f);
	fclose(f);
	return p;
}

static void spill(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/pfs-size-index.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(round_trip)
{
	pq_file_sizes *s = made_up(), *back = NULL;
	pfs_file_shapes *sh = made_up_shapes(), *shback = NULL;
	pfs_index_key k = key_of("a/b.parquet");
	ck_assert_int_eq(pfs_index_load(dir, &k, NRG, NCOL, &back, &shback), -ENOENT);
	ck_assert_int_eq(pfs_index_store(dir, &k, s, sh), 0);
	ck_assert_int_eq(pfs_index_load(dir, &k, NRG, NCOL, &back, &shback), 0);
	same_sizes(s, back);
	same_shapes(sh, shback);
	ck_assert_uint_gt(back->footprint, 0);
	ck_assert_uint_gt(shback->footprint, 0);
	pq_file_sizes_free(back);
	pfs_shapes_free(shback);
	/* shapes not wanted */
	ck_assert_int_eq(pfs_index_load(dir, &k, NRG, NCOL, &back, NULL), 0);
	pq_file_sizes_free(back);
	/* other counts: a stale entry */
	ck_assert_int_eq(pfs_index_load(dir, &k, NRG + 1, NCOL, &back, &shback), -EINVAL);
	ck_assert_int_eq(pfs_index_load(dir, &k, NRG, NCOL - 1, &back, &shback), -EINVAL);
	ck_assert_ptr_null(back);
	ck_assert_ptr_null(shback);
	pfs_shapes_free(sh);
	pq_file_sizes_free(s);
}
END_TEST

START_TEST(without_shapes)
{
	pq_file_sizes *s = made_up(), *back = NULL;
	pfs_file_shapes *shback = NULL, *other = pfs_shapes_new(NRG + 1, NCOL);
	pfs_index_key k = key_of("c.parquet");
	/* shapes of another file are not stored with these sizes */
	ck_assert_int_eq(pfs_index_store(dir, &k, s, other), -EINVAL);
	/* none: every chunk unknown (measured the usual way) */
	ck_assert_int_eq(pfs_index_store(dir, &k, s, NULL), 0);
	ck_assert_int_eq(pfs_index_load(dir, &k, NRG, NCOL, &back, &shback), 0);
	same_sizes(s, back);
	for (uint32_t i = 0; i < NRG * NCOL; i++)
		ck_assert(!shback->chunks[i].known);
	pq_file_sizes_free(back);
	pfs_shapes_free(shback);
	pfs_shapes_free(other);
	pq_file_sizes_free(s);
}
END_TEST

START_TEST(keys_differ)
{
	pfs_index_key a = key_of("a.parquet"), b = key_of("b.parquet");
	ck_assert(strcmp(a.name, b.name) != 0);
	pq_identity id;
	pq_identity_set(&id, "dev-ino-size-mtimf", 18);
	uint8_t fp[16] = {0};
	pfs_index_key c;
	pfs_index_key_make(&id, "a.parquet", fp, &c);
	ck_assert(strcmp(a.name, c.name) != 0);
	fp[3] = 1;
	pfs_index_key_make(&id, "a.parquet", fp, &b);
	ck_assert(strcmp(b.name, c.name) != 0);
	/* an entry under another key's name is refused (its key is inside) */
	pq_file_sizes *s = made_up(), *back = NULL;
	ck_assert_int_eq(pfs_index_store(dir, &a, s, NULL), 0);
	char from[128], to[128];
	snprintf(from, sizeof from, "%s/%s", dir, a.name);
	snprintf(to, sizeof to, "%s/%s", dir, c.name);
	ck_assert_int_eq(rename(from, to), 0);
	ck_assert_int_eq(pfs_index_load(dir, &c, NRG, NCOL, &back, NULL), -EINVAL);
	pq_file_sizes_free(s);
}
END_TEST

START_TEST(damage_is_never_trusted)
{
	pq_file_sizes *s = made_up(), *back = NULL;
	pfs_file_shapes *sh = made_up_shapes(), *shback = NULL;
	pfs_index_key k = key_of("x.parquet");
	ck_assert_int_eq(pfs_index_store(dir, &k, s, sh), 0);
	char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, k.name);
	size_t n;
	uint8_t *good = slurp(path, &n);
	for (size_t i = 0; i < n; i++) {
		for (int bit = (int)(i % 8); bit < 8; bit += 8) {
			good[i] ^= (uint8_t)(1 << bit);
			spill(path, good, n);
			good[i] ^= (uint8_t)(1 << bit);
			ck_assert_msg(pfs_index_load(dir, &k, NRG, NCOL, &back, &shback) == -EINVAL,
				      "byte %zu bit %d flipped: accepted", i, bit);
		}
	}
	for (size_t len = 0; len < n; len++) {
		spill(path, good, len);
		ck_assert_msg(pfs_index_load(dir, &k, NRG, NCOL, &back, &shback) == -EINVAL,
			      "cut to %zu bytes: accepted", len);
	}
	ck_assert_ptr_null(back);
	ck_assert_ptr_null(shback);
	spill(path, good, n);
	ck_assert_int_eq(pfs_index_load(dir, &k, NRG, NCOL, &back, &shback), 0);
	same_shapes(sh, shback);
	pq_file_sizes_free(back);
	pfs_shapes_free(shback);
	pfs_shapes_free(sh);
	free(good);
	pq_file_sizes_free(s);
}
END_TEST

START_TEST(unwritable_dir_fails_cleanly)
{
	pq_file_sizes *s = made_up();
	pfs_index_key k = key_of("y.parquet");
	char file[128], sub[160];
	snprintf(file, sizeof file, "%s/plain", dir);
	spill(file, (const uint8_t *)"x", 1);
	snprintf(sub, sizeof sub, "%s/sub", file); /* below a regular file */
	ck_assert_int_ne(pfs_index_store(sub, &k, s, NULL), 0);
	/* made when missing (one level: the user's cache directory) */
	snprintf(sub, sizeof sub, "%s/new", dir);
	ck_assert_int_eq(pfs_index_store(sub, &k, s, NULL), 0);
	pq_file_sizes_free(s);
}
END_TEST

/* ---- the bound (index_size, size_index_lru.c) ------------------------------------------ */

static char *entry_path(const pfs_index_key *k)
{
	static char path[160];
	snprintf(path, sizeof path, "%s/%s", dir, k->name);
	return path;
}

static bool present(const pfs_index_key *k)
{
	struct stat st;
	return stat(entry_path(k), &st) == 0;
}

static uint64_t taken(const char *path)
{
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	uint64_t b = (uint64_t)st.st_blocks * 512, n = (uint64_t)st.st_size;
	return b > n ? b : n;
}

/* Sets the entry's last use to t seconds after the epoch. */
static void used_at(const pfs_index_key *k, time_t t)
{
	struct timespec ts[2] = {{t, 0}, {t, 0}};
	ck_assert_int_eq(utimensat(AT_FDCWD, entry_path(k), ts, 0), 0);
}

/* The least recently used go first, and a load (touch) makes an entry the
 * most recently used whatever its age; files that are not entries stay. */
START_TEST(evicts_least_recently_used)
{
	pq_file_sizes *s = made_up();
	pfs_index_key k[4];
	char rel[16];
	for (int i = 0; i < 4; i++) {
		snprintf(rel, sizeof rel, "f%d.parquet", i);
		k[i] = key_of(rel);
		ck_assert_int_eq(pfs_index_store(dir, &k[i], s, NULL), 0);
		used_at(&k[i], 1000000 + i); /* f0 oldest ... f3 newest */
	}
	uint64_t one = taken(entry_path(&k[0]));
	char other[128];
	snprintf(other, sizeof other, "%s/notes.txt", dir);
	spill(other, (const uint8_t *)"not an entry", 12);
	pfs_index_touch(dir, &k[0]); /* f0 was loaded: now the newest */
	/* room for two: f1 and f2, the least recently used, go */
	ck_assert_uint_eq(pfs_index_evict(dir, 2 * one), 2 * one);
	ck_assert(present(&k[0]) && !present(&k[1]) && !present(&k[2]) && present(&k[3]));
	struct stat st;
	ck_assert_int_eq(stat(other, &st), 0);
	/* what is left loads */
	pq_file_sizes *back = NULL;
	ck_assert_int_eq(pfs_index_load(dir, &k[0], NRG, NCOL, &back, NULL), 0);
	pq_file_sizes_free(back);
	/* a writer's temporary is removed once it is stale, not before */
	char tmp[160], fresh[160];
	snprintf(tmp, sizeof tmp, "%s/.%s.tmp-123", dir, k[1].name);
	snprintf(fresh, sizeof fresh, "%s/.%s.tmp-456", dir, k[2].name);
	spill(tmp, (const uint8_t *)"x", 1);
	spill(fresh, (const uint8_t *)"x", 1);
	struct timespec old[2] = {{1000, 0}, {1000, 0}};
	ck_assert_int_eq(utimensat(AT_FDCWD, tmp, old, 0), 0);
	ck_assert_uint_eq(pfs_index_evict(dir, 2 * one), 2 * one);
	ck_assert_int_ne(stat(tmp, &st), 0);
	ck_assert_int_eq(stat(fresh, &st), 0);
	pq_file_sizes_free(s);
}
END_TEST

/* Stored one after the other through a bound of five entries, the
 * directory never holds more than the bound, the newest entry is always
 * there, and the directory is listed once per quarter of the bound
 * stored, not at every store (entries removed come in batches). */
START_TEST(bound_holds_while_storing)
{
	pq_file_sizes *s = made_up();
	pfs_index_key k0 = key_of("probe.parquet");
	ck_assert_int_eq(pfs_index_store(dir, &k0, s, NULL), 0);
	uint64_t one = taken(entry_path(&k0));
	unlink(entry_path(&k0));
	pfs_index_lru *b = pfs_index_lru_new(5 * one);
	ck_assert_ptr_nonnull(b);
	pfs_index_key k[40];
	char rel[16];
	unsigned removals = 0, held_before = 0;
	for (int i = 0; i < 40; i++) {
		snprintf(rel, sizeof rel, "g%d.parquet", i);
		k[i] = key_of(rel);
		ck_assert_int_eq(pfs_index_store(dir, &k[i], s, NULL), 0);
		used_at(&k[i], 2000000 + i);
		pfs_index_lru_stored(b, dir, &k[i], 0);
		unsigned held = 0;
		for (int j = 0; j <= i; j++)
			held += present(&k[j]);
		ck_assert_uint_le((uint64_t)held * one, 5 * one);
		ck_assert(present(&k[i]));
		/* the oldest go: what is there is the newest `held` */
		for (int j = 0; j <= i; j++)
			ck_assert_int_eq(present(&k[j]), j > i - (int)held);
		if (held < held_before + 1)
			removals++;
		held_before = held;
	}
	/* 5 entries, down to 3 (3/4 of the bound) each time: a listing every
	 * 2-3 stores, not at each */
	ck_assert_uint_le(removals, 40 / 2);
	ck_assert_uint_ge(removals, 40 / 4);
	/* rewriting an entry (the chunk shapes added) counts its growth only:
	 * nothing else goes */
	for (int r = 0; r < 20; r++) {
		uint64_t was = pfs_index_taken(dir, &k[39]);
		ck_assert_uint_eq(was, one);
		ck_assert_int_eq(pfs_index_store(dir, &k[39], s, NULL), 0);
		pfs_index_lru_stored(b, dir, &k[39], was);
	}
	unsigned held = 0;
	for (int j = 0; j < 40; j++)
		held += present(&k[j]);
	ck_assert_uint_eq(held, held_before);
	/* an entry larger than the whole bound is not kept */
	pfs_index_lru *tiny = pfs_index_lru_new(one / 2);
	pfs_index_key big = key_of("big.parquet");
	ck_assert_int_eq(pfs_index_store(dir, &big, s, NULL), 0);
	pfs_index_lru_stored(tiny, dir, &big, 0);
	ck_assert(!present(&big));
	ck_assert(present(&k[39]));
	pfs_index_lru_free(tiny);
	pfs_index_lru_free(b);
	pq_file_sizes_free(s);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("size_index");
	TCase *t = tcase_create("index");
	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60); /* a few thousand small writes on a busy machine */
	tcase_add_test(t, round_trip);
	tcase_add_test(t, without_shapes);
	tcase_add_test(t, keys_differ);
	tcase_add_test(t, damage_is_never_trusted);
	tcase_add_test(t, unwritable_dir_fails_cleanly);
	tcase_add_test(t, evicts_least_recently_used);
	tcase_add_test(t, bound_holds_while_storing);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
