/* A borrowed byte range: zero-copy views into file buffers. */
#ifndef PQ_BYTES_H
#define PQ_BYTES_H

#include <stddef.h>
#include <stdint.h>

typedef struct pq_bytes {
	const uint8_t *p;
	size_t n;
} pq_bytes;

#endif
