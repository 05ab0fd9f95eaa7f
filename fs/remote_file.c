/* A remote object as a pq_source (remote_file.h). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>

#include "interrupt.h"
#include "loop.h"
#include "pq_bigbuf.h"
#include "remote_disk.h"
#include "remote_file.h"
#include "s3_xml.h"

typedef struct remote {
	pfs_http *h;
	pfs_ra_budget *budget;
	char *url, *name;
	char etag[PFS_ETAG_MAX];
	uint64_t size;
	pq_identity id;
	uint8_t *tail;         /* the last tail_len bytes, read at open */
	uint64_t tail_off, tail_len;
	/* under budget->lock: */
	struct pfs_rblock *blocks; /* this source's held ranges */
	struct flight *flights;    /* its fetches in flight */
	pq_source *self;           /* for background fetches (no reference) */
	uint64_t last_end;     /* where the last read ended: sequential? */
	uint64_t ra;           /* the last window's length */
	atomic_int keep;       /* pq_source_keep depth: fetched bytes may be lent room */
} remote;

/* A range being fetched: others wanting its bytes wait for it instead
 * of fetching them again. */
typedef struct flight {
	struct flight *next;
	uint64_t off, len;
} flight;

typedef struct pfs_rblock {
	struct pfs_rblock *lprev, *lnext; /* the budget's LRU */
	struct pfs_rblock *oprev, *onext; /* its source's list */
	remote *owner;
	uint64_t off, len;
	uint8_t *data;
} pfs_rblock;

void pfs_ra_budget_init(pfs_ra_budget *b, uint64_t limit)
{
	memset(b, 0, sizeof *b);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->landed, NULL);
	b->limit = limit;
}

void pfs_ra_budget_quiesce(pfs_ra_budget *b)
{
	pthread_mutex_lock(&b->lock);
	while (b->prefetching > 0)
		pthread_cond_wait(&b->landed, &b->lock);
	pthread_mutex_unlock(&b->lock);
}

void pfs_ra_budget_lend(pfs_ra_budget *b, pq_budget *mem)
{
	pthread_mutex_lock(&b->lock);
	b->mem = mem;
	pthread_mutex_unlock(&b->lock);
}

void pfs_ra_budget_destroy(pfs_ra_budget *b)
{
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->landed);
}

/* Fetched windows (256 KiB to 8 MiB) come and go at the rate an object is
 * read: big buffers (pq_bigbuf.h), reused rather than faulted in afresh. */
static uint8_t *data_alloc(uint64_t n)
{
	return n >= PQ_BIGBUF_MIN ? pq_bigbuf_alloc((size_t)n) : malloc(n ? (size_t)n : 1);
}

static void data_free(uint8_t *p, uint64_t n)
{
	if (n >= PQ_BIGBUF_MIN)
		pq_bigbuf_free(p);
	else
		free(p);
}

/* Under b->lock: unlinks and frees blk. */
static void block_drop(pfs_ra_budget *b, pfs_rblock *blk)
{
	if (blk->lprev)
		blk->lprev->lnext = blk->lnext;
	else
		b->head = blk->lnext;
	if (blk->lnext)
		blk->lnext->lprev = blk->lprev;
	else
		b->tail = blk->lprev;
	if (blk->oprev)
		blk->oprev->onext = blk->onext;
	else
		blk->owner->blocks = blk->onext;
	if (blk->onext)
		blk->onext->oprev = blk->oprev;
	b->used -= blk->len;
	data_free(blk->data, blk->len);
	free(blk);
	/* what is no longer past the limit goes back to the mount's budget */
	uint64_t past = b->used > b->limit ? b->used - b->limit : 0;
	if (b->lent > past) {
		pq_budget_release(b->mem, b->lent - past);
		b->lent = past;
	}
}

uint64_t pfs_ra_budget_reclaim(pfs_ra_budget *b, uint64_t need)
{
	if (pthread_mutex_trylock(&b->lock) != 0)
		return 0; /* its holder may be the one charging */
	uint64_t before = b->lent;
	while (b->lent > 0 && before - b->lent < need && b->tail)
		block_drop(b, b->tail);
	uint64_t given = before - b->lent;
	pthread_mutex_unlock(&b->lock);
	return given;
}

