/* Finding and decoding the footer of a Parquet file.
 *
 * A file is  "PAR1" data... FileMetaData len(4, little-endian) "PAR1";
 * with an encrypted footer both magics are "PARE" and the footer holds a
 * FileCryptoMetaData followed by the encrypted FileMetaData. */
#ifndef PQ_FOOTER_H
#define PQ_FOOTER_H
#ifndef PQ_CORE_BUILD
#error "pq_footer.h is private to core/: outside it, use core/include"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_arena.h"
#include "pq_error.h"
#include "pq_metadata.h"

/* Named limit: the footer is read into memory in one piece. */
#define PQ_FOOTER_MAX_LEN (256u << 20)

/* Leading magic + footer length + trailing magic. */
#define PQ_FOOTER_MIN_FILE 12

typedef struct pq_footer_loc {
	uint64_t offset;  /* file offset of the footer bytes */
	uint32_t length;  /* their length */
	bool encrypted;   /* "PARE": encrypted footer, needs the footer key */
} pq_footer_loc;

/* Checks the magic at both ends and the footer length, given the first 4
 * and the last 8 bytes of a file of file_size bytes. PQ_OK for a plaintext
 * ("PAR1") and for an encrypted ("PARE") footer: loc->encrypted tells.
 * PQ_ECORRUPT with a message a person can act on otherwise ("not a Parquet
 * file: magic at end is 'abcd', expected PAR1"; "the file is truncated or
 * still being written: ..." when it starts with a magic but does not end
 * with one; "footer length 123456 exceeds file size 1000"); PQ_ELIMIT
 * past PQ_FOOTER_MAX_LEN. */
pq_status pq_footer_locate(const uint8_t head[4], const uint8_t tail[8], uint64_t file_size,
			   pq_footer_loc *loc, pq_error *err);

/* Decodes the FileMetaData of a plaintext footer (the loc->length bytes
 * at loc->offset). *used receives the bytes the FileMetaData took: in a
 * plaintext-footer encrypted file the footer signature (28 bytes) follows
 * it. md points into footer, which must outlive it; lists go in arena.
 * An encrypted footer (loc->encrypted) fails with PQ_EUNSUPPORTED here:
 * it must be decrypted first. */
pq_status pq_footer_decode(const pq_footer_loc *loc, const uint8_t *footer, size_t len,
			   pq_file_meta_data *md, size_t *used, pq_arena *arena, pq_error *err);

#endif
