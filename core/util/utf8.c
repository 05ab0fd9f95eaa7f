/* The UTF-8 validator (pq_utf8.h): one sequence, and a whole buffer. */
#include "config.h"

#include "pq_utf8.h"

#include <string.h>

size_t pq_utf8_seq(const uint8_t *p, size_t n, size_t *bad)
{
	uint8_t c = p[0], lo = 0x80, hi = 0xBF;
	size_t need;
	if (c >= 0xC2 && c <= 0xDF) {
		need = 1;
	} else if (c >= 0xE0 && c <= 0xEF) {
		need = 2;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		need = 3;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* above U+10FFFF */
	} else {
		*bad = 1;
		return 0;
	}
	for (size_t i = 1; i <= need; i++) {
		if (i >= n || p[i] < lo || p[i] > hi) {
			*bad = i;
			return 0;
		}
		lo = 0x80;
		hi = 0xBF;
	}
	return need + 1;
}

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
