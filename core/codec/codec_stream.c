/* Streaming decompression of a whole gzip or zstd file (a compressed CSV
 * input), by zlib and libzstd: input and output in blocks of the caller's
 * size, so memory stays bounded whatever the file's size.
 *
 * gzip: one or more members one after another (RFC 1952 allows it and
 * gzip(1) writes it for `cat a.gz b.gz`); zstd: one or more frames. The
 * stream must end at the end of a member or frame: anything else is a
 * truncated file (PQ_ECORRUPT). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "pq_codec.h"

struct pq_unpack {
	pq_unpack_kind kind;
	z_stream z;
	bool z_init;
	ZSTD_DStream *zs;
	bool at_boundary;   /* between members / frames (the stream may end) */
	bool started;       /* some input seen (an empty file is not a stream) */
};

pq_status pq_unpack_new(pq_unpack_kind kind, pq_unpack **out, pq_error *err)
{
	*out = NULL;
	pq_unpack *u = calloc(1, sizeof *u);
	if (!u)
		return pq_fail(err, PQ_ENOMEM, "no memory for a decompressor");
	u->kind = kind;
	if (kind == PQ_UNPACK_GZIP) {
		if (inflateInit2(&u->z, 16 + MAX_WBITS) != Z_OK) { /* gzip wrapper only */
			free(u);
			return pq_fail(err, PQ_ENOMEM, "gzip: cannot start zlib's inflate");
		}
		u->z_init = true;
	} else {
		u->zs = ZSTD_createDStream();
		if (!u->zs || ZSTD_isError(ZSTD_initDStream(u->zs))) {
			ZSTD_freeDStream(u->zs);
			free(u);
			return pq_fail(err, PQ_ENOMEM, "zstd: cannot start a decompression stream");
		}
	}
	u->at_boundary = true;
	*out = u;
	return PQ_OK;
}

void pq_unpack_free(pq_unpack *u)
{
	if (!u)
		return;
	if (u->z_init)
		inflateEnd(&u->z);
	ZSTD_freeDStream(u->zs);
	free(u);
}

pq_status pq_unpack_reset(pq_unpack *u, pq_error *err)
{
	u->at_boundary = true;
	u->started = false;
	if (u->kind == PQ_UNPACK_GZIP)
		return inflateReset(&u->z) == Z_OK ? PQ_OK
						   : pq_fail(err, PQ_EIO, "gzip: cannot restart inflate");
	size_t r = ZSTD_DCtx_reset(u->zs, ZSTD_reset_session_only);
	return ZSTD_isError(r) ? pq_fail(err, PQ_EIO, "zstd: cannot restart: %s",
					 ZSTD_getErrorName(r))
			       : PQ_OK;
}

static pq_status run_gzip(pq_unpack *u, const uint8_t **in, size_t *in_len, uint8_t *out,
			  size_t out_cap, size_t *produced, pq_error *err)
{
	z_stream *z = &u->z;
	/* zlib counts in uInt: never hand it more than fits */
	size_t ilen = *in_len > UINT32_MAX ? UINT32_MAX : *in_len;
	size_t ocap = out_cap > UINT32_MAX ? UINT32_MAX : out_cap;
	z->next_in = (Bytef *)(uintptr_t)*in;
	z->avail_in = (uInt)ilen;
	z->next_out = out;
	z->avail_out = (uInt)ocap;
	/* with no input left, inflate may still hold output: it answers
	 * Z_BUF_ERROR once nothing more can come */
	while (z->avail_out > 0) {
		if (u->at_boundary) {
			if (z->avail_in == 0)
				break;
			u->at_boundary = false;
			if (inflateReset(z) != Z_OK)
				return pq_fail(err, PQ_EIO, "gzip: cannot restart inflate");
		}
		int r = inflate(z, Z_NO_FLUSH);
		if (r == Z_STREAM_END) {
			u->at_boundary = true; /* another member may follow */
			continue;
		}
		if (r == Z_BUF_ERROR)
			break; /* needs more input or room */
		if (r != Z_OK)
			return pq_fail(err, r == Z_MEM_ERROR ? PQ_ENOMEM : PQ_ECORRUPT,
				       "gzip: %s", z->msg ? z->msg : "bad compressed data");
	}
	*produced = ocap - z->avail_out;
	*in += ilen - z->avail_in;
	*in_len -= ilen - z->avail_in;
	return PQ_OK;
}

static pq_status run_zstd(pq_unpack *u, const uint8_t **in, size_t *in_len, uint8_t *out,
			  size_t out_cap, size_t *produced, pq_error *err)
{
	ZSTD_inBuffer ib = {*in, *in_len, 0};
	ZSTD_outBuffer ob = {out, out_cap, 0};
	while (ob.pos < ob.size && ib.pos < ib.size) {
		size_t r = ZSTD_decompressStream(u->zs, &ob, &ib);
		if (ZSTD_isError(r))
			return pq_fail(err, PQ_ECORRUPT, "zstd: %s", ZSTD_getErrorName(r));
		u->at_boundary = r == 0; /* a frame ended; another may follow */
		if (r != 0 && ob.pos == 0 && ib.pos == ib.size)
			break;
	}
	/* output still held inside the decoder comes out on the next call,
	 * which passes an empty input: ask for it */
	if (ib.pos == ib.size && ob.pos < ob.size && !u->at_boundary) {
		size_t r = ZSTD_decompressStream(u->zs, &ob, &ib);
		if (ZSTD_isError(r))
			return pq_fail(err, PQ_ECORRUPT, "zstd: %s", ZSTD_getErrorName(r));
		u->at_boundary = r == 0;
	}
	*produced = ob.pos;
	*in += ib.pos;
	*in_len -= ib.pos;
	return PQ_OK;
}

pq_status pq_unpack_run(pq_unpack *u, const uint8_t **in, size_t *in_len, uint8_t *out,
			size_t out_cap, size_t *produced, pq_error *err)
{
	*produced = 0;
	if (*in_len)
		u->started = true;
	if (u->kind == PQ_UNPACK_GZIP)
		return run_gzip(u, in, in_len, out, out_cap, produced, err);
	return run_zstd(u, in, in_len, out, out_cap, produced, err);
}

pq_status pq_unpack_finish(const pq_unpack *u, pq_error *err)
{
	const char *what = u->kind == PQ_UNPACK_GZIP ? "gzip" : "zstd";
	if (!u->started)
		return pq_fail(err, PQ_ECORRUPT, "%s: empty file (not even a header)", what);
	return u->at_boundary ? PQ_OK
			      : pq_fail(err, PQ_ECORRUPT, "%s: the file ends inside a compressed %s",
					what, u->kind == PQ_UNPACK_GZIP ? "member" : "frame");
}
