/* A pq_source reading the plaintext of an ARUNA container stacked on
 * another pq_source (pq_aruna.h; layout: interface.md, "Byte layout").
 *
 * Opening reads the footer (the last block, two for 65,524 chunks and
 * more) and the last chunk, whose decoded length gives the plaintext size.
 * A read maps its range to chunks (raw offset i x 5 MiB) and each chunk to
 * its blocks (the footer's Block_List); a chunk is read whole, every block
 * authenticated before a byte of it is looked at, the zstd frame checked
 * and decompressed. Decoded chunks are kept in a few slots (LRU), so a
 * sequential reader decodes each chunk once. */
#include "config.h"

#include "pq_aruna.h"
#include "pq_bigbuf.h"
#include "pq_budget.h"

#include <inttypes.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <zstd.h>
#include <zstd_errors.h>

#define MAGIC_FOOTER1 0x184D2A51u
#define MAGIC_FOOTER2 0x184D2A52u
#define MAGIC_PAD 0x184D2A50u
#define MAGIC_ZSTD 0xFD2FB528u
#define FOOTER_FRAME 65528u
#define MIN_BLOCK (PQ_ARUNA_NONCE + PQ_ARUNA_TAG + 1)
#define LIST_PER_SECTION (PQ_ARUNA_SECTION - 12u)
#define MAX_SLOTS 16u
#define AHEAD 2u /* chunks decoded ahead of a sequential reader */
#define RAW_CAP ((size_t)PQ_ARUNA_MAX_CHUNK_BLOCKS * PQ_ARUNA_BLOCK)

/* Bytes of decoded chunks kept by every container of the process: each
 * container evicts its own least recently used chunks while the total is
 * above its budget (an eighth of the daemon's cache_size), keeping at
 * least the one it just decoded. */
static atomic_uint_fast64_t kept_bytes;

typedef struct dchunk {
	atomic_int refs;
	uint64_t idx;
	size_t len;
	bool big;            /* a pq_bigbuf (else malloc'd: a short last chunk) */
	pq_budget *budget; /* charged: the allocation's bytes, until freed */
	size_t charged;
	uint8_t data[];
} dchunk;

typedef struct slot {
	dchunk *c;
	uint64_t used;
} slot;

typedef struct aruna {
	pq_source *inner;
	uint8_t key[PQ_ARUNA_KEY_BYTES];
	uint64_t raw_size;
	uint64_t nblocks;       /* every block, the footer's included */
	uint32_t footer_blocks; /* 0, 1 or 2 */
	uint64_t nchunks;
	uint64_t *first;        /* first block of chunk i; first[nchunks]: end of data */
	uint64_t plain_size;
	pq_identity id;
	pthread_mutex_t lock;
	slot slots[MAX_SLOTS];
	size_t nslots;
	uint64_t budget;        /* kept_bytes above this: evict own chunks */
	pq_budget *memory;      /* the mount's budget: every decoded chunk (may be NULL) */
	uint64_t tick;
	/* read-ahead: a reader that moved on to the next chunk has the one
	 * after decoded on another thread meanwhile (one at a time) */
	uint64_t last;          /* the chunk the last read touched (+1; 0: none) */
	unsigned ahead_running; /* read-ahead threads */
	uint64_t inflight[MAX_SLOTS]; /* chunks being decoded now */
	size_t ninflight;
	pthread_cond_t ahead_done;
	atomic_uint_fast64_t blocks_opened, chunks_decoded, hits;
} aruna;

/* Whole-chunk and block buffers are big buffers (pq_bigbuf.h): reused,
 * not faulted in afresh for every chunk (that cost more than decrypting
 * and decompressing it). */
static void dchunk_free(dchunk *c)
{
	pq_budget_release(c->budget, c->charged);
	if (c->big)
		pq_bigbuf_free(c);
	else
		free(c);
}

static void dchunk_unref(dchunk *c)
{
	if (c && atomic_fetch_sub(&c->refs, 1) == 1)
		dchunk_free(c);
}

