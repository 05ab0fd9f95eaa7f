/* pq_source over a file descriptor: pread(2), fstat(2) for the size and
 * the identity (device, inode, size, mtime), and the descriptor itself for
 * zero-copy replies. */
#include "config.h"

#include "pq_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct fd_source {
	int fd;
	bool own;
	struct stat st; /* at creation */
} fd_source;

/* What changes when a local file's bytes change. */
void pq_identity_of_stat(const struct stat *st, pq_identity *id)
{
	uint64_t v[5] = {(uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
			 (uint64_t)st->st_mtim.tv_sec, (uint64_t)st->st_mtim.tv_nsec};
	pq_identity_set(id, v, sizeof v);
}

static pq_status fd_pread(void *impl, void *buf, size_t len, uint64_t off, pq_error *err)
{
	const fd_source *s = impl;
	uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = pread(s->fd, p, len, (off_t)off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return pq_fail(err, PQ_EIO, "read at offset %llu failed: %s",
				       (unsigned long long)off, strerror(errno));
		}
		if (n == 0)
			return pq_fail(err, PQ_EIO, "file shrank: no bytes at offset %llu",
				       (unsigned long long)off);
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return PQ_OK;
}

static uint64_t fd_size(void *impl)
{
	const fd_source *s = impl;
	return s->st.st_size > 0 ? (uint64_t)s->st.st_size : 0;
}

static void fd_identity(void *impl, pq_identity *out)
{
	pq_identity_of_stat(&((const fd_source *)impl)->st, out);
}

static pq_status fd_current(void *impl, pq_identity *out, pq_error *err)
{
	const fd_source *s = impl;
	struct stat st;
	if (fstat(s->fd, &st) != 0)
		return pq_fail(err, PQ_EIO, "cannot stat the open file: %s", strerror(errno));
	pq_identity_of_stat(&st, out);
	return PQ_OK;
}

/* The kernel starts reading [off, off + len) into the page cache now, so
 * that reads of it, spliced into replies one after the other, do not wait
 * for the disk one readahead window at a time. */
static void fd_advise(void *impl, uint64_t off, uint64_t len)
{
	const fd_source *s = impl;
	if (off <= (uint64_t)INT64_MAX && len <= (uint64_t)INT64_MAX)
		(void)posix_fadvise(s->fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
}

static int fd_fd(void *impl)
{
	return ((const fd_source *)impl)->fd;
}

static void fd_close(void *impl)
{
	fd_source *s = impl;
	if (s->own)
		close(s->fd);
	free(s);
}

static const pq_source_ops fd_ops = {
	.pread = fd_pread,
	.size = fd_size,
	.identity = fd_identity,
	.current = fd_current,
	.advise = fd_advise,
	.fd = fd_fd,
	.close = fd_close,
};

pq_status pq_source_fd_new(int fd, bool take_ownership, pq_source **out, pq_error *err)
{
	*out = NULL;
	fd_source *s = calloc(1, sizeof *s);
	if (!s) {
		if (take_ownership)
			close(fd);
		return pq_fail(err, PQ_ENOMEM, "no memory for a source");
	}
	s->fd = fd;
	s->own = take_ownership;
	if (fstat(fd, &s->st) != 0) {
		pq_status st = pq_fail(err, PQ_EIO, "cannot stat: %s", strerror(errno));
		fd_close(s);
		return st;
	}
	return pq_source_new(&fd_ops, s, out, err);
}
