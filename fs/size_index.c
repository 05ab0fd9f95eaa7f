/* The size index (size_index.h): one file per Parquet file, named by the
 * hash of what its sizes depend on.
 *
 * Layout, little-endian, every number fixed width:
 *
 *   "PQFSIZE\0"  u32 version  u32 nrg  u32 ncol  u32 0  key hash [16]
 *   u64 total_pages  u64 shape_pages
 *   u64 csv_header csv jsonl verify pages_measured pages_shared
 *   nrg   x (u64 rg_csv, u64 rg_jsonl)
 *   ncol  x u64 col_values
 *   nrg*ncol x (u32 status, u32 num_pages, u64 values, u64 levels)
 *   total_pages x (u64 values, u64 levels)
 *   nrg*ncol x (u32 flags (1 known, 2 has_dict), u32 num_pages,
 *               dict: u64 raw, data, hdr_txt, hdr_json, u64 dict_values,
 *               u64 bloom_bin, bloom_txt, col_index, off_index)
 *   shape_pages x (u64 raw, data, hdr_txt, hdr_json)
 *   ncol  x u64 col_stats (UINT64_MAX: unknown)
 *   u64 XXH3-64 of everything before it
 *
 * Every byte is distrusted on the way in: the length must be exactly what
 * the counts say, the counts must be the file's, the checksum must match,
 * the aggregates must be the sums of their parts, and the shapes' page
 * counts must add up to shape_pages (an unknown chunk has none). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "size_index.h"

#define MAGIC "PQFSIZE"  /* 8 bytes with its NUL */
#define HDR_LEN (8 + 4 * 4 + 16 + 2 * 8 + 6 * 8)
#define CHUNK_LEN (4 + 4 + 8 + 8)
#define PAGE_LEN 16
#define SCHUNK_LEN (4 + 4 + 9 * 8)
#define SPAGE_LEN (4 * 8)
#define SHAPE_KNOWN 1u
#define SHAPE_DICT 2u
#define INDEX_MAX ((uint64_t)1 << 30) /* no entry is larger: a damaged one may claim so */

void pfs_index_key_make(const pq_identity *id, const char *rel, const uint8_t key_fp[16],
			pfs_index_key *out)
{
	XXH3_state_t *st = XXH3_createState();
	XXH128_hash_t h = {0, 0};
	uint32_t ver = PFS_INDEX_VERSION;
	uint8_t idlen = id->len;
	if (st && XXH3_128bits_reset(st) == XXH_OK) {
		/* fields separated by their lengths, so no two keys run together */
		XXH3_128bits_update(st, &ver, sizeof ver);
		XXH3_128bits_update(st, &idlen, 1);
		XXH3_128bits_update(st, id->bytes, id->len);
		XXH3_128bits_update(st, rel, strlen(rel) + 1);
		XXH3_128bits_update(st, key_fp, 16);
		h = XXH3_128bits_digest(st);
	} else {
		/* no memory for a state: the one-shot hash of the same fields */
		uint8_t buf[4 + 1 + PQ_IDENTITY_MAX + 16];
		size_t n = 0;
		memcpy(buf, &ver, 4), n += 4;
		buf[n++] = idlen;
		memcpy(buf + n, id->bytes, id->len), n += id->len;
		memcpy(buf + n, key_fp, 16), n += 16;
		h = XXH3_128bits_withSeed(buf, n, XXH3_64bits(rel, strlen(rel)));
	}
	XXH3_freeState(st);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	memcpy(out->hash, c.digest, 16);
	for (int i = 0; i < 16; i++)
		snprintf(out->name + 2 * i, 3, "%02x", out->hash[i]);
	memcpy(out->name + 32, ".sz", 4);
}

/* ---- bytes ------------------------------------------------------------------------------ */

typedef struct wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
} wbuf;

static void put(wbuf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *q = realloc(b->p, cap);
		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void put32(wbuf *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 4);
}

static void put64(wbuf *b, uint64_t v)
{
	uint8_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 8);
}

typedef struct rbuf {
	const uint8_t *p;
	size_t len, pos;
} rbuf;

