/* Pages met before in one size pass (verify_internal.h): row groups whose
 * chunks differ but point at the same pages (the "42.parquet" shape) have
 * each distinct page decoded and measured once. A page is known by its
 * column, the file offsets of its header and of its chunk's dictionary
 * page (its values depend on both); what the walk found and what the
 * caller measured are kept, a few dozen bytes a page. (And by the codec
 * of the chunk: the same bytes could be claimed by chunks of two codecs.) */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "verify_internal.h"

typedef struct slot {
	bool used;
	pq_page_memo_key key;
	pq_page_memo_entry e;
} slot;

struct pq_page_memo {
	pthread_mutex_t mu;
	slot *slots;
	size_t cap, n;
	uint64_t max; /* entries kept at most (memory bound); more are not kept */
};

pq_page_memo *pq_page_memo_new(uint64_t max_entries)
{
	pq_page_memo *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	pthread_mutex_init(&m->mu, NULL);
	m->max = max_entries;
	return m;
}

void pq_page_memo_free(pq_page_memo *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->mu);
	free(m->slots);
	free(m);
}

static uint64_t hash(const pq_page_memo_key *k)
{
	uint64_t h = 1469598103934665603ull;
	const uint64_t parts[3] = {k->header_offset, k->dict_offset, k->col};
	for (int i = 0; i < 3; i++) {
		h ^= parts[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

static bool same(const pq_page_memo_key *a, const pq_page_memo_key *b)
{
	return a->header_offset == b->header_offset && a->dict_offset == b->dict_offset &&
	       a->col == b->col;
}

/* The slot of k, or the free slot where it would go (cap > n). */
static slot *find(pq_page_memo *m, const pq_page_memo_key *k)
{
	for (size_t i = hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
		if (!m->slots[i].used || same(&m->slots[i].key, k))
			return &m->slots[i];
}

bool pq_page_memo_get(pq_page_memo *m, const pq_page_memo_key *k, pq_page_memo_entry *out)
{
	pthread_mutex_lock(&m->mu);
	slot *s = m->cap ? find(m, k) : NULL;
	bool hit = s && s->used;
	if (hit)
		*out = s->e;
	pthread_mutex_unlock(&m->mu);
	return hit;
}

static bool grow(pq_page_memo *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	slot *old = m->slots, *neu = calloc(cap, sizeof *neu);
	if (!neu)
		return false;
	size_t oldcap = m->cap;
	m->slots = neu;
	m->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*find(m, &old[i].key) = old[i];
	free(old);
	return true;
}

void pq_page_memo_put(pq_page_memo *m, const pq_page_memo_key *k, const pq_page_memo_entry *e)
{
	pthread_mutex_lock(&m->mu);
	if (m->n < m->max && ((m->n + 1) * 2 <= m->cap || grow(m))) {
		slot *s = find(m, k);
		if (!s->used) { /* a page two threads measured at once: kept once */
			s->used = true;
			s->key = *k;
			s->e = *e;
			m->n++;
		}
	}
	pthread_mutex_unlock(&m->mu);
}

uint64_t pq_page_memo_count(pq_page_memo *m)
{
	pthread_mutex_lock(&m->mu);
	uint64_t n = m->n;
	pthread_mutex_unlock(&m->mu);
	return n;
}