bool pq_aruna_name(const char *name)
{
	static const char suffix[] = ".parquet.aruna";
	size_t n = strlen(name), k = sizeof suffix - 1;
	return n > k && strcasecmp(name + n - k, suffix) == 0;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t block_off(uint64_t b)
{
	return b * PQ_ARUNA_BLOCK;
}

/* The raw length of block b (only the last of a footer-less file is short). */
static size_t block_len(const aruna *a, uint64_t b)
{
	uint64_t off = block_off(b), left = a->raw_size - off;
	return (size_t)(left < PQ_ARUNA_BLOCK ? left : PQ_ARUNA_BLOCK);
}

static pq_status open_block(const uint8_t key[PQ_ARUNA_KEY_BYTES], uint64_t b, const uint8_t *raw,
			   size_t n, uint8_t *out, size_t *out_len, pq_error *err)
{
	PQ_CHECK(n >= MIN_BLOCK, err, PQ_ECORRUPT,
		 "block %" PRIu64 " (byte %" PRIu64 ") holds %zu bytes: the file ends inside it "
		 "(a block has at least %u)", b, block_off(b), n, MIN_BLOCK);
	size_t ct = n - PQ_ARUNA_NONCE - PQ_ARUNA_TAG;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	PQ_CHECK(ctx, err, PQ_ENOMEM, "block %" PRIu64 ": no memory for the cipher", b);
	int len = 0, fin = 0;
	bool ok = EVP_DecryptInit_ex(ctx, EVP_chacha20_poly1305(), NULL, key, raw) == 1 &&
		  EVP_DecryptUpdate(ctx, out, &len, raw + PQ_ARUNA_NONCE, (int)ct) == 1 &&
		  EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)PQ_ARUNA_TAG,
				      (void *)(raw + n - PQ_ARUNA_TAG)) == 1 &&
		  EVP_DecryptFinal_ex(ctx, out + len, &fin) == 1;
	EVP_CIPHER_CTX_free(ctx);
	if (!ok) {
		OPENSSL_cleanse(out, ct);
		return pq_fail(err, PQ_EAUTH,
			       "block %" PRIu64 " (byte %" PRIu64 ") failed authentication: "
			       "wrong container key or damaged file", b, block_off(b));
	}
	*out_len = ct;
	return PQ_OK;
}

/* Reads blocks [b, b + count) (at most a chunk's) and authenticates and
 * decrypts them: *out (a pq_bigbuf: give it back with pq_bigbuf_free)
 * gets the plaintext, *out_len its length. Each block is decrypted in
 * place and moved down, so one buffer serves. */
static pq_status open_blocks(aruna *a, uint64_t b, uint64_t count, uint8_t **out, size_t *out_len,
			     pq_error *err)
{
	*out = NULL;
	*out_len = 0;
	uint64_t off = block_off(b);
	uint64_t end = b + count == a->nblocks ? a->raw_size : block_off(b + count);
	size_t n = (size_t)(end - off);
	PQ_CHECK(count <= PQ_ARUNA_MAX_CHUNK_BLOCKS && n <= RAW_CAP, err, PQ_ELIMIT,
		 "%" PRIu64 " blocks at once", count);
	uint8_t *raw = pq_bigbuf_alloc(RAW_CAP);
	PQ_CHECK(raw, err, PQ_ENOMEM, "no memory for %zu bytes of blocks", n);
	pq_status st = pq_source_pread(a->inner, raw, n, off, err);
	size_t done = 0;
	for (uint64_t i = 0; st == PQ_OK && i < count; i++) {
		size_t got = 0;
		uint8_t *blk = raw + (size_t)i * PQ_ARUNA_BLOCK;
		st = open_block(a->key, b + i, blk, block_len(a, b + i), blk + PQ_ARUNA_NONCE, &got, err);
		if (st == PQ_OK) {
			memmove(raw + done, blk + PQ_ARUNA_NONCE, got);
			done += got;
			atomic_fetch_add(&a->blocks_opened, 1);
		} else if (st == PQ_EAUTH && b + i > 0 && b + i + 1 == a->nblocks &&
			   block_len(a, b + i) < PQ_ARUNA_BLOCK) {
			/* the blocks before it opened with this key: a cut file */
			pq_fail(err, PQ_EAUTH, "block %" PRIu64 " (byte %" PRIu64 ") failed authentication: "
				"the file ends %zu bytes into it (truncated?) or it is damaged", b + i,
				block_off(b + i), block_len(a, b + i));
		}
	}
	if (st != PQ_OK) {
		OPENSSL_cleanse(raw, n);
		pq_bigbuf_free(raw);
		return st;
	}
	*out = raw;
	*out_len = done;
	return PQ_OK;
}

