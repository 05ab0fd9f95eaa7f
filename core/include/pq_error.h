/* Status codes and error messages that travel with them.
 *
 * Every core function that can fail returns a pq_status and, on failure,
 * leaves a one-line message in the caller's pq_error saying what is wrong
 * and where ("row group 0, column a.b, page 3 at offset 1234: ...").
 * Conversion to errno values happens only at the FUSE boundary. */
#ifndef PQ_ERROR_H
#define PQ_ERROR_H

#include <stddef.h>

typedef enum pq_status {
	PQ_OK = 0,
	PQ_ENOMEM = 1,       /* allocation failed */
	PQ_EIO = 2,          /* the operating system failed a read or write */
	PQ_ECORRUPT = 3,     /* the bytes do not follow the Parquet format */
	PQ_EUNSUPPORTED = 4, /* valid, but a feature parquetfs does not implement */
	PQ_ECHECKSUM = 5,    /* a page CRC does not match */
	PQ_EKEY = 6,         /* a decryption key is missing */
	PQ_EAUTH = 7,        /* authenticated decryption failed (tampered or wrong key) */
	PQ_ELIMIT = 8,       /* a safety bound (size, count, depth) was exceeded */
	PQ_EINVAL = 9,       /* bad argument or bad input to a writer */
	/* the memory this process may use (its budget, pq_budget.h) cannot
	 * hold what the work needs, now or ever: a lack of resources, never a
	 * fault of the data */
	PQ_EBUDGET = 10
} pq_status;

#define PQ_ERROR_MSG_MAX 512

typedef struct pq_error {
	pq_status status;
	char msg[PQ_ERROR_MSG_MAX];
} pq_error;

#if defined(__GNUC__)
#define PQ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PQ_PRINTF(a, b)
#endif

/* Records status and message in err (err may be NULL); returns status. */
pq_status pq_fail(pq_error *err, pq_status status, const char *fmt, ...) PQ_PRINTF(3, 4);
/* Prefixes the message with context ("column x: "); returns err->status. */
pq_status pq_context(pq_error *err, const char *fmt, ...) PQ_PRINTF(2, 3);
void pq_error_clear(pq_error *err);
const char *pq_status_name(pq_status status);
/* Positive errno value for a status (EIO, ENOMEM, EACCES, ...). */
int pq_status_errno(pq_status status);

/* Return on failure, keeping the callee's message. */
#define PQ_TRY(expr)                                \
	do {                                        \
		pq_status pq_try_st_ = (expr);      \
		if (pq_try_st_ != PQ_OK)            \
			return pq_try_st_;          \
	} while (0)

/* Fail with a message when a condition does not hold. */
#define PQ_CHECK(cond, err, status, ...)                              \
	do {                                                          \
		if (!(cond))                                          \
			return pq_fail((err), (status), __VA_ARGS__); \
	} while (0)

#endif
