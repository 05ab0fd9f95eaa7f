#include "config.h"

#include "pq_error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

pq_status pq_fail(pq_error *err, pq_status status, const char *fmt, ...)
{
	if (!err)
		return status;
	err->status = status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return status;
}

pq_status pq_context(pq_error *err, const char *fmt, ...)
{
	if (!err)
		return PQ_OK;
	char prefix[PQ_ERROR_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	/* Both parts may fill the message: the tail of a long one is cut. */
	char joined[2 * PQ_ERROR_MSG_MAX + 2];
	snprintf(joined, sizeof joined, "%s: %s", prefix, err->msg);
	memcpy(err->msg, joined, sizeof err->msg - 1);
	err->msg[sizeof err->msg - 1] = '\0';
	return err->status;
}

void pq_error_clear(pq_error *err)
{
	if (err) {
		err->status = PQ_OK;
		err->msg[0] = '\0';
	}
}

const char *pq_status_name(pq_status status)
{
	switch (status) {
	case PQ_OK: return "ok";
	case PQ_ENOMEM: return "out of memory";
	case PQ_EIO: return "I/O error";
	case PQ_ECORRUPT: return "corrupt file";
	case PQ_EUNSUPPORTED: return "unsupported feature";
	case PQ_ECHECKSUM: return "checksum mismatch";
	case PQ_EKEY: return "missing key";
	case PQ_EAUTH: return "authentication failed";
	case PQ_ELIMIT: return "limit exceeded";
	case PQ_EINVAL: return "invalid input";
	case PQ_EBUDGET: return "memory budget exceeded";
	}
	return "unknown error";
}

int pq_status_errno(pq_status status)
{
	switch (status) {
	case PQ_OK: return 0;
	case PQ_ENOMEM: return ENOMEM;
	case PQ_EKEY: return EACCES;
	case PQ_EINVAL: return EINVAL;
	default: return EIO;
	}
}
