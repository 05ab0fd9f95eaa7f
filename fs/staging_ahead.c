/* Types inferred while a CSV is copied into staging/ (pq_infer_ahead,
 * core/csv/convert_ahead.c). `cp` writes a staged file from offset 0 to
 * its end in order; each write that extends that run tells the ahead how
 * far the bytes are final, and the conversion at close then skips its
 * first pass (doc/convert.md "Inference while the file is written").
 *
 * It starts only for an uncompressed CSV/TSV that was empty with a single
 * writer when the first write at offset 0 came, and at most AHEAD_MAX at
 * once. Anything but an in-order append (a write elsewhere, a truncation,
 * a second writer, a new file under the name) stops it: the bytes it read
 * may have changed, and the conversion infers on its own as before. Every
 * function here runs with e->lock held. */
#include "config.h"

#include "staging_internal.h"

#define AHEAD_MAX 4

void stg_ahead_drop(pfs_staging *s, stg_ent *e)
{
	if (e->ahead) {
		pq_infer_ahead_free(e->ahead);
		atomic_fetch_sub(&s->aheads, 1);
	}
	e->ahead = NULL;
	e->ahead_armed = false;
	e->ahead_end = 0;
}

void stg_ahead_arm(pfs_staging *s, stg_ent *e, uint64_t size)
{
	stg_ahead_drop(s, e);
	stg_type t = stg_type_of(e->name);
	/* (an append's rows are typed by its target's schema: nothing to infer) */
	e->ahead_armed = size == 0 && e->writers == 1 && (t == STG_T_CSV || t == STG_T_TSV) &&
			 stg_codec_of(e->name) == PQ_INPUT_PLAIN && !stg_append_wanted(s, e->rel);
}

void stg_ahead_wrote(pfs_staging *s, stg_ent *e, int fd, uint64_t off, size_t n)
{
	if (!e->ahead && !e->ahead_armed)
		return;
	if (off != e->ahead_end || e->writers != 1) {
		stg_ahead_drop(s, e); /* not an append in order: it may have read old bytes */
		return;
	}
	if (!e->ahead) {
		e->ahead_armed = false;
		if (atomic_fetch_add(&s->aheads, 1) >= AHEAD_MAX) {
			atomic_fetch_sub(&s->aheads, 1);
			return;
		}
		const pfs_options *o = s->fs->opts;
		pq_convert_input ci = {.format = stg_type_of(e->name) == STG_T_TSV ? PQ_CSV_TAB
										: PQ_CSV_COMMA,
				       .delimiter = o->delimiter, .codec = PQ_INPUT_PLAIN};
		pq_error err;
		if (pq_infer_ahead_start(fd, e->name, &ci, &e->ahead, &err) != PQ_OK) {
			atomic_fetch_sub(&s->aheads, 1);
			e->ahead = NULL;
			return;
		}
	}
	e->ahead_end = off + n;
	pq_infer_ahead_grow(e->ahead, e->ahead_end);
}
