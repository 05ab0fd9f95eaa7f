/* The S3 SOURCE backend (pfs_source.h): s3://BUCKET/PREFIX. A directory
 * of SOURCE is one ListObjectsV2 listing of PREFIX/rel/ with delimiter
 * '/' (every page of it): its common prefixes are the sub-directories,
 * its objects with a Parquet name (.parquet, .parq, .pq, .parquet.aruna, any case) the
 * files; nothing else is shown. A listing is kept for metadata_ttl
 * seconds and answers stat as well (no HEAD per object), so `ls -l` of a
 * directory costs its pages of listing and no object body. Files are
 * pq_sources over range GETs (remote_file.c); publishing is in
 * s3_publish.c. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pq_aruna.h"
#include "interrupt.h"
#include "loop.h"
#include "pfs.h"
#include "remote_disk.h"
#include "remote_file.h"
#include "s3_remote.h"
#include "s3_xml.h"

#define URL_MAX 4096
#define LIST_PAGES_MAX 100000 /* 100 million keys: a runaway server stops */

typedef struct s3_ent {
	char *name;
	bool is_dir;
	uint64_t size;
	char etag[PFS_ETAG_MAX];
	time_t mtime;
} s3_ent;

typedef struct s3_dir {
	struct s3_dir *next;
	char *rel;
	s3_ent *ents;     /* sorted by name */
	size_t n;
	time_t fetched;   /* monotonic seconds */
	int refs;         /* a listing being walked is not freed under it */
} s3_dir;

static time_t now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

bool pfs_s3_is_parquet_name(const char *name)
{
	static const char *const sfx[] = {".parquet", ".parq", ".pq"};
	if (pq_aruna_name(name))
		return true; /* a container of Parquet (interface.md, ARUNA containers) */
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		size_t k = strlen(sfx[i]);
		if (n > k && !strcasecmp(name + n - k, sfx[i]))
			return true;
	}
	return false;
}

/* PREFIX/rel as a key prefix ("" for the bucket's top). */
static int key_of(const pfs_s3 *s, const char *rel, char *buf, size_t n)
{
	int k = snprintf(buf, n, "%s%s%s", s->prefix, s->prefix[0] && rel[0] ? "/" : "", rel);
	return k < 0 || (size_t)k >= n ? -ENAMETOOLONG : 0;
}

int pfs_s3_object_url(const pfs_s3 *s, const char *key, char *buf, size_t n)
{
	size_t bl = strlen(s->bucket_url);
	if (bl + 2 >= n)
		return -ENAMETOOLONG;
	memcpy(buf, s->bucket_url, bl);
	buf[bl] = '/';
	return pfs_url_escape(key, true, buf + bl + 1, n - bl - 1) ? 0 : -ENAMETOOLONG;
}

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const s3_ent *)a)->name, ((const s3_ent *)b)->name);
}

static void dir_free(s3_dir *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n; i++)
		free(d->ents[i].name);
	free(d->ents);
	free(d->rel);
	free(d);
}

static int add_ent(s3_dir *d, size_t *cap, const char *name, bool is_dir, uint64_t size,
		   const char *etag, time_t mtime)
{
	if (d->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		s3_ent *ne = realloc(d->ents, nc * sizeof *ne);
		if (!ne)
			return -ENOMEM;
		d->ents = ne;
		*cap = nc;
	}
	s3_ent *e = &d->ents[d->n];
	memset(e, 0, sizeof *e);
	if (!(e->name = strdup(name)))
		return -ENOMEM;
	e->is_dir = is_dir;
	e->size = size;
	snprintf(e->etag, sizeof e->etag, "%s", etag ? etag : "");
	e->mtime = mtime;
	d->n++;
	return 0;
}

/* One page's entries into d: names below kp (the listed prefix with its
 * '/'), without further '/'. A name no path can hold is left out (and
 * logged), never the rest of the page. */
