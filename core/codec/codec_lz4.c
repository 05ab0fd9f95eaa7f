#include "config.h"

/* LZ4 and LZ4_RAW (Compression.md).
 *
 * LZ4_RAW is one raw LZ4 block. LZ4 (deprecated) is in practice Hadoop's
 * block framing: blocks of [4-byte big-endian uncompressed size] followed by
 * one or more [4-byte big-endian compressed size][raw LZ4 block] chunks that
 * together decompress to that size. Older writers put an LZ4 frame or a bare
 * raw block under the same id, so, as other readers do, when the Hadoop
 * framing does not parse and check out exactly we try an LZ4 frame (when the
 * magic number is there) and then a raw block. Each attempt must produce
 * exactly the page header's size. */

#define PQ_CODEC_INTERNAL
#include "codec_internal.h"

#include <lz4.h>
#include <lz4frame.h>
#include <lz4hc.h>
#include <string.h>

/* Uncompressed bytes per Hadoop block we write: Hadoop's decompressor reads
 * each chunk into a 256 KiB buffer, and LZ4's worst case for 128 KiB fits. */
#define HADOOP_BLOCK (128u * 1024u)

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Hadoop framing, strictly: every length bounded, every block complete,
 * no bytes left over, total exactly out_len. */
static pq_status hadoop_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			       pq_error *why)
{
	size_t pos = 0, produced = 0;
	unsigned block = 0;
	while (pos < in_len) {
		block++;
		PQ_CHECK(in_len - pos >= 4, why, PQ_ECORRUPT,
			 "block %u at byte %zu: truncated size header", block, pos);
		uint32_t usize = be32(in + pos);
		pos += 4;
		PQ_CHECK(usize <= out_len - produced, why, PQ_ECORRUPT,
			 "block %u says %u bytes, only %zu of the page header's %zu remain", block,
			 usize, out_len - produced, out_len);
		/* A trailing empty block may stand alone, with no chunk. */
		if (usize == 0 && pos == in_len)
			break;
		size_t bprod = 0;
		do {
			PQ_CHECK(in_len - pos >= 4, why, PQ_ECORRUPT,
				 "block %u at byte %zu: truncated chunk size", block, pos);
			uint32_t csize = be32(in + pos);
			pos += 4;
			PQ_CHECK(csize > 0 && csize <= in_len - pos, why, PQ_ECORRUPT,
				 "block %u at byte %zu: chunk of %u bytes, %zu remain", block, pos,
				 csize, in_len - pos);
			/* Both sizes are below 2^31 (codec.c limits the page). */
			int r = LZ4_decompress_safe((const char *)in + pos,
						    (char *)out + produced + bprod, (int)csize,
						    (int)(usize - bprod));
			PQ_CHECK(r >= 0, why, PQ_ECORRUPT,
				 "block %u at byte %zu: corrupt LZ4 chunk or longer than %zu bytes",
				 block, pos, (size_t)usize - bprod);
			PQ_CHECK(r > 0 || usize == 0, why, PQ_ECORRUPT,
				 "block %u at byte %zu: empty chunk inside a %u-byte block", block, pos,
				 usize);
			bprod += (size_t)r;
			pos += csize;
		} while (bprod < usize);
		produced += usize;
	}
	PQ_CHECK(produced == out_len, why, PQ_ECORRUPT, "blocks hold %zu bytes, page header says %zu",
		 produced, out_len);
	return PQ_OK;
}

/* One or more LZ4 frames (lz4frame.h), decoded with output bounded by out_len. */
static pq_status frame_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			      pq_error *why)
{
	LZ4F_dctx *d = NULL;
	if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
		return pq_fail(why, PQ_ENOMEM, "cannot create a frame decoder");
	uint8_t spill[64]; /* output past out_len lands here, and is an error */
	size_t pos = 0, produced = 0, hint = 1;
	pq_status st = PQ_OK;
	while (pos < in_len) {
		bool full = produced == out_len;
		size_t dst_size = full ? sizeof spill : out_len - produced;
		size_t src_size = in_len - pos;
		hint = LZ4F_decompress(d, full ? spill : out + produced, &dst_size, in + pos,
				       &src_size, NULL);
		if (LZ4F_isError(hint)) {
			st = pq_fail(why, PQ_ECORRUPT, "byte %zu: %s", pos, LZ4F_getErrorName(hint));
			break;
		}
		if (full && dst_size) {
			st = pq_fail(why, PQ_ECORRUPT, "frame decompresses to more than %zu bytes",
				     out_len);
			break;
		}
		if (!src_size && !dst_size) {
			st = pq_fail(why, PQ_ECORRUPT, "byte %zu: decoder made no progress", pos);
			break;
		}
		pos += src_size;
		if (!full)
			produced += dst_size;
	}
	LZ4F_freeDecompressionContext(d);
	if (st != PQ_OK)
		return st;
	PQ_CHECK(hint == 0, why, PQ_ECORRUPT, "input ends inside a frame (truncated)");
	PQ_CHECK(produced == out_len, why, PQ_ECORRUPT, "frames hold %zu bytes, page header says %zu",
		 produced, out_len);
	return PQ_OK;
}

