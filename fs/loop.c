/* The FUSE request loop (loop.h).
 *
 * Roles: one thread at a time is the reader. It reads /dev/fuse (made
 * non-blocking), handles each request itself, and after one keeps reading
 * for poll_us, yielding the CPU between tries, before it sleeps in poll(2).
 * The other threads wait on a condition variable, not on /dev/fuse: a
 * queued request then wakes nobody, and a client that sends its next
 * request within poll_us finds the reader awake (pipe ping-pong on this
 * project's 2-core VM: 50-60 us per round trip with both sides asleep,
 * 15-19 us with one side polling).
 *
 * The watchdog looks at the reader every PFS_LOOP_WATCH_US while it is
 * awake. When the reader has been busy with the same request at two looks
 * in a row, its role goes to a waiting thread (or a new one, up to
 * max_threads); the old reader finishes its request and waits in turn.
 * Between looks it does not sleep but yields its CPU in a loop
 * (stay_awake), so that CPU does not halt: the client the reader answers
 * next is woken without the hypervisor's wake-up of a halted CPU.
 *
 * A request that knows it is about to wait (pfs_loop_will_wait: a round
 * trip to a server) gives the role away itself, without the watchdog.
 *
 * The reader's role has a generation: state = generation * 4 + phase. Only
 * the reader moves its state between READING and BUSY; the watchdog or
 * pfs_loop_will_wait moves it from BUSY to VACANT once (vacate), so a
 * reader whose role was taken sees it in the compare-and-swap that ends its
 * request. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"
#include "pfs.h"

#define LOOP_MAX_THREADS 256
/* The reader's sleep in poll(2) ends this often to see whether a signal
 * ended the session (the signal may have gone to another thread). */
#define LOOP_IDLE_MS 250
/* Watchdog ticks with the reader asleep before the watchdog sleeps too. */
#define LOOP_WATCH_IDLE 50
/* stay_awake stops for a request that kept the reader busy this long */
#define LOOP_SPIN_BUSY_NS 100000u

enum { READING = 0, BUSY = 1, VACANT = 2 };

typedef struct loop {
	struct fuse_session *se;
	int fd;
	unsigned max_threads;
	uint64_t poll_ns;
	bool stay_awake; /* the watchdog keeps a CPU awake (stay_awake) */
	pthread_mutex_t lock;
	pthread_cond_t follow; /* waiting threads: the reader's role is vacant */
	pthread_cond_t watch;  /* the watchdog, while the reader sleeps */
	/* under lock: */
	bool have_reader, stop;
	unsigned threads, idle; /* threads started (the caller's included), waiting */
	pthread_t tids[LOOP_MAX_THREADS];
	int error;
	unsigned long long handovers; /* under lock: by the watchdog */
	unsigned long long handed;    /* under lock: by pfs_loop_will_wait */
	unsigned long long sleeps;    /* the reader's (one reader at a time) */
	uint64_t awake_ns;            /* the watchdog's: time spent in stay_awake */
	/* the reader's progress, for the watchdog */
	atomic_uint_fast64_t state; /* generation * 4 + phase */
	atomic_uint_fast64_t taken; /* requests taken */
	atomic_bool asleep;         /* the reader sleeps in poll(2) */
	atomic_bool watch_sleeps;   /* the watchdog waits for it to wake */
} loop;

/* Round trips to a server under way, on any thread (pfs_loop_server_begin):
 * while there are any, the watchdog keeps no CPU awake (stay_awake). */
static atomic_int server_trips;

/* The reader handling a request on this thread (pfs_loop_will_wait). */
static _Thread_local loop *tl_loop;
static _Thread_local uint64_t tl_busy;

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void finish(loop *l, int res)
{
	fuse_session_exit(l->se);
	pthread_mutex_lock(&l->lock);
	l->stop = true;
	if (res < 0 && !l->error)
		l->error = res;
	pthread_cond_broadcast(&l->follow);
	pthread_cond_signal(&l->watch);
	pthread_mutex_unlock(&l->lock);
}

/* Sleeps until a request is queued (or LOOP_IDLE_MS pass). Whether
 * anything came. */
static bool sleep_until_readable(loop *l)
{
	struct pollfd p = {.fd = l->fd, .events = POLLIN};
	atomic_store(&l->asleep, true);
	int n = poll(&p, 1, LOOP_IDLE_MS);
	atomic_store(&l->asleep, false);
	l->sleeps++;
	return n > 0;
}

