#include "config.h"

/* Page CRC: standard CRC-32 (zlib's crc32), over the page body as stored. */

#include "pq_codec.h"

#include <zlib.h>

uint32_t pq_crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	/* zlib takes uInt lengths: feed larger buffers in pieces. */
	const size_t piece = (size_t)1 << 30;
	uLong c = crc;
	while (n > 0) {
		size_t k = n < piece ? n : piece;
		c = crc32(c, p, (uInt)k);
		p += k;
		n -= k;
	}
	return (uint32_t)c;
}

uint32_t pq_crc32(const uint8_t *p, size_t n)
{
	return pq_crc32_update(0, p, n);
}
