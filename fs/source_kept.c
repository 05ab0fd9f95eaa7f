/* The generation a replaced local file had, kept open for a moment after
 * the change is seen.
 *
 * The kernel keeps a name below a file's directory (data.csv, columns/) for
 * PFS_SOURCE_TIMEOUT before it asks again, and the attributes of the inode
 * behind it (the size of data.csv) longer: a stat right after
 * `mv new.parquet a.parquet` in SOURCE shows the old generation's size
 * without asking us, and the open that follows reaches the old inode. Such
 * an open (or a stat that does ask) is served the old generation, whose file
 * is still open here, so that size and bytes always come from the same
 * generation; once the name is looked up again the new one is shown. A
 * remote generation is not kept: its reads are tied to its ETag. */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "pfs_internal.h"

/* twice the names' timeout: the kernel asks again within one */
#define KEPT_MS ((int64_t)(PFS_SOURCE_TIMEOUT * 2000))

struct pfs_kept {
	pfs_kept *next;
	pfs_pf *pf;
	int64_t until_ms;
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void pfs_kept_init(pfs_fs *fs)
{
	pthread_mutex_init(&fs->kept_lock, NULL);
	fs->kept = NULL;
	atomic_init(&fs->kept_n, 0);
}

/* Under kept_lock: unlinks the expired entries (all: every one) onto *out. */
static void take_expired(pfs_fs *fs, bool all, pfs_kept **out)
{
	int64_t now = now_ms();
	for (pfs_kept **pp = &fs->kept; *pp;) {
		pfs_kept *k = *pp;
		if (all || now >= k->until_ms) {
			*pp = k->next;
			k->next = *out;
			*out = k;
			atomic_fetch_sub(&fs->kept_n, 1);
		} else {
			pp = &k->next;
		}
	}
}

static void free_list(pfs_kept *k)
{
	while (k) {
		pfs_kept *n = k->next;
		pfs_pf_unref(k->pf);
		free(k);
		k = n;
	}
}

void pfs_kept_sweep(pfs_fs *fs, bool all)
{
	if (!all && atomic_load(&fs->kept_n) == 0)
		return; /* the usual case: nothing replaced lately, no lock taken */
	pfs_kept *gone = NULL;
	pthread_mutex_lock(&fs->kept_lock);
	take_expired(fs, all, &gone);
	pthread_mutex_unlock(&fs->kept_lock);
	free_list(gone); /* closing files: outside the lock */
	if (all)
		pthread_mutex_destroy(&fs->kept_lock);
}

void pfs_kept_add(pfs_fs *fs, pfs_pf *pf)
{
	if (fs->opts->source_kind != PFS_SRC_LOCAL || !pf->f) {
		pfs_pf_unref(pf);
		return;
	}
	pfs_kept *k = malloc(sizeof *k);
	if (!k) {
		pfs_pf_unref(pf); /* served as stale instead: the kernel looks up again */
		return;
	}
	k->pf = pf;
	k->until_ms = now_ms() + KEPT_MS;
	pfs_kept *gone = NULL;
	pthread_mutex_lock(&fs->kept_lock);
	take_expired(fs, false, &gone);
	k->next = fs->kept;
	fs->kept = k;
	atomic_fetch_add(&fs->kept_n, 1);
	pthread_mutex_unlock(&fs->kept_lock);
	free_list(gone);
}

pfs_pf *pfs_kept_get(pfs_fs *fs, const pfs_src *s, uint64_t gen)
{
	if (atomic_load(&fs->kept_n) == 0)
		return NULL;
	pfs_pf *pf = NULL;
	int64_t now = now_ms();
	pthread_mutex_lock(&fs->kept_lock);
	for (pfs_kept *k = fs->kept; k; k = k->next) {
		if (k->pf->src == s && k->pf->gen == gen && now < k->until_ms) {
			pf = k->pf;
			pfs_pf_ref(pf);
			break;
		}
	}
	pthread_mutex_unlock(&fs->kept_lock);
	return pf;
}
