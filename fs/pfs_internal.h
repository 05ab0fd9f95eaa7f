/* Private to fs/: the pieces of the filesystem and how they meet.
 *
 *   source.c  SOURCE: directories, Parquet files, generations, over a
 *             backend (pfs_source.h; source_local.c: the local directory)
 *   inode.c   key -> stable inode number (never reused while mounted)
 *   kinds.c   the table of entry kinds (kinds.h): names, places, pools,
 *             renderers, sizes
 *   tree.c    the virtual tree of one Parquet file (names, kinds)
 *   cache.c   bounded LRU of layouts, decoded pages and rendered texts
 *   content.c bytes and sizes of each entry kind, via core/include/pq_file.h
 *   stream.c  resumable rendering of the large aggregate entries
 *   size_pass.c the aggregates' sizes: cache, size index (size_index.c),
 *             else one size pass per file generation
 *   notify.c  kernel cache invalidation, off the request threads
 *   ops.c     the FUSE low-level operations of the read-only tree
 *   live.c    the open handles (freed at exit when no release came)
 *   memory.c  the mount's memory budget (cache_size): reclaim, trimming,
 *             the unmount report
 *   log.c     logging
 *   staging*.c the writable staging/ folder (staging_internal.h), a layer
 *             around ops.c's operations (staging_ops.c)
 */
#ifndef PFS_INTERNAL_H
#define PFS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include <fuse_lowlevel.h>

#include "pfs.h"
#include "pq_budget.h"
#include "pq_buf.h"
#include "pq_file.h"
#include "pq_io.h"

#define PFS_DICT UINT32_MAX            /* "page" number of a dictionary page */
#define PFS_SIZE_UNKNOWN UINT64_MAX
/* What a segment the size pass could not measure (a page that does not
 * decode) counts in the st_size of the entries holding it: a reader
 * reaches it and gets EIO (size_pass.c). */
#define PFS_FAILED_BYTES 1
#define PFS_META_MIN ((uint64_t)16 << 20) /* least memory for layouts and metadata */

/* Timeouts (seconds). Entries whose content is fixed by a file generation
 * are cached long; the entries of SOURCE itself (directories, the Parquet
 * files' directories) only briefly, so a changed file is noticed soon.
 * doc/design.md explains the choice. */
#define PFS_SOURCE_TIMEOUT 1.0
#define PFS_FILE_TIMEOUT 86400.0

/* What an inode is. Kinds up to PFS_K_FILE live in SOURCE's namespace; the
 * others live inside one generation of one Parquet file. */
typedef enum pfs_kind {
	PFS_K_NONE = 0,
	PFS_K_SRC_DIR,        /* a directory of SOURCE (key.gen = source id) */
	PFS_K_FILE,           /* a Parquet file's directory (key.gen = source id) */
	/* staging/ (key.gen = staging entry id; node->src is NULL) */
	PFS_K_STG_DIR,        /* staging/ and its sub-directories */
	PFS_K_STG_FILE,       /* a staged .csv .tsv .schema .parquet */
	PFS_K_STG_ERROR,      /* its .error */
	/* file level (key.gen = file generation) */
	PFS_K_FILE_ERROR,     /* error.txt of a file that cannot be opened */
	PFS_K_SCHEMA,
	PFS_K_META_TXT,
	PFS_K_META_JSON,
	PFS_K_FOOTER,
	PFS_K_VERIFY,
	PFS_K_CSV,
	PFS_K_JSONL,
	PFS_K_FILE_PARQUET,   /* file.parquet: the original bytes */
	PFS_K_COLUMNS,        /* columns/ */
	PFS_K_COLUMN,         /* columns/<dir>/ (col) */
	PFS_K_COLUMN_VALUES,  /* columns/<dir>/values.txt (col) */
	PFS_K_COLUMN_STATS,   /* columns/<dir>/stats.txt (col) */
	PFS_K_RGS,            /* row_groups/ */
	/* row group level (rg) */
	PFS_K_RG,
	PFS_K_RG_META_TXT,
	PFS_K_RG_META_JSON,
	PFS_K_RG_CSV,
	PFS_K_RG_JSONL,
	PFS_K_RG_COLUMNS,
	/* chunk level (rg, col) */
	PFS_K_CHUNK,
	PFS_K_CHUNK_ERROR,
	PFS_K_CHUNK_META_TXT,
	PFS_K_CHUNK_META_JSON,
	PFS_K_CHUNK_VALUES,
	PFS_K_CHUNK_LEVELS,
	PFS_K_CHUNK_BIN,
	PFS_K_DICT,           /* the name dictionary/ only: its key is (PAGE, page PFS_DICT) */
	PFS_K_PAGES,
	PFS_K_COLUMN_INDEX,
	PFS_K_OFFSET_INDEX,
	PFS_K_BLOOM_BIN,
	PFS_K_BLOOM_TXT,
	/* page level (rg, col, page; page = PFS_DICT for dictionary/) */
	PFS_K_PAGE,
	PFS_K_PAGE_ERROR,
	PFS_K_PAGE_HDR_TXT,
	PFS_K_PAGE_HDR_JSON,
	PFS_K_PAGE_RAW,
	PFS_K_PAGE_DATA,
	PFS_K_PAGE_VALUES,
	PFS_K_PAGE_LEVELS,
	/* cache-only objects, never inodes */
	PFS_C_LAYOUT,         /* pq_chunk_layout (rg, col) */
	PFS_C_PAGE_DATA,      /* pq_page_data (rg, col, page) */
	PFS_C_CSV_HEADER,     /* text of the CSV header line */
	PFS_C_SIZES,          /* pq_file_sizes of the generation (size_pass.c) */
	PFS_C_SHAPES,         /* pfs_file_shapes of the generation (shape.c, from the index) */
	PFS_K_COUNT
} pfs_kind;

