/* ARUNA containers (aruna-file 0.1-0.4; interface.md, "ARUNA containers"):
 * a file cut into 5 MiB chunks, each one zstd frame (padded with a
 * skippable frame to whole 64 KiB sections when there are several), every
 * 64 KiB section sealed with ChaCha20-Poly1305 (nonce 12 | ciphertext |
 * tag 16), and a sealed footer listing how many blocks each chunk has.
 *
 * Reading: pq_aruna_open stacks a pq_source on another one (a local
 * file, an object store, anything): reads of the plaintext decrypt and
 * decompress only the chunks they touch; no byte of a block is used before
 * the block authenticates. Writing: pq_aruna_seal turns plaintext into a
 * container, compressing and sealing chunks on several threads.
 *
 * Messages name the block ("block 18 (byte 1180152) failed authentication:
 * wrong container key or damaged file") or the chunk, never a key. */
#ifndef PQ_ARUNA_H
#define PQ_ARUNA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_buf.h"
#include "pq_error.h"
#include "pq_io.h"

#define PQ_ARUNA_KEY_BYTES 32
#define PQ_ARUNA_CHUNK ((uint64_t)5242880)  /* plaintext bytes of a chunk */
#define PQ_ARUNA_SECTION 65536u             /* plaintext bytes of a block */
#define PQ_ARUNA_BLOCK 65564u               /* nonce + section + tag */
#define PQ_ARUNA_NONCE 12u
#define PQ_ARUNA_TAG 16u
#define PQ_ARUNA_MAX_CHUNK_BLOCKS 81u       /* a chunk's blocks (Block_List) */

/* True when name ends in ".parquet.aruna", in any case. */
bool pq_aruna_name(const char *name);

/* A container over inner (which keeps its own reference; the caller keeps
 * theirs). Reads and checks the footer and the last chunk (the plaintext
 * size comes from it). cache_bytes is the daemon's cache_size: decoded
 * chunks kept by all containers of the process stay within a quarter of
 * it (at least two chunks; the one just decoded is always kept), and
 * sequential readers get the next chunks decoded ahead on other threads
 * when it allows four or more. The new source's identity is
 * inner's: what changes when the container changes. Every decoded chunk
 * is charged to memory (the mount's budget, pq_budget.h; NULL: none)
 * while it lives; a chunk that does not fit fails its read (PQ_EBUDGET).
 * Failures: PQ_EAUTH
 * (a block does not authenticate), PQ_ECORRUPT (truncation, footer
 * missing or inconsistent, a chunk that is not a frame), PQ_EIO from
 * inner; the message says which block or chunk and why. */
pq_status pq_aruna_open(pq_source *inner, const uint8_t key[PQ_ARUNA_KEY_BYTES],
			uint64_t cache_bytes, struct pq_budget *memory, pq_source **out,
			pq_error *err);

/* true when s was made by pq_aruna_open. */
bool pq_aruna_is(const pq_source *s);

/* What a container source has done (for tests and the bench). */
typedef struct pq_aruna_stats {
	uint64_t chunks;       /* chunks of the container */
	uint64_t blocks;       /* blocks, the footer's included */
	bool footer;           /* an index footer is present */
	uint64_t blocks_opened; /* blocks authenticated and decrypted so far */
	uint64_t chunks_decoded; /* chunks decompressed so far */
	uint64_t cache_hits;   /* reads served from a decoded chunk kept */
	uint64_t cache_slots;  /* decoded chunks kept at most */
} pq_aruna_stats;
/* false when s is not a container source. */
bool pq_aruna_stats_get(const pq_source *s, pq_aruna_stats *out);

/* Appends "container: aruna, N chunks, M blocks, index: footer\n" (or
 * "index: none (read whole)") when s is a container source. */
void pq_aruna_describe(const pq_source *s, pq_buf *out);

/* Checks every block and every chunk of a container source: appends one
 * line per problem, then "container: N blocks, M chunks checked\n";
 * returns the number of problems (0 when s is not a container). */
uint64_t pq_aruna_verify(const pq_source *s, pq_buf *out);

/* ---- writing ------------------------------------------------------------ */

/* Fills a 12-byte nonce. The default draws from OpenSSL's RAND_bytes; a
 * test passes its own to get the same bytes twice. Thread-safe: called
 * from the sealing threads with the chunk's number (the footer's is the
 * number of chunks), the block's number inside it, and how many nonces
 * this block has refused (a tag ending in 0x00 asks for a new one). */
typedef pq_status (*pq_aruna_nonce_fn)(void *ctx, uint64_t chunk, uint32_t block,
				       unsigned attempt, uint8_t nonce[PQ_ARUNA_NONCE]);

typedef struct pq_aruna_write_opts {
	int level;               /* zstd level; 0 means 3 */
	unsigned threads;        /* 0: one per online CPU */
	pq_aruna_nonce_fn nonce; /* NULL: random */
	void *nonce_ctx;
} pq_aruna_write_opts;

/* Reads size plaintext bytes from in (at offsets 0..size) and writes the
 * container to out_fd at its current position. Chunks compress and seal
 * on opts->threads threads; the output depends only on the plaintext, the
 * key, the level and the nonces. */
pq_status pq_aruna_seal(pq_source *in, const uint8_t key[PQ_ARUNA_KEY_BYTES],
			const pq_aruna_write_opts *opts, int out_fd, pq_error *err);

/* Checks a whole container held by fd, as verify.txt does: every block,
 * the footer and every chunk. PQ_OK and the plaintext size, or the first
 * problem. */
pq_status pq_aruna_check_fd(int fd, const uint8_t key[PQ_ARUNA_KEY_BYTES], uint64_t *plain_size,
			    pq_error *err);

#endif