static int take_page(pfs_s3 *s, s3_dir *d, size_t *cap, const pfs_s3_page *pg, const char *kp)
{
	size_t kl = strlen(kp);
	if (pg->nbad)
		pfs_log(LOG_NOTICE, "%s: %zu keys with a malformed URL encoding left out of the "
			"listing of '%s' (the first: '%.200s')", s->display, pg->nbad, kp,
			pg->bad_example ? pg->bad_example : "");
	for (size_t i = 0; i < pg->nprefixes; i++) {
		const char *p = pg->prefixes[i];
		if (strncmp(p, kp, kl))
			continue;
		size_t nl = strlen(p + kl);
		if (!nl || p[kl + nl - 1] != '/')
			continue;
		const char *why = pfs_s3_bad_name(p + kl, nl - 1);
		if (!why && memchr(p + kl, '/', nl - 1))
			continue; /* not one level down: not this directory's */
		if (why) {
			pfs_s3_tell_left_out(s, p, why);
			continue;
		}
		char name[256];
		memcpy(name, p + kl, nl - 1);
		name[nl - 1] = '\0';
		if (add_ent(d, cap, name, true, 0, NULL, 0))
			return -ENOMEM;
	}
	for (size_t i = 0; i < pg->nobjs; i++) {
		const pfs_s3_obj *o = &pg->objs[i];
		if (strncmp(o->key, kp, kl))
			continue;
		const char *name = o->key + kl;
		if (!name[0] || strchr(name, '/') || !pfs_s3_is_parquet_name(name))
			continue;
		const char *why = pfs_s3_bad_name(name, strlen(name));
		if (why) {
			pfs_s3_tell_left_out(s, o->key, why);
			continue;
		}
		if (add_ent(d, cap, name, false, o->size, o->etag, o->mtime))
			return -ENOMEM;
	}
	return 0;
}