/* Chunk i's zstd frame inside its decrypted sections: one frame, then one
 * skippable frame of padding (several chunks) or nothing (one). */
static pq_status frame_check(uint64_t i, bool padded, const uint8_t *p, size_t n, size_t *frame,
			     pq_error *err)
{
	PQ_CHECK(n >= 4 && le32(p) == MAGIC_ZSTD, err, PQ_ECORRUPT,
		 "chunk %" PRIu64 " does not start with a zstd frame (blocks out of order?)", i);
	size_t fl = ZSTD_findFrameCompressedSize(p, n);
	PQ_CHECK(!ZSTD_isError(fl), err, PQ_ECORRUPT,
		 "chunk %" PRIu64 " is not one complete zstd frame (%s; blocks out of order?)", i,
		 ZSTD_getErrorName(fl));
	size_t rest = n - fl;
	if (!padded) {
		PQ_CHECK(rest == 0, err, PQ_ECORRUPT,
			 "footer missing: the data holds %s after the first zstd frame, so it needs "
			 "a footer index", rest >= 4 && le32(p + fl) == MAGIC_PAD ? "a padding frame"
									   : "a second frame");
	} else {
		PQ_CHECK(rest >= 8 && le32(p + fl) == MAGIC_PAD && le32(p + fl + 4) == rest - 8, err,
			 PQ_ECORRUPT,
			 "chunk %" PRIu64 ": its zstd frame is not followed by exactly one padding frame "
			 "(blocks out of order?)", i);
	}
	*frame = fl;
	return PQ_OK;
}

/* Reads, authenticates, checks and decompresses chunk i. */
static pq_status decode_chunk(aruna *a, uint64_t i, dchunk **out, pq_error *err)
{
	*out = NULL;
	uint64_t b = a->first[i], count = a->first[i + 1] - b;
	uint8_t *plain = NULL;
	size_t n = 0, fl = 0;
	pq_status st = open_blocks(a, b, count, &plain, &n, err);
	if (st == PQ_OK)
		st = frame_check(i, a->footer_blocks > 0, plain, n, &fl, err);
	dchunk *c = NULL;
	if (st == PQ_OK) {
		/* the decoded chunk is counted in the mount's budget (cache_size):
		 * a read that cannot get room fails, it does not grow the daemon */
		size_t want = pq_bigbuf_footprint(sizeof *c + PQ_ARUNA_CHUNK);
		if (!pq_budget_try_charge(a->memory, want)) {
			st = pq_budget_fail(a->memory, want, err);
			pq_context(err, "chunk %" PRIu64 " of the container", i);
		} else if (!(c = pq_bigbuf_alloc(sizeof *c + PQ_ARUNA_CHUNK))) {
			pq_budget_release(a->memory, want);
			st = pq_fail(err, PQ_ENOMEM, "chunk %" PRIu64 ": no memory", i);
		} else {
			c->budget = a->memory;
			c->charged = want;
			c->big = true;
		}
	}
	if (st == PQ_OK) {
		unsigned long long fcs = ZSTD_getFrameContentSize(plain, fl);
		bool big = fcs != ZSTD_CONTENTSIZE_ERROR && fcs != ZSTD_CONTENTSIZE_UNKNOWN &&
			   fcs > PQ_ARUNA_CHUNK;
		size_t got = big ? 0 : ZSTD_decompress(c->data, PQ_ARUNA_CHUNK, plain, fl);
		if (big || ZSTD_isError(got))
			st = pq_fail(err, PQ_ECORRUPT, "chunk %" PRIu64 " (blocks %" PRIu64 "-%" PRIu64
				     ") does not decompress: %s", i, b, b + count - 1,
				     big || ZSTD_getErrorCode(got) == ZSTD_error_dstSize_tooSmall
					     ? "more than 5,242,880 bytes"
					     : ZSTD_getErrorName(got));
		else if (i + 1 < a->nchunks && got != PQ_ARUNA_CHUNK)
			st = pq_fail(err, PQ_ECORRUPT, "chunk %" PRIu64 " decompresses to %zu bytes, not "
				     "5,242,880 (only the last chunk may be shorter)", i, got);
		c->len = got;
	}
	pq_bigbuf_free(plain);
	if (st != PQ_OK) {
		if (c)
			dchunk_free(c);
		return st;
	}
	atomic_init(&c->refs, 1);
	c->idx = i;
	atomic_fetch_add(&a->chunks_decoded, 1);
	/* the last chunk keeps only its bytes */
	if (c->len < PQ_ARUNA_CHUNK / 2) {
		size_t keep = c->len ? c->len : 1;
		dchunk *s = malloc(sizeof *c + keep);
		if (s) {
			memcpy(s, c, sizeof *c + c->len);
			s->big = false;
			s->charged = keep;
			pq_budget_release(c->budget, c->charged - keep);
			pq_bigbuf_free(c);
			c = s;
		}
	}
	*out = c;
	return PQ_OK;
}