/* What names an entry (doc/design.md, "The tree and its keys"). str is
 * for entries named by a string rather than by numbers (such as a future
 * where/<col>=<value>/): the id of an interned string, 0 for none. It is
 * hashed and compared like the rest, so two such entries differing only
 * in their string are two inodes. Nothing sets it yet. */
typedef struct pfs_key {
	uint64_t gen;
	uint32_t kind, rg, col, page;
	uint64_t str;
} pfs_key;

static inline pfs_key pfs_key_make(uint64_t gen, pfs_kind kind, uint32_t rg, uint32_t col,
				   uint32_t page)
{
	pfs_key k = {gen, (uint32_t)kind, rg, col, page, 0};
	return k;
}

static inline bool pfs_key_eq(const pfs_key *a, const pfs_key *b)
{
	return a->gen == b->gen && a->kind == b->kind && a->rg == b->rg && a->col == b->col &&
	       a->page == b->page && a->str == b->str;
}

uint64_t pfs_key_hash(const pfs_key *k);

/* Lookups in the table of kinds (kinds.c, kinds.h). */
bool pfs_kind_is_dir(pfs_kind k);
bool pfs_kind_is_stream(pfs_kind k);
/* True for the aggregates: entries whose size comes from the size pass. */
bool pfs_kind_is_aggregate(pfs_kind k);
bool pfs_kind_is_staging(pfs_kind k);

typedef struct pfs_src pfs_src;
typedef struct pfs_pf pfs_pf;
typedef struct pfs_staging pfs_staging;

/* ---- inode.c ---------------------------------------------------------------- */

typedef struct pfs_node {
	fuse_ino_t ino;
	pfs_key key;
	pfs_src *src;              /* the SOURCE entry it belongs to */
	_Atomic uint64_t size;     /* PFS_SIZE_UNKNOWN until computed */
	struct pfs_node *hnext;
} pfs_node;

typedef struct pfs_inodes pfs_inodes;
pfs_inodes *pfs_inodes_new(void);
void pfs_inodes_free(pfs_inodes *t);
/* The node of a key, created on first use (NULL only when out of memory). */
pfs_node *pfs_inode_get(pfs_inodes *t, const pfs_key *k, pfs_src *src);
pfs_node *pfs_inode_find(pfs_inodes *t, const pfs_key *k);
pfs_node *pfs_inode_by_ino(pfs_inodes *t, fuse_ino_t ino);

/* ---- source.c --------------------------------------------------------------- */

struct pfs_src {
	struct pfs_src *hnext;
	char *rel;                 /* path under SOURCE ("" for SOURCE itself) */
	char *path;                /* SOURCE/rel, for messages (reads go through the backend) */
	const char *name;          /* last component of rel (points into rel) */
	uint64_t id;               /* stable while mounted */
	bool is_file;              /* a Parquet file (else a directory) */
	fuse_ino_t parent_ino;     /* directory holding its entry (0: the root) */
	pthread_mutex_t lock;
	/* files only, under lock: */
	uint64_t gen;              /* current generation, changes with the file */
	struct stat st;            /* the attributes the generation was taken from */
	pq_identity ident;         /* and its identity */
	pfs_pf *pf;                /* opened on first access; NULL before */
	/* a thread opens pf (without the lock: a remote footer may stall,
	 * and listings, stats and other files need the lock meanwhile);
	 * others wait on opened */
	bool opening;
	pthread_cond_t opened;
	/* directory listing hint: Parquet magic seen for this identity */
	bool magic_known, magic_ok;
	pq_identity magic_id;
};