static int list_fetch(pfs_s3 *s, const char *rel, s3_dir **out, pq_error *err)
{
	*out = NULL;
	char kp[PFS_S3_KEY_MAX + 2], ekp[3 * sizeof kp], url[URL_MAX];
	if (key_of(s, rel, kp, sizeof kp - 1))
		return pq_fail(err, PQ_EIO, "%s: the path is too long", rel), -ENAMETOOLONG;
	if (kp[0])
		strcat(kp, "/");
	if (!pfs_url_escape(kp, false, ekp, sizeof ekp))
		return pq_fail(err, PQ_EIO, "%s: the path is too long", rel), -ENAMETOOLONG;
	s3_dir *d = calloc(1, sizeof *d);
	if (!d || !(d->rel = strdup(rel))) {
		free(d);
		return pq_fail(err, PQ_ENOMEM, "no memory"), -ENOMEM;
	}
	size_t cap = 0;
	char *token = NULL;
	int rc = 0;
	for (int page = 0; page < LIST_PAGES_MAX; page++) {
		/* query parameters in sorted order: SigV4 signs them as given */
		char *etok = NULL;
		if (token) {
			size_t tl = 3 * strlen(token) + 1;
			etok = malloc(tl);
			if (!etok || !pfs_url_escape(token, false, etok, tl)) {
				free(etok);
				rc = -ENOMEM;
				pq_fail(err, PQ_ENOMEM, "no memory");
				break;
			}
		}
		/* keys URL-encoded (encoding-type=url), as the AWS SDKs ask:
		 * a key may hold any byte, and XML 1.0 cannot carry control
		 * characters (a server answers them as &#x1;, which XML
		 * parsers refuse) */
		int k = snprintf(url, sizeof url,
				 "%s%s?%s%s%sdelimiter=%%2F&encoding-type=url&list-type=2%s%s",
				 s->bucket_url, s->conf.path_style ? "" : "/",
				 etok ? "continuation-token=" : "", etok ? etok : "", etok ? "&" : "",
				 kp[0] ? "&prefix=" : "", ekp);
		free(etok);
		if (k < 0 || (size_t)k >= sizeof url) {
			rc = -ENAMETOOLONG;
			pq_fail(err, PQ_EIO, "%s: the listing URL is too long", rel);
			break;
		}
		pfs_http_req rq = {.method = "GET", .url = url, .fd = -1,
				   .max_body = (size_t)64 << 20};
		pfs_http_resp rs;
		pq_status st = pfs_http_do(s->http, &rq, &rs, err);
		if (st == PQ_OK && rs.status != 200) {
			char what[64];
			snprintf(what, sizeof what, "listing (ListObjectsV2)");
			st = pfs_remote_fail(&rs, s->display, what, err);
			rc = rs.status == 403 ? -EACCES : rs.status == 404 ? -ENOENT : -EIO;
		} else if (st != PQ_OK) {
			pq_context(err, "%s: listing", s->display);
			rc = -EIO;
		}
		pfs_s3_page pg = {0};
		if (st == PQ_OK && (st = pfs_s3_parse_list(rs.body ? rs.body : "", rs.body_len,
							   &pg, err)) != PQ_OK) {
			pq_context(err, "%s", s->display);
			rc = -EIO;
		}
		free(rs.body);
		if (st != PQ_OK) {
			if (!rc)
				rc = -EIO;
			break;
		}
		rc = take_page(s, d, &cap, &pg, kp);
		free(token);
		token = pg.truncated && pg.next_token ? strdup(pg.next_token) : NULL;
		bool more = pg.truncated && pg.next_token;
		pfs_s3_page_free(&pg);
		if (rc) {
			pq_fail(err, PQ_ENOMEM, "no memory");
			break;
		}
		if (!more)
			break;
		if (!token) {
			rc = -ENOMEM;
			pq_fail(err, PQ_ENOMEM, "no memory");
			break;
		}
	}
	free(token);
	if (rc) {
		dir_free(d);
		return rc;
	}
	qsort(d->ents, d->n, sizeof *d->ents, ent_cmp);
	/* an object and a prefix of one name: the directory wins */
	size_t w = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (w && !strcmp(d->ents[w - 1].name, d->ents[i].name)) {
			if (d->ents[i].is_dir) {
				free(d->ents[w - 1].name);
				d->ents[w - 1] = d->ents[i];
			} else {
				free(d->ents[i].name);
			}
			continue;
		}
		d->ents[w++] = d->ents[i];
	}
	d->n = w;
	d->fetched = now_s();
	*out = d;
	return 0;
}

/* The listing of rel, fresh within metadata_ttl (one reference). One
 * listing of a directory at a time: concurrent lookups of it wait for the
 * one under way instead of listing it again (interruptibly); listings of
 * other directories never wait behind it (a stalled one held up every
 * `ls` of the mount). */
static int dir_get(pfs_s3 *s, const char *rel, s3_dir **out)
{
	pthread_mutex_lock(&s->lock);
	s3_dir **pp, *d;
	for (;;) {
		for (pp = &s->dirs, d = *pp; d && strcmp(d->rel, rel); pp = &d->next, d = *pp)
			;
		if (d && now_s() - d->fetched <= s->ttl) {
			d->refs++;
			pthread_mutex_unlock(&s->lock);
			*out = d;
			return 0;
		}
		bool busy = false;
		for (size_t i = 0; i < s->nlisting && !busy; i++)
			busy = !strcmp(s->listing[i], rel);
		if (!busy)
			break;
		pfs_loop_will_wait();
		if (pfs_intr_arm()) {
			pthread_mutex_unlock(&s->lock);
			return -EINTR;
		}
		pfs_intr_timedwait(&s->listed, &s->lock);
	}
	/* this thread lists rel; its name stays in s->listing meanwhile */
	const char **nl = realloc(s->listing, (s->nlisting + 1) * sizeof *nl);
	if (!nl) {
		pthread_mutex_unlock(&s->lock);
		return -ENOMEM;
	}
	s->listing = nl;
	s->listing[s->nlisting++] = rel;
	unsigned forgets = s->forgets;
	pthread_mutex_unlock(&s->lock);
	pq_error err = {0};
	s3_dir *nd = NULL;
	int rc = list_fetch(s, rel, &nd, &err);
	if (rc)
		pfs_log(LOG_NOTICE, "%s", err.msg);
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < s->nlisting; i++) {
		if (s->listing[i] == rel) {
			s->listing[i] = s->listing[--s->nlisting];
			break;
		}
	}
	pthread_cond_broadcast(&s->listed);
	if (rc) {
		pthread_mutex_unlock(&s->lock);
		return rc;
	}
	for (pp = &s->dirs, d = *pp; d && strcmp(d->rel, rel); pp = &d->next, d = *pp)
		;
	if (d) { /* replaced: freed by its last user */
		*pp = d->next;
		d->next = NULL;
		if (--d->refs == 0)
			dir_free(d);
	}
	/* a publish during the listing: it may predate the new object, so
	 * it answers this caller only, and the next one lists again */
	if (s->forgets != forgets)
		nd->fetched = now_s() - s->ttl - 1;
	nd->refs = 2; /* the list's and the caller's */
	nd->next = s->dirs;
	s->dirs = nd;
	pthread_mutex_unlock(&s->lock);
	*out = nd;
	return 0;
}