/* Chunk i, from a slot or decoded (and kept). One reference for the caller. */
static pq_status get_chunk(aruna *a, uint64_t i, dchunk **out, pq_error *err)
{
	pthread_mutex_lock(&a->lock);
	for (;;) {
		for (size_t s = 0; s < a->nslots; s++)
			if (a->slots[s].c && a->slots[s].c->idx == i) {
				*out = a->slots[s].c;
				atomic_fetch_add(&(*out)->refs, 1);
				a->slots[s].used = ++a->tick;
				pthread_mutex_unlock(&a->lock);
				atomic_fetch_add(&a->hits, 1);
				return PQ_OK;
			}
		/* another thread (a reader, the read-ahead) decodes it: wait for
		 * it rather than decode it twice; a failure is decoded again */
		bool busy = false;
		for (size_t k = 0; k < a->ninflight; k++)
			busy |= a->inflight[k] == i;
		if (!busy || a->ninflight == 0)
			break;
		pthread_cond_wait(&a->ahead_done, &a->lock);
	}
	bool tracked = a->ninflight < MAX_SLOTS;
	if (tracked)
		a->inflight[a->ninflight++] = i;
	pthread_mutex_unlock(&a->lock);
	dchunk *c;
	pq_status dst = decode_chunk(a, i, &c, err);
	pthread_mutex_lock(&a->lock);
	for (size_t k = 0; tracked && k < a->ninflight; k++)
		if (a->inflight[k] == i) {
			a->inflight[k] = a->inflight[--a->ninflight];
			break;
		}
	pthread_cond_broadcast(&a->ahead_done);
	if (dst != PQ_OK) {
		pthread_mutex_unlock(&a->lock);
		return dst;
	}
	size_t victim = 0;
	for (size_t s = 0; s < a->nslots; s++) {
		if (a->slots[s].c && a->slots[s].c->idx == i) { /* another thread was quicker */
			dchunk_unref(c);
			c = a->slots[s].c;
			atomic_fetch_add(&c->refs, 1);
			a->slots[s].used = ++a->tick;
			pthread_mutex_unlock(&a->lock);
			*out = c;
			return PQ_OK;
		}
		if (!a->slots[s].c || (a->slots[victim].c && a->slots[s].used < a->slots[victim].used))
			victim = s;
	}
	dchunk *gone[MAX_SLOTS];
	size_t ngone = 0;
	if (a->slots[victim].c) {
		gone[ngone++] = a->slots[victim].c;
		atomic_fetch_sub(&kept_bytes, a->slots[victim].c->len);
	}
	a->slots[victim].c = c;
	a->slots[victim].used = ++a->tick;
	atomic_fetch_add(&c->refs, 1);
	atomic_fetch_add(&kept_bytes, c->len);
	/* over the process's budget: drop own chunks, oldest first; with the
	 * mount's memory nearly all in use, keep only what a sequential reader
	 * needs (the chunk it is in and those read ahead), so that rendering
	 * gets the room rather than chunks that may never be read again */
	size_t own = 0;
	for (size_t s = 0; s < a->nslots; s++)
		own += a->slots[s].c != NULL;
	bool tight = a->memory && pq_budget_used(a->memory) > pq_budget_limit(a->memory) / 8 * 7;
	while (atomic_load(&kept_bytes) > a->budget || (tight && own > AHEAD + 1)) {
		size_t v = MAX_SLOTS;
		for (size_t s = 0; s < a->nslots; s++)
			if (a->slots[s].c && s != victim && (v == MAX_SLOTS || a->slots[s].used < a->slots[v].used))
				v = s;
		if (v == MAX_SLOTS)
			break;
		gone[ngone++] = a->slots[v].c;
		atomic_fetch_sub(&kept_bytes, a->slots[v].c->len);
		a->slots[v].c = NULL;
		own--;
	}
	pthread_mutex_unlock(&a->lock);
	for (size_t g = 0; g < ngone; g++)
		dchunk_unref(gone[g]);
	*out = c;
	return PQ_OK;
}

