/* The open handles of the mount (files, directories, staging files).
 * The kernel drops the releases still queued when the filesystem is
 * unmounted; the handles those would have freed are freed at exit from
 * this list, each by the drop function of whoever opened it. */
#include "config.h"

#include "pfs_internal.h"

void pfs_live_init(pfs_fs *fs)
{
	pthread_mutex_init(&fs->live_lock, NULL);
	fs->live.prev = fs->live.next = &fs->live;
}

void pfs_live_add(pfs_fs *fs, pfs_live *l, pfs_live_drop_fn drop)
{
	pthread_mutex_lock(&fs->live_lock);
	l->drop = drop;
	l->prev = &fs->live;
	l->next = fs->live.next;
	fs->live.next->prev = l;
	fs->live.next = l;
	pthread_mutex_unlock(&fs->live_lock);
}

void pfs_live_del(pfs_fs *fs, pfs_live *l)
{
	pthread_mutex_lock(&fs->live_lock);
	if (l->next) {
		l->prev->next = l->next;
		l->next->prev = l->prev;
		l->prev = l->next = NULL;
	}
	pthread_mutex_unlock(&fs->live_lock);
}

void pfs_live_drop_all(pfs_fs *fs)
{
	for (;;) {
		pthread_mutex_lock(&fs->live_lock);
		pfs_live *l = fs->live.next;
		pthread_mutex_unlock(&fs->live_lock);
		if (l == &fs->live)
			break;
		l->drop(fs, l); /* unlinks it */
	}
	pthread_mutex_destroy(&fs->live_lock);
}
