/* Private to the staging files of fs/:
 *
 *   staging.c          the staging/ tree in the mount: names, inodes,
 *                      attributes and the FUSE operations on it
 *   staging_ops.c      those operations as a layer around the read-only ones
 *   staging_store.c    staged bytes on disk under SOURCE/.parquetfs/staging:
 *                      paths, markers, .error files, recovery at mount
 *   staging_publish.c  conversion of a closed staged file and atomic
 *                      publishing into SOURCE
 *   staging_append.c   `>>`: rows appended to an existing Parquet file
 *   staging_names.c    temporary names and rename, unlink, mkdir, rmdir;
 *                      whose close converts (the opener's), the writer's
 *                      view of a name its close just published
 *
 * doc/design.md ("Staging") describes the life cycle and the on-disk
 * layout. */
#ifndef STAGING_INTERNAL_H
#define STAGING_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "pfs_internal.h"
#include "pfs_source.h"
#include "pq_convert.h"

#define STG_STORE ".parquetfs/staging"    /* under SOURCE */
#define STG_MARK_OPEN ".open"             /* suffix: a writer has not closed it */
#define STG_MARK_DONE ".done"             /* suffix: published, handles still open */
#define STG_ERROR ".error"                /* suffix: why the last conversion failed */
#define STG_MARK_RETRY ".retry"           /* suffix: it failed for I/O, a remount tries again */
#define STG_PROGRESS ".progress"          /* suffix: while it converts, how far */
#define STG_MARK_APPEND ".append"         /* suffix: its rows extend the target */
#define STG_SIDECAR_MAX ((size_t)1 << 20) /* a schema longer than this is refused */
#define STG_TARGET_LOCKS 16

typedef enum stg_type {
	STG_T_NONE = 0,   /* not accepted in staging/ */
	STG_T_CSV,
	STG_T_TSV,
	STG_T_SCHEMA,
	STG_T_PARQUET,
	STG_T_ARUNA       /* a .parquet.aruna container, published as is */
} stg_type;

/* One name under staging/ (a directory, a staged file or an .error file),
 * kept while mounted like SOURCE's entries. The state below describes the
 * staged file of that name. */
typedef struct stg_ent {
	struct stg_ent *next_rel, *next_id;   /* hash chains */
	uint64_t id;          /* key.gen of its inodes */
	char *rel;            /* path under staging/ ("" for staging/ itself) */
	const char *name;     /* last component (points into rel) */
	pthread_mutex_t lock; /* the fields below; held across a conversion */
	uint64_t gen;         /* changes when the bytes file is replaced or removed */
	int writers;          /* open write handles of this gen */
	bool dirty;           /* bytes changed since the last conversion attempt */
	bool written;         /* a write() since the last conversion attempt */
	bool marker;          /* the .open marker exists */
	bool converted;       /* published; bytes renamed to .done until the last
			       * handle of this gen is released */
	int write_err;        /* errno of a failed write since the last truncation:
			       * the next close fails with it, nothing converts */
	pq_infer_ahead *ahead; /* types inferred as the bytes arrive, or NULL */
	uint64_t ahead_end;   /* bytes written in order from offset 0 (told to it) */
	bool ahead_armed;     /* empty with one writer: a write at 0 starts it */
	bool has_owner;       /* owner is known (from the create) */
	pfs_cred owner;       /* who created the staged file: staging acts for them */
	bool empty_told;      /* a close was told "empty file", maybe not the last */
	/* Published by a close of process gone_pid, which had opened it
	 * without O_TRUNC: that process still sees the name, with these
	 * attributes, until gone_until (CLOCK_MONOTONIC ns), so a writer that
	 * sets times or mode by name after its close (rsync --inplace)
	 * succeeds. */
	pid_t gone_pid;
	int64_t gone_until;
	struct stat gone_st;
} stg_ent;

struct pfs_staging {
	pfs_fs *fs;
	char *store;          /* absolute SOURCE/.parquetfs/staging */
	pthread_mutex_t lock; /* the two tables */
	stg_ent **by_rel, **by_id;
	size_t nbuckets;
	stg_ent *root_ent;
	pfs_node *root;       /* staging/ */
	pq_write_options wopts;
	pthread_mutex_t target_locks[STG_TARGET_LOCKS];
	pthread_t recovery;
	bool recovery_started;
	atomic_bool stop;
	atomic_int aheads;    /* staged files being inferred as written (a cap) */
	/* staging_ops.c: the operations it wraps, and the wrapped table */
	const struct fuse_lowlevel_ops *next;
	struct fuse_lowlevel_ops ops;
};