typedef struct ahead {
	aruna *a;
	uint64_t i;
} ahead;

static void *ahead_thread(void *arg)
{
	ahead *h = arg;
	dchunk *c = NULL;
	if (get_chunk(h->a, h->i, &c, NULL) == PQ_OK)
		dchunk_unref(c); /* kept by its slot; a failure shows to the reader */
	pthread_mutex_lock(&h->a->lock);
	h->a->ahead_running--;
	pthread_cond_broadcast(&h->a->ahead_done);
	pthread_mutex_unlock(&h->a->lock);
	free(h);
	return NULL;
}

/* A read touches chunk i: when it moved on from chunk i - 1 (sequential),
 * chunks i + 1 .. i + AHEAD are decoded on other threads unless kept or
 * being decoded. Random reads (one column of one row group) never fetch
 * more than they touch. */
static void maybe_ahead(aruna *a, uint64_t i)
{
	pthread_mutex_lock(&a->lock);
	bool seq = a->last == i; /* last holds chunk + 1 */
	a->last = i + 1;
	for (uint64_t j = i + 1; seq && j <= i + AHEAD && j < a->nchunks; j++) {
		if (a->ahead_running >= AHEAD || a->nslots < AHEAD + 2)
			break;
		bool have = false;
		for (size_t s = 0; s < a->nslots; s++)
			have |= a->slots[s].c && a->slots[s].c->idx == j;
		for (size_t k = 0; k < a->ninflight; k++)
			have |= a->inflight[k] == j;
		ahead *h = have ? NULL : malloc(sizeof *h);
		if (!h)
			continue;
		*h = (ahead){a, j};
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_t t;
		if (pthread_create(&t, &attr, ahead_thread, h) == 0)
			a->ahead_running++;
		else
			free(h);
		pthread_attr_destroy(&attr);
	}
	pthread_mutex_unlock(&a->lock);
}

static pq_status aruna_pread(void *impl, void *buf, size_t len, uint64_t off, pq_error *err)
{
	aruna *a = impl;
	uint8_t *p = buf;
	while (len) {
		uint64_t i = off / PQ_ARUNA_CHUNK, within = off % PQ_ARUNA_CHUNK;
		dchunk *c;
		maybe_ahead(a, i);
		PQ_TRY(get_chunk(a, i, &c, err));
		if (within >= c->len) {
			dchunk_unref(c);
			return pq_fail(err, PQ_ECORRUPT, "chunk %" PRIu64 " is shorter than the footer says", i);
		}
		size_t n = (size_t)(c->len - within) < len ? (size_t)(c->len - within) : len;
		memcpy(p, c->data + within, n);
		dchunk_unref(c);
		p += n;
		off += n;
		len -= n;
	}
	return PQ_OK;
}