static void dir_put(pfs_s3 *s, s3_dir *d)
{
	pthread_mutex_lock(&s->lock);
	bool last = --d->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (last)
		dir_free(d);
}

static void fill_stat(const pfs_s3 *s, const s3_ent *e, struct stat *st, pq_identity *id,
		      const char *url)
{
	memset(st, 0, sizeof *st);
	st->st_mode = e->is_dir ? S_IFDIR | 0555 : S_IFREG | 0444;
	st->st_nlink = e->is_dir ? 2 : 1;
	st->st_uid = s->uid;
	st->st_gid = s->gid;
	st->st_size = e->is_dir ? 0 : (off_t)e->size;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((e->size + 511) / 512);
	st->st_mtim.tv_sec = e->mtime;
	st->st_ctim = st->st_atim = st->st_mtim;
	if (e->is_dir)
		id->len = 0;
	else
		pfs_remote_identity(url, e->size, e->etag, id);
}

static int s3_list(void *be, const char *rel, pfs_source_list_fn fn, void *ctx)
{
	pfs_s3 *s = be;
	s3_dir *d;
	int rc = dir_get(s, rel, &d);
	if (rc)
		return rc;
	char key[PFS_S3_KEY_MAX + 2], url[URL_MAX];
	for (size_t i = 0; rc == 0 && i < d->n; i++) {
		struct stat st;
		pq_identity id;
		const s3_ent *e = &d->ents[i];
		url[0] = '\0';
		if (!e->is_dir) {
			char r2[PFS_S3_KEY_MAX + 2];
			snprintf(r2, sizeof r2, "%s%s%s", rel, rel[0] ? "/" : "", e->name);
			if (key_of(s, r2, key, sizeof key) || pfs_s3_object_url(s, key, url, sizeof url))
				continue;
		}
		fill_stat(s, e, &st, &id, url);
		rc = fn(ctx, e->name, &st, &id);
	}
	/* directories made in staging/ that hold nothing yet */
	size_t rl = strlen(rel);
	for (size_t i = 0; rc == 0; i++) {
		char name[PFS_S3_KEY_MAX + 1] = "";
		pthread_mutex_lock(&s->lock);
		bool more = i < s->nvdirs;
		if (more) {
			const char *v = s->vdirs[i];
			const char *tail = rl ? (!strncmp(v, rel, rl) && v[rl] == '/' ? v + rl + 1 : NULL)
					      : v;
			if (tail && *tail && !strchr(tail, '/'))
				snprintf(name, sizeof name, "%s", tail);
		}
		pthread_mutex_unlock(&s->lock);
		if (!more)
			break;
		s3_ent k = {.name = name};
		if (!name[0] || bsearch(&k, d->ents, d->n, sizeof *d->ents, ent_cmp))
			continue;
		struct stat st;
		pq_identity id;
		s3_ent v = {.name = name, .is_dir = true};
		fill_stat(s, &v, &st, &id, "");
		rc = fn(ctx, name, &st, &id);
	}
	dir_put(s, d);
	return rc;
}

