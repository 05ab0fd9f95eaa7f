/* DECIMAL(p, s): the unscaled two's complement integer written exactly,
 * with exactly s fractional digits (`-0.50`, `0.05`, `123`). Byte-array
 * decimals of any width up to PQ_DECIMAL_BYTES_MAX significant bytes are
 * converted to base 10^9 limbs, 32 input bits per step. */
#include "config.h"

#include "pq_render.h"

#include <string.h>

/* Places the point in the magnitude digits dig[0..n) and appends. */
static void put_scaled(bool neg, const char *dig, size_t n, int32_t scale, pq_buf *out)
{
	bool zero = n == 1 && dig[0] == '0';
	if (neg && !zero)
		pq_buf_putc(out, '-');
	if (scale > PQ_DECIMAL_SCALE_MAX || scale < -PQ_DECIMAL_SCALE_MAX) {
		/* Absurd scale (hostile file): exact, but in exponent form. */
		pq_buf_append(out, dig, n);
		pq_buf_printf(out, "e%ld", -(long)scale);
		return;
	}
	if (scale <= 0) {
		pq_buf_append(out, dig, n);
		if (!zero)
			for (int32_t i = 0; i < -scale; i++)
				pq_buf_putc(out, '0');
		return;
	}
	size_t s = (size_t)scale;
	if (n > s) {
		pq_buf_append(out, dig, n - s);
		pq_buf_putc(out, '.');
		pq_buf_append(out, dig + n - s, s);
		return;
	}
	pq_buf_append(out, "0.", 2);
	for (size_t i = n; i < s; i++)
		pq_buf_putc(out, '0');
	pq_buf_append(out, dig, n);
}

void pq_render_decimal_i64(int64_t unscaled, int32_t scale, pq_buf *out)
{
	bool neg = unscaled < 0;
	uint64_t mag = neg ? (uint64_t)0 - (uint64_t)unscaled : (uint64_t)unscaled;
	char dig[24];
	size_t n = pq_format_u64(mag, dig);
	put_scaled(neg, dig, n, scale, out);
}

#define LIMB_BASE 1000000000u
#define MAX_LIMBS (PQ_DECIMAL_BYTES_MAX * 8 / 29 + 2) /* 2^29 < 10^9 */

bool pq_render_decimal_be(const uint8_t *p, size_t n, int32_t scale, pq_buf *out)
{
	bool neg = n > 0 && (p[0] & 0x80);
	uint8_t ext = neg ? 0xFF : 0x00;
	/* Drop sign-extension bytes; keep one if the next byte's top bit
	 * would otherwise change the sign (irrelevant to the magnitude below,
	 * which is taken from the negated bytes). */
	size_t start = 0;
	while (start < n && p[start] == ext)
		start++;
	size_t len = n - start;
	if (len > PQ_DECIMAL_BYTES_MAX)
		return false;

	/* Magnitude bytes: for negatives, the two's complement negation of
	 * the full value restricted to the significant bytes plus the
	 * dropped 0xFF run; -x = ~x + 1. */
	uint8_t mag[PQ_DECIMAL_BYTES_MAX + 1];
	size_t m = len;
	if (neg) {
		/* One extra leading byte holds the carry out (e.g. 0x80 -> 128). */
		mag[0] = 0;
		for (size_t i = 0; i < len; i++)
			mag[i + 1] = (uint8_t)~p[start + i];
		for (size_t i = len + 1; i-- > 0;) {
			if (++mag[i] != 0)
				break;
		}
		m = len + 1;
	} else if (len) {
		memcpy(mag, p + start, len);
	}

	/* Big-endian bytes -> little-endian base-10^9 limbs. */
	uint32_t limb[MAX_LIMBS];
	size_t nl = 0;
	size_t i = 0;
	size_t head = m % 4;
	while (i < m) {
		size_t take = head ? head : 4;
		head = 0;
		uint64_t chunk = 0;
		for (size_t j = 0; j < take; j++)
			chunk = chunk << 8 | mag[i + j];
		i += take;
		int shift = (int)take * 8;
		/* limb < 10^9, so limb * 2^32 + carry < 2^62 + 2^33. */
		uint64_t carry = chunk;
		for (size_t k = 0; k < nl; k++) {
			uint64_t t = ((uint64_t)limb[k] << shift) + carry;
			limb[k] = (uint32_t)(t % LIMB_BASE);
			carry = t / LIMB_BASE;
		}
		while (carry) {
			limb[nl++] = (uint32_t)(carry % LIMB_BASE);
			carry /= LIMB_BASE;
		}
	}

	char dig[MAX_LIMBS * 9 + 1];
	size_t nd = 0;
	if (nl == 0) {
		dig[nd++] = '0';
	} else {
		char tmp[24];
		size_t t = pq_format_u64(limb[nl - 1], tmp);
		memcpy(dig, tmp, t);
		nd = t;
		for (size_t k = nl - 1; k-- > 0;) {
			uint32_t v = limb[k];
			for (int j = 8; j >= 0; j--) {
				dig[nd + (size_t)j] = (char)('0' + v % 10);
				v /= 10;
			}
			nd += 9;
		}
	}
	put_scaled(neg, dig, nd, scale, out);
	return true;
}