/* Under b->lock: to the front of the LRU. */
static void block_touch(pfs_ra_budget *b, pfs_rblock *blk)
{
	if (b->head == blk)
		return;
	blk->lprev->lnext = blk->lnext;
	if (blk->lnext)
		blk->lnext->lprev = blk->lprev;
	else
		b->tail = blk->lprev;
	blk->lprev = NULL;
	blk->lnext = b->head;
	b->head->lprev = blk;
	b->head = blk;
}

/* Under b->lock: to the back of the LRU, the first to go. A range read
 * to its end by a reader that is not going to read it again (no pass
 * running) is spent: a sequential reader leaves the ranges behind it
 * first in line, so the room a reclaim or a new window needs comes from
 * them, not from the ranges a pass fetched for the render still ahead. */
static void block_spent(pfs_ra_budget *b, pfs_rblock *blk)
{
	if (b->tail == blk)
		return;
	if (blk->lprev)
		blk->lprev->lnext = blk->lnext;
	else
		b->head = blk->lnext;
	blk->lnext->lprev = blk->lprev; /* not the tail: it has a next */
	blk->lnext = NULL;
	blk->lprev = b->tail;
	b->tail->lnext = blk;
	b->tail = blk;
}

/* Under budget->lock: a read of blk ended at end: spent when that is
 * blk's end and no pass will read it again, else most recently used. */
static void block_read(remote *o, pfs_rblock *blk, uint64_t end)
{
	if (end == blk->off + blk->len && atomic_load(&o->keep) == 0)
		block_spent(o->budget, blk);
	else
		block_touch(o->budget, blk);
}

/* Under b->lock: keeps data (len bytes of o at off; taken over) in the
 * cache, pushing out the least recently used bytes; returns the kept
 * range, or NULL when it cannot fit (data freed). Only while o is told
 * its reads will be repeated (remote_keep) may it go past the limit into
 * lent room: a stream read once is better served by reusing the buffers
 * of what it read before. */
static pfs_rblock *block_keep(remote *o, uint64_t off, uint64_t len, uint8_t *data)
{
	pfs_ra_budget *b = o->budget;
	bool lendable = b->mem && atomic_load(&o->keep) > 0;
	pfs_rblock *blk = len <= b->limit || lendable ? calloc(1, sizeof *blk) : NULL;
	if (!blk) {
		data_free(data, len);
		return NULL;
	}
	blk->owner = o;
	blk->off = off;
	blk->len = len;
	blk->data = data;
	while (b->used + len > b->limit + b->lent) {
		uint64_t more = b->used + len - b->limit - b->lent;
		if (lendable && b->lent + more <= pq_budget_limit(b->mem) / 2 &&
		    pq_budget_try_charge_spare(b->mem, more)) {
			b->lent += more;
			break;
		}
		if (!b->tail)
			break;
		block_drop(b, b->tail);
	}
	if (b->used + len > b->limit + b->lent) { /* larger than the limit, and no room */
		free(blk);
		data_free(data, len);
		return NULL;
	}
	blk->lnext = b->head;
	if (b->head)
		b->head->lprev = blk;
	b->head = blk;
	if (!b->tail)
		b->tail = blk;
	blk->onext = o->blocks;
	if (o->blocks)
		o->blocks->oprev = blk;
	o->blocks = blk;
	b->used += len;
	return blk;
}

void pfs_remote_identity(const char *url, uint64_t size, const char *etag, pq_identity *id)
{
	uint8_t b[PQ_IDENTITY_MAX];
	uint64_t uh = XXH3_64bits(url, strlen(url));
	memcpy(b, &size, 8);
	memcpy(b + 8, &uh, 8);
	size_t el = etag ? strlen(etag) : 0;
	if (el > sizeof b - 16)
		el = sizeof b - 16; /* longer ETags: the start, hashed rest below */
	if (etag && strlen(etag) > el) {
		uint64_t eh = XXH3_64bits(etag, strlen(etag));
		memcpy(b + 16, &eh, 8);
		memcpy(b + 24, etag, el - 8);
	} else if (el) {
		memcpy(b + 16, etag, el);
	}
	if (!el) {
		id->len = 0; /* no ETag: unknown, never validates a cache */
		return;
	}
	pq_identity_set(id, b, 16 + el);
}

uint64_t pfs_remote_next_window(uint64_t last)
{
	if (last < PFS_REMOTE_RA_MIN)
		return PFS_REMOTE_RA_MIN;
	return last >= PFS_REMOTE_RA_MAX / 2 ? PFS_REMOTE_RA_MAX : last * 2;
}