static int find(pfs_s3 *s, const char *rel, s3_ent *out);

static bool vdir_has(pfs_s3 *s, const char *rel)
{
	pthread_mutex_lock(&s->lock);
	bool has = false;
	for (size_t i = 0; i < s->nvdirs && !has; i++)
		has = !strcmp(s->vdirs[i], rel);
	pthread_mutex_unlock(&s->lock);
	return has;
}

int pfs_s3_vdir_add(pfs_s3 *s, const char *rel)
{
	if (vdir_has(s, rel))
		return -EEXIST;
	s3_ent e;
	int rc = find(s, rel, &e);
	if (rc == 0)
		return -EEXIST;
	if (rc != -ENOENT)
		return rc;
	pthread_mutex_lock(&s->lock);
	char **nv = s->nvdirs < 4096 ? realloc(s->vdirs, (s->nvdirs + 1) * sizeof *nv) : NULL;
	char *d = nv ? strdup(rel) : NULL;
	if (nv)
		s->vdirs = nv;
	if (d)
		s->vdirs[s->nvdirs++] = d;
	pthread_mutex_unlock(&s->lock);
	return d ? 0 : -ENOMEM;
}

int pfs_s3_vdir_remove(pfs_s3 *s, const char *rel)
{
	s3_dir *d;
	int rc = dir_get(s, rel, &d);
	if (rc)
		return rc;
	bool empty = d->n == 0;
	dir_put(s, d);
	pthread_mutex_lock(&s->lock);
	size_t i = 0;
	while (i < s->nvdirs && strcmp(s->vdirs[i], rel))
		i++;
	bool had = i < s->nvdirs;
	if (had && empty) {
		free(s->vdirs[i]);
		s->vdirs[i] = s->vdirs[--s->nvdirs];
	}
	pthread_mutex_unlock(&s->lock);
	return !empty ? -ENOTEMPTY : had ? 0 : -ENOENT;
}

/* The entry of rel in its parent's listing (a copy). */
static int find(pfs_s3 *s, const char *rel, s3_ent *out)
{
	char parent[PFS_S3_KEY_MAX + 2];
	if (strlen(rel) > PFS_S3_KEY_MAX)
		return -ENAMETOOLONG;
	snprintf(parent, sizeof parent, "%s", rel);
	char *slash = strrchr(parent, '/');
	const char *name = slash ? slash + 1 : rel;
	if (slash)
		*slash = '\0';
	else
		parent[0] = '\0';
	s3_dir *d;
	int rc = dir_get(s, parent, &d);
	if (rc)
		return rc == -ENOENT ? -ENOENT : rc;
	s3_ent k = {.name = (char *)name};
	s3_ent *e = bsearch(&k, d->ents, d->n, sizeof *d->ents, ent_cmp);
	if (e) {
		*out = *e;
		out->name = NULL;
	}
	dir_put(s, d);
	if (!e && vdir_has(s, rel)) {
		memset(out, 0, sizeof *out);
		out->is_dir = true;
		return 0;
	}
	return e ? 0 : -ENOENT;
}

static int s3_stat(void *be, const char *rel, struct stat *st, pq_identity *id)
{
	pfs_s3 *s = be;
	s3_ent e = {.is_dir = true};
	if (rel[0]) {
		int rc = find(s, rel, &e);
		if (rc)
			return rc;
	}
	char key[PFS_S3_KEY_MAX + 2], url[URL_MAX] = "";
	if (!e.is_dir && (key_of(s, rel, key, sizeof key) || pfs_s3_object_url(s, key, url, sizeof url)))
		return -ENAMETOOLONG;
	fill_stat(s, &e, st, id, url);
	return 0;
}

static int s3_sniff(void *be, const char *rel)
{
	(void)be;
	/* by name: `ls` reads no object body (a non-Parquet object shows
	 * error.txt once opened) */
	const char *slash = strrchr(rel, '/');
	return pfs_s3_is_parquet_name(slash ? slash + 1 : rel);
}