/* A range inside one chunk straight from the kept chunk (the reference is
 * the hold): FUSE replies from it without a copy. */
static pq_status aruna_borrow(void *impl, size_t len, uint64_t off, const void **out, void **hold,
			      pq_error *err)
{
	aruna *a = impl;
	uint64_t i = off / PQ_ARUNA_CHUNK, within = off % PQ_ARUNA_CHUNK;
	if (within + len > PQ_ARUNA_CHUNK)
		return PQ_OK;
	dchunk *c;
	maybe_ahead(a, i);
	PQ_TRY(get_chunk(a, i, &c, err));
	if (within + len > c->len) {
		dchunk_unref(c);
		return pq_fail(err, PQ_ECORRUPT, "chunk %" PRIu64 " is shorter than the footer says", i);
	}
	*out = c->data + within;
	*hold = c;
	return PQ_OK;
}

static void aruna_release(void *impl, void *hold)
{
	(void)impl;
	dchunk_unref(hold);
}

static uint64_t aruna_size(void *impl)
{
	return ((const aruna *)impl)->plain_size;
}

static void aruna_identity(void *impl, pq_identity *out)
{
	*out = ((const aruna *)impl)->id;
}

static pq_status aruna_current(void *impl, pq_identity *out, pq_error *err)
{
	aruna *a = impl;
	PQ_TRY(pq_source_check(a->inner, err));
	*out = a->id;
	return PQ_OK;
}

static void aruna_free(aruna *a)
{
	pthread_mutex_lock(&a->lock);
	while (a->ahead_running)
		pthread_cond_wait(&a->ahead_done, &a->lock);
	pthread_mutex_unlock(&a->lock);
	pthread_cond_destroy(&a->ahead_done);
	for (size_t s = 0; s < MAX_SLOTS; s++)
		if (a->slots[s].c) {
			atomic_fetch_sub(&kept_bytes, a->slots[s].c->len);
			dchunk_unref(a->slots[s].c);
		}
	pq_source_unref(a->inner);
	OPENSSL_cleanse(a->key, sizeof a->key);
	pthread_mutex_destroy(&a->lock);
	free(a->first);
	free(a);
}

static void aruna_close(void *impl)
{
	aruna_free(impl);
}

/* A pass over the container reads its blocks again later too. */
static void aruna_keep(void *impl, bool on)
{
	pq_source_keep(((aruna *)impl)->inner, on);
}

static const pq_source_ops aruna_ops = {
	.far = true,
	.keep = aruna_keep,
	.pread = aruna_pread,
	.borrow = aruna_borrow,
	.release = aruna_release,
	.size = aruna_size,
	.identity = aruna_identity,
	.current = aruna_current,
	.close = aruna_close,
};