/* One opened generation of a Parquet file, shared by handles (refcounted). */
struct pfs_pf {
	atomic_int refs;
	uint64_t gen;
	pfs_src *src;
	pq_source *io;             /* the file's bytes (NULL when it did not open) */
	struct stat st;            /* attributes of the generation */
	_Atomic int64_t checked_ms; /* last pfs_pf_still_valid check (monotonic) */
	pq_file *f;                /* NULL when the file could not be opened */
	pq_status status;          /* why not */
	char *msg;                 /* one-line error (when f is NULL) */
	uint32_t nrg, ncol;
	/* the size pass (size_pass.c): one at a time, the others wait */
	pthread_mutex_t sz_lock;
	pthread_cond_t sz_cond;
	bool sz_running;           /* a pass (or index load) is under way */
	int sz_index;              /* under sz_lock: 0 untried, 1 has the sizes, -1 has not */
	atomic_bool sz_cancel;     /* the generation was retired: stop its pass */
	/* pfs_pf_advise_chunk: the last chunk.bin opened ((rg << 32 | col) + 1),
	 * the last row group fetched whole (rg + 1), and one past the last
	 * row group asked for ahead, and how many row groups in a row were
	 * taken in file order */
	_Atomic uint64_t adv_last, adv_rg, adv_hi, adv_run;
	/* a local file: the blocks advised already (64 KiB or more, one bit
	 * each, source.c's advise; made at the first advice), so warm opens
	 * make no fadvise call */
	_Atomic(_Atomic uint64_t *) adv_local;
};

/* Stats the entry and compares its identity with what it was: a changed or vanished
 * file gets a new generation (old inodes turn stale, caches are dropped,
 * the kernel is told). 0 (and the stat in *st, if not NULL), or -ENOENT
 * when it is gone. */
int pfs_src_check(pfs_fs *fs, pfs_src *src, uint64_t *gen, struct stat *st);
/* The opened file of generation gen (a new reference): -ESTALE when the
 * file has moved on, -ENOENT when it is gone. Never fails because the
 * file is bad: then pf->f is NULL and pf->msg says why. */
int pfs_src_pf(pfs_fs *fs, pfs_src *src, uint64_t gen, pfs_pf **out);
void pfs_pf_ref(pfs_pf *pf);
void pfs_pf_unref(pfs_pf *pf);
/* -EIO when the file under an open pf was changed in place (checked at
 * most once a second per pf: cheap enough for every read). */
int pfs_pf_still_valid(pfs_pf *pf);
/* Replies with n bytes of the file at off (chunk.bin, raw.bin): spliced
 * from the source's descriptor when it has one, else read into memory. */
int pfs_pf_reply_range(fuse_req_t req, pfs_pf *pf, uint64_t off, size_t n);
/* chunk.bin [off, off + len) of (rg, col) opened: its bytes are fetched at
 * once (a far source) or read ahead by the kernel (a local file), and the
 * rest of its row group when a second chunk of it is opened next (source.c). */
void pfs_pf_advise_chunk(pfs_pf *pf, uint32_t rg, uint32_t col, uint64_t off, uint64_t len);
/* The backend's statfs (-errno when it has none). */
struct statvfs;
int pfs_source_statfs(pfs_fs *fs, struct statvfs *sv);
/* The backend's fetched bytes may use the budget's spare room; reclaim
 * takes up to need of them back (pfs_source_ops.lend, .reclaim). */
void pfs_source_lend(pfs_fs *fs, pq_budget *mem);
uint64_t pfs_source_reclaim(pfs_fs *fs, uint64_t need);
/* A remote backend's requests and received bytes so far (false: local). */
bool pfs_source_counts(pfs_fs *fs, uint64_t *requests, uint64_t *bytes);
/* The backend's publishing (pfs_source.h) and its state, or NULL when
 * SOURCE cannot be written. */
typedef struct pfs_publish_ops pfs_publish_ops;
const pfs_publish_ops *pfs_source_publish(pfs_fs *fs, void **be);
/* The backend's stat and list of a path under SOURCE, for staging/, whose
 * directories are SOURCE's (fn: pfs_source_list_fn of pfs_source.h). */
int pfs_source_stat(pfs_fs *fs, const char *rel, struct stat *st);
/* rel of SOURCE opened as a pq_source (staging/'s appends read the file
 * they extend), with the identity it had just before; and rel's identity
 * now (0 or -errno), to see whether it changed meanwhile. */
pq_status pfs_source_open_rel(pfs_fs *fs, const char *rel, pq_source **out, pq_identity *id,
			      pq_error *err);
int pfs_source_ident(pfs_fs *fs, const char *rel, pq_identity *id);
int pfs_source_list(pfs_fs *fs, const char *rel,
		    int (*fn)(void *ctx, const char *name, const struct stat *st,
			      const pq_identity *id),
		    void *ctx);

typedef int (*pfs_src_list_fn)(void *ctx, const char *name, pfs_src *child);
/* ---- source_kept.c: a replaced local file's generation, kept for a moment */
void pfs_kept_init(pfs_fs *fs);
/* Takes over pf, the generation a change retired: kept for twice
 * PFS_SOURCE_TIMEOUT when local and opened, else let go at once. */
