/* Writing ARUNA containers (pq_aruna.h; layout: interface.md, "Byte
 * layout"), and checking a whole one held by a descriptor.
 *
 * Chunks are independent: each is read, compressed (zstd, one frame),
 * padded and sealed by a worker thread, a batch of `threads` chunks at a
 * time, and written in order. Nonces come from a callback (random by
 * default), so the output is a function of the plaintext, the key, the
 * level and the nonces: a test gets the same bytes twice. */
#include "config.h"

#include "pq_aruna.h"
#include "pq_bigbuf.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <zstd.h>

#define MAGIC_FOOTER1 0x184D2A51u
#define MAGIC_FOOTER2 0x184D2A52u
#define MAGIC_PAD 0x184D2A50u
#define FOOTER_FRAME 65528u
#define LIST_PER_SECTION (PQ_ARUNA_SECTION - 12u)
#define MAX_THREADS 64u
#define NONCE_TRIES 64u

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static pq_status random_nonce(void *ctx, uint64_t chunk, uint32_t block, unsigned attempt,
			      uint8_t nonce[PQ_ARUNA_NONCE])
{
	(void)ctx, (void)chunk, (void)block, (void)attempt;
	return RAND_bytes(nonce, PQ_ARUNA_NONCE) == 1 ? PQ_OK : PQ_EIO;
}

typedef struct sealer {
	const uint8_t *key;
	const pq_aruna_write_opts *opts;
	pq_aruna_nonce_fn nonce;
} sealer;

/* Seals the n plaintext bytes at p (at most one section) as block `block`
 * of chunk `chunk` into out (n + 28 bytes). */
static pq_status seal_block(const sealer *s, uint64_t chunk, uint32_t block, const uint8_t *p,
			    size_t n, uint8_t *out, pq_error *err)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	PQ_CHECK(ctx, err, PQ_ENOMEM, "no memory for the cipher");
	pq_status st = PQ_OK;
	for (unsigned attempt = 0;; attempt++) {
		if (attempt == NONCE_TRIES) {
			st = pq_fail(err, PQ_EIO, "chunk %" PRIu64 " block %" PRIu32 ": no usable nonce "
				     "after %u tries", chunk, block, NONCE_TRIES);
			break;
		}
		if (s->nonce(s->opts->nonce_ctx, chunk, block, attempt, out) != PQ_OK) {
			st = pq_fail(err, PQ_EIO, "no nonce from the random generator");
			break;
		}
		int len = 0, fin = 0;
		uint8_t *tag = out + PQ_ARUNA_NONCE + n;
		if (EVP_EncryptInit_ex(ctx, EVP_chacha20_poly1305(), NULL, s->key, out) != 1 ||
		    EVP_EncryptUpdate(ctx, out + PQ_ARUNA_NONCE, &len, p, (int)n) != 1 ||
		    EVP_EncryptFinal_ex(ctx, out + PQ_ARUNA_NONCE + len, &fin) != 1 ||
		    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)PQ_ARUNA_TAG, tag) != 1) {
			st = pq_fail(err, PQ_EIO, "ChaCha20-Poly1305 failed");
			break;
		}
		/* aruna-file's readers take trailing zeros as padding */
		if (tag[PQ_ARUNA_TAG - 1] != 0)
			break;
	}
	EVP_CIPHER_CTX_free(ctx);
	return st;
}

/* One chunk's work: plaintext in, sealed blocks out. */
typedef struct job {
	const sealer *s;
	pq_source *in;
	ZSTD_CCtx *cctx;    /* the batch slot's, kept across chunks (NULL: a fresh one) */
	uint64_t idx, off;
	size_t len;
	bool padded;
	uint8_t *out;
	size_t out_len;
	uint32_t blocks;
	pq_status st;
	pq_error err;
} job;