/* Callers checked the whole length first: reads never run past it. */
static uint32_t get32(rbuf *r)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)r->p[r->pos + (size_t)i] << (8 * i);
	r->pos += 4;
	return v;
}

static uint64_t get64(rbuf *r)
{
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)r->p[r->pos + (size_t)i] << (8 * i);
	r->pos += 8;
	return v;
}

static uint64_t add(uint64_t a, uint64_t b)
{
	if (a == PQ_SIZE_FAILED || b == PQ_SIZE_FAILED || a + b < a)
		return PQ_SIZE_FAILED;
	return a + b;
}

/* ---- store ------------------------------------------------------------------------------- */

static uint64_t total_pages(const pq_file_sizes *s)
{
	uint64_t n = 0;
	for (size_t i = 0; i < (size_t)s->num_row_groups * s->num_columns; i++)
		n += s->chunks[i].num_pages;
	return n;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static uint64_t shape_pages(const pfs_file_shapes *sh)
{
	uint64_t n = 0;
	for (size_t i = 0; sh && i < (size_t)sh->num_row_groups * sh->num_columns; i++)
		if (sh->chunks[i].known)
			n += sh->chunks[i].num_pages;
	return n;
}

static void put_page_shape(wbuf *b, const pfs_page_shape *p)
{
	put64(b, p->raw);
	put64(b, p->data);
	put64(b, p->hdr_txt);
	put64(b, p->hdr_json);
}

static void put_shapes(wbuf *b, size_t nch, const pfs_file_shapes *sh)
{
	static const pfs_chunk_shape unknown = {0};
	for (size_t i = 0; i < nch; i++) {
		const pfs_chunk_shape *c = sh && sh->chunks[i].known ? &sh->chunks[i] : &unknown;
		put32(b, (c->known ? SHAPE_KNOWN : 0) | (c->has_dict ? SHAPE_DICT : 0));
		put32(b, c->num_pages);
		put_page_shape(b, &c->dict);
		put64(b, c->dict_values);
		put64(b, c->bloom_bin);
		put64(b, c->bloom_txt);
		put64(b, c->col_index);
		put64(b, c->off_index);
	}
	for (size_t i = 0; sh && i < nch; i++)
		for (uint32_t p = 0; sh->chunks[i].known && p < sh->chunks[i].num_pages; p++)
			put_page_shape(b, &sh->chunks[i].pages[p]);
}

static void put_col_stats(wbuf *b, uint32_t ncol, const pfs_file_shapes *sh)
{
	for (uint32_t c = 0; c < ncol; c++)
		put64(b, sh ? sh->col_stats[c] : PFS_SHAPE_UNKNOWN);
}

int pfs_index_store(const char *dir, const pfs_index_key *key, const pq_file_sizes *s,
		    const pfs_file_shapes *sh)
{
	if (sh && (sh->num_row_groups != s->num_row_groups || sh->num_columns != s->num_columns))
		return -EINVAL;
	wbuf b = {0};
	put(&b, MAGIC, 8);
	put32(&b, PFS_INDEX_VERSION);
	put32(&b, s->num_row_groups);
	put32(&b, s->num_columns);
	put32(&b, 0);
	put(&b, key->hash, 16);
	put64(&b, total_pages(s));
	put64(&b, shape_pages(sh));
	put64(&b, s->csv_header);
	put64(&b, s->csv);
	put64(&b, s->jsonl);
	put64(&b, s->verify);
	put64(&b, s->pages_measured);
	put64(&b, s->pages_shared);
	for (uint32_t r = 0; r < s->num_row_groups; r++) {
		put64(&b, s->rg_csv[r]);
		put64(&b, s->rg_jsonl[r]);
	}
	for (uint32_t c = 0; c < s->num_columns; c++)
		put64(&b, s->col_values[c]);
	size_t nch = (size_t)s->num_row_groups * s->num_columns;
	for (size_t i = 0; i < nch; i++) {
		const pq_chunk_sizes *cs = &s->chunks[i];
		put32(&b, (uint32_t)cs->status);
		put32(&b, cs->num_pages);
		put64(&b, cs->values);
		put64(&b, cs->levels);
	}
	for (size_t i = 0; i < nch; i++) {
		for (uint32_t p = 0; p < s->chunks[i].num_pages; p++) {
			put64(&b, s->chunks[i].pages[p].values);
			put64(&b, s->chunks[i].pages[p].levels);
		}
	}
	put_shapes(&b, nch, sh);
	put_col_stats(&b, s->num_columns, sh);
	if (!b.oom)
		put64(&b, XXH3_64bits(b.p, b.len));
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	size_t n = strlen(dir) + 1 + sizeof key->name + 32;
	char *tmp = malloc(n), *final = malloc(n);
	int rc = -ENOMEM;
	if (!tmp || !final)
		goto out;
	snprintf(final, n, "%s/%s", dir, key->name);
	snprintf(tmp, n, "%s/.%s.tmp-%ld", dir, key->name, (long)getpid());
	/* a directory that is not there yet is made (the default lives in
	 * the user's cache directory, which may not exist) */
	if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
		rc = -errno;
		goto out;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	rc = write_all(fd, b.p, b.len);
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	/* Not fsynced: a torn entry after a crash fails its checksum and is
	 * rebuilt, which is all a cache owes. */
	if (rc == 0 && rename(tmp, final) != 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
out:
	free(tmp);
	free(final);
	free(b.p);
	return rc;
}

/* ---- load -------------------------------------------------------------------------------- */

static int read_file(const char *path, uint8_t **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	struct stat st;
	int rc = 0;
	uint8_t *p = NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < HDR_LEN + 8 ||
	    (uint64_t)st.st_size > INDEX_MAX) {
		rc = -EINVAL;
		goto out;
	}
	size_t n = (size_t)st.st_size, got = 0;
	if (!(p = malloc(n))) {
		rc = -ENOMEM;
		goto out;
	}
	while (got < n) {
		ssize_t r = read(fd, p + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got != n) {
		rc = -EINVAL;
		free(p);
		p = NULL;
		goto out;
	}
	*out = p;
	*len = n;
out:
	close(fd);
	return rc;
}

/* The aggregates are the sums of their parts (a failed part fails them). */
static bool sums_hold(const pq_file_sizes *s)
{
	uint64_t csv = s->csv_header, jsonl = 0;
	for (uint32_t r = 0; r < s->num_row_groups; r++) {
		csv = add(csv, s->rg_csv[r]);
		jsonl = add(jsonl, s->rg_jsonl[r]);
	}
	if (csv != s->csv || jsonl != s->jsonl)
		return false;
	for (uint32_t c = 0; c < s->num_columns; c++) {
		uint64_t v = 0;
		for (uint32_t r = 0; r < s->num_row_groups; r++)
			v = add(v, s->chunks[(size_t)r * s->num_columns + c].values);
		if (v != s->col_values[c])
			return false;
	}
	for (size_t i = 0; i < (size_t)s->num_row_groups * s->num_columns; i++) {
		const pq_chunk_sizes *cs = &s->chunks[i];
		if (cs->status != PQ_OK)
			continue;
		uint64_t v = 0, l = 0;
		for (uint32_t p = 0; p < cs->num_pages; p++) {
			v = add(v, cs->pages[p].values);
			l = add(l, cs->pages[p].levels);
		}
		if (v != cs->values || l != cs->levels)
			return false;
	}
	return true;
}

/* ---- shapes ---------------------------------------------------------------------------- */

pfs_file_shapes *pfs_shapes_new(uint32_t nrg, uint32_t ncol)
{
	pfs_file_shapes *sh = calloc(1, sizeof *sh);
	size_t nch = (size_t)nrg * ncol;
	if (!sh || !(sh->chunks = calloc(nch ? nch : 1, sizeof *sh->chunks)) ||
	    !(sh->col_stats = malloc((ncol ? ncol : 1) * sizeof *sh->col_stats))) {
		if (sh)
			free(sh->chunks);
		free(sh);
		return NULL;
	}
	for (uint32_t c = 0; c < ncol; c++)
		sh->col_stats[c] = PFS_SHAPE_UNKNOWN;
	sh->num_row_groups = nrg;
	sh->num_columns = ncol;
	sh->footprint = sizeof *sh + nch * sizeof *sh->chunks + (uint64_t)ncol * 8;
	return sh;
}

void pfs_shapes_free(pfs_file_shapes *sh)
{
	if (!sh)
		return;
	for (size_t i = 0; i < (size_t)sh->num_row_groups * sh->num_columns; i++)
		free(sh->chunks[i].pages);
	free(sh->chunks);
	free(sh->col_stats);
	free(sh);
}

static void get_page_shape(rbuf *r, pfs_page_shape *p)
{
	p->raw = get64(r);
	p->data = get64(r);
	p->hdr_txt = get64(r);
	p->hdr_json = get64(r);
}

/* The shapes section (its length already checked against nsp). */
static int parse_shapes(rbuf *r, uint32_t nrg, uint32_t ncol, uint64_t nsp,
			pfs_file_shapes **out)
{
	pfs_file_shapes *sh = pfs_shapes_new(nrg, ncol);
	if (!sh)
		return -ENOMEM;
	size_t nch = (size_t)nrg * ncol;
	uint64_t pages = 0;
	int rc = -EINVAL;
	for (size_t i = 0; i < nch; i++) {
		pfs_chunk_shape *c = &sh->chunks[i];
		uint32_t flags = get32(r);
		c->known = flags & SHAPE_KNOWN;
		c->has_dict = flags & SHAPE_DICT;
		c->num_pages = get32(r);
		get_page_shape(r, &c->dict);
		c->dict_values = get64(r);
		c->bloom_bin = get64(r);
		c->bloom_txt = get64(r);
		c->col_index = get64(r);
		c->off_index = get64(r);
		/* an unknown chunk says nothing, and nothing else is allowed */
		if ((flags & ~(SHAPE_KNOWN | SHAPE_DICT)) || (!c->known && (flags || c->num_pages)))
			goto bad;
		pages += c->num_pages;
	}
	if (pages != nsp)
		goto bad;
	sh->footprint += nsp * sizeof(pfs_page_shape);
	for (size_t i = 0; i < nch; i++) {
		pfs_chunk_shape *c = &sh->chunks[i];
		if (!c->known)
			continue;
		rc = -ENOMEM;
		if (!(c->pages = calloc(c->num_pages ? c->num_pages : 1, sizeof *c->pages)))
			goto bad;
		for (uint32_t p = 0; p < c->num_pages; p++)
			get_page_shape(r, &c->pages[p]);
	}
	for (uint32_t c = 0; c < ncol; c++)
		sh->col_stats[c] = get64(r);
	*out = sh;
	return 0;
bad:
	pfs_shapes_free(sh);
	return rc;
}

static int parse(const uint8_t *p, size_t len, const pfs_index_key *key, uint32_t nrg,
		 uint32_t ncol, pq_file_sizes **out, pfs_file_shapes **shapes)
{
	rbuf r = {p, len, 0};
	if (memcmp(p, MAGIC, 8) != 0)
		return -EINVAL;
	r.pos = 8;
	if (get32(&r) != PFS_INDEX_VERSION || get32(&r) != nrg || get32(&r) != ncol ||
	    get32(&r) != 0)
		return -EINVAL;
	if (memcmp(p + r.pos, key->hash, 16) != 0)
		return -EINVAL;
	r.pos += 16;
	uint64_t np = get64(&r);
	uint64_t nsp = get64(&r);
	uint64_t nch = (uint64_t)nrg * ncol;
	/* the exact length the counts call for (each bounded by the length) */
	uint64_t avail = len - HDR_LEN - 8;
	if (nch > avail / (CHUNK_LEN + SCHUNK_LEN) || np > avail / PAGE_LEN ||
	    nsp > avail / SPAGE_LEN || (uint64_t)nrg > avail / 16 || (uint64_t)ncol > avail / 16 ||
	    (uint64_t)nrg * 16 + (uint64_t)ncol * 16 + nch * (CHUNK_LEN + SCHUNK_LEN) +
			    np * PAGE_LEN + nsp * SPAGE_LEN != avail)
		return -EINVAL;
	if (XXH3_64bits(p, len - 8) != (r.pos = len - 8, get64(&r)))
		return -EINVAL;
	r.pos = 8 + 4 * 4 + 16 + 2 * 8;
	pq_file_sizes *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->num_row_groups = nrg;
	s->num_columns = ncol;
	s->rg_csv = calloc(nrg ? nrg : 1, sizeof *s->rg_csv);
	s->rg_jsonl = calloc(nrg ? nrg : 1, sizeof *s->rg_jsonl);
	s->col_values = calloc(ncol ? ncol : 1, sizeof *s->col_values);
	s->chunks = calloc(nch ? (size_t)nch : 1, sizeof *s->chunks);
	int rc = -ENOMEM;
	if (!s->rg_csv || !s->rg_jsonl || !s->col_values || !s->chunks)
		goto bad;
	s->csv_header = get64(&r);
	s->csv = get64(&r);
	s->jsonl = get64(&r);
	s->verify = get64(&r);
	s->pages_measured = get64(&r);
	s->pages_shared = get64(&r);
	for (uint32_t i = 0; i < nrg; i++) {
		s->rg_csv[i] = get64(&r);
		s->rg_jsonl[i] = get64(&r);
	}
	for (uint32_t c = 0; c < ncol; c++)
		s->col_values[c] = get64(&r);
	uint64_t pages = 0;
	for (size_t i = 0; i < nch; i++) {
		pq_chunk_sizes *cs = &s->chunks[i];
		uint32_t st = get32(&r);
		/* why is the fs's to find again, but for a missing key, which
		 * decides the errno of the reads (EACCES) */
		cs->status = st == 0 ? PQ_OK : st == (uint32_t)PQ_EKEY ? PQ_EKEY : PQ_EIO;
		cs->num_pages = get32(&r);
		cs->values = get64(&r);
		cs->levels = get64(&r);
		pages += cs->num_pages;
	}
	rc = -EINVAL;
	if (pages != np)
		goto bad;
	s->footprint = sizeof *s + (uint64_t)nrg * 16 + (uint64_t)ncol * 8 +
		       nch * sizeof(pq_chunk_sizes) + np * sizeof(pq_page_sizes);
	for (size_t i = 0; i < nch; i++) {
		pq_chunk_sizes *cs = &s->chunks[i];
		rc = -ENOMEM;
		if (!(cs->pages = calloc(cs->num_pages ? cs->num_pages : 1, sizeof *cs->pages)))
			goto bad;
		for (uint32_t pg = 0; pg < cs->num_pages; pg++) {
			cs->pages[pg].values = get64(&r);
			cs->pages[pg].levels = get64(&r);
		}
	}
	rc = -EINVAL;
	if (!sums_hold(s))
		goto bad;
	pfs_file_shapes *sh = NULL;
	if ((rc = parse_shapes(&r, nrg, ncol, nsp, &sh)))
		goto bad;
	if (shapes)
		*shapes = sh;
	else
		pfs_shapes_free(sh);
	*out = s;
	return 0;
bad:
	pq_file_sizes_free(s);
	return rc;
}

int pfs_index_load(const char *dir, const pfs_index_key *key, uint32_t nrg, uint32_t ncol,
		   pq_file_sizes **out, pfs_file_shapes **shapes)
{
	*out = NULL;
	if (shapes)
		*shapes = NULL;
	size_t n = strlen(dir) + 1 + sizeof key->name;
	char *path = malloc(n);
	if (!path)
		return -ENOMEM;
	snprintf(path, n, "%s/%s", dir, key->name);
	uint8_t *p = NULL;
	size_t len = 0;
	int rc = read_file(path, &p, &len);
	free(path);
	if (rc)
		return rc;
	rc = parse(p, len, key, nrg, ncol, out, shapes);
	free(p);
	return rc;
}