void pfs_kept_add(pfs_fs *fs, pfs_pf *pf);
/* The kept generation gen of s (a new reference), or NULL. */
pfs_pf *pfs_kept_get(pfs_fs *fs, const pfs_src *s, uint64_t gen);
/* Lets the expired ones go (all: every one, and the lock, at unmount). */
void pfs_kept_sweep(pfs_fs *fs, bool all);

/* Lists a SOURCE directory: sub-directories and Parquet files (by magic). */
int pfs_src_list(pfs_fs *fs, pfs_src *dir, fuse_ino_t dir_ino, pfs_src_list_fn fn, void *ctx);
int pfs_src_lookup(pfs_fs *fs, pfs_src *dir, fuse_ino_t dir_ino, const char *name,
		   pfs_src **out);
pfs_src *pfs_src_root(pfs_fs *fs);
/* The mount itself created, replaced or removed rel (a path under SOURCE):
 * the entry moves to a new generation now and the kernel is told to
 * forget the name and what it cached of it (queued: pfs_notify_wait). */
void pfs_src_changed(pfs_fs *fs, const char *rel);

typedef struct pfs_sources pfs_sources;
/* Takes be over (freed with the table, or at once on failure). */
struct pfs_source;
pfs_sources *pfs_sources_new(const char *root, bool root_is_file, struct pfs_source *be);
void pfs_sources_free(pfs_sources *s);

/* ---- cache.c ---------------------------------------------------------------- */

typedef struct pfs_cache pfs_cache;
typedef struct pfs_cobj pfs_cobj;    /* a held cache entry */
typedef void (*pfs_free_fn)(void *obj);

pfs_cache *pfs_cache_new(uint64_t max_bytes);
void pfs_cache_free(pfs_cache *c);
/* Entries put from now on are charged to b (pfs_cache_put) while they
 * live; call before the cache is shared. */
void pfs_cache_set_budget(pfs_cache *c, pq_budget *b);
/* A held entry (release it), or NULL when absent. */
pfs_cobj *pfs_cache_get(pfs_cache *c, const pfs_key *k);
/* Inserts obj (taking it over) and returns it held. When another thread
 * inserted the key first, obj is freed and the existing entry returned. */
pfs_cobj *pfs_cache_put(pfs_cache *c, const pfs_key *k, void *obj, size_t bytes,
			pfs_free_fn free_fn);
/* The same for an object that is charged to the budget by itself (a
 * decoded page's arena): counted in the cache's bound, not charged again. */
pfs_cobj *pfs_cache_put_counted(pfs_cache *c, const pfs_key *k, void *obj, size_t bytes,
				pfs_free_fn free_fn);
/* Evicts from the cold end until about need bytes are out (entries still
 * held go when released); the bytes evicted. For the budget's reclaim. */
uint64_t pfs_cache_shrink(pfs_cache *c, uint64_t need);
/* Releases a held entry (of whichever pool it came from). */
void pfs_cache_release(pfs_cache *c, pfs_cobj *e);
/* The same, and e leaves the cache (destroyed once its last holder lets
 * go): for what was needed once (a page a stream rendered). */
void pfs_cache_release_drop(pfs_cache *c, pfs_cobj *e);
/* The pool for objects of a kind (its row in kinds.c). */
pfs_cache *pfs_cache_for(pfs_fs *fs, pfs_kind kind);
/* The object a held entry holds (as given to pfs_cache_put). */
void *pfs_cobj_obj(const pfs_cobj *e);
/* Evicts every entry of a generation (a file that changed). */
void pfs_cache_drop_gen(pfs_cache *c, uint64_t gen);

/* A rendered text held in the cache. */
typedef struct pfs_text {
	uint8_t *p;
	size_t len;
} pfs_text;
void pfs_text_free(void *text); /* a pfs_cache_put free_fn */

/* ---- notify.c ---------------------------------------------------------------- */

typedef struct pfs_notify pfs_notify;
pfs_notify *pfs_notify_new(void);
int pfs_notify_start(pfs_notify *n, struct fuse_session *se);
/* No invalidation is sent from now on (the session is about to close:
 * libfuse would log "writing device: Bad file descriptor" for each). */
void pfs_notify_stop(pfs_notify *n);
void pfs_notify_free(pfs_notify *n);
/* Queue an invalidation; done by the notifier thread (never inline: the
 * kernel may hold locks of the request being served). */
void pfs_notify_inode(pfs_notify *n, fuse_ino_t ino);
/* A directory's attributes and cached listing dropped before this returns
 * (from a request too: safe for directories, notify.c says why). */
void pfs_notify_dir_now(pfs_notify *n, fuse_ino_t ino);
void pfs_notify_entry(pfs_notify *n, fuse_ino_t parent, const char *name);
/* Waits (at most about 2 s) until everything queued so far was done. Only
 * from a request that holds no kernel lock the queue could need (staging's
 * flush: the kernel holds no directory lock for it). */
void pfs_notify_wait(pfs_notify *n);

/* ---- live.c ------------------------------------------------------------------------ */

