/* One memory budget for everything a process (a mount) decodes: decoded
 * pages, decompression buffers, row readers, and whatever the caller adds
 * (fs/: cache entries, stream windows, prefetch buffers).
 *
 * Charges are plain counts: whoever charges n bytes owns them and gives
 * exactly those n bytes back, once, when the memory goes (pq_arena does so
 * for its blocks). A charge that would cross the limit is refused after
 * one call of the reclaim hook (which may give memory back: evict a cache,
 * drop idle readers); a charge never waits. A caller that holds nothing
 * of its own may wait for room (pq_budget_wait_room) and try again: that
 * is how a reader waits for memory other readers hold, without the
 * deadlock of readers waiting, each holding what the others need.
 * Thread-safe: atomic counters; a lock only while someone waits. */
#ifndef PQ_BUDGET_H
#define PQ_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "pq_error.h"

typedef struct pq_budget pq_budget;

/* Asked for need more bytes than the budget has free: gives back what it
 * can, without waiting for anything (it may be called with the caller's
 * own locks held). */
typedef void (*pq_budget_reclaim_fn)(void *ctx, uint64_t need);

pq_budget *pq_budget_new(uint64_t limit);
/* Frees the object (what is still charged is the caller's to report). */
void pq_budget_free(pq_budget *b);
/* Set before the budget is shared. A charge past the limit first asks the
 * reclaim hook for room; it is refused only past limit + headroom (0 by
 * default), so a reader whose working set is larger than what reclaiming
 * leaves free still reads, and the total stays bounded. */
void pq_budget_set_headroom(pq_budget *b, uint64_t bytes);
void pq_budget_set_reclaim(pq_budget *b, pq_budget_reclaim_fn fn, void *ctx);

/* Charges n bytes if they fit (after the reclaim hook, once); false when
 * they do not (counted for the calling thread: pq_budget_thread_refused).
 * A NULL budget takes anything. */
bool pq_budget_try_charge(pq_budget *b, uint64_t n);
/* Charges n bytes only if they fit under the limit as things stand: no
 * reclaim hook, no headroom, no exemption. For memory that is merely
 * worth keeping (a spare buffer): it must never push out what is in use. */
bool pq_budget_try_charge_spare(pq_budget *b, uint64_t n);
/* Charges n bytes whether they fit or not (memory that already exists
 * and must be counted). */
void pq_budget_charge(pq_budget *b, uint64_t n);
void pq_budget_release(pq_budget *b, uint64_t n);

/* Most a single charge may ever take: limit + headroom. */
uint64_t pq_budget_hard(const pq_budget *b);
uint64_t pq_budget_limit(const pq_budget *b);
uint64_t pq_budget_used(const pq_budget *b);
uint64_t pq_budget_peak(const pq_budget *b);
uint64_t pq_budget_refusals(const pq_budget *b);

/* While on for the calling thread, its charges are counted but never
 * refused: for work that bounds its memory itself and must not fail for
 * want of room (the size pass waits on its own limit). Returns the
 * previous state. */
bool pq_budget_thread_exempt(bool on);

/* Refusals of the calling thread so far, and the bytes of the last one
 * (last may be NULL): a caller compares the count before and after some
 * work to tell a failure for want of memory from others. */
uint64_t pq_budget_thread_refused(uint64_t *last);

/* On while the calling thread tries again after waiting for room: the
 * headroom is then kept for such threads (others' charges stop at the
 * limit), so the reader that waited longest is not overtaken again. */
void pq_budget_thread_turn(pq_budget *b, bool on);

/* How long pq_budget_wait_room waits at most (default 0: not at all). */
void pq_budget_set_wait(pq_budget *b, uint64_t ms);
uint64_t pq_budget_wait_ms(const pq_budget *b);
/* Waits until need bytes fit under the limit as things stand (asking the
 * reclaim hook for them each time memory was given back, and every few
 * milliseconds, since idle readers become reclaimable without a release),
 * or until deadline_ms (CLOCK_MONOTONIC milliseconds) has passed. Charges
 * nothing: the caller then tries again. True when the room was there.
 * The caller must hold nothing others could be waiting for. */
bool pq_budget_wait_room(pq_budget *b, uint64_t need, int64_t deadline_ms);
/* CLOCK_MONOTONIC in milliseconds (the deadlines above). */
int64_t pq_budget_now_ms(void);

/* PQ_EBUDGET with a message saying that need more bytes did not fit the
 * budget (its limit, what is in use): "the memory budget (cache_size ...)". */
pq_status pq_budget_fail(const pq_budget *b, uint64_t need, pq_error *err);

#endif
