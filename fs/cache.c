/* A bounded LRU of decoded and rendered objects, shared by all threads.
 *
 * Entries are counted by the bytes their owners report. An entry that is
 * evicted while a reader holds it stays alive until released, so the
 * bound can be exceeded briefly by what readers are using at that moment.
 * A cache with a budget (the data pool) charges each entry to it while the
 * entry lives, and gives entries up when the budget needs room
 * (pfs_cache_shrink, memory.c).
 * One mutex guards the table: entries are looked up and linked, never
 * computed, under it. */
#include "config.h"

#include <stdlib.h>

#include "pfs_internal.h"

struct pfs_cobj {
	pfs_cache *owner;
	pfs_key key;
	void *obj;
	size_t bytes;
	size_t charged;        /* on owner->budget, released by destroy() */
	pfs_free_fn free_fn;
	int refs;              /* holders, +1 while in the table */
	bool in_table;
	struct pfs_cobj *hnext;
	struct pfs_cobj *prev, *next; /* LRU, most recent at head */
};

struct pfs_cache {
	pthread_mutex_t lock;
	pfs_cobj **buckets;
	size_t nbuckets, count;
	pfs_cobj *head, *tail;
	uint64_t bytes, max_bytes;
	pq_budget *budget;
};

pfs_cache *pfs_cache_new(uint64_t max_bytes)
{
	pfs_cache *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->nbuckets = 4096;
	c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
	if (!c->buckets) {
		free(c);
		return NULL;
	}
	c->max_bytes = max_bytes;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void pfs_cache_set_budget(pfs_cache *c, pq_budget *b)
{
	c->budget = b;
}

static void destroy(pfs_cobj *e)
{
	if (e->free_fn)
		e->free_fn(e->obj);
	pq_budget_release(e->owner->budget, e->charged);
	free(e);
}

void pfs_cache_free(pfs_cache *c)
{
	if (!c)
		return;
	for (pfs_cobj *e = c->head, *n; e; e = n) {
		n = e->next;
		destroy(e);
	}
	free(c->buckets);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static void lru_unlink(pfs_cache *c, pfs_cobj *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		c->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		c->tail = e->prev;
	e->prev = e->next = NULL;
}

static void lru_push(pfs_cache *c, pfs_cobj *e)
{
	e->prev = NULL;
	e->next = c->head;
	if (c->head)
		c->head->prev = e;
	c->head = e;
	if (!c->tail)
		c->tail = e;
}

/* Takes e out of the table; returns true when it must be destroyed now. */
static bool remove_locked(pfs_cache *c, pfs_cobj *e)
{
	pfs_cobj **pp = &c->buckets[pfs_key_hash(&e->key) & (c->nbuckets - 1)];
	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	lru_unlink(c, e);
	e->in_table = false;
	c->bytes -= e->bytes;
	c->count--;
	return --e->refs == 0;
}

/* Evicts from the cold end until within bounds; destroys outside the lock. */
static pfs_cobj *evict_locked(pfs_cache *c)
{
	pfs_cobj *dead = NULL;
	while (c->bytes > c->max_bytes && c->tail) {
		pfs_cobj *e = c->tail;
		if (remove_locked(c, e)) {
			e->hnext = dead;
			dead = e;
		}
	}
	return dead;
}

static void destroy_list(pfs_cobj *dead)
{
	while (dead) {
		pfs_cobj *n = dead->hnext;
		destroy(dead);
		dead = n;
	}
}

static pfs_cobj *find_locked(pfs_cache *c, const pfs_key *k)
{
	for (pfs_cobj *e = c->buckets[pfs_key_hash(k) & (c->nbuckets - 1)]; e; e = e->hnext)
		if (pfs_key_eq(&e->key, k))
			return e;
	return NULL;
}

pfs_cobj *pfs_cache_get(pfs_cache *c, const pfs_key *k)
{
	pthread_mutex_lock(&c->lock);
	pfs_cobj *e = find_locked(c, k);
	if (e) {
		e->refs++;
		lru_unlink(c, e);
		lru_push(c, e);
	}
	pthread_mutex_unlock(&c->lock);
	return e;
}

static void grow(pfs_cache *c)
{
	size_t n = c->nbuckets * 2;
	pfs_cobj **b = calloc(n, sizeof *b);
	if (!b)
		return;
	for (size_t i = 0; i < c->nbuckets; i++) {
		for (pfs_cobj *e = c->buckets[i], *next; e; e = next) {
			next = e->hnext;
			size_t j = pfs_key_hash(&e->key) & (n - 1);
			e->hnext = b[j];
			b[j] = e;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = n;
}

static pfs_cobj *put(pfs_cache *c, const pfs_key *k, void *obj, size_t bytes,
		     pfs_free_fn free_fn, bool charge)
{
	pfs_cobj *e = calloc(1, sizeof *e);
	if (!e) {
		if (free_fn)
			free_fn(obj);
		return NULL;
	}
	e->owner = c;
	e->key = *k;
	e->obj = obj;
	e->bytes = bytes + sizeof *e;
	e->free_fn = free_fn;
	e->refs = 2; /* the table and the caller */
	e->in_table = true;
	if (charge && c->budget) {
		/* the object exists already: counted, never refused (the cache's
		 * own bound and the reclaim keep the total near the budget) */
		e->charged = e->bytes;
		pq_budget_charge(c->budget, e->charged);
	}
	pthread_mutex_lock(&c->lock);
	pfs_cobj *old = find_locked(c, k);
	if (old) {
		old->refs++;
		pthread_mutex_unlock(&c->lock);
		destroy(e);
		return old;
	}
	size_t h = pfs_key_hash(k) & (c->nbuckets - 1);
	e->hnext = c->buckets[h];
	c->buckets[h] = e;
	lru_push(c, e);
	c->bytes += e->bytes;
	if (++c->count > c->nbuckets)
		grow(c);
	pfs_cobj *dead = evict_locked(c);
	pthread_mutex_unlock(&c->lock);
	destroy_list(dead);
	return e;
}

pfs_cobj *pfs_cache_put(pfs_cache *c, const pfs_key *k, void *obj, size_t bytes,
			pfs_free_fn free_fn)
{
	return put(c, k, obj, bytes, free_fn, true);
}

pfs_cobj *pfs_cache_put_counted(pfs_cache *c, const pfs_key *k, void *obj, size_t bytes,
				pfs_free_fn free_fn)
{
	return put(c, k, obj, bytes, free_fn, false);
}

uint64_t pfs_cache_shrink(pfs_cache *c, uint64_t need)
{
	uint64_t got = 0;
	pfs_cobj *dead = NULL;
	pthread_mutex_lock(&c->lock);
	while (got < need && c->tail) {
		pfs_cobj *e = c->tail;
		got += e->bytes;
		if (remove_locked(c, e)) {
			e->hnext = dead;
			dead = e;
		}
	}
	pthread_mutex_unlock(&c->lock);
	destroy_list(dead);
	return got;
}

void pfs_cache_release(pfs_cache *c, pfs_cobj *e)
{
	if (!e)
		return;
	c = e->owner; /* the pool the entry came from */
	pthread_mutex_lock(&c->lock);
	bool last = --e->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (last)
		destroy(e);
}

void pfs_cache_release_drop(pfs_cache *c, pfs_cobj *e)
{
	if (!e)
		return;
	c = e->owner;
	pthread_mutex_lock(&c->lock);
	if (e->in_table)
		remove_locked(c, e); /* the table's reference: never the last (ours) */
	bool last = --e->refs == 0;
	pthread_mutex_unlock(&c->lock);
	if (last)
		destroy(e);
}

void *pfs_cobj_obj(const pfs_cobj *e)
{
	return e->obj;
}

void pfs_cache_drop_gen(pfs_cache *c, uint64_t gen)
{
	pfs_cobj *dead = NULL;
	pthread_mutex_lock(&c->lock);
	for (pfs_cobj *e = c->head, *n; e; e = n) {
		n = e->next;
		if (e->key.gen == gen && remove_locked(c, e)) {
			e->hnext = dead;
			dead = e;
		}
	}
	pthread_mutex_unlock(&c->lock);
	destroy_list(dead);
}