typedef struct pfs_live pfs_live;
/* Frees a handle whose release never came (at exit only); unlinks it. */
typedef void (*pfs_live_drop_fn)(pfs_fs *fs, pfs_live *l);
struct pfs_live {
	struct pfs_live *prev, *next; /* NULL when not linked */
	pfs_live_drop_fn drop;
};

/* Open handles: linked when opened, unlinked when freed. */
void pfs_live_init(pfs_fs *fs);
void pfs_live_add(pfs_fs *fs, pfs_live *l, pfs_live_drop_fn drop);
void pfs_live_del(pfs_fs *fs, pfs_live *l);
/* Drops every handle still linked, then the list (at exit). */
void pfs_live_drop_all(pfs_fs *fs);

/* ---- the filesystem (fs.c: its parts and their lifetime) --------------------------- */

typedef struct pfs_dirs pfs_dirs;

typedef struct pfs_kept pfs_kept;

struct pfs_fs {
	const pfs_options *opts;
	/* generations of replaced local files, kept for a moment (source_kept.c) */
	pthread_mutex_t kept_lock;
	pfs_kept *kept;
	atomic_uint kept_n;
	pfs_inodes *inodes;
	pfs_sources *sources;
	pfs_cache *cache;   /* decoded pages, page texts and bodies */
	pfs_cache *meta;    /* chunk layouts and metadata texts: small, and kept
			     * apart so that streaming pages never evicts them */
	pfs_notify *notify;
	pfs_dirs *dirs;     /* listings for stateless readdir (dirs.c) */
	bool no_opendir;    /* the kernel sends no OPENDIR (set at init) */
	pfs_staging *staging; /* NULL with -o ro or a single-file SOURCE */
	/* Keys for encrypted files, loaded from key_file at mount (NULL
	 * without one). Files are matched by their path under SOURCE
	 * (single-file SOURCE: its name), as pq_file_open's name. */
	pq_keyring *keys;
	/* XXH3-128 of key_file's bytes (zeros without one) mixed with the
	 * daemon executable's identity: part of every size index key, as the
	 * keys decide what decrypts and the build decides how it renders */
	uint8_t key_fp[16];
	atomic_bool index_warned;      /* the index dir's trouble was logged */
	struct pfs_index_lru *index_lru; /* index_size: what this mount stored (size_pass.c) */
	atomic_uint_fast64_t size_passes; /* size passes run (tests count the log lines) */
	atomic_uint_fast64_t column_passes; /* columns measured alone (pfs_sizes_column) */
	atomic_uint_fast64_t layout_loads; /* chunk layouts loaded for entries (logged at unmount) */
	atomic_uint_fast64_t summaries; /* columns/<col>/stats.txt rendered (each loads every layout) */
	atomic_uint_fast64_t ahead_used; /* segments rendered ahead and served (stream.c) */
	atomic_uint_fast64_t restarts;   /* reads before a stream's window (stream.c seek) */
	atomic_uint_fast64_t listings;   /* directory listings made (dirs.c) */
	atomic_uint_fast64_t dir_opens;  /* OPENDIRs answered with a handle (dirs.c) */
	bool started;           /* pfs_fs_start ran: the unmount report lines are due */
	atomic_uint_fast64_t next_id;  /* source ids and file generations */
	/* The memory budget (memory.c): cache_size, for everything decoded. */
	pq_budget *budget;
	_Atomic uint64_t trim_pending;  /* bytes freed since the last malloc_trim */
	_Atomic int64_t trim_ms;        /* when it ran (monotonic ms) */
	/* Open streams, most recently read first (stream.c), for reclaim. */
	pthread_mutex_t streams_lock;
	struct pfs_stream *streams_head, *streams_tail;
	/* Requests waiting for memory, in turn (memory.c, pfs_mem_try). */
	pthread_mutex_t mw_lock;
	pthread_cond_t mw_cond;
	struct pfs_mem_try *mw_head, *mw_tail;
	unsigned nstreams;
	/* Chunk shapes measured after a size pass, in the background
	 * (size_pass.c): how many jobs run; pfs_fs_free waits for them. */
	pthread_mutex_t bg_lock;
	pthread_cond_t bg_cond;
	unsigned bg_running;
	/* Open file and directory handles (live.c). */
	pthread_mutex_t live_lock;
	pfs_live live;
	uid_t uid;
	gid_t gid;
};

/* A new source id or file generation (never 0, never reused). */
static inline uint64_t pfs_fs_new_id(pfs_fs *fs)
{
	return (uint64_t)atomic_fetch_add(&fs->next_id, 1);
}

/* ---- ops.c -------------------------------------------------------------------------- */

/* The operations of the read-only tree (SOURCE and its Parquet files). */
const struct fuse_lowlevel_ops *pfs_ro_ops(void);

/* An inode resolved for a request: SOURCE entries stat'ed, entries inside
 * a file checked against its current generation. */