static pq_status s3_open(void *be, const char *rel, pq_source **out, pq_error *err)
{
	pfs_s3 *s = be;
	*out = NULL;
	const char *slash = strrchr(rel, '/');
	const char *name = slash ? slash + 1 : rel;
	s3_ent e;
	int rc = find(s, rel, &e);
	if (rc == 0 && e.is_dir)
		rc = -EISDIR;
	if (rc)
		return pq_fail(err, rc == -EACCES ? PQ_EKEY : PQ_EIO, "%s: cannot open: %s", name,
			       strerror(-rc));
	char key[PFS_S3_KEY_MAX + 2], url[URL_MAX];
	if (key_of(s, rel, key, sizeof key) || pfs_s3_object_url(s, key, url, sizeof url))
		return pq_fail(err, PQ_EIO, "%s: cannot open: %s", name, strerror(ENAMETOOLONG));
	return pfs_remote_open(s->http, &s->budget, url, name, e.size, e.etag, out, err);
}

/* A bucket has no capacity to report; what bounds writing through the
 * mount is the spool: staged bytes stay in spool_dir until uploaded. So
 * df shows the spool's file system (its size, free space and inodes);
 * without a spool, "unknown" (zeros) as before. */
static int s3_statfs(void *be, struct statvfs *sv)
{
	pfs_s3 *s = be;
	if (s->spool_dir && statvfs(s->spool_dir, sv) == 0)
		return 0;
	memset(sv, 0, sizeof *sv);
	sv->f_bsize = sv->f_frsize = 4096;
	sv->f_namemax = 255;
	return 0;
}

void pfs_s3_forget(pfs_s3 *s, const char *rel)
{
	pthread_mutex_lock(&s->lock);
	s->forgets++;
	for (s3_dir **pp = &s->dirs, *d = *pp; d; d = *pp) {
		if (!strcmp(d->rel, rel)) {
			*pp = d->next;
			d->next = NULL;
			if (--d->refs == 0)
				dir_free(d);
			break;
		}
		pp = &d->next;
	}
	pthread_mutex_unlock(&s->lock);
}

static void s3_free(void *be)
{
	pfs_s3 *s = be;
	for (s3_dir *d = s->dirs, *n; d; d = n) {
		n = d->next;
		dir_free(d);
	}
	for (size_t i = 0; i < s->nvdirs; i++)
		free(s->vdirs[i]);
	free(s->vdirs);
	free(s->told);
	pfs_ra_budget_quiesce(&s->budget);
	pfs_http_free(s->http);
	pfs_s3_conf_clear(&s->conf);
	free(s->listing);
	pthread_cond_destroy(&s->listed);
	pthread_mutex_destroy(&s->lock);
	pfs_disk_free(s->budget.disk);
	pfs_ra_budget_destroy(&s->budget);
	free(s->spool_dir);
	free(s);
}

static void s3_lend(void *be, pq_budget *mem)
{
	pfs_ra_budget_lend(&((pfs_s3 *)be)->budget, mem);
}

static uint64_t s3_reclaim(void *be, uint64_t need)
{
	return pfs_ra_budget_reclaim(&((pfs_s3 *)be)->budget, need);
}

static void s3_counts(void *be, uint64_t *requests, uint64_t *bytes)
{
	pfs_http_counts(((pfs_s3 *)be)->http, requests, bytes);
}

static const pfs_source_ops s3_ops = {
	.list = s3_list,
	.stat = s3_stat,
	.sniff = s3_sniff,
	.open = s3_open,
	.statfs = s3_statfs,
	.free = s3_free,
	.publish = &pfs_s3_publish_ops,
	.lend = s3_lend,
	.reclaim = s3_reclaim,
	.counts = s3_counts,
};