pq_status pfs_remote_fail(const pfs_http_resp *r, const char *name, const char *what,
			  pq_error *err)
{
	char code[128] = "", msg[256] = "";
	size_t n = strlen(r->err_body);
	if (n && pfs_s3_xml_value(r->err_body, n, "Code", code, sizeof code))
		(void)pfs_s3_xml_value(r->err_body, n, "Message", msg, sizeof msg);
	pq_status st = r->status == 403 || r->status == 401 ? PQ_EKEY : PQ_EIO;
	const char *why = r->status == 401 || r->status == 403 ? "access denied"
			: r->status == 404 ? "not found"
			: r->status == 412 ? "changed on the server: the ETag differs"
			: r->status == 416 ? "range not satisfiable: the object shrank?"
			: r->status >= 500 ? "server error, retries exhausted"
					   : "unexpected answer";
	return pq_fail(err, st, "%s: %s: HTTP %ld (%s)%s%s%s%s", name, what, r->status, why,
		       code[0] ? " " : "", code, msg[0] ? ": " : "", msg);
}

/* ETags compared without their quotes (some stores list them bare). */
static bool etag_same(const char *a, const char *b)
{
	size_t al = strlen(a), bl = strlen(b);
	if (al >= 2 && a[0] == '"' && a[al - 1] == '"')
		a++, al -= 2;
	if (bl >= 2 && b[0] == '"' && b[bl - 1] == '"')
		b++, bl -= 2;
	return al == bl && !memcmp(a, b, al);
}

/* Fetches [off, off + len) into buf with If-Match. */
static pq_status fetch(remote *o, void *buf, uint64_t len, uint64_t off, pq_error *err)
{
	char range[64];
	snprintf(range, sizeof range, "bytes=%" PRIu64 "-%" PRIu64, off, off + len - 1);
	pfs_http_req rq = {.method = "GET", .url = o->url, .range = range, .fd = -1,
			   /* a weak ETag never matches If-Match (RFC 9110 compares
			    * strongly): such reads rely on the checks below */
			   .if_match = o->etag[0] && strncmp(o->etag, "W/", 2) ? o->etag : NULL,
			   .buf = buf,
			   .cap = (size_t)len};
	pfs_http_resp rs;
	pq_status st = pfs_http_do(o->h, &rq, &rs, err);
	free(rs.body);
	if (st != PQ_OK) {
		if (rs.status == 200 && off + len < o->size)
			return pq_fail(err, PQ_EIO, "%s: the server ignores Range (HTTP 200 for a "
				       "range read)", o->name);
		return pq_context(err, "%s: read of %" PRIu64 " bytes at offset %" PRIu64,
				  o->name, len, off);
	}
	if (rs.status >= 300 || rs.status < 200) {
		char what[96];
		snprintf(what, sizeof what, "read at offset %" PRIu64, off);
		return pfs_remote_fail(&rs, o->name, what, err);
	}
	if (rs.status == 200 && !(off == 0 && len == o->size))
		return pq_fail(err, PQ_EIO, "%s: the server ignores Range (HTTP 200 for a range "
			       "read)", o->name);
	if (rs.status == 206 && rs.range_total != UINT64_MAX && rs.range_total != o->size)
		return pq_fail(err, PQ_EIO, "%s: changed on the server (now %" PRIu64 " bytes, "
			       "was %" PRIu64 ")", o->name, rs.range_total, o->size);
	if (o->etag[0] && rs.etag[0] && !etag_same(rs.etag, o->etag))
		return pq_fail(err, PQ_EIO, "%s: changed on the server (ETag %s, was %s)",
			       o->name, rs.etag, o->etag);
	if (rs.body_len != len)
		return pq_fail(err, PQ_EIO, "%s: short read at offset %" PRIu64 ": %zu of %" PRIu64
			       " bytes", o->name, off, rs.body_len, len);
	return PQ_OK;
}

/* Copies what the tail and the cache hold of [off, off + len), as long as
 * they hold it from off on. Returns how many leading bytes were served.
 * Under budget->lock. */