static void run_job(job *j)
{
	size_t bound = ZSTD_compressBound(j->len);
	size_t cap = bound + 2 * PQ_ARUNA_SECTION;
	/* big buffers (5 MiB chunks): pq_bigbuf's, whose pages are faulted in
	 * once per buffer kept, not once per chunk */
	uint8_t *plain = pq_bigbuf_alloc(j->len ? j->len : 1), *frame = pq_bigbuf_alloc(cap);
	j->st = plain && frame ? PQ_OK : pq_fail(&j->err, PQ_ENOMEM, "chunk %" PRIu64 ": no memory", j->idx);
	if (j->st == PQ_OK)
		j->st = pq_source_pread(j->in, plain, j->len, j->off, &j->err);
	size_t fl = 0;
	if (j->st == PQ_OK) {
		int level = j->s->opts->level ? j->s->opts->level : 3;
		fl = j->cctx ? ZSTD_compressCCtx(j->cctx, frame, bound, plain, j->len, level)
			     : ZSTD_compress(frame, bound, plain, j->len, level);
		if (ZSTD_isError(fl))
			j->st = pq_fail(&j->err, PQ_EIO, "chunk %" PRIu64 ": zstd: %s", j->idx,
					ZSTD_getErrorName(fl));
	}
	if (j->st == PQ_OK && j->padded) {
		size_t miss = PQ_ARUNA_SECTION - fl % PQ_ARUNA_SECTION;
		size_t pad = miss > 8 ? miss : miss + PQ_ARUNA_SECTION;
		put32(frame + fl, MAGIC_PAD);
		put32(frame + fl + 4, (uint32_t)(pad - 8));
		memset(frame + fl + 8, 0, pad - 8);
		fl += pad;
	}
	size_t nblocks = (fl + PQ_ARUNA_SECTION - 1) / PQ_ARUNA_SECTION;
	if (j->st == PQ_OK && nblocks > PQ_ARUNA_MAX_CHUNK_BLOCKS)
		j->st = pq_fail(&j->err, PQ_ELIMIT, "chunk %" PRIu64 " needs %zu blocks", j->idx, nblocks);
	if (j->st == PQ_OK) {
		j->out = pq_bigbuf_alloc(nblocks * PQ_ARUNA_BLOCK + 1);
		if (!j->out)
			j->st = pq_fail(&j->err, PQ_ENOMEM, "chunk %" PRIu64 ": no memory", j->idx);
	}
	for (size_t b = 0; j->st == PQ_OK && b < nblocks; b++) {
		size_t off = b * PQ_ARUNA_SECTION;
		size_t n = fl - off < PQ_ARUNA_SECTION ? fl - off : PQ_ARUNA_SECTION;
		j->st = seal_block(j->s, j->idx, (uint32_t)b, frame + off, n,
				   j->out + j->out_len, &j->err);
		j->out_len += n + PQ_ARUNA_NONCE + PQ_ARUNA_TAG;
	}
	j->blocks = (uint32_t)nblocks;
	if (plain)
		OPENSSL_cleanse(plain, j->len);
	if (frame) /* compressed plaintext: wiped too before the buffer is kept */
		OPENSSL_cleanse(frame, fl < cap ? fl : cap);
	pq_bigbuf_free(plain);
	pq_bigbuf_free(frame);
}

static void *job_thread(void *arg)
{
	run_job(arg);
	return NULL;
}

static pq_status write_all(int fd, const uint8_t *p, size_t n, pq_error *err)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		PQ_CHECK(w > 0, err, PQ_EIO, "writing the container: %s", w < 0 ? strerror(errno) : "short write");
		p += w;
		n -= (size_t)w;
	}
	return PQ_OK;
}

static unsigned thread_count(const pq_aruna_write_opts *o)
{
	long n = o->threads ? (long)o->threads : sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1u : n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
}

static pq_status write_footer(const sealer *s, uint64_t nchunks, const uint8_t *list,
			      uint64_t data_blocks, int fd, pq_error *err)
{
	uint32_t nsec = nchunks >= LIST_PER_SECTION ? 2 : 1;
	uint64_t total = data_blocks + nsec;
	PQ_CHECK(total <= UINT32_MAX, err, PQ_ELIMIT, "%" PRIu64 " blocks do not fit a footer", total);
	PQ_CHECK(nchunks <= 2 * (uint64_t)LIST_PER_SECTION, err, PQ_ELIMIT,
		 "%" PRIu64 " chunks do not fit a footer", nchunks);
	uint8_t *sec = calloc(nsec, PQ_ARUNA_SECTION);
	uint8_t *out = malloc(PQ_ARUNA_BLOCK);
	pq_status st = sec && out ? PQ_OK : pq_fail(err, PQ_ENOMEM, "no memory for the footer");
	for (uint32_t k = 0; st == PQ_OK && k < nsec; k++) {
		uint8_t *p = sec + (size_t)k * PQ_ARUNA_SECTION;
		put32(p, nsec == 2 ? MAGIC_FOOTER2 : MAGIC_FOOTER1);
		put32(p + 4, FOOTER_FRAME);
		put32(p + 8, (uint32_t)total);
		uint64_t from = (uint64_t)k * LIST_PER_SECTION;
		for (uint64_t i = from; i < nchunks && i < from + LIST_PER_SECTION; i++)
			p[12 + (i - from)] = (uint8_t)(list[i] + (i + 1 == nchunks ? nsec : 0));
	}
	for (uint32_t k = 0; st == PQ_OK && k < nsec; k++) {
		st = seal_block(s, nchunks, k, sec + (size_t)k * PQ_ARUNA_SECTION, PQ_ARUNA_SECTION, out, err);
		if (st == PQ_OK)
			st = write_all(fd, out, PQ_ARUNA_BLOCK, err);
	}
	free(sec);
	free(out);
	return st;
}

