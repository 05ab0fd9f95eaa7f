/* Interrupted FUSE requests (interrupt.h).
 *
 * libfuse calls a request's interrupt callback on the thread that read the
 * INTERRUPT, possibly after the request was answered and its handler went
 * on to another one. So the callback's data is a serial number, not a
 * pointer: it is looked up among the requests registered now, under one
 * lock, and a stale one finds nothing.
 *
 * The kernel sends INTERRUPT for any signal, and the caller's system call
 * then returns what the reply says: EINTR would fail a shell's `[ -d ]`
 * because a child of it exited (SIGCHLD, whose handler is restarted
 * otherwise), which is seen in the tests. So a wait is abandoned only
 * while a signal that asks the process to stop what it does is pending
 * for the caller: one whose default action ends the process (SIGINT,
 * SIGTERM, SIGALRM, SIGKILL ...; caught or not), never SIGCHLD, SIGWINCH,
 * SIGURG, SIGCONT, the stop signals or glibc's own (32, 33). It is read
 * from /proc/PID/status (SigPnd, ShdPnd), at most every PFS_INTR_POLL_MS,
 * so a Ctrl-C after a SIGCHLD still ends the wait. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "interrupt.h"

/* Requests waiting at once: at most the loop's threads (fs/loop.c) */
#define INTR_SLOTS 256

typedef struct intr_ctx {
	fuse_req_t req;
	pid_t pid;               /* the caller's thread */
	uint64_t serial;         /* 0: not registered */
	atomic_bool interrupted; /* the kernel sent INTERRUPT */
	bool abandon;            /* a signal that ends the wait is pending */
	int64_t checked_ms;      /* when abandon was last looked at */
} intr_ctx;

static _Thread_local intr_ctx me;
static _Thread_local atomic_bool *watched; /* pfs_intr_watch */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static intr_ctx *reg[INTR_SLOTS]; /* under reg_lock */
static uint64_t next_serial;      /* under reg_lock */

void pfs_intr_begin(fuse_req_t req)
{
	me.req = req;
	me.pid = fuse_req_ctx(req)->pid;
	me.serial = 0;
	me.abandon = false;
	me.checked_ms = 0;
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
	return pfs_intr_pending();
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

/* A 64-bit mask of "key:\t%llx" in a /proc status file. */
static uint64_t mask_of(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	return p ? strtoull(p + strlen(key), NULL, 16) : 0;
}

/* A signal pending for pid asks it to stop what it does (see above). */
static bool stop_pending(pid_t pid)
{
	char path[64], text[4096];
	if (pid <= 0)
		return true; /* (no caller to look at: the interrupt is all we know) */
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return true;
	size_t n = fread(text, 1, sizeof text - 1, f);
	fclose(f);
	text[n] = '\0';
	uint64_t pend = mask_of(text, "\nSigPnd:") | mask_of(text, "\nShdPnd:");
	uint64_t keep = 0;
	static const int benign[] = {SIGCHLD, SIGWINCH, SIGURG, SIGCONT, SIGSTOP,
				     SIGTSTP, SIGTTIN, SIGTTOU, 32, 33};
	for (size_t i = 0; i < sizeof benign / sizeof benign[0]; i++)
		keep |= (uint64_t)1 << (benign[i] - 1);
	return (pend & ~keep) != 0;
}

bool pfs_intr_pending(void)
{
	if (watched && atomic_load_explicit(watched, memory_order_relaxed))
		return true;
	if (!me.serial || !atomic_load_explicit(&me.interrupted, memory_order_relaxed))
		return false;
	if (me.abandon)
		return true;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if (me.checked_ms && now - me.checked_ms < PFS_INTR_POLL_MS)
		return false;
	me.checked_ms = now ? now : 1;
	me.abandon = stop_pending(me.pid);
	return me.abandon;
}

int pfs_reply_err(fuse_req_t req, int err)
{
	if (err && pfs_intr_pending())
		err = EINTR;
	return fuse_reply_err(req, err);
}