static size_t serve_held(remote *o, uint8_t *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	while (done < len) {
		uint64_t at = off + done;
		size_t n = 0;
		if (o->tail && at >= o->tail_off && at < o->tail_off + o->tail_len) {
			uint64_t have = o->tail_off + o->tail_len - at;
			n = (size_t)(have < len - done ? have : len - done);
			memcpy(buf + done, o->tail + (at - o->tail_off), n);
		} else {
			for (pfs_rblock *b = o->blocks; b; b = b->onext) {
				if (at >= b->off && at < b->off + b->len) {
					uint64_t have = b->off + b->len - at;
					n = (size_t)(have < len - done ? have : len - done);
					memcpy(buf + done, b->data + (at - b->off), n);
					block_read(o, b, at + n);
					break;
				}
			}
		}
		if (!n)
			break;
		done += n;
	}
	return done;
}

/* Under budget->lock: where the first held range after at starts (size
 * when none), so a fetch stops there instead of fetching it again. */
static uint64_t next_held(const remote *o, uint64_t at)
{
	uint64_t end = o->size;
	if (o->tail && o->tail_off > at && o->tail_off < end)
		end = o->tail_off;
	for (const pfs_rblock *b = o->blocks; b; b = b->onext)
		if (b->off > at && b->off < end)
			end = b->off;
	for (const flight *f = o->flights; f; f = f->next)
		if (f->off > at && f->off < end)
			end = f->off;
	return end;
}

/* Under budget->lock: whether at is being fetched by another reader. */
static bool in_flight(const remote *o, uint64_t at)
{
	for (const flight *f = o->flights; f; f = f->next)
		if (at >= f->off && at < f->off + f->len)
			return true;
	return false;
}

/* Under budget->lock: whether a held range ends at most PFS_REMOTE_GAP
 * before at. Readers of neighbouring ranges (the size pass's workers going
 * through the chunks of a row group, a scan of consecutive pages) count as
 * one sequential reader, so their reads coalesce into growing windows
 * instead of one GET each. */
static bool follows_held(const remote *o, uint64_t at)
{
	for (const pfs_rblock *b = o->blocks; b; b = b->onext)
		if (b->off + b->len <= at && at - (b->off + b->len) <= PFS_REMOTE_GAP)
			return true;
	return false;
}

typedef struct prefetch {
	remote *o;
	flight fl;
} prefetch;

static void *prefetch_run(void *arg)
{
	prefetch *p = arg;
	remote *o = p->o;
	pq_error err = {0};
	uint8_t *data = data_alloc(p->fl.len);
	bool ok = data && fetch(o, data, p->fl.len, p->fl.off, &err) == PQ_OK;
	pthread_mutex_lock(&o->budget->lock);
	for (flight **pp = &o->flights; *pp; pp = &(*pp)->next) {
		if (*pp == &p->fl) {
			*pp = p->fl.next;
			break;
		}
	}
	if (ok)
		block_keep(o, p->fl.off, p->fl.len, data);
	else
		data_free(data, p->fl.len); /* the reader fetches it itself, and sees the error */
	pfs_ra_budget *b = o->budget;
	pthread_mutex_unlock(&b->lock);
	pq_source_unref(o->self); /* may close o */
	pthread_mutex_lock(&b->lock);
	b->prefetching--;
	pthread_cond_broadcast(&b->landed);
	pthread_mutex_unlock(&b->lock);
	free(p);
	return NULL;
}

/* Under budget->lock: whether a background fetch may start now (at most
 * PFS_HTTP_MAX_CONNS / 2 at once per mount; none with a disk cache, whose
 * reads go by its blocks). */
static bool may_prefetch(const remote *o)
{
	return o->self && !o->budget->disk && o->budget->prefetching < PFS_HTTP_MAX_CONNS / 2;
}

/* Under budget->lock: the end of the held range (the tail or a block)
 * holding at, or 0 when none does. */
static uint64_t held_end(const remote *o, uint64_t at)
{
	if (o->tail && at >= o->tail_off && at < o->tail_off + o->tail_len)
		return o->tail_off + o->tail_len;
	for (const pfs_rblock *b = o->blocks; b; b = b->onext)
		if (at >= b->off && at < b->off + b->len)
			return b->off + b->len;
	for (const flight *f = o->flights; f; f = f->next)
		if (at >= f->off && at < f->off + f->len)
			return f->off + f->len;
	return 0;
}

static void start_prefetch(remote *o, uint64_t off, uint64_t n);

/* Under budget->lock: a streaming reader (windows at their largest) gets
 * the window after end fetched in the background, so fetching overlaps
 * reading. */
static void prefetch_after(remote *o, uint64_t end, uint64_t w)
{
	if (w < PFS_REMOTE_RA_MAX / 2 || end >= o->size || !may_prefetch(o) || held_end(o, end))
		return;
	uint64_t n = next_held(o, end) - end;
	start_prefetch(o, end, n > w ? w : n);
}