typedef struct pfs_res {
	pfs_node *n;
	pfs_pf *pf;       /* held when the entry is inside a file (or need_pf) */
	pfs_key dir;      /* the node's key as a tree directory (FILE: generation) */
	struct stat base; /* stat the attributes derive from */
	bool kept;        /* pf is a generation just replaced (source_kept.c): what
			   * fails with it is answered ESTALE, to look up again */
} pfs_res;
/* need_pf: open the file even for its own directory (lookups below it). */
int pfs_resolve(pfs_fs *fs, fuse_ino_t ino, bool need_pf, pfs_res *r);
void pfs_res_done(pfs_res *r);
/* 0, or -errno when an aggregate's size could not be measured. */
int pfs_make_attr(pfs_fs *fs, pfs_node *n, pfs_pf *pf, const struct stat *base,
		  struct stat *st);
double pfs_attr_timeout(const pfs_node *n);
double pfs_entry_timeout(const pfs_node *n);
/* The node and stat of a SOURCE child (directory or Parquet file). */
int pfs_src_child(pfs_fs *fs, pfs_src *c, pfs_node **n, struct stat *st);

/* ---- dirs.c: listings ----------------------------------------------------------------- */

/* Directory listings. Where the kernel allows it, OPENDIR is answered
 * ENOSYS once and never sent again: readdir is then stateless (listings
 * kept in a small cache, offsets naming their snapshot) and the kernel
 * caches every listing; those that can change (SOURCE's, a layer's) are
 * invalidated once read to their end. A layer's directories (staging/)
 * come with its listing functions. */
typedef struct pfs_dirh pfs_dirh;
/* Fills the listing of the directory self. */
typedef int (*pfs_dir_list_fn)(pfs_fs *fs, pfs_node *self, pfs_dirh *d);
/* Attributes and timeouts of a layer's entry now (nonzero: gone, not listed). */
typedef int (*pfs_dir_attr_fn)(pfs_fs *fs, pfs_node *n, struct stat *st, double *timeout);
void pfs_opendir_with(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi,
		      pfs_dir_list_fn list, pfs_dir_attr_fn attr);
void pfs_readdir_with(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi, bool plus, pfs_dir_list_fn list,
		      pfs_dir_attr_fn attr);
void pfs_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
/* A layer's entry (its attributes from the handle's attr). */
int pfs_dir_add(pfs_dirh *d, const char *name, pfs_node *n);
/* The entries of the SOURCE directory of the handle, but one named hide. */
int pfs_dir_add_source(pfs_dirh *d, const char *hide);
/* The listing cache of a mount (fs.c). */
pfs_dirs *pfs_dirs_new(void);
void pfs_dirs_free(pfs_dirs *c);

/* ---- tree.c ------------------------------------------------------------------- */

typedef int (*pfs_tree_fn)(void *ctx, const char *name, const pfs_key *k);
/* The entries of a directory inside a file (dir is a file-internal dir
 * kind or PFS_K_FILE with dir->gen replaced by the file generation). */
int pfs_tree_list(pfs_fs *fs, pfs_pf *pf, const pfs_key *dir, pfs_tree_fn fn, void *ctx);
/* 0 and *out, or -ENOENT. */
int pfs_tree_lookup(pfs_fs *fs, pfs_pf *pf, const pfs_key *dir, const char *name,
		    pfs_key *out);

/* ---- content.c ---------------------------------------------------------------- */

/* The size of an entry (0 and *size), exact. Errors of bad chunks/pages
 * give 0 bytes (their reads fail); an aggregate whose size pass could not
 * run gives -errno. */
int pfs_content_size(pfs_fs *fs, pfs_pf *pf, pfs_node *n, uint64_t *size);
/* Whether the size is known without a size pass (listings answer the
 * entries whose size is not without their attributes). */
bool pfs_content_size_ready(pfs_fs *fs, pfs_pf *pf, pfs_node *n);
/* Whole-buffer entries (texts, small binaries): rendered or cached text. */
int pfs_content_text(pfs_fs *fs, pfs_pf *pf, const pfs_key *k, pfs_cobj **out);
/* The same for a page entry, with the chunk's layout held by the caller. */
int pfs_page_text(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, const pfs_key *k, pfs_cobj **out);
/* A page's values.txt / levels.txt appended to out: from the cache when
 * there, else rendered straight into out without caching the text
 * (streams read each page once). out is unchanged on failure. */
int pfs_page_render(pfs_fs *fs, pfs_pf *pf, pfs_cobj *layout, const pfs_key *k, pq_buf *out);
/* Whether a chunk or page has an error.txt (something is wrong with it);
 * found out once, the text cached and its size kept in the error node. */
bool pfs_chunk_error(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col);
bool pfs_page_error(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, uint32_t page);
int pfs_layout_get(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, pfs_cobj **out,
		   pq_error *err);
/* The number of pages of a chunk for a lookup by number (the offset
 * index's when it can stand in for the walk). */
