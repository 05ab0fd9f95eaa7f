/* A remote object (an S3 key, an HTTP URL) as a pq_source: preads become
 * range GETs carrying If-Match, so a read never mixes two versions.
 *
 * Few requests: the footer comes from one speculative read of the tail
 * (PFS_REMOTE_TAIL bytes, when the size is known) kept for the source's
 * life; a reader that goes on where its last read ended gets a readahead
 * window that doubles up to PFS_REMOTE_RA_MAX, taken from one budget
 * shared by every source of the mount (pfs_ra_budget). Other reads fetch
 * exactly their range (core asks for whole pages and page windows, so a
 * view's reads are already as large as they can usefully be) and keep it
 * in the same cache. */
#ifndef PFS_REMOTE_FILE_H
#define PFS_REMOTE_FILE_H

#include <pthread.h>
#include <stdint.h>

#include "pq_budget.h"
#include "pq_io.h"
#include "remote_http.h"

#define PFS_REMOTE_TAIL ((uint64_t)256 << 10)
#define PFS_REMOTE_RA_MIN ((uint64_t)256 << 10)
#define PFS_REMOTE_RA_MAX ((uint64_t)8 << 20)
/* A read at most this far past held bytes continues them (object_store's
 * coalescing distance). */
#define PFS_REMOTE_GAP ((uint64_t)1 << 20)

/* Fetched bytes of a mount's remote sources: readahead windows and the
 * ranges of other reads, kept in one LRU of at most limit bytes, so a
 * range is not fetched twice while it is held, and memory stays bounded
 * however many readers there are (a reader whose window does not fit
 * pushes out the least recently used bytes of any source). */
struct pfs_rblock;
typedef struct pfs_ra_budget {
	pthread_mutex_t lock;
	uint64_t used, limit;
	/* Past limit, bytes are kept while the mount's memory budget has
	 * spare room, up to half of it (pfs_ra_budget_lend): lent is what is
	 * charged to mem, always used - limit (or 0); its reclaim hook takes
	 * it back. */
	pq_budget *mem;
	uint64_t lent;
	struct pfs_rblock *head, *tail; /* most recently used first */
	pthread_cond_t landed;          /* a fetch in flight finished */
	struct pfs_disk *disk;          /* -o cache_dir, or NULL */
	int prefetching;                /* background window fetches running */
} pfs_ra_budget;

/* An empty cache of limit bytes; pfs_ra_budget_destroy after every source
 * over it is closed. */
void pfs_ra_budget_init(pfs_ra_budget *b, uint64_t limit);
void pfs_ra_budget_destroy(pfs_ra_budget *b);
/* From now on, bytes past the limit are kept too while mem has room for
 * them as things stand (pq_budget_try_charge_spare: never at the cost of
 * what is in use), up to half of mem's limit (the daemon's RSS stays
 * within cache_size + 128 MB with 8 readers), so a file read twice in a
 * row (the size pass, then the render) is fetched about once when
 * cache_size allows. */
void pfs_ra_budget_lend(pfs_ra_budget *b, pq_budget *mem);
/* mem's reclaim hook: drops the least recently used bytes kept past the
 * limit, up to need; returns how many bytes it gave back to mem. Never
 * waits (a busy cache gives nothing this time). */
uint64_t pfs_ra_budget_reclaim(pfs_ra_budget *b, uint64_t need);
/* Waits for the background fetches (before the HTTP client goes). */
void pfs_ra_budget_quiesce(pfs_ra_budget *b);

/* The object at url (escaped; name is for messages), of size bytes with
 * ETag etag (NULL or "" when the server sent none: reads then carry no
 * If-Match). The tail is read here. */
pq_status pfs_remote_open(pfs_http *h, pfs_ra_budget *b, const char *url, const char *name,
			  uint64_t size, const char *etag, pq_source **out, pq_error *err);

/* The identity of such an object: its size, a hash of its URL (an nginx
 * ETag is only mtime and size: two files must not share size-index
 * entries) and its ETag. */
void pfs_remote_identity(const char *url, uint64_t size, const char *etag, pq_identity *id);

/* A response status other than 2xx as a status and message naming name:
 * 403 -> PQ_EKEY (EACCES), the rest PQ_EIO; S3's error Code when the body
 * has one. */
pq_status pfs_remote_fail(const pfs_http_resp *r, const char *name, const char *what,
			  pq_error *err);

/* The window after a sequential read of `last` bytes (PFS_REMOTE_RA_MIN
 * at first, doubling, at most PFS_REMOTE_RA_MAX), for tests. */
uint64_t pfs_remote_next_window(uint64_t last);

#endif