/* ---- staging.c ---- */
stg_ent *stg_ent_get(pfs_staging *s, const char *rel);
stg_ent *stg_ent_find(pfs_staging *s, const char *rel);
pfs_node *stg_node_of(pfs_staging *s, stg_ent *e, pfs_kind kind);
pfs_staging *stg_of(fuse_req_t req);
void stg_cred_of(fuse_req_t req, pfs_cred *c);
int stg_may_stage(pfs_staging *s, const char *rel, const pfs_cred *c);
stg_ent *stg_ent_of_node(pfs_staging *s, const pfs_node *n);
int stg_lookup_ent(pfs_staging *s, stg_ent *dir, const char *name, pfs_node **out,
		   struct stat *st);
void stg_reply_entry(fuse_req_t req, pfs_node *n, const struct stat *st);
/* Whether name may be created (a file, or a directory with dir); else
 * *rc says why (-EINVAL, -ENAMETOOLONG). */
bool stg_valid_new_name(const char *name, bool dir, int *rc);
/* e's bytes file is now the one of st (a new generation). */
void stg_adopt_file(pfs_staging *s, stg_ent *e, const struct stat *st);
/* ---- staging_names.c ---- */
/* Names the store uses for itself (x.csv.open, x.csv.error, ...): never a
 * user's file. */
bool stg_reserved(const char *name);
/* A temporary file: any other name that is not accepted (a dot-file,
 * x.csv.tmp, .x.csv.Ab12Cd): kept, never converted; renamed onto an
 * accepted name, it is converted then. */
bool stg_temp_name(const char *name);
/* The process (thread group) of a request's thread id; 0 when unknown. */
pid_t stg_tgid(pid_t tid);
/* With e->lock held, right after a close published e: its writer keeps
 * seeing the name for a moment (stg_ent.gone_pid). */
void stg_gone_set(stg_ent *e, pid_t who, const struct stat *st);
/* Attributes of a name published by pid's close a moment ago; -ENOENT. */
int stg_gone_stat(stg_ent *e, pid_t pid, struct stat *st);
/* The same for a lookup of name in staging directory dir. */
int pfs_stg_gone_lookup(fuse_req_t req, pfs_node *dir, const char *name, pfs_node **out,
			struct stat *st);
/* With e->lock held, an empty file closed by its opener, which may not be
 * its last close (a shell's `> x.csv` closes the descriptor it opened
 * before the command writes): the close fails with EINVAL and the .error
 * says the file is empty, nothing is logged, and a later write stages it
 * on. The release converts it, if it is still empty then. -EINVAL. */
int stg_empty_told(pfs_staging *s, stg_ent *e);
/* FUSE rename within staging/ (both directories are staging/'s). */
void pfs_stg_rename(fuse_req_t req, pfs_node *dir, const char *name, pfs_node *newdir,
		    const char *newname, unsigned int flags);
/* ---- staging_ahead.c: types inferred while a CSV is written (e->lock held) ---- */
/* Stops and frees e's inference ahead, if any, and disarms it. */
void stg_ahead_drop(pfs_staging *s, stg_ent *e);
/* A writer opened e's bytes, now size bytes long: armed when it may start. */
void stg_ahead_arm(pfs_staging *s, stg_ent *e, uint64_t size);
/* n bytes written at off through fd: starts, feeds or stops it. */
void stg_ahead_wrote(pfs_staging *s, stg_ent *e, int fd, uint64_t off, size_t n);

/* ---- staging_store.c ---- */
stg_type stg_type_of(const char *name);
/* ---- staging_aruna.c: ARUNA containers ---- */
/* true when t publishes a container (a staged .parquet.aruna, or any
 * conversion under -o container=aruna). */
bool stg_sealed(const pfs_staging *s, stg_type t);
/* The target of staged rel, container=aruna and .parquet.aruna included. */
int stg_target_rel_of(const pfs_staging *s, const char *rel, char *buf, size_t n);
pq_status stg_container_key(const pfs_staging *s, const char *trel, const char *name,
			    uint8_t key[32], pq_error *err);
/* A staged container: checked as verify.txt checks it. */
pq_status stg_aruna_check(const pfs_staging *s, int fd, const char *name, const char *trel,
			  const uint8_t key[32], pq_error *err);
/* The Parquet bytes of plain_fd sealed into out. */
pq_status stg_aruna_seal(int plain_fd, int out, const char *name, const uint8_t key[32],
			 pq_error *err);
