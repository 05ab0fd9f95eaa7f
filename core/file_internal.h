/* Private to core/: the insides of pq_file and pq_page_data helpers. */
#ifndef PQ_FILE_INTERNAL_H
#define PQ_FILE_INTERNAL_H

#ifndef PQ_CORE_INTERNAL
#error "file_internal.h is private to core/"
#endif

#include "pq_file.h"
#include "pq_schema.h"

/* Bounds on what a file may make us allocate. */
#define PQ_MAX_FOOTER_BYTES (512u << 20)
#define PQ_MAX_PAGE_BYTES ((size_t)1 << 30)
#define PQ_MAX_PAGE_HEADER_BYTES (64u << 20)
#define PQ_MAX_PAGE_SLOTS (16u << 20)

struct pq_file {
	int fd;
	uint64_t size;
	char *name;
	uint8_t *footer; /* serialized FileMetaData (decrypted) */
	size_t footer_len;
	pq_arena arena;  /* decoded metadata */
	pq_file_meta_data md;
	pq_schema *schema;
	uint32_t num_columns;
};

/* Reads a column's decoded chunk metadata or fails with a message. */
pq_status pq_file_chunk_meta_checked(const pq_file *f, uint32_t rg, uint32_t col,
				     const pq_column_meta_data **out, pq_error *err);
/* A statistics or page-index bound rendered with the column's type,
 * values.txt-escaped; hex when the bytes do not fit the type. */
void pq_text_bound(pq_buf *out, const pq_leaf *leaf, pq_bytes b);
/* "row group 1, column a.b" for messages. */
void pq_file_where(const pq_file *f, uint32_t rg, uint32_t col, char *buf, size_t len);

#endif