static bool raw_decode(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
	/* A block that would need more room than out_len fails (r < 0). */
	int r = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_len, (int)out_len);
	return r >= 0 && (size_t)r == out_len;
}

pq_status pq_lz4_hadoop_decompress(const uint8_t *in, size_t in_len, uint8_t *out,
				   size_t out_len, pq_error *err)
{
	pq_error hadoop, frame;
	pq_error_clear(&frame);
	if (hadoop_decode(in, in_len, out, out_len, &hadoop) == PQ_OK)
		return PQ_OK;
	static const uint8_t magic[4] = {0x04, 0x22, 0x4D, 0x18}; /* LZ4F_MAGICNUMBER, LE */
	if (in_len >= 4 && memcmp(in, magic, 4) == 0) {
		pq_status st = frame_decode(in, in_len, out, out_len, &frame);
		if (st == PQ_OK || st == PQ_ENOMEM)
			return st == PQ_OK ? PQ_OK : pq_fail(err, st, "LZ4: %s", frame.msg);
	}
	if (raw_decode(in, in_len, out, out_len))
		return PQ_OK;
	if (frame.msg[0])
		return pq_fail(err, PQ_ECORRUPT,
			       "LZ4: not Hadoop-framed (%s), a bad LZ4 frame (%s), and not a raw "
			       "LZ4 block of %zu bytes",
			       hadoop.msg, frame.msg, out_len);
	return pq_fail(err, PQ_ECORRUPT,
		       "LZ4: not Hadoop-framed (%s), not an LZ4 frame, and not a raw LZ4 block of "
		       "%zu bytes",
		       hadoop.msg, out_len);
}

pq_status pq_lz4_raw_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
				pq_error *err)
{
	PQ_CHECK(raw_decode(in, in_len, out, out_len), err, PQ_ECORRUPT,
		 "LZ4_RAW: %zu-byte block is corrupt or does not decompress to the page header's "
		 "%zu bytes",
		 in_len, out_len);
	return PQ_OK;
}

/* Compresses one raw block into dst (room for LZ4_compressBound(n));
 * returns its size, 0 on failure. */
static int raw_block(int level, const uint8_t *src, int n, uint8_t *dst, int cap)
{
	if (level == 0)
		return LZ4_compress_default((const char *)src, (char *)dst, n, cap);
	return LZ4_compress_HC((const char *)src, (char *)dst, n, cap, level);
}

static pq_status check_level(const char *name, int level, pq_error *err)
{
	PQ_CHECK(level >= 0 && level <= LZ4HC_CLEVEL_MAX, err, PQ_EINVAL,
		 "%s: compression level %d outside 1..%d", name, level, LZ4HC_CLEVEL_MAX);
	return PQ_OK;
}

pq_status pq_lz4_raw_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			      pq_error *err)
{
	PQ_TRY(check_level("LZ4_RAW", level, err));
	PQ_CHECK(in_len <= LZ4_MAX_INPUT_SIZE, err, PQ_ELIMIT,
		 "LZ4_RAW: %zu bytes exceed LZ4's block limit of %d", in_len, LZ4_MAX_INPUT_SIZE);
	int bound = LZ4_compressBound((int)in_len);
	if (!pq_buf_grow(out, (size_t)bound))
		return pq_fail(err, PQ_ENOMEM, "LZ4_RAW: out of memory for %d bytes", bound);
	int n = raw_block(level, in, (int)in_len, out->p + out->len, bound);
	PQ_CHECK(n > 0, err, PQ_EINVAL, "LZ4_RAW: compressing %zu bytes failed", in_len);
	out->len += (size_t)n;
	return PQ_OK;
}

pq_status pq_lz4_hadoop_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
				 pq_error *err)
{
	PQ_TRY(check_level("LZ4", level, err));
	size_t pos = 0;
	/* One block even for empty input, so readers see a well-formed page. */
	do {
		size_t n = in_len - pos < HADOOP_BLOCK ? in_len - pos : HADOOP_BLOCK;
		int bound = LZ4_compressBound((int)n);
		if (!pq_buf_grow(out, 8 + (size_t)bound))
			return pq_fail(err, PQ_ENOMEM, "LZ4: out of memory for %d bytes", bound);
		uint8_t *hdr = out->p + out->len;
		int c = raw_block(level, in + pos, (int)n, hdr + 8, bound);
		PQ_CHECK(c > 0, err, PQ_EINVAL, "LZ4: compressing block at byte %zu failed", pos);
		put_be32(hdr, (uint32_t)n);
		put_be32(hdr + 4, (uint32_t)c);
		out->len += 8 + (size_t)c;
		pos += n;
	} while (pos < in_len);
	return PQ_OK;
}
