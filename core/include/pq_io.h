/* The read seam: where the bytes of a Parquet file come from.
 *
 * Every read of Parquet bytes in core/ (footer, page windows, page bodies,
 * page index, bloom filters, encrypted modules) goes through a pq_source.
 * A source is a small vtable (pq_source_ops) plus the implementation's
 * state; two implementations live here (a file descriptor, a memory
 * buffer), others (a remote object store, a decrypting container on top
 * of another source) are one file each: fill a pq_source_ops and call
 * pq_source_new.
 *
 * A source is reference counted (pq_file_open takes its own reference, so
 * the caller may drop its one at any time) and is read from many threads
 * at once: ops->pread must behave like pread(2), with no shared cursor.
 * Its size and identity are taken once, when it is made: they describe the
 * bytes this source reads, which never change while it lives (a source
 * whose bytes changed under it fails its reads or pq_source_check). */
#ifndef PQ_IO_H
#define PQ_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_error.h"

/* What changes when the bytes change: device, inode, size and mtime of a
 * local file, an ETag (plus size) remotely, a hash of a memory buffer.
 * Opaque bytes, compared as a whole; only meaningful between identities
 * of the same kind of source. len 0 means "unknown" and equals nothing,
 * not even itself, so an unknown identity never validates a cache. */
#define PQ_IDENTITY_MAX 64
typedef struct pq_identity {
	uint8_t len;
	uint8_t bytes[PQ_IDENTITY_MAX];
} pq_identity;

/* Sets id to n bytes of p (n is clamped to PQ_IDENTITY_MAX). */
void pq_identity_set(pq_identity *id, const void *p, size_t n);
/* true when both are known and hold the same bytes. */
bool pq_identity_eq(const pq_identity *a, const pq_identity *b);
/* The identity of a local file: device, inode, size and mtime (what
 * pq_source_fd_new records), so a path's stat compares with an open
 * descriptor's. */
struct stat;
void pq_identity_of_stat(const struct stat *st, pq_identity *id);
/* A total order (length, then bytes), for sorted indexes keyed by identity. */
int pq_identity_cmp(const pq_identity *a, const pq_identity *b);

typedef struct pq_source pq_source;

/* An implementation. impl is the pointer given to pq_source_new. */
typedef struct pq_source_ops {
	/* Reads exactly len bytes at off into buf; off + len never exceeds
	 * size (pq_source_pread checks before calling). Thread-safe. A
	 * failure leaves a message in err ("read at offset 12 failed: ..."). */
	pq_status (*pread)(void *impl, void *buf, size_t len, uint64_t off, pq_error *err);
	/* Size in bytes; called once, by pq_source_new. */
	uint64_t (*size)(void *impl);
	/* Identity of the bytes; called once, by pq_source_new. */
	void (*identity)(void *impl, pq_identity *out);
	/* Optional (NULL: cannot tell, or every read checks by itself, as a
	 * remote source reading with If-Match does): the identity of the
	 * bytes behind the source now, for pq_source_check. */
	pq_status (*current)(void *impl, pq_identity *out, pq_error *err);
	/* Optional (NULL: none): a descriptor holding exactly these bytes at
	 * the same offsets, for zero-copy replies (splice). Owned by the
	 * source; valid while the source lives. */
	int (*fd)(void *impl);
	/* Optional (NULL: none): the len bytes at off in the source's own
	 * memory, for replies made straight from it (a container's decoded
	 * chunk). *out NULL with PQ_OK: not possible for this range (it spans
	 * two pieces), pread instead. Otherwise the bytes stay valid until
	 * release(impl, *hold). Checked like pread before the call. */
	pq_status (*borrow)(void *impl, size_t len, uint64_t off, const void **out, void **hold,
			    pq_error *err);
	void (*release)(void *impl, void *hold);
	/* Optional (NULL: nothing to gain): the len bytes at off will be read
	 * soon; a far source may start fetching them in the background. Never
	 * fails, never blocks on the fetch; off + len within size. */
	void (*advise)(void *impl, uint64_t off, uint64_t len);
	/* Optional (NULL: nothing to gain): while on, what is read will be
	 * read again soon (a size pass, then the render), so a far source
	 * may keep it longer than its usual window. Calls nest. */
	void (*keep)(void *impl, bool on);
	/* Frees impl (at the last pq_source_unref). */
	void (*close)(void *impl);
	/* Every read costs a round trip or more (a remote object, a container
	 * whose chunks decrypt whole): core then reads nothing a view does not
	 * need, and checks the leading magic with the first read that starts
	 * within the file's first bytes instead of reading it at open. */
	bool far;
} pq_source_ops;