/* A request taken: the watchdog must be looking. Woken only when it sleeps
 * (after the reader slept a while), so an idle daemon's periodic wake-up
 * (LOOP_IDLE_MS) wakes nobody else. (seq_cst: either the watchdog sees
 * asleep false before it waits, or the reader sees that it waits.) */
static void watchdog_needed(loop *l)
{
	if (!atomic_load(&l->watch_sleeps))
		return;
	pthread_mutex_lock(&l->lock);
	pthread_cond_signal(&l->watch);
	pthread_mutex_unlock(&l->lock);
}

/* The reader's work, as generation gen: returns when its role was taken
 * or the session ended. */
static void read_requests(loop *l, struct fuse_buf *buf, uint64_t gen)
{
	const uint64_t reading = gen * 4 + READING, busy = gen * 4 + BUSY;
	uint64_t last = now_ns();
	for (;;) {
		if (fuse_session_exited(l->se)) {
			finish(l, 0);
			return;
		}
		int res = fuse_session_receive_buf(l->se, buf);
		if (res == -EAGAIN) {
			if (l->poll_ns && now_ns() - last < l->poll_ns)
				sched_yield();
			else if (sleep_until_readable(l))
				last = now_ns();
			continue;
		}
		if (res == -EINTR)
			continue;
		if (res <= 0) { /* 0: unmounted or exited */
			finish(l, res);
			return;
		}
		watchdog_needed(l);
		atomic_fetch_add(&l->taken, 1);
		atomic_store(&l->state, busy);
		tl_loop = l;
		tl_busy = busy;
		fuse_session_process_buf(l->se, buf);
		tl_loop = NULL;
		uint_fast64_t expect = busy;
		if (!atomic_compare_exchange_strong(&l->state, &expect, reading))
			return; /* the watchdog gave the role to another thread */
		last = now_ns();
	}
}

static void *worker(void *arg)
{
	loop *l = arg;
	struct fuse_buf buf;
	memset(&buf, 0, sizeof buf);
	pthread_mutex_lock(&l->lock);
	for (;;) {
		while (l->have_reader && !l->stop) {
			l->idle++;
			pthread_cond_wait(&l->follow, &l->lock);
			l->idle--;
		}
		if (l->stop)
			break;
		l->have_reader = true;
		uint64_t gen = (atomic_load(&l->state) >> 2) + 1;
		atomic_store(&l->state, gen * 4 + READING);
		pthread_mutex_unlock(&l->lock);
		read_requests(l, &buf, gen);
		pthread_mutex_lock(&l->lock);
	}
	pthread_mutex_unlock(&l->lock);
	free(buf.mem);
	return NULL;
}

/* Under lock: the reader's role goes to a waiting thread, or a new one. */
static void hand_over(loop *l)
{
	l->have_reader = false;
	if (l->idle) {
		pthread_cond_signal(&l->follow);
		return;
	}
	if (l->threads >= l->max_threads)
		return; /* the first thread done with its request reads next */
	if (pthread_create(&l->tids[l->threads - 1], NULL, worker, l) == 0)
		l->threads++;
}

/* BUSY -> VACANT, if the state is still busy (one request of one reader):
 * whether this call took the role away. */
static bool vacate(loop *l, uint_fast64_t busy)
{
	return atomic_compare_exchange_strong(&l->state, &busy,
					      (busy & ~(uint_fast64_t)3) | VACANT);
}

void pfs_loop_server_begin(void)
{
	atomic_fetch_add(&server_trips, 1);
	pfs_loop_will_wait();
}

void pfs_loop_server_end(void)
{
	atomic_fetch_sub(&server_trips, 1);
}

void pfs_loop_will_wait(void)
{
	loop *l = tl_loop;
	if (!l)
		return;
	tl_loop = NULL; /* once per request */
	if (!vacate(l, tl_busy))
		return; /* the watchdog was first */
	pthread_mutex_lock(&l->lock);
	hand_over(l);
	l->handed++;
	pthread_mutex_unlock(&l->lock);
}

/* One watchdog tick spent keeping this CPU awake, yielding it to anyone
 * who wants it: a client whose request the reader answers is woken on a
 * CPU that did not halt. (On this project's 2-core VM a halted CPU takes
 * ~15 us longer to wake: open+close of a cached file 25-43 -> 14-18 us, a
 * cold ls -lR of 124,000 directories 15-24 -> 13-19 s.) It stops when the
 * reader sleeps, or when one request keeps the reader busy longer than
 * LOOP_SPIN_BUSY_NS: a long request's client is not waiting for a quick
 * reply, and the CPU is better left to the threads doing its work. Nor
 * does it run while a round trip to a server is under way: the clients
 * then wait for the network, not for wake-ups, and the transfers
 * (curl, TLS, a server on this machine) want the CPUs. */
