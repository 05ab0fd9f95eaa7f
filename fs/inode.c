/* Stable inode numbers for the virtual tree.
 *
 * Every entry is named by a key (generation, kind, row group, column,
 * page, string id). The first time a key is seen it gets the next inode number;
 * the number stays with the key while mounted and is never handed to
 * another key, so the kernel's caches can trust it. Nodes live in blocks
 * that never move, so looking a node up by inode needs no lock. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pfs_internal.h"

#define BLOCK_BITS 12
#define BLOCK_SIZE ((size_t)1 << BLOCK_BITS)
#define MAX_BLOCKS ((size_t)1 << 18) /* 2^30 inodes */

struct pfs_inodes {
	pthread_mutex_t lock;
	pfs_node **buckets;
	size_t nbuckets;
	uint64_t count;                   /* nodes handed out; ino = index + 1 */
	_Atomic(pfs_node *) *blocks;      /* MAX_BLOCKS pointers */
};

uint64_t pfs_key_hash(const pfs_key *k)
{
	/* splitmix-style mixing of the six fields */
	uint64_t h = k->gen * 0x9e3779b97f4a7c15u;
	uint64_t parts[5] = {k->kind, k->rg, k->col, k->page, k->str};
	for (int i = 0; i < 5; i++) {
		h ^= parts[i] + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
		h *= 0xbf58476d1ce4e5b9u;
		h ^= h >> 31;
	}
	return h;
}

pfs_inodes *pfs_inodes_new(void)
{
	pfs_inodes *t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->nbuckets = 1024;
	t->buckets = calloc(t->nbuckets, sizeof *t->buckets);
	t->blocks = calloc(MAX_BLOCKS, sizeof *t->blocks);
	if (!t->buckets || !t->blocks) {
		free(t->buckets);
		free((void *)t->blocks);
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->lock, NULL);
	return t;
}

void pfs_inodes_free(pfs_inodes *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < MAX_BLOCKS; i++)
		free(atomic_load(&t->blocks[i]));
	free((void *)t->blocks);
	free(t->buckets);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

static void grow(pfs_inodes *t)
{
	size_t n = t->nbuckets * 2;
	pfs_node **b = calloc(n, sizeof *b);
	if (!b)
		return; /* keep the longer chains */
	for (size_t i = 0; i < t->nbuckets; i++) {
		pfs_node *e = t->buckets[i];
		while (e) {
			pfs_node *next = e->hnext;
			size_t j = pfs_key_hash(&e->key) & (n - 1);
			e->hnext = b[j];
			b[j] = e;
			e = next;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
}

static pfs_node *find_locked(pfs_inodes *t, const pfs_key *k)
{
	for (pfs_node *e = t->buckets[pfs_key_hash(k) & (t->nbuckets - 1)]; e; e = e->hnext)
		if (pfs_key_eq(&e->key, k))
			return e;
	return NULL;
}

pfs_node *pfs_inode_find(pfs_inodes *t, const pfs_key *k)
{
	pthread_mutex_lock(&t->lock);
	pfs_node *e = find_locked(t, k);
	pthread_mutex_unlock(&t->lock);
	return e;
}

pfs_node *pfs_inode_get(pfs_inodes *t, const pfs_key *k, pfs_src *src)
{
	pthread_mutex_lock(&t->lock);
	pfs_node *e = find_locked(t, k);
	if (e)
		goto out;
	uint64_t idx = t->count;
	size_t bi = (size_t)(idx >> BLOCK_BITS);
	if (bi >= MAX_BLOCKS)
		goto out;
	pfs_node *block = atomic_load(&t->blocks[bi]);
	if (!block) {
		block = calloc(BLOCK_SIZE, sizeof *block);
		if (!block)
			goto out;
		atomic_store(&t->blocks[bi], block);
	}
	e = &block[idx & (BLOCK_SIZE - 1)];
	e->ino = (fuse_ino_t)(idx + 1);
	e->key = *k;
	e->src = src;
	atomic_store(&e->size, PFS_SIZE_UNKNOWN);
	size_t h = pfs_key_hash(k) & (t->nbuckets - 1);
	e->hnext = t->buckets[h];
	t->buckets[h] = e;
	t->count++;
	if (t->count > t->nbuckets)
		grow(t);
out:
	pthread_mutex_unlock(&t->lock);
	return e;
}

pfs_node *pfs_inode_by_ino(pfs_inodes *t, fuse_ino_t ino)
{
	if (ino == 0)
		return NULL;
	uint64_t idx = (uint64_t)ino - 1;
	size_t bi = (size_t)(idx >> BLOCK_BITS);
	if (bi >= MAX_BLOCKS)
		return NULL;
	pfs_node *block = atomic_load(&t->blocks[bi]);
	if (!block)
		return NULL;
	pfs_node *e = &block[idx & (BLOCK_SIZE - 1)];
	return e->ino == ino ? e : NULL;
}