int pfs_page_count(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col, uint32_t *n);
/* Page info of a page of a layout (PFS_DICT: the dictionary), or NULL. */
const pq_page_info *pfs_layout_page(const pq_chunk_layout *l, uint32_t page);
/* Size of one chunk-level values.txt / levels.txt (renders its pages). */
int pfs_chunk_text_size(pfs_fs *fs, pfs_pf *pf, pfs_kind kind, uint32_t rg, uint32_t col,
			uint64_t *size);
int pfs_status_to_errno(pq_status st);

/* ---- stream.c ----------------------------------------------------------------- */

typedef struct pfs_stream pfs_stream;
/* For the kinds with PFS_BODY_STREAM (kinds.c). */
int pfs_stream_open(pfs_fs *fs, pfs_pf *pf, pfs_node *n, pfs_stream **out);
/* Points *buf at up to size bytes at off (*got may be short only at EOF),
 * and keeps the stream locked until pfs_stream_read_done, so the caller
 * replies straight from the stream's window. Call _done whatever it returns. */
int pfs_stream_read(pfs_stream *s, uint64_t off, size_t size, const uint8_t **buf,
		    size_t *got);
void pfs_stream_read_done(pfs_stream *s);
void pfs_stream_free(pfs_stream *s);
/* For the budget's reclaim: handles not reading at this moment, least
 * recently read first, give back their window, row reader and prefetched
 * rows (their next read starts again at a segment boundary) until about
 * need bytes came back; the bytes released. Never waits for a handle. */
uint64_t pfs_streams_reclaim(pfs_fs *fs, uint64_t need);

/* ---- memory.c --------------------------------------------------------------------- */

/* The budget (cache_size) and its reclaim hook; 0 or -ENOMEM. */
int pfs_memory_init(pfs_fs *fs);
/* After everything else is freed: logs the budget's report (what is still
 * charged must be 0) and frees it. */
void pfs_memory_fini(pfs_fs *fs);
/* bytes of decoded data were freed: glibc is asked to give free memory
 * back to the system now and then (malloc_trim, rate-limited). */
void pfs_memory_freed(pfs_fs *fs, uint64_t bytes);
/* The last stream closed: what was freed since the last trim goes back now. */
void pfs_memory_idle(pfs_fs *fs);

/* A request that waits for memory other requests hold (interface.md:
 * "in turn, at most -o mem_wait=SECONDS"). A charge is never kept waiting
 * (its caller may hold memory others wait for); instead the request's
 * work fails, gives back all it holds (a stream resets), and then waits
 * here, first for its turn (first come, first served), then for room,
 * and runs again:
 *     pfs_mem_try t;
 *     pfs_memory_try_begin(fs, &t, path);
 *     do rc = work(); while (pfs_memory_try_again(&t, rc));
 *     pfs_memory_try_end(&t);
 * Only a failure for want of memory (a charge refused on this thread) is
 * tried again. What can never fit (more than cache_size and its headroom
 * at once), or what waited mem_wait seconds in all, fails with a log line.
 * While in a try, the lines of refused charges go to the debug log (the
 * try's own line says what became of it). */
typedef struct pfs_mem_try {
	pfs_fs *fs;
	const char *what;       /* for the log line: the file's path */
	uint64_t refused;       /* the thread's refusals when last looked at */
	int64_t deadline;       /* monotonic ms; 0 until the first wait */
	uint64_t need;          /* room waited for: the refused charge, doubling */
	bool queued, turn;
	struct pfs_mem_try *next;
} pfs_mem_try;
void pfs_memory_try_begin(pfs_fs *fs, pfs_mem_try *t, const char *what);
bool pfs_memory_try_again(pfs_mem_try *t, int rc);
void pfs_memory_try_end(pfs_mem_try *t);
/* LOG_NOTICE for a failure for want of memory, LOG_DEBUG within a try. */
int pfs_memory_log_level(void);

/* Records a segment's size as rendered (a seek later starts at it); a
 * size known before is kept, a different one logged (a size pass that
 * disagrees with the renderer). */
void pfs_node_set_size(pfs_fs *fs, pfs_node *n, uint64_t size);

/* ---- size_pass.c ----------------------------------------------------------------- */

#include "pq_sizes.h"

void pfs_pf_sizes_init(pfs_pf *pf);
void pfs_pf_sizes_fini(pfs_pf *pf);
/* The mount's background shape jobs: set up, and waited for at unmount
 * (so the size index gets the shapes of a pass that just ran). */
void pfs_sizes_bg_init(pfs_fs *fs);
void pfs_sizes_bg_wait(pfs_fs *fs);
/* The generation's sizes (a held meta cache entry of a pq_file_sizes):
 * from memory, else the size index, else (with run) one size pass that
 * concurrent callers wait for. Without run: -EAGAIN when only a pass
 * could tell (nothing waits). */