/* The footer's sections (plaintext, one or two) into a->first. */
static pq_status parse_footer(aruna *a, const uint8_t *sec, uint32_t nsec, pq_error *err)
{
	uint64_t total = a->nblocks, sum = 0, n = 0;
	for (uint32_t s = 0; s < nsec; s++) {
		uint32_t bt = le32(sec + (size_t)s * PQ_ARUNA_SECTION + 8);
		PQ_CHECK(bt == total, err, PQ_ECORRUPT,
			 "footer inconsistent: Block_Total is %" PRIu32 ", but the file holds %" PRIu64
			 " blocks (length / 65,564)", bt, total);
	}
	a->first = malloc(((size_t)nsec * LIST_PER_SECTION + 1) * sizeof *a->first);
	PQ_CHECK(a->first, err, PQ_ENOMEM, "no memory for the footer's Block_List");
	for (uint32_t s = 0; s < nsec; s++) {
		const uint8_t *list = sec + (size_t)s * PQ_ARUNA_SECTION + 12;
		size_t k = 0;
		for (; k < LIST_PER_SECTION && list[k]; k++) {
			a->first[n++] = sum;
			sum += list[k];
		}
		if (k < LIST_PER_SECTION)
			break; /* the list ends at its first 0x00 */
	}
	PQ_CHECK(n > 0, err, PQ_ECORRUPT, "footer inconsistent: its Block_List is empty");
	PQ_CHECK(sum == total, err, PQ_ECORRUPT,
		 "footer inconsistent: Block_List adds up to %" PRIu64 " blocks, Block_Total says %" PRIu64,
		 sum, total);
	a->nchunks = n;
	a->first[n] = total - a->footer_blocks;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t c = a->first[i + 1] - a->first[i];
		PQ_CHECK(a->first[i + 1] > a->first[i] && c <= PQ_ARUNA_MAX_CHUNK_BLOCKS, err,
			 PQ_ECORRUPT, "footer inconsistent: chunk %" PRIu64 " is listed with %" PRId64
			 " data blocks (1 to 81)", i, (int64_t)a->first[i + 1] - (int64_t)a->first[i]);
	}
	return PQ_OK;
}

/* Finds and reads the footer, or settles that there is none. */
static pq_status find_footer(aruna *a, pq_error *err)
{
	uint64_t full = a->raw_size / PQ_ARUNA_BLOCK, tail = a->raw_size % PQ_ARUNA_BLOCK;
	a->nblocks = full + (tail ? 1 : 0);
	if (tail == 0 && full >= 2) {
		uint8_t *sec = malloc(2 * (size_t)PQ_ARUNA_SECTION), *p = NULL;
		PQ_CHECK(sec, err, PQ_ENOMEM, "no memory for the footer");
		size_t n;
		pq_status st = open_blocks(a, full - 1, 1, &p, &n, err);
		if (st == PQ_OK)
			memcpy(sec + PQ_ARUNA_SECTION, p, PQ_ARUNA_SECTION);
		pq_bigbuf_free(p);
		p = NULL;
		uint32_t nsec = 0;
		if (st == PQ_OK && le32(sec + PQ_ARUNA_SECTION + 4) == FOOTER_FRAME) {
			uint32_t m = le32(sec + PQ_ARUNA_SECTION);
			nsec = m == MAGIC_FOOTER1 ? 1 : m == MAGIC_FOOTER2 ? 2 : 0;
		}
		if (st == PQ_OK && nsec == 2) {
			st = full >= 3 ? open_blocks(a, full - 2, 1, &p, &n, err)
				       : pq_fail(err, PQ_ECORRUPT, "footer inconsistent: two sections, no data");
			if (st == PQ_OK)
				memcpy(sec, p, PQ_ARUNA_SECTION);
			pq_bigbuf_free(p);
			if (st == PQ_OK && (le32(sec) != MAGIC_FOOTER2 || le32(sec + 4) != FOOTER_FRAME))
				st = pq_fail(err, PQ_ECORRUPT,
					     "footer inconsistent: block %" PRIu64 " is not its first section",
					     full - 2);
		}
		if (st == PQ_OK && nsec) {
			a->footer_blocks = nsec;
			st = parse_footer(a, nsec == 2 ? sec : sec + PQ_ARUNA_SECTION, nsec, err);
		}
		OPENSSL_cleanse(sec, 2 * (size_t)PQ_ARUNA_SECTION);
		free(sec);
		if (st != PQ_OK || nsec)
			return st;
	}
	/* no footer: one chunk of every block */
	PQ_CHECK(a->nblocks <= PQ_ARUNA_MAX_CHUNK_BLOCKS, err, PQ_ECORRUPT,
		 "footer missing: %" PRIu64 " blocks (%" PRIu64 " bytes) and no footer index; a "
		 "container of more than 5 MiB has one (or the file is cut short)", a->nblocks,
		 a->raw_size);
	a->first = malloc(2 * sizeof *a->first);
	PQ_CHECK(a->first, err, PQ_ENOMEM, "no memory");
	a->first[0] = 0;
	a->first[1] = a->nblocks;
	a->nchunks = 1;
	return PQ_OK;
}

