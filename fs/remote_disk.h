/* The disk cache of remote bytes (-o cache_dir): remote_disk.c. */
#ifndef PFS_REMOTE_DISK_H
#define PFS_REMOTE_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_io.h"

#define PFS_DISK_BLOCK ((uint64_t)1 << 20)

typedef struct pfs_disk pfs_disk;

/* The cache in dir (made when missing) of at most limit bytes; NULL (and
 * a log line) when it cannot be used: the mount works without it. */
pfs_disk *pfs_disk_new(const char *dir, uint64_t limit);
void pfs_disk_free(pfs_disk *d);

/* len bytes of the object (id, size) at off into buf, when every block is
 * there and sound. off is block-aligned; len whole blocks or up to size. */
bool pfs_disk_read(pfs_disk *d, const pq_identity *id, uint64_t size, void *buf, uint64_t off,
		   uint64_t len);
/* Keeps the whole blocks of len fetched bytes at off. */
void pfs_disk_write(pfs_disk *d, const pq_identity *id, uint64_t size, const void *data,
		    uint64_t off, uint64_t len);

#endif
