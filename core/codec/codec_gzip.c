#include "config.h"

/* GZIP: RFC 1952 members (zlib streams are accepted too, via zlib's header
 * auto-detection). A page may hold several concatenated members, as gzip
 * itself allows; all are decoded, back to back, into the one output. */

#define PQ_CODEC_INTERNAL
#include "codec_internal.h"

#include <limits.h>
#include <string.h>
#include <zlib.h>

/* windowBits for inflateInit2: 15-bit window, detect gzip or zlib header. */
#define GZIP_DETECT (15 + 32)
/* windowBits for deflateInit2: 15-bit window, write a gzip header. */
#define GZIP_WRITE (15 + 16)

pq_status pq_gzip_decompress(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len,
			     pq_error *err)
{
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	if (inflateInit2(&zs, GZIP_DETECT) != Z_OK)
		return pq_fail(err, PQ_ENOMEM, "GZIP: cannot initialise the inflater");
	/* in_len and out_len are <= INT32_MAX (codec.c), so they fit uInt. */
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)in_len;
	zs.next_out = out;
	zs.avail_out = (uInt)out_len;

	/* Once out is full, further output lands here: any byte that does
	 * means the data is longer than the page header says. */
	uint8_t spill[64];
	bool spilled = false;
	unsigned member = 1;
	pq_status st = PQ_OK;
	for (;;) {
		if (zs.avail_out == 0 && !spilled) {
			zs.next_out = spill;
			zs.avail_out = sizeof spill;
			spilled = true;
		}
		size_t at = in_len - zs.avail_in;
		int rc = inflate(&zs, Z_NO_FLUSH);
		if (spilled && zs.avail_out != sizeof spill) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "GZIP: member %u decompresses to more than the page header's %zu bytes",
				     member, out_len);
			break;
		}
		if (rc == Z_STREAM_END) {
			if (zs.avail_in == 0)
				break;
			/* Another member follows: start over on the rest. */
			member++;
			if (inflateReset(&zs) != Z_OK) {
				st = pq_fail(err, PQ_ECORRUPT, "GZIP: cannot reset for member %u",
					     member);
				break;
			}
			continue;
		}
		if (rc == Z_OK)
			continue;
		if (rc == Z_BUF_ERROR && zs.avail_in == 0) {
			st = pq_fail(err, PQ_ECORRUPT,
				     "GZIP: input ends inside member %u after %zu bytes (truncated)",
				     member, in_len);
			break;
		}
		if (rc == Z_MEM_ERROR) {
			st = pq_fail(err, PQ_ENOMEM, "GZIP: out of memory in member %u", member);
			break;
		}
		if (rc == Z_NEED_DICT) {
			st = pq_fail(err, PQ_EUNSUPPORTED,
				     "GZIP: member %u needs a preset dictionary", member);
			break;
		}
		st = pq_fail(err, PQ_ECORRUPT, "GZIP: member %u near byte %zu: %s", member, at,
			     zs.msg ? zs.msg : "corrupt deflate data");
		break;
	}
	size_t produced = spilled ? out_len : out_len - zs.avail_out;
	inflateEnd(&zs);
	if (st != PQ_OK)
		return st;
	PQ_CHECK(produced == out_len, err, PQ_ECORRUPT,
		 "GZIP: decompressed %zu bytes, page header says %zu", produced, out_len);
	return PQ_OK;
}

pq_status pq_gzip_compress(int level, const uint8_t *in, size_t in_len, pq_buf *out,
			   pq_error *err)
{
	PQ_CHECK(level >= 0 && level <= 9, err, PQ_EINVAL,
		 "GZIP: compression level %d outside 1..9", level);
	z_stream zs;
	memset(&zs, 0, sizeof zs);
	int rc = deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WRITE, 8,
			      Z_DEFAULT_STRATEGY);
	if (rc != Z_OK)
		return pq_fail(err, PQ_ENOMEM, "GZIP: cannot initialise the deflater");
	/* deflateBound includes the gzip header and trailer set up above. */
	uLong bound = deflateBound(&zs, (uLong)in_len);
	if (bound > UINT_MAX || !pq_buf_grow(out, (size_t)bound)) {
		deflateEnd(&zs);
		return pq_fail(err, PQ_ENOMEM, "GZIP: out of memory for %lu bytes", bound);
	}
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)in_len;
	zs.next_out = out->p + out->len;
	zs.avail_out = (uInt)bound;
	rc = deflate(&zs, Z_FINISH);
	size_t n = (size_t)bound - zs.avail_out;
	deflateEnd(&zs);
	PQ_CHECK(rc == Z_STREAM_END, err, PQ_EINVAL, "GZIP: compressing %zu bytes failed (%d)",
		 in_len, rc);
	out->len += n;
	return PQ_OK;
}