int pfs_sizes_get(pfs_fs *fs, pfs_pf *pf, bool run, pfs_cobj **out);
/* columns/<col>/values.txt's size before the file's sizes are known:
 * only that column's chunks measured (their values.txt sizes are kept in
 * their inodes too). -EAGAIN when the whole pass should answer instead
 * (the sizes are at hand, a pass is running, or a chunk of the column
 * failed: streams stop at a failed segment only by a pass they find). */
int pfs_sizes_column(pfs_fs *fs, pfs_pf *pf, uint32_t col, uint64_t *size);
/* Whether the sizes at hand (no pass is run for it) say every page of
 * chunk (rg, col) decoded: then its error.txt and its pages' are known
 * absent without decoding anything (ls -lR after a remount). false when
 * they are not at hand or say otherwise (a pass short of memory is no
 * verdict): the caller checks by decoding. */
bool pfs_pass_chunk_sound(pfs_fs *fs, pfs_pf *pf, uint32_t rg, uint32_t col);
/* The st_size of an aggregate, a chunk's values/levels or a data page's
 * values/levels by the sizes (failed segments count PFS_FAILED_BYTES);
 * false when they cannot tell (then it is found by rendering). */
bool pfs_sizes_entry(const pq_file_sizes *s, const pfs_key *k, uint64_t *size);
/* A row group's rows (no header), a chunk's text: PQ_SIZE_FAILED when it failed. */
uint64_t pfs_sizes_rg_body(const pq_file_sizes *s, bool jsonl, uint32_t rg);
uint64_t pfs_sizes_chunk_text(const pq_file_sizes *s, bool levels, uint32_t rg, uint32_t col);
const pq_chunk_sizes *pfs_sizes_chunk(const pq_file_sizes *s, uint32_t rg, uint32_t col);
/* The -errno reads of a segment the pass found failed fail with: EACCES
 * when a chunk of it has no key (the contract's rule for data entries),
 * else EIO. rows: row group rg, all columns; else chunk (rg, col). */
int pfs_sizes_seg_errno(const pq_file_sizes *s, bool rows, uint32_t rg, uint32_t col);
/* A stream reached row group rg's segment of entry, which the sizes say
 * failed: logs why (the first failed chunk of the row group, or of column
 * col; UINT32_MAX: any column) and gives pfs_sizes_seg_errno's -errno. */
int pfs_sizes_failed(const pfs_pf *pf, const pq_file_sizes *s, uint32_t rg, uint32_t col,
		     const char *entry);

/* ---- staging.c ------------------------------------------------------------------ */

pq_status pfs_staging_new(pfs_fs *fs, pfs_staging **out, pq_error *err);
/* Starts recovery of what a crash left (a thread of its own). */
int pfs_staging_start(pfs_staging *s);
void pfs_staging_free(pfs_staging *s);
/* staging/ (NULL when there is none) and its name at the mount root. */
pfs_node *pfs_stg_root(pfs_fs *fs);
const char *pfs_stg_name(const pfs_fs *fs);
/* Attributes of a staging node (st_ino set), from the disk. */
int pfs_stg_stat(pfs_fs *fs, pfs_node *n, struct stat *st);
int pfs_stg_lookup(pfs_fs *fs, pfs_node *dir, const char *name, pfs_node **out,
		   struct stat *st);
typedef int (*pfs_stg_list_fn)(void *ctx, const char *name, pfs_node *n);
int pfs_stg_list(pfs_fs *fs, pfs_node *dir, pfs_stg_list_fn fn, void *ctx);
/* The operations table of the mount with staging/: s's operations around
 * next (staging_ops.c; the table lives as long as s). */
const struct fuse_lowlevel_ops *pfs_stg_ops(pfs_staging *s, const struct fuse_lowlevel_ops *next);
/* The operations on staging nodes (they reply). */
void pfs_stg_getattr(fuse_req_t req, pfs_node *n, struct fuse_file_info *fi);
void pfs_stg_setattr(fuse_req_t req, pfs_node *n, struct stat *attr, int to_set,
		     struct fuse_file_info *fi);
void pfs_stg_create(fuse_req_t req, pfs_node *dir, const char *name, mode_t mode,
		    struct fuse_file_info *fi);
void pfs_stg_open(fuse_req_t req, pfs_node *n, struct fuse_file_info *fi);
void pfs_stg_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi);
void pfs_stg_write(fuse_req_t req, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi);
void pfs_stg_flush(fuse_req_t req, struct fuse_file_info *fi);
void pfs_stg_fsync(fuse_req_t req, int datasync, struct fuse_file_info *fi);
void pfs_stg_release(fuse_req_t req, struct fuse_file_info *fi);
void pfs_stg_mkdir(fuse_req_t req, pfs_node *dir, const char *name, mode_t mode);
void pfs_stg_rmdir(fuse_req_t req, pfs_node *dir, const char *name);
void pfs_stg_unlink(fuse_req_t req, pfs_node *dir, const char *name);

#endif