pq_status pq_aruna_seal(pq_source *in, const uint8_t key[PQ_ARUNA_KEY_BYTES],
			const pq_aruna_write_opts *opts, int out_fd, pq_error *err)
{
	pq_aruna_write_opts defaults = {0};
	if (!opts)
		opts = &defaults;
	sealer s = {key, opts, opts->nonce ? opts->nonce : random_nonce};
	uint64_t size = pq_source_size(in);
	uint64_t nchunks = size <= PQ_ARUNA_CHUNK ? 1 : (size + PQ_ARUNA_CHUNK - 1) / PQ_ARUNA_CHUNK;
	bool padded = nchunks > 1;
	unsigned nt = thread_count(opts);
	uint8_t *list = padded ? malloc((size_t)nchunks) : NULL;
	PQ_CHECK(!padded || list, err, PQ_ENOMEM, "no memory for the block list");
	job jobs[MAX_THREADS];
	/* one compression context per batch slot: ZSTD_compress would make
	 * (and fault in) a new one for every chunk */
	ZSTD_CCtx *cctx[MAX_THREADS] = {NULL};
	for (unsigned t = 0; t < nt; t++)
		cctx[t] = ZSTD_createCCtx();
	uint64_t data_blocks = 0;
	pq_status st = PQ_OK;
	for (uint64_t first = 0; st == PQ_OK && first < nchunks; first += nt) {
		unsigned n = nchunks - first < nt ? (unsigned)(nchunks - first) : nt;
		pthread_t tid[MAX_THREADS];
		bool started[MAX_THREADS] = {false};
		for (unsigned t = 0; t < n; t++) {
			uint64_t i = first + t, off = i * PQ_ARUNA_CHUNK;
			jobs[t] = (job){.s = &s, .in = in, .cctx = cctx[t], .idx = i, .off = off,
					.padded = padded};
			jobs[t].len = (size_t)(size - off < PQ_ARUNA_CHUNK ? size - off : PQ_ARUNA_CHUNK);
			/* the last of a batch runs here; the others on threads (or here,
			 * when no thread can be made) */
			if (t + 1 < n)
				started[t] = pthread_create(&tid[t], NULL, job_thread, &jobs[t]) == 0;
		}
		for (unsigned t = 0; t < n; t++)
			if (!started[t])
				run_job(&jobs[t]);
		for (unsigned t = 0; t < n; t++)
			if (started[t])
				pthread_join(tid[t], NULL);
		for (unsigned t = 0; t < n; t++) {
			if (st == PQ_OK && jobs[t].st != PQ_OK)
				st = pq_fail(err, jobs[t].st, "%s", jobs[t].err.msg);
			if (st == PQ_OK)
				st = write_all(out_fd, jobs[t].out, jobs[t].out_len, err);
			if (st == PQ_OK && padded)
				list[jobs[t].idx] = (uint8_t)jobs[t].blocks;
			data_blocks += jobs[t].blocks;
			pq_bigbuf_free(jobs[t].out);
		}
	}
	if (st == PQ_OK && padded)
		st = write_footer(&s, nchunks, list, data_blocks, out_fd, err);
	for (unsigned t = 0; t < nt; t++)
		ZSTD_freeCCtx(cctx[t]);
	free(list);
	return st;
}

pq_status pq_aruna_check_fd(int fd, const uint8_t key[PQ_ARUNA_KEY_BYTES], uint64_t *plain_size,
			    pq_error *err)
{
	pq_source *raw, *c;
	PQ_TRY(pq_source_fd_new(fd, false, &raw, err));
	pq_status st = pq_aruna_open(raw, key, 0, NULL, &c, err);
	pq_source_unref(raw);
	if (st != PQ_OK)
		return st;
	pq_buf b = {0};
	uint64_t problems = pq_aruna_verify(c, &b);
	*plain_size = pq_source_size(c);
	pq_source_unref(c);
	if (problems) {
		/* the first problem line, without the "container: " prefix */
		const char *p = b.p ? (const char *)b.p : "";
		const char *nl = memchr(p, '\n', b.len);
		int n = nl ? (int)(nl - p) : (int)b.len;
		const char *pre = "container: ";
		if (n >= (int)strlen(pre) && !strncmp(p, pre, strlen(pre))) {
			p += strlen(pre);
			n -= (int)strlen(pre);
		}
		st = pq_fail(err, PQ_ECORRUPT, "%.*s", n, p);
	}
	pq_buf_free(&b);
	return st;
}
