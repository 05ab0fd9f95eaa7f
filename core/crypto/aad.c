/* Module AADs (Encryption.md 4.4): the file AAD (aad_prefix, then
 * aad_file_unique) followed by a suffix naming the module, so that a
 * module moved to another place in the file, or into another file, no
 * longer authenticates. */
#include "config.h"

#include "pq_crypto.h"

#include <string.h>

static void put_le16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

pq_status pq_aad_build(const uint8_t *file_aad, size_t file_aad_len, pq_module_type type,
		       uint32_t rg, uint32_t col, uint32_t page, uint8_t *out, size_t *out_len,
		       pq_error *err)
{
	*out_len = 0;
	PQ_CHECK(type >= PQ_MOD_FOOTER && type <= PQ_MOD_BLOOM_BITSET, err, PQ_EINVAL,
		 "module type %d is not defined", (int)type);
	if (file_aad_len)
		memcpy(out, file_aad, file_aad_len);
	size_t n = file_aad_len;
	out[n++] = (uint8_t)type;
	if (type == PQ_MOD_FOOTER) {
		*out_len = n;
		return PQ_OK;
	}
	/* The ordinals are 2-byte shorts: files with more row groups, columns
	 * or pages than that cannot be encrypted, nor read. */
	PQ_CHECK(rg <= INT16_MAX, err, PQ_ELIMIT,
		 "row group %u: encrypted files hold at most %d row groups", rg, INT16_MAX + 1);
	PQ_CHECK(col <= INT16_MAX, err, PQ_ELIMIT,
		 "column %u: encrypted files hold at most %d columns", col, INT16_MAX + 1);
	put_le16(out + n, rg);
	put_le16(out + n + 2, col);
	n += 4;
	if (type == PQ_MOD_DATA_PAGE || type == PQ_MOD_DATA_PAGE_HEADER) {
		PQ_CHECK(page <= INT16_MAX, err, PQ_ELIMIT,
			 "page %u: encrypted column chunks hold at most %d data pages", page,
			 INT16_MAX + 1);
		put_le16(out + n, page);
		n += 2;
	}
	*out_len = n;
	return PQ_OK;
}
