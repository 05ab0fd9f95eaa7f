/* The UTF-8 validator of a whole buffer (pq_utf8.h). */
#include "config.h"

#include "pq_utf8.h"

#include <string.h>

size_t pq_utf8_first_invalid(const uint8_t *p, size_t n)
{
	size_t i = 0, bad;
	while (i < n) {
		/* ASCII runs dominate real data: skip them eight bytes at a time. */
		while (n - i >= 8) {
			uint64_t w;
			memcpy(&w, p + i, 8);
			if (w & 0x8080808080808080ull)
				break;
			i += 8;
		}
		while (i < n && p[i] < 0x80)
			i++;
		if (i == n)
			break;
		size_t len = pq_utf8_seq(p + i, n - i, &bad);
		if (!len)
			return i;
		i += len;
	}
	return n;
}