static void stay_awake(loop *l)
{
	uint64_t t0 = now_ns(), t = t0, end = t0 + PFS_LOOP_WATCH_US * 1000u, since = t0;
	uint_fast64_t taken = 0; /* the request busy since `since` (its number) */
	while (!atomic_load(&l->asleep) && !atomic_load(&server_trips) && t < end) {
		uint_fast64_t k = atomic_load(&l->taken);
		if ((atomic_load(&l->state) & 3) != BUSY || k != taken) {
			taken = k;
			since = t;
		} else if (t - since > LOOP_SPIN_BUSY_NS) {
			break;
		}
		sched_yield();
		t = now_ns();
	}
	l->awake_ns += t - t0;
}

static void *watchdog(void *arg)
{
	loop *l = arg;
	uint64_t prev_state = 0, prev_taken = 0;
	unsigned asleep_ticks = 0;
	pthread_mutex_lock(&l->lock);
	while (!l->stop) {
		/* a reader asleep for LOOP_WATCH_IDLE ticks in a row: the watchdog
		 * sleeps too, until the reader wakes it (a signal per sleep of the
		 * reader would cost a wake-up per request of a slow client) */
		if (!atomic_load(&l->asleep))
			asleep_ticks = 0;
		else if (++asleep_ticks >= LOOP_WATCH_IDLE) {
			asleep_ticks = 0;
			atomic_store(&l->watch_sleeps, true);
			while (atomic_load(&l->asleep) && !l->stop)
				pthread_cond_wait(&l->watch, &l->lock);
			atomic_store(&l->watch_sleeps, false);
			prev_state = 0;
			continue;
		}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += PFS_LOOP_WATCH_US * 1000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (l->stay_awake && !atomic_load(&l->asleep)) {
			pthread_mutex_unlock(&l->lock);
			stay_awake(l);
			pthread_mutex_lock(&l->lock);
		}
		if (!l->stop)
			pthread_cond_timedwait(&l->watch, &l->lock, &ts);
		uint_fast64_t s = atomic_load(&l->state);
		uint64_t t = atomic_load(&l->taken);
		if ((s & 3) == BUSY && s == prev_state && t == prev_taken && vacate(l, s)) {
			hand_over(l);
			l->handovers++;
			prev_state = 0;
			continue;
		}
		prev_state = s;
		prev_taken = t;
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

int pfs_loop_run(struct fuse_session *se, unsigned max_threads, unsigned poll_us)
{
	loop *l = calloc(1, sizeof *l);
	if (!l)
		return -ENOMEM;
	l->se = se;
	l->fd = fuse_session_fd(se);
	l->max_threads = max_threads < 1 ? 1 : max_threads > LOOP_MAX_THREADS ? LOOP_MAX_THREADS : max_threads;
	l->poll_ns = (uint64_t)poll_us * 1000u;
	/* (one CPU: the spinning would take it from the reader and the client) */
	l->stay_awake = poll_us > 0 && sysconf(_SC_NPROCESSORS_ONLN) > 1;
	l->threads = 1;
	atomic_init(&l->state, VACANT);
	atomic_init(&l->taken, 0);
	atomic_init(&l->asleep, false);
	atomic_init(&l->watch_sleeps, false);
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->follow, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->watch, &ca);
	pthread_condattr_destroy(&ca);
	int flags = fcntl(l->fd, F_GETFL);
	int err = 0;
	pthread_t wd;
	if (flags < 0 || fcntl(l->fd, F_SETFL, flags | O_NONBLOCK) < 0)
		err = -errno;
	else if ((err = -pthread_create(&wd, NULL, watchdog, l)) == 0) {
		worker(l);
		pthread_join(wd, NULL);
		/* threads still handling a request when the session ended */
		for (unsigned i = 0; i + 1 < l->threads; i++)
			pthread_join(l->tids[i], NULL);
		err = l->error;
		pfs_log(pfs_log_totals(), "request loop: %llu requests, handed over %llu times by the "
			"watchdog and %llu times before a wait, %llu sleeps, %llu ms kept awake",
			(unsigned long long)atomic_load(&l->taken), l->handovers, l->handed,
			l->sleeps, (unsigned long long)(l->awake_ns / 1000000u));
	}
	if (flags >= 0)
		(void)fcntl(l->fd, F_SETFL, flags);
	pthread_cond_destroy(&l->watch);
	pthread_cond_destroy(&l->follow);
	pthread_mutex_destroy(&l->lock);
	free(l);
	fuse_session_reset(se);
	return err;
}
