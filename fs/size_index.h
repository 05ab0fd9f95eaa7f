/* The size index: the results of a file's size pass kept on disk, one
 * small file per Parquet file, so that a later mount knows every size
 * without a pass (doc/design.md, "The size pass"). A cache: a missing,
 * stale or damaged entry is ignored (and rewritten after the next pass);
 * a directory that cannot be written only costs the next mount a pass. */
#ifndef PFS_SIZE_INDEX_H
#define PFS_SIZE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_io.h"
#include "pq_sizes.h"

#define PFS_INDEX_VERSION 1u

/* What names an entry: everything the sizes depend on. */
typedef struct pfs_index_key {
	uint8_t hash[16];   /* XXH3-128 of the fields below */
	char name[40];      /* its file name in the index directory: hex of hash + ".sz" */
} pfs_index_key;

/* The key of a file: the identity of its bytes, its path under SOURCE and
 * the fingerprint of the keys that decrypt it (zeros: none). */
void pfs_index_key_make(const pq_identity *id, const char *rel, const uint8_t key_fp[16],
			pfs_index_key *out);

/* The sizes stored for key, when the entry exists and is sound for a file
 * of nrg row groups and ncol columns: 0; -ENOENT when there is none, -EINVAL
 * when it is damaged or stale (the caller runs a pass and rewrites it). */
int pfs_index_load(const char *dir, const pfs_index_key *key, uint32_t nrg, uint32_t ncol,
		   pq_file_sizes **out);
/* Writes the entry atomically (a temporary file renamed over it): 0, or
 * -errno (nothing is left behind). */
int pfs_index_store(const char *dir, const pfs_index_key *key, const pq_file_sizes *s);

#endif