/* Under budget->lock: [off, off + n) (nothing of it held or in flight)
 * fetched on a thread of its own into the held ranges; readers of those
 * bytes wait for it. */
static void start_prefetch(remote *o, uint64_t off, uint64_t n)
{
	prefetch *p = calloc(1, sizeof *p);
	if (!p)
		return;
	p->o = o;
	p->fl = (flight){.next = o->flights, .off = off, .len = n};
	pthread_attr_t at;
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pq_source_ref(o->self);
	o->flights = &p->fl;
	o->budget->prefetching++;
	pthread_t t;
	if (pthread_create(&t, &at, prefetch_run, p) != 0) {
		o->flights = p->fl.next;
		o->budget->prefetching--;
		free(p);
		pthread_attr_destroy(&at);
		/* dropping the reference cannot close o: the caller holds one */
		pq_source_unref(o->self);
		return;
	}
	pthread_attr_destroy(&at);
}

static pq_status remote_pread(void *impl, void *buf, size_t len, uint64_t off, pq_error *err)
{
	remote *o = impl;
	uint8_t *out = buf;
	size_t done = 0;
	for (;;) {
		pthread_mutex_lock(&o->budget->lock);
		for (;;) {
			done += serve_held(o, out + done, len - done, off + done);
			if (done == len || !in_flight(o, off + done))
				break;
			/* another thread fetches these bytes: wait for them,
			 * unless this request is interrupted (interrupt.h) */
			pfs_loop_will_wait();
			if (pfs_intr_arm()) {
				pthread_mutex_unlock(&o->budget->lock);
				return pq_fail(err, PQ_EIO, "%s: interrupted (the caller got a "
					       "signal)", o->name);
			}
			pfs_intr_timedwait(&o->budget->landed, &o->budget->lock);
		}
		bool seq = off == o->last_end || off + done == o->last_end ||
			   (done < len && follows_held(o, off + done));
		uint64_t ra = o->ra, at = off + done;
		if (done == len) {
			o->last_end = off + len;
			/* reading in the last half of a window: the next one comes */
			for (const pfs_rblock *b = o->blocks; b && seq; b = b->onext) {
				if (off + len > b->off && off + len <= b->off + b->len) {
					if (off + len >= b->off + b->len / 2)
						prefetch_after(o, b->off + b->len, b->len);
					break;
				}
			}
			pthread_mutex_unlock(&o->budget->lock);
			return PQ_OK;
		}
		uint64_t gap_end = next_held(o, at);
		uint64_t need = len - done;
		if (need > gap_end - at)
			need = gap_end - at; /* the rest is held or coming: next round */
		/* a sequential reader gets a window from here (growing while it
		 * stays sequential); any other read fetches exactly what it needs */
		uint64_t w = seq ? pfs_remote_next_window(ra) : need;
		if (w < need)
			w = need;
		if (w > gap_end - at)
			w = gap_end - at;
		if (w > o->budget->limit / 4 && w > need)
			w = need > o->budget->limit / 4 ? need : o->budget->limit / 4;
		/* with a disk cache: whole blocks, read from it or fetched for it */
		uint64_t from = at;
		pfs_disk *disk = o->budget->disk;
		if (disk) {
			from = at / PFS_DISK_BLOCK * PFS_DISK_BLOCK;
			uint64_t end = (at + w + PFS_DISK_BLOCK - 1) / PFS_DISK_BLOCK * PFS_DISK_BLOCK;
			w = (end < o->size ? end : o->size) - from;
		}
		flight fl = {.next = o->flights, .off = from, .len = w};
		o->flights = &fl;
		pthread_mutex_unlock(&o->budget->lock);

		uint8_t *data = data_alloc(w);
		pq_status st = PQ_OK;
		if (!data)
			st = pq_fail(err, PQ_ENOMEM, "%s: no memory for %" PRIu64 " bytes", o->name, w);
		else if (!pfs_disk_read(disk, &o->id, o->size, data, from, w) &&
			 (st = fetch(o, data, w, from, err)) == PQ_OK)
			pfs_disk_write(disk, &o->id, o->size, data, from, w);
		if (st == PQ_OK) {
			memcpy(out + done, data + (at - from), (size_t)need);
			done += (size_t)need;
		}
		pthread_mutex_lock(&o->budget->lock);
		for (flight **pp = &o->flights; *pp; pp = &(*pp)->next) {
			if (*pp == &fl) {
				*pp = fl.next;
				break;
			}
		}
		if (st == PQ_OK) {
			o->last_end = off + done;
			o->ra = seq ? w : 0;
			/* held before the flight ends */
			pfs_rblock *kept = block_keep(o, from, w, data);
			if (kept)
				block_read(o, kept, at + need);
			if (seq)
				prefetch_after(o, from + w, w);
		} else {
			data_free(data, w);
		}
		pthread_cond_broadcast(&o->budget->landed);
		pthread_mutex_unlock(&o->budget->lock);
		if (st != PQ_OK)
			return st;
	}
}

