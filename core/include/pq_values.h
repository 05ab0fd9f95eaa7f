/* Decoded values of one physical type, in typed arrays (batch decoding). */
#ifndef PQ_VALUES_H
#define PQ_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "pq_bytes.h"
#include "pq_metadata.h" /* enum pq_type */

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

/* Bytes one value takes in a pq_values array of a physical type: BOOLEAN
 * 1, INT32/FLOAT 4, INT64/DOUBLE 8, INT96 12, FIXED_LEN_BYTE_ARRAY its
 * length; 0 for BYTE_ARRAY (views), an unknown type or a length <= 0. */
static inline size_t pq_value_width(int32_t type, int32_t type_length)
{
	switch (type) {
	case PQ_BOOLEAN: return 1;
	case PQ_INT32: case PQ_FLOAT: return 4;
	case PQ_INT64: case PQ_DOUBLE: return 8;
	case PQ_INT96: return 12;
	case PQ_FIXED_LEN_BYTE_ARRAY: return type_length > 0 ? (size_t)type_length : 0;
	default: return 0; /* BYTE_ARRAY, unknown */
	}
}

#endif
