#include "config.h"

/* ZSTD: one or more RFC 8878 frames (skippable frames allowed). */

#define PQ_CODEC_INTERNAL
#include "codec_internal.h"

#include <limits.h>
#include <pthread.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Walks the frames with zstd's stable API and adds up the content sizes
 * their headers state; *known is false when some frame does not say. */
static pq_status frames_content_size(const uint8_t *in, size_t in_len, unsigned long long *total,
				     bool *known, pq_error *err)
{
	*total = 0;
	*known = true;
	size_t pos = 0;
	for (unsigned frame = 1; pos < in_len; frame++) {
		size_t fsz = ZSTD_findFrameCompressedSize(in + pos, in_len - pos);
		PQ_CHECK(!ZSTD_isError(fsz), err, PQ_ECORRUPT, "ZSTD: frame %u at byte %zu: %s", frame,
			 pos, ZSTD_getErrorName(fsz));
		unsigned long long cs = ZSTD_getFrameContentSize(in + pos, fsz);
		PQ_CHECK(cs != ZSTD_CONTENTSIZE_ERROR, err, PQ_ECORRUPT,
			 "ZSTD: frame %u at byte %zu: bad frame header", frame, pos);
		if (cs == ZSTD_CONTENTSIZE_UNKNOWN)
			*known = false;
		else /* saturating: a hostile header may say nearly 2^64 */
			*total = cs > ULLONG_MAX - *total ? ULLONG_MAX : *total + cs;
		pos += fsz;
	}
	return PQ_OK;
}

pq_status pq_zstd_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			     pq_error *err)
{
	/* The frame headers may state the content size: it must agree with
	 * the page header before anything is decoded. */
	unsigned long long claimed;
	bool known;
	PQ_TRY(frames_content_size(in, in_len, &claimed, &known, err));
	PQ_CHECK(!known || claimed == out_len, err, PQ_ECORRUPT,
		 "ZSTD: frame says %llu bytes, page header says %zu", claimed, out_len);
	/* ZSTD_decompress never writes past out_len: longer data fails with
	 * "Destination buffer is too small". */
	size_t r = ZSTD_decompress(out, out_len, in, in_len);
	if (ZSTD_isError(r)) {
		bool oom = ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation;
		return pq_fail(err, oom ? PQ_ENOMEM : PQ_ECORRUPT, "ZSTD: %s (page header says %zu bytes)",
			       ZSTD_getErrorName(r), out_len);
	}
	PQ_CHECK(r == out_len, err, PQ_ECORRUPT, "ZSTD: decompressed %zu bytes, page header says %zu",
		 r, out_len);
	return PQ_OK;
}

/* One compression context per thread, kept between pages: ZSTD_compress
 * allocates and clears a fresh one (about 1 MiB at level 3) for every page,
 * and with the daemon's 2 MiB mmap threshold that memory can come from
 * fresh pages (page faults) each time. Freed when the thread ends. */
#define CCTX_KEEP_MAX (8u << 20)
static pthread_key_t cctx_key;
static pthread_once_t cctx_once = PTHREAD_ONCE_INIT;
static bool cctx_key_ok;

static void cctx_free(void *p)
{
	ZSTD_freeCCtx(p);
}

static void cctx_key_init(void)
{
	cctx_key_ok = pthread_key_create(&cctx_key, cctx_free) == 0;
}

/* The thread's context; NULL (then ZSTD_compress) when none can be had. */
static ZSTD_CCtx *thread_cctx(void)
{
	pthread_once(&cctx_once, cctx_key_init);
	if (!cctx_key_ok)
		return NULL;
	ZSTD_CCtx *cc = pthread_getspecific(cctx_key);
	if (!cc) {
		cc = ZSTD_createCCtx();
		if (cc && pthread_setspecific(cctx_key, cc) != 0) {
			ZSTD_freeCCtx(cc);
			cc = NULL;
		}
	}
	return cc;
}

pq_status pq_zstd_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			   pq_error *err)
{
	PQ_CHECK(level >= ZSTD_minCLevel() && level <= ZSTD_maxCLevel(), err, PQ_EINVAL,
		 "ZSTD: compression level %d outside %d..%d", level, ZSTD_minCLevel(),
		 ZSTD_maxCLevel());
	size_t bound = ZSTD_compressBound(in_len);
	if (ZSTD_isError(bound) || !pq_buf_grow(out, bound))
		return pq_fail(err, PQ_ENOMEM, "ZSTD: out of memory compressing %zu bytes", in_len);
	/* Level 0 is zstd's own "default" (ZSTD_CLEVEL_DEFAULT).
	 * ZSTD_compressCCtx writes the bytes ZSTD_compress writes. */
	ZSTD_CCtx *cc = thread_cctx();
	size_t n = cc ? ZSTD_compressCCtx(cc, out->p + out->len, bound, in, in_len, level)
		      : ZSTD_compress(out->p + out->len, bound, in, in_len, level);
	if (cc && ZSTD_sizeof_CCtx(cc) > CCTX_KEEP_MAX) { /* a high level: not kept */
		ZSTD_freeCCtx(cc);
		pthread_setspecific(cctx_key, NULL);
	}
	PQ_CHECK(!ZSTD_isError(n), err, PQ_EINVAL, "ZSTD: compressing %zu bytes failed: %s", in_len,
		 ZSTD_getErrorName(n));
	out->len += n;
	return PQ_OK;
}