static pq_status check_access(pfs_s3 *s, pq_error *err)
{
	char kp[PFS_S3_KEY_MAX + 2], ekp[3 * sizeof kp], url[URL_MAX];
	snprintf(kp, sizeof kp, "%s%s", s->prefix, s->prefix[0] ? "/" : "");
	if (!pfs_url_escape(kp, false, ekp, sizeof ekp))
		return pq_fail(err, PQ_EINVAL, "%s: the prefix is too long", s->display);
	int k = snprintf(url, sizeof url, "%s%s?delimiter=%%2F&list-type=2&max-keys=1%s%s",
			 s->bucket_url, s->conf.path_style ? "" : "/", kp[0] ? "&prefix=" : "", ekp);
	if (k < 0 || (size_t)k >= sizeof url)
		return pq_fail(err, PQ_EINVAL, "%s: the URL is too long", s->display);
	pfs_http_req rq = {.method = "GET", .url = url, .fd = -1, .max_body = (size_t)1 << 20,
			   .probe = true};
	pfs_http_resp rs;
	pq_status st = pfs_http_do(s->http, &rq, &rs, err);
	if (st != PQ_OK)
		pq_context(err, "%s: listing (ListObjectsV2)", s->display);
	else if (rs.status != 200)
		st = pfs_remote_fail(&rs, s->display, "listing (ListObjectsV2)", err);
	free(rs.body);
	return st;
}

static const char *env_get(const char *name)
{
	return getenv(name);
}

pq_status pfs_source_s3_new(const pfs_remote_opts *ro, pfs_source **out, pq_error *err)
{
	*out = NULL;
	pfs_s3 *s = calloc(1, sizeof *s);
	pfs_source *src = calloc(1, sizeof *src);
	if (!s || !src) {
		free(s);
		free(src);
		return pq_fail(err, PQ_ENOMEM, "no memory");
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->listed, NULL);
	s->uid = getuid();
	s->gid = getgid();
	s->ttl = ro->metadata_ttl;
	pfs_ra_budget_init(&s->budget, ro->readahead_budget);
	if (ro->cache_dir)
		s->budget.disk = pfs_disk_new(ro->cache_dir, ro->cache_dir_size);
	snprintf(s->display, sizeof s->display, "%s", ro->url);
	pq_status st = PQ_OK;
	if (ro->spool_dir && !(s->spool_dir = strdup(ro->spool_dir)))
		st = pq_fail(err, PQ_ENOMEM, "no memory");
	if (st == PQ_OK && !pfs_s3_split_url(ro->url, s->bucket, sizeof s->bucket, s->prefix,
					     sizeof s->prefix))
		st = pq_fail(err, PQ_EINVAL, "%s: expected s3://BUCKET[/PREFIX]", ro->url);
	if (st == PQ_OK)
		st = pfs_s3_conf_resolve(&ro->s3, env_get, &s->conf, err);
	if (st == PQ_OK && !pfs_s3_bucket_url(&s->conf, s->bucket, s->bucket_url,
					      sizeof s->bucket_url))
		st = pq_fail(err, PQ_EINVAL, "the endpoint is too long");
	if (st == PQ_OK) {
		pfs_http_conf hc = {.ca_file = ro->ca_file, .timeout_s = ro->timeout_s,
				    .connect_timeout_s = ro->connect_timeout_s,
				    .retries = ro->retries, .backoff_ms = ro->backoff_ms};
		if (s->conf.sign) {
			hc.region = s->conf.region;
			hc.access_key = s->conf.access_key;
			hc.secret_key = s->conf.secret_key;
			hc.session_token = s->conf.session_token;
		}
		st = pfs_http_new(&hc, &s->http, err);
	}
	src->ops = &s3_ops;
	src->be = s;
	if (st != PQ_OK) {
		pfs_source_free(src);
		return st;
	}
	/* the mount-time check: one request (a page of at most one key) that
	 * proves bucket, endpoint and credentials; the first ls lists */
	st = check_access(s, err);
	if (st != PQ_OK) {
		pfs_source_free(src);
		return st;
	}
	*out = src;
	return PQ_OK;
}
