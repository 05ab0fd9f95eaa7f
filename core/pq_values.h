/* Decoded values of one physical type, in typed arrays (batch decoding). */
#ifndef PQ_VALUES_H
#define PQ_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "pq_bytes.h"

typedef struct pq_values {
	int32_t type;        /* enum pq_type */
	int32_t type_length; /* FIXED_LEN_BYTE_ARRAY width; 12 for INT96 */
	size_t n;            /* number of (non-null) values */
	union {
		uint8_t *b;      /* BOOLEAN: one byte per value, 0 or 1 */
		int32_t *i32;
		int64_t *i64;
		float *f32;
		double *f64;
		uint8_t *fixed;  /* INT96 and FIXED_LEN_BYTE_ARRAY: n * type_length bytes */
		pq_bytes *ba;    /* BYTE_ARRAY: views into page or dictionary buffers */
		void *any;
	} v;
} pq_values;

#endif