/* pq_source_advise: the parts of [off, off + len) not held or coming are
 * fetched in the background, in pieces of at most PFS_REMOTE_RA_MAX, as
 * far as the prefetch slots allow (the rest is fetched when read). */
static void remote_advise(void *impl, uint64_t off, uint64_t len)
{
	remote *o = impl;
	pthread_mutex_lock(&o->budget->lock);
	uint64_t at = off, end = off + len;
	if (len > o->budget->limit / 4)
		end = off + o->budget->limit / 4; /* never more than a window may be */
	while (at < end && may_prefetch(o)) {
		uint64_t h = held_end(o, at);
		if (h) {
			at = h;
			continue;
		}
		uint64_t n = next_held(o, at) - at;
		if (n > end - at)
			n = end - at;
		if (n > PFS_REMOTE_RA_MAX)
			n = PFS_REMOTE_RA_MAX;
		start_prefetch(o, at, n);
		at += n;
	}
	pthread_mutex_unlock(&o->budget->lock);
}

static void remote_keep(void *impl, bool on)
{
	atomic_fetch_add(&((remote *)impl)->keep, on ? 1 : -1);
}

static uint64_t remote_size(void *impl)
{
	return ((remote *)impl)->size;
}

static void remote_identity(void *impl, pq_identity *out)
{
	*out = ((remote *)impl)->id;
}

static void remote_close(void *impl)
{
	remote *o = impl;
	if (o->budget) {
		pthread_mutex_lock(&o->budget->lock);
		while (o->blocks)
			block_drop(o->budget, o->blocks);
		pthread_mutex_unlock(&o->budget->lock);
	}
	free(o->tail);
	free(o->url);
	free(o->name);
	free(o);
}

static const pq_source_ops remote_ops = {
	.far = true,
	.pread = remote_pread,
	.advise = remote_advise,
	.keep = remote_keep,
	.size = remote_size,
	.identity = remote_identity,
	.close = remote_close,
};

pq_status pfs_remote_open(pfs_http *h, pfs_ra_budget *b, const char *url, const char *name,
			  uint64_t size, const char *etag, pq_source **out, pq_error *err)
{
	*out = NULL;
	remote *o = calloc(1, sizeof *o);
	if (!o)
		return pq_fail(err, PQ_ENOMEM, "no memory");
	o->h = h;
	o->budget = b;
	o->size = size;
	o->url = strdup(url);
	o->name = strdup(name);
	if (etag && etag[0] && etag[0] != '"' && strncmp(etag, "W/", 2) &&
	    strlen(etag) + 2 < sizeof o->etag)
		snprintf(o->etag, sizeof o->etag, "\"%s\"", etag); /* If-Match wants quotes */
	else if (etag && strlen(etag) < sizeof o->etag)
		snprintf(o->etag, sizeof o->etag, "%s", etag);
	if (!o->url || !o->name) {
		remote_close(o);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	pfs_remote_identity(url, size, etag ? etag : "", &o->id); /* as stat gives it */
	/* the footer (and usually the page index): one speculative tail read */
	if (size > 0) {
		uint64_t n = size < PFS_REMOTE_TAIL ? size : PFS_REMOTE_TAIL;
		o->tail = malloc((size_t)n);
		if (!o->tail) {
			remote_close(o);
			return pq_fail(err, PQ_ENOMEM, "no memory");
		}
		pq_status st = fetch(o, o->tail, n, size - n, err);
		if (st != PQ_OK) {
			remote_close(o);
			return st;
		}
		o->tail_off = size - n;
		o->tail_len = n;
	}
	pq_status st = pq_source_new(&remote_ops, o, out, err);
	if (st == PQ_OK)
		o->self = *out;
	return st;
}
