#include "config.h"

#include "pq_footer.h"

#include <stdio.h>
#include <string.h>

/* 'PAR1', or the bytes escaped when they are not printable. */
static void show_magic(const uint8_t m[4], char out[20])
{
	size_t k = 0;
	for (int i = 0; i < 4; i++) {
		if (m[i] >= 0x20 && m[i] < 0x7f && m[i] != '\'' && m[i] != '\\')
			out[k++] = (char)m[i];
		else
			k += (size_t)snprintf(out + k, 5, "\\x%02x", m[i]);
	}
	out[k] = '\0';
}

pq_status pq_footer_locate(const uint8_t head[4], const uint8_t tail[8], uint64_t file_size,
			   pq_footer_loc *loc, pq_error *err)
{
	memset(loc, 0, sizeof *loc);
	if (file_size < PQ_FOOTER_MIN_FILE)
		return pq_fail(err, PQ_ECORRUPT,
			       "not a Parquet file: %llu bytes is too short (magic, footer length "
			       "and magic take %d)", (unsigned long long)file_size,
			       PQ_FOOTER_MIN_FILE);
	char shown[20];
	const uint8_t *end_magic = tail + 4;
	bool encrypted;
	if (memcmp(end_magic, "PAR1", 4) == 0) {
		encrypted = false;
	} else if (memcmp(end_magic, "PARE", 4) == 0) {
		encrypted = true;
	} else {
		show_magic(end_magic, shown);
		/* A Parquet file's footer is written last: one that starts
		 * right but does not end right was cut short or is still
		 * being written, which is what its reader needs to hear. */
		if (memcmp(head, "PAR1", 4) == 0 || memcmp(head, "PARE", 4) == 0)
			return pq_fail(err, PQ_ECORRUPT,
				       "the file is truncated or still being written: it starts "
				       "with %.4s but ends with '%s', not the footer's %.4s",
				       (const char *)head, shown, (const char *)head);
		return pq_fail(err, PQ_ECORRUPT,
			       "not a Parquet file: magic at end is '%s', expected PAR1", shown);
	}
	if (memcmp(head, end_magic, 4) != 0) {
		show_magic(head, shown);
		return pq_fail(err, PQ_ECORRUPT, "not a Parquet file: magic at start is '%s', "
			       "expected %.4s like the end", shown, (const char *)end_magic);
	}
	uint32_t len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
		       (uint32_t)tail[3] << 24;
	if (len == 0)
		return pq_fail(err, PQ_ECORRUPT, "footer length is 0: the file has no metadata");
	if (len > file_size - PQ_FOOTER_MIN_FILE)
		return pq_fail(err, PQ_ECORRUPT, "footer length %u exceeds file size %llu "
			       "(at most %llu bytes fit between the magics)", len,
			       (unsigned long long)file_size,
			       (unsigned long long)(file_size - PQ_FOOTER_MIN_FILE));
	if (len > PQ_FOOTER_MAX_LEN)
		return pq_fail(err, PQ_ELIMIT, "footer length %u exceeds the limit of %u bytes",
			       len, PQ_FOOTER_MAX_LEN);
	loc->offset = file_size - 8 - len;
	loc->length = len;
	loc->encrypted = encrypted;
	return PQ_OK;
}

pq_status pq_footer_decode(const pq_footer_loc *loc, const uint8_t *footer, size_t len,
			   pq_file_meta_data *md, size_t *used, pq_arena *arena, pq_error *err)
{
	if (used)
		*used = 0;
	if (loc->encrypted)
		return pq_fail(err, PQ_EUNSUPPORTED,
			       "encrypted footer (PARE): it must be decrypted with the footer key "
			       "before it can be read");
	if (len != loc->length)
		return pq_fail(err, PQ_EINVAL, "footer: got %zu bytes, expected %u", len, loc->length);
	pq_status st = pq_thrift_decode(PQ_S_FILE_META_DATA, footer, len, md, used, arena, err);
	if (st != PQ_OK)
		return pq_context(err, "footer at offset %llu (%u bytes)",
				  (unsigned long long)loc->offset, loc->length);
	return PQ_OK;
}
