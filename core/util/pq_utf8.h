/* UTF-8 well-formedness (Unicode 15, 3.9 Table 3-7: no overlongs, no
 * surrogates, nothing above U+10FFFF): the one validator of core/, used by
 * text rendering (U+FFFD replacement, the binary rule) and by the CSV
 * conversion (STRING and JSON values, column names, messages). */
#ifndef PQ_UTF8_H
#define PQ_UTF8_H
#ifndef PQ_CORE_BUILD
#error "pq_utf8.h is private to core/: outside it, use core/include"
#endif

#include <stddef.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at p (n >= 1 bytes, p[0] >=
 * 0x80: callers handle ASCII themselves, in their own loops), or 0 with
 * *bad set to the length of its maximal subpart: the longest prefix that
 * could start a well-formed sequence, at least 1 ("U+FFFD Substitution of
 * Maximal Subparts"). Overlongs, surrogates and code points above U+10FFFF
 * are rejected by the ranges of the second byte. Not inline on purpose:
 * inlined into the render loop it slows its ASCII path (register pressure;
 * callgrind: +30 % instructions for ASCII text). */
size_t pq_utf8_seq(const uint8_t *p, size_t n, size_t *bad);

/* Offset of the first invalid UTF-8 sequence, or n when p[0..n) is valid
 * (p may be NULL when n is 0). ASCII runs are skipped 8 bytes at a time. */
size_t pq_utf8_first_invalid(const uint8_t *p, size_t n);

#endif
