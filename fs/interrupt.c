/* Interrupted FUSE requests (interrupt.h).
 *
 * libfuse calls a request's interrupt callback on the thread that read the
 * INTERRUPT, possibly after the request was answered and its handler went
 * on to another one. So the callback's data is a serial number, not a
 * pointer: it is looked up among the requests registered now, under one
 * lock, and a stale one finds nothing. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "interrupt.h"

/* Requests waiting at once: at most the loop's threads (fs/loop.c) */
#define INTR_SLOTS 256

typedef struct intr_ctx {
	fuse_req_t req;
	uint64_t serial; /* 0: not registered */
	atomic_bool interrupted;
} intr_ctx;

static _Thread_local intr_ctx me;
static _Thread_local atomic_bool *watched; /* pfs_intr_watch */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static intr_ctx *reg[INTR_SLOTS]; /* under reg_lock */
static uint64_t next_serial;      /* under reg_lock */

void pfs_intr_begin(fuse_req_t req)
{
	me.req = req;
	me.serial = 0;
	atomic_store_explicit(&me.interrupted, false, memory_order_relaxed);
}

void pfs_intr_end(void)
{
	if (me.serial) {
		pthread_mutex_lock(&reg_lock);
		for (int i = 0; i < INTR_SLOTS; i++) {
			if (reg[i] == &me) {
				reg[i] = NULL;
				break;
			}
		}
		pthread_mutex_unlock(&reg_lock);
	}
	me.req = NULL;
	me.serial = 0;
}

static void on_interrupt(fuse_req_t req, void *data)
{
	(void)req;
	uint64_t serial = (uint64_t)(uintptr_t)data;
	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < INTR_SLOTS; i++) {
		if (reg[i] && reg[i]->serial == serial) {
			atomic_store(&reg[i]->interrupted, true);
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
}

void pfs_intr_watch(atomic_bool *flag)
{
	watched = flag;
}

bool pfs_intr_arm(void)
{
	if (!me.req)
		return watched && atomic_load(watched);
	if (!me.serial) {
		bool placed = false;
		pthread_mutex_lock(&reg_lock);
		me.serial = ++next_serial;
		for (int i = 0; i < INTR_SLOTS && !placed; i++) {
			if (!reg[i]) {
				reg[i] = &me;
				placed = true;
			}
		}
		pthread_mutex_unlock(&reg_lock);
		/* (no slot: more waiters than threads, cannot happen; such a
		 * request would merely not be interruptible) */
		if (placed)
			fuse_req_interrupt_func(me.req, on_interrupt,
						(void *)(uintptr_t)me.serial);
	}
	return atomic_load(&me.interrupted);
}

void pfs_intr_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += PFS_INTR_POLL_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(cond, mutex, &ts);
}

bool pfs_intr_serving(void)
{
	return me.req != NULL;
}

bool pfs_intr_pending(void)
{
	return (me.serial && atomic_load_explicit(&me.interrupted, memory_order_relaxed)) ||
	       (watched && atomic_load_explicit(watched, memory_order_relaxed));
}

int pfs_reply_err(fuse_req_t req, int err)
{
	if (err && pfs_intr_pending())
		err = EINTR;
	return fuse_reply_err(req, err);
}
