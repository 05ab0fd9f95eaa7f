/* Kernel cache invalidation from a thread of its own.
 *
 * fuse_lowlevel_notify_inval_* must not run inside the request that
 * caused it (the kernel may hold the inode's locks while waiting for our
 * reply), so requests only queue what to invalidate. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pfs_internal.h"

#define WAIT_SECONDS 2

typedef struct item {
	struct item *next;
	uint64_t seq;
	fuse_ino_t ino;      /* inode, or parent of name */
	char *name;          /* NULL: invalidate the inode */
} item;

struct pfs_notify {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_cond_t done_cond;  /* pfs_notify_wait */
	uint64_t pushed, done;     /* sequence numbers of items */
	item *head, *tail;
	bool stop, started;
	pthread_t thread;
	struct fuse_session *se;
};

pfs_notify *pfs_notify_new(void)
{
	pfs_notify *n = calloc(1, sizeof *n);
	if (!n)
		return NULL;
	pthread_mutex_init(&n->lock, NULL);
	pthread_cond_init(&n->cond, NULL);
	pthread_cond_init(&n->done_cond, NULL);
	return n;
}

static void *run(void *arg)
{
	pfs_notify *n = arg;
	/* tests: a notifier that lags (a busy machine), to show that nothing
	 * correct depends on when queued invalidations land */
	const char *lag = getenv("PARQUETFS_TEST_NOTIFY_LAG_MS");
	long lag_ms = lag ? strtol(lag, NULL, 10) : 0;
	pthread_mutex_lock(&n->lock);
	for (;;) {
		while (!n->head && !n->stop)
			pthread_cond_wait(&n->cond, &n->lock);
		if (n->stop)
			break;
		item *it = n->head;
		n->head = it->next;
		if (!n->head)
			n->tail = NULL;
		pthread_mutex_unlock(&n->lock);
		if (lag_ms > 0 && lag_ms < 10000)
			nanosleep(&(struct timespec){lag_ms / 1000, lag_ms % 1000 * 1000000}, NULL);
		int rc = it->name
			 ? fuse_lowlevel_notify_inval_entry(n->se, it->ino, it->name, strlen(it->name))
			 : fuse_lowlevel_notify_inval_inode(n->se, it->ino, 0, 0);
		/* -ENOENT: the kernel had nothing cached; fine */
		if (rc && rc != -ENOENT)
			pfs_log(LOG_DEBUG, "cache invalidation of inode %llu failed: %s",
				(unsigned long long)it->ino, strerror(-rc));
		uint64_t seq = it->seq;
		free(it->name);
		free(it);
		pthread_mutex_lock(&n->lock);
		n->done = seq;
		pthread_cond_broadcast(&n->done_cond);
	}
	pthread_mutex_unlock(&n->lock);
	return NULL;
}

int pfs_notify_start(pfs_notify *n, struct fuse_session *se)
{
	n->se = se;
	int rc = pthread_create(&n->thread, NULL, run, n);
	if (rc == 0)
		n->started = true;
	return -rc;
}

void pfs_notify_stop(pfs_notify *n)
{
	if (!n)
		return;
	pthread_mutex_lock(&n->lock);
	n->stop = true;
	pthread_cond_signal(&n->cond);
	pthread_cond_broadcast(&n->done_cond);
	bool started = n->started;
	n->started = false;
	pthread_mutex_unlock(&n->lock);
	if (started)
		pthread_join(n->thread, NULL);
}

void pfs_notify_free(pfs_notify *n)
{
	if (!n)
		return;
	pfs_notify_stop(n);
	for (item *it = n->head, *next; it; it = next) {
		next = it->next;
		free(it->name);
		free(it);
	}
	pthread_cond_destroy(&n->cond);
	pthread_cond_destroy(&n->done_cond);
	pthread_mutex_destroy(&n->lock);
	free(n);
}

static void push(pfs_notify *n, fuse_ino_t ino, const char *name)
{
	item *it = calloc(1, sizeof *it);
	if (!it)
		return;
	it->ino = ino;
	if (name && !(it->name = strdup(name))) {
		free(it);
		return;
	}
	pthread_mutex_lock(&n->lock);
	if (!n->started) { /* not mounted yet: nothing to tell */
		pthread_mutex_unlock(&n->lock);
		free(it->name);
		free(it);
		return;
	}
	it->seq = ++n->pushed;
	if (n->tail)
		n->tail->next = it;
	else
		n->head = it;
	n->tail = it;
	pthread_cond_signal(&n->cond);
	pthread_mutex_unlock(&n->lock);
}

void pfs_notify_inode(pfs_notify *n, fuse_ino_t ino)
{
	push(n, ino, NULL);
}

/* Safe from a request, for a directory only: the kernel fills and reads a
 * directory's cached listing (its pages) with no request in flight, so no
 * request we serve can hold what dropping it waits for. (A regular file's
 * pages are locked while its READ waits for us; a name's invalidation
 * needs its parent's lock, which a LOOKUP in it holds.) */
void pfs_notify_dir_now(pfs_notify *n, fuse_ino_t ino)
{
	pthread_mutex_lock(&n->lock);
	struct fuse_session *se = n->started && !n->stop ? n->se : NULL;
	pthread_mutex_unlock(&n->lock);
	if (!se)
		return; /* not mounted yet: nothing to tell */
	int rc = fuse_lowlevel_notify_inval_inode(se, ino, 0, 0);
	if (rc && rc != -ENOENT)
		push(n, ino, NULL);
}

void pfs_notify_entry(pfs_notify *n, fuse_ino_t parent, const char *name)
{
	push(n, parent, name);
}

void pfs_notify_wait(pfs_notify *n)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += WAIT_SECONDS;
	pthread_mutex_lock(&n->lock);
	uint64_t want = n->pushed;
	/* a bound, not a promise: an invalidation blocked on a kernel lock
	 * must not hold the request that waits for it forever */
	while (n->started && !n->stop && n->done < want)
		if (pthread_cond_timedwait(&n->done_cond, &n->lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&n->lock);
}