/* An unlinked scratch file in the store for rel's plaintext, or -1. */
int stg_scratch_fd(const pfs_staging *s, const char *rel);
/* Length of the staged name an ".error" name belongs to, or 0. */
size_t stg_error_base(const char *name);
/* The same for a ".progress" name. */
size_t stg_progress_base(const char *name);
/* How a staged name is compressed (.csv.gz: GZIP), and the length of its
 * stem (the name without .csv, .csv.gz, ...). */
pq_input_codec stg_codec_of(const char *name);
size_t stg_stem_len(const char *name);
/* store/rel + suffix (suffix may be NULL); -ENAMETOOLONG when it does not fit. */
int stg_store_path(const pfs_staging *s, const char *rel, const char *suffix, char *buf,
		   size_t n);
/* rel + "/" + name (or name at the top); -ENAMETOOLONG. */
int stg_join(const char *rel, const char *name, char *buf, size_t n);
int stg_marker_set(pfs_staging *s, stg_ent *e);
void stg_marker_clear(pfs_staging *s, stg_ent *e);
/* The marker removed durably (its directory fsynced): a close has begun,
 * so a remount converts the file even when the daemon dies now. */
void stg_marker_closed(pfs_staging *s, stg_ent *e);
/* Writes (atomically) or removes the one-line .error of a staged file. */
void stg_error_write(pfs_staging *s, const char *rel, const char *msg);
void stg_error_remove(pfs_staging *s, const char *rel);
/* The .retry marker: set when a conversion failed for I/O (EIO: an upload
 * the server refused, a disk error), not for its content; cleared else. */
void stg_retry_mark(pfs_staging *s, const char *rel, bool on);
/* The store must be the daemon's own: in a world-writable SOURCE a user
 * could otherwise put a link (or a directory of theirs) at
 * SOURCE/.parquetfs and have the daemon write and remove files where they
 * chose. Made when missing (with make); 0, -ENOENT, -EACCES (a link, not
 * a directory, or another user's). */
int stg_store_check(pfs_staging *s, bool make);
/* Recovery at mount: markers, .done files, closed staged files, stale
 * temporary files in SOURCE. Runs on a thread of its own. */
void *stg_recovery_run(void *arg);

/* ---- staging_append.c ---- */
/* A create of e with these open flags, by c: when it makes the staged file
 * with O_APPEND and its target exists, the file becomes an append (its
 * marker made durable first: 1); 0 otherwise; -EACCES when c cannot read
 * the target, or -errno. */
int stg_append_begin(pfs_staging *s, stg_ent *e, int flags, const pfs_cred *c);
/* Whether the staged file rel is an append; forgetting makes it a whole
 * CSV again (truncated, removed, or published). */
bool stg_append_wanted(const pfs_staging *s, const char *rel);
void stg_append_forget(pfs_staging *s, const char *rel);
/* Recovery: name (in store directory dir) is an append marker whose
 * staged file is gone (published while a dup kept it, then a crash):
 * removed, so no later file of the name is taken for an append. */
bool stg_append_stale(pfs_staging *s, const char *dir, const char *name);
/* An append with no byte yet closes as nothing to do (true): with
 * handles_open it stays staged, as it is; at the last close it goes, and
 * the target is not touched. false: not an empty append. */
bool stg_append_empty(pfs_staging *s, stg_ent *e, int fd, bool handles_open);
/* After e was published: an append's marker goes, or, while handles keep
 * the bytes (fd) open, it records how many of them the target has. */
void stg_append_published(pfs_staging *s, stg_ent *e, int fd, bool handles_open);
/* The target trel extended with e's rows into out (*rows: how many; 0
 * leaves nothing to publish). */
pq_status stg_append_convert(pfs_staging *s, stg_ent *e, stg_type t, int in, int out,
			     const char *trel, uint64_t *rows, pq_error *err);

/* ---- staging_publish.c ---- */
/* With e->lock held, the staged bytes closed: validates a sidecar, or
 * converts (checks a .parquet) and publishes, then records the outcome
 * (.error written or removed, bytes removed or kept as .done when
 * handles_open). 0 or -errno (EINVAL bad content, EIO I/O). */
int stg_finish(pfs_staging *s, stg_ent *e, int fd, bool handles_open);
/* Target of a staged name ("a.b.csv" -> "a.b.parquet" beside it). */
int stg_target_rel(const char *rel, char *buf, size_t n);

#endif