pq_status pq_aruna_open(pq_source *inner, const uint8_t key[PQ_ARUNA_KEY_BYTES],
			uint64_t cache_bytes, pq_budget *memory, pq_source **out, pq_error *err)
{
	*out = NULL;
	aruna *a = calloc(1, sizeof *a);
	PQ_CHECK(a, err, PQ_ENOMEM, "no memory for a container");
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->ahead_done, NULL);
	pq_source_ref(inner);
	a->inner = inner;
	memcpy(a->key, key, PQ_ARUNA_KEY_BYTES);
	a->raw_size = pq_source_size(inner);
	a->id = *pq_source_identity(inner);
	a->memory = memory;
	a->budget = cache_bytes / 8 < 2 * PQ_ARUNA_CHUNK ? 2 * PQ_ARUNA_CHUNK : cache_bytes / 8;
	uint64_t slots = a->budget / PQ_ARUNA_CHUNK;
	a->nslots = slots > MAX_SLOTS ? MAX_SLOTS : (size_t)slots;
	pq_status st = a->raw_size ? find_footer(a, err)
				   : pq_fail(err, PQ_ECORRUPT, "an empty file is not an ARUNA container");
	dchunk *last = NULL;
	if (st == PQ_OK)
		st = get_chunk(a, a->nchunks - 1, &last, err);
	if (st != PQ_OK) {
		aruna_free(a);
		return st;
	}
	a->plain_size = (a->nchunks - 1) * PQ_ARUNA_CHUNK + last->len;
	dchunk_unref(last);
	return pq_source_new(&aruna_ops, a, out, err);
}

static aruna *impl_of(const pq_source *s)
{
	return s ? pq_source_impl(s, &aruna_ops) : NULL;
}

bool pq_aruna_is(const pq_source *s)
{
	return impl_of(s) != NULL;
}

bool pq_aruna_stats_get(const pq_source *s, pq_aruna_stats *out)
{
	aruna *a = impl_of(s);
	if (!a)
		return false;
	out->chunks = a->nchunks;
	out->blocks = a->nblocks;
	out->footer = a->footer_blocks > 0;
	out->blocks_opened = atomic_load(&a->blocks_opened);
	out->chunks_decoded = atomic_load(&a->chunks_decoded);
	out->cache_hits = atomic_load(&a->hits);
	out->cache_slots = a->nslots;
	return true;
}

void pq_aruna_describe(const pq_source *s, pq_buf *out)
{
	aruna *a = impl_of(s);
	if (!a)
		return;
	/* the contract's words, plural even for one: tools match the line */
	pq_buf_printf(out, "container: aruna, %" PRIu64 " chunks, %" PRIu64 " blocks, index: %s\n",
		      a->nchunks, a->nblocks, a->footer_blocks ? "footer" : "none (read whole)");
}

uint64_t pq_aruna_verify(const pq_source *s, pq_buf *out)
{
	aruna *a = impl_of(s);
	if (!a)
		return 0;
	uint64_t problems = 0;
	for (uint64_t i = 0; i < a->nchunks; i++) {
		pq_error e = {0};
		dchunk *c = NULL;
		if (decode_chunk(a, i, &c, &e) != PQ_OK) {
			/* every message names its block or its chunk */
			if (!strncmp(e.msg, "chunk ", 6))
				pq_buf_printf(out, "container: %s\n", e.msg);
			else
				pq_buf_printf(out, "container: chunk %" PRIu64 ": %s\n", i, e.msg);
			problems++;
		}
		dchunk_unref(c);
	}
	pq_buf_printf(out, "container: checked %" PRIu64 " blocks (footer: %s), %" PRIu64 " chunks\n",
		      a->nblocks, a->footer_blocks ? "ok" : "none", a->nchunks);
	return problems;
}