/* Wraps an implementation (one reference). impl is taken over: on failure
 * (no memory) it is closed with ops->close. ops must outlive the source. */
pq_status pq_source_new(const pq_source_ops *ops, void *impl, pq_source **out, pq_error *err);

/* A file descriptor (pread; the size and identity from fstat at this
 * call). With take_ownership the descriptor is closed with the source;
 * otherwise it must stay open while the source lives. */
pq_status pq_source_fd_new(int fd, bool take_ownership, pq_source **out, pq_error *err);
/* n bytes at p. copy: the source keeps its own copy; otherwise p must
 * stay valid and unchanged while the source lives. The identity is the
 * length and a hash of the bytes. */
pq_status pq_source_mem_new(const void *p, size_t n, bool copy, pq_source **out,
			    pq_error *err);

void pq_source_ref(pq_source *s);
void pq_source_unref(pq_source *s); /* NULL is fine */

/* Reads exactly len bytes at off; PQ_ECORRUPT ("range ... lies outside
 * the file") when they are not all inside the source. */
pq_status pq_source_pread(const pq_source *s, void *buf, size_t len, uint64_t off,
			  pq_error *err);
uint64_t pq_source_size(const pq_source *s);
const pq_identity *pq_source_identity(const pq_source *s);
/* PQ_OK when the bytes behind the source are still those it was made of
 * (or the source cannot tell); PQ_EIO with a message when they changed
 * (a file rewritten in place). Costs what ops->current costs (fstat):
 * callers decide how often. */
pq_status pq_source_check(const pq_source *s, pq_error *err);
/* ops->far: reads are costly (see pq_source_ops). */
bool pq_source_far(const pq_source *s);
/* The descriptor for zero-copy replies, or -1 when the source has none. */
int pq_source_fd(const pq_source *s);
/* The len bytes at off without a copy, when the source holds them in its
 * memory (ops->borrow): *out stays valid until pq_source_release(s, *hold).
 * *out NULL with PQ_OK: not possible, read with pq_source_pread. */
pq_status pq_source_borrow(const pq_source *s, size_t len, uint64_t off, const void **out,
			   void **hold, pq_error *err);
void pq_source_release(const pq_source *s, void *hold);
/* A hint: [off, off + len) will be read soon (ops->advise; clipped to the
 * source, ignored when it cannot use it). */
void pq_source_advise(const pq_source *s, uint64_t off, uint64_t len);
/* Between pq_source_keep(s, true) and (s, false), reads will be repeated
 * soon (ops->keep; nothing when s has no use for it). */
void pq_source_keep(const pq_source *s, bool on);
/* Whether pq_source_advise does anything for s (so callers need not work
 * out ranges for nothing). */
bool pq_source_advises(const pq_source *s);
/* The implementation behind s when it was made with ops, else NULL: how a
 * stacked source (pq_aruna.h) recognizes its own. */
void *pq_source_impl(const pq_source *s, const pq_source_ops *ops);

/* ---- the Parquet magic ---------------------------------------------------- */

#define PQ_MAGIC_LEN 4
/* true when the n bytes at p start with a Parquet magic: "PAR1" (plaintext
 * footer) or "PARE" (encrypted footer). Used on the first bytes of a file
 * to tell Parquet files from others, and on the last four as well. */
bool pq_magic_is_parquet(const void *p, size_t n);

#endif
