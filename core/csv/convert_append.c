/* CSV/TSV rows appended to an existing Parquet file (pq_convert.h,
 * pq_convert_csv_append; interface.md, "Staging details", Appending).
 *
 * The rows have no header: their fields are the file's leaf columns in
 * order, typed by its schema as a sidecar would type them (the same
 * parsing and the same errors, lines counted from the first row). The
 * output is the old file's bytes up to its footer, copied unchanged (no
 * page is decoded or re-encoded), then the new row groups and the old
 * footer extended with them (core/write/writer_append.c).
 *
 * What cannot be appended to fails before anything is written, with a
 * message saying why: an encrypted file (its footer, or a plaintext footer
 * with encrypted columns: the new chunks would need its keys and the
 * signature would no longer match), a nested schema (LIST, MAP, groups),
 * and column types no CSV field can give (INT96, BSON, INTERVAL ...). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codec/pq_codec.h"
#include "format/pq_footer.h"
#include "pq_csv.h"
#include "pq_io.h"
#define PQ_CSV_INTERNAL
#include "convert_internal.h"

#define COPY_CHUNK ((size_t)1 << 20)

/* A leaf that has only the legacy converted_type: the logical type it
 * stands for (LogicalTypes.md, "Backward compatibility"), so old writers'
 * files (UTF8, DECIMAL, TIMESTAMP_MILLIS ...) are typed as newer ones. */
static void legacy_logical(pq_schema_element *e)
{
	if (e->has_logicalType || !e->has_converted_type)
		return;
	pq_logical_type *lt = &e->logicalType;
	int32_t ct = e->converted_type;
	bool known = true;
	switch (ct) {
	case PQ_CT_UTF8: lt->has_STRING = true; break;
	case PQ_CT_ENUM: lt->has_ENUM = true; break;
	case PQ_CT_JSON: lt->has_JSON = true; break;
	case PQ_CT_DATE: lt->has_DATE = true; break;
	case PQ_CT_DECIMAL:
		lt->has_DECIMAL = true;
		lt->DECIMAL.precision = e->has_precision ? e->precision : 0;
		lt->DECIMAL.scale = e->has_scale ? e->scale : 0;
		break;
	case PQ_CT_TIMESTAMP_MILLIS:
	case PQ_CT_TIMESTAMP_MICROS:
		lt->has_TIMESTAMP = true;
		lt->TIMESTAMP.isAdjustedToUTC = true;
		if (ct == PQ_CT_TIMESTAMP_MILLIS)
			lt->TIMESTAMP.unit.has_MILLIS = true;
		else
			lt->TIMESTAMP.unit.has_MICROS = true;
		break;
	case PQ_CT_TIME_MILLIS:
	case PQ_CT_TIME_MICROS:
		lt->has_TIME = true;
		lt->TIME.isAdjustedToUTC = true;
		if (ct == PQ_CT_TIME_MILLIS)
			lt->TIME.unit.has_MILLIS = true;
		else
			lt->TIME.unit.has_MICROS = true;
		break;
	default:
		if (ct >= PQ_CT_UINT_8 && ct <= PQ_CT_INT_64) {
			int k = ct >= PQ_CT_INT_8 ? ct - PQ_CT_INT_8 : ct - PQ_CT_UINT_8;
			lt->has_INTEGER = true;
			lt->INTEGER.bitWidth = (int8_t)(8 << k);
			lt->INTEGER.isSigned = ct >= PQ_CT_INT_8;
		} else {
			known = false; /* BSON, INTERVAL, MAP ...: refused by the type check */
		}
	}
	e->has_logicalType = known;
}

/* The file's schema as the conversion takes it: flat, REQUIRED or
 * OPTIONAL leaves of types a CSV field can give. Copied into arena (the
 * legacy annotations completed); els[0] is the root. */
static pq_status appendable_schema(const pq_file_meta_data *md, const char *name,
				   const char *target, pq_arena *arena, pq_schema_element **out,
				   pq_error *err)
{
	uint32_t n = md->schema.n;
	const pq_schema_element *s = md->schema.v;
	PQ_CHECK(n >= 2 && s[0].has_num_children && s[0].num_children >= 0 &&
			 (uint32_t)s[0].num_children == n - 1,
		 err, PQ_EUNSUPPORTED,
		 "%s: cannot append to %s: its schema is nested (groups, LIST or MAP), which CSV "
		 "rows cannot fill; nothing was changed", name, target);
	pq_schema_element *els = pq_arena_calloc(arena, n, sizeof *els);
	PQ_CHECK(els, err, PQ_ENOMEM, "%s: no memory for the schema of %s", name, target);
	memcpy(els, s, n * sizeof *els);
	for (uint32_t i = 1; i < n; i++) {
		pq_schema_element *e = &els[i];
		char nm[128];
		pq_conv_msg_name(e->name, nm, sizeof nm);
		PQ_CHECK(e->has_type && !(e->has_num_children && e->num_children > 0), err,
			 PQ_EUNSUPPORTED, "%s: cannot append to %s: column '%s' is a group, which "
			 "CSV rows cannot fill; nothing was changed", name, target, nm);
		PQ_CHECK(e->has_repetition_type && (e->repetition_type == PQ_REQUIRED ||
						    e->repetition_type == PQ_OPTIONAL),
			 err, PQ_EUNSUPPORTED, "%s: cannot append to %s: column '%s' is repeated, "
			 "which CSV rows cannot fill; nothing was changed", name, target, nm);
		legacy_logical(e);
		pq_cv_type t;
		const char *why = pq_cv_type_of(e, &t);
		PQ_CHECK(!why, err, PQ_EUNSUPPORTED,
			 "%s: cannot append to %s: column '%s': %s; nothing was changed", name, target,
			 nm, why);
	}
	*out = els;
	return PQ_OK;
}

/* The writer options for the new row groups: the caller's, without
 * encryption (a plaintext file stays plaintext) and with the codec of the
 * file's last row group when this build writes it, so the file stays of
 * one kind. */
static void append_options(const pq_file_meta_data *md, const pq_write_options *opts,
			   pq_write_options *wo)
{
	if (opts)
		*wo = *opts;
	else
		pq_write_options_init(wo);
	wo->footer_key = NULL;
	wo->footer_key_len = 0;
	wo->footer_key_id = NULL;
	wo->column_keys = NULL;
	wo->n_column_keys = 0;
	wo->plaintext_footer = false;
	wo->aad_prefix = NULL;
	if (md->row_groups.n == 0)
		return;
	const pq_row_group *rg = &md->row_groups.v[md->row_groups.n - 1];
	if (rg->columns.n == 0 || !rg->columns.v[0].has_meta_data)
		return;
	int32_t codec = rg->columns.v[0].meta_data.codec;
	if (codec != wo->codec && pq_codec_supported(codec)) {
		wo->codec = codec;
		wo->has_compression_level = false; /* the level was the other codec's */
	}
}

/* The old file's bytes [0, n) into out at the same offsets. */
static pq_status copy_prefix(pq_source *old, int out, uint64_t n, const char *name,
			     const char *target, pq_error *err)
{
	int in = pq_source_fd(old);
	uint64_t done = 0;
	if (in >= 0) { /* a local file: the kernel copies (or shares extents) */
		while (done < n) {
			off_t io = (off_t)done, oo = (off_t)done;
			size_t want = n - done > ((size_t)1 << 30) ? (size_t)1 << 30 : (size_t)(n - done);
			ssize_t k = copy_file_range(in, &io, out, &oo, want, 0);
			if (k <= 0)
				break; /* (EXDEV, EINVAL on some filesystems): by hand below */
			done += (uint64_t)k;
		}
	}
	uint8_t *buf = done < n ? malloc(COPY_CHUNK) : NULL;
	PQ_CHECK(done == n || buf, err, PQ_ENOMEM, "%s: no memory to copy %s", name, target);
	while (done < n) {
		size_t want = n - done > COPY_CHUNK ? COPY_CHUNK : (size_t)(n - done);
		pq_status st = pq_source_pread(old, buf, want, done, err);
		if (st != PQ_OK) {
			free(buf);
			return pq_context(err, "%s: reading %s", name, target);
		}
		for (size_t put = 0; put < want;) {
			ssize_t k = pwrite(out, buf + put, want - put, (off_t)(done + put));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				int e = k < 0 ? errno : ENOSPC;
				free(buf);
				return pq_fail(err, PQ_EIO, "%s: cannot write the copy of %s: %s", name,
					       target, strerror(e));
			}
			put += (size_t)k;
		}
		done += want;
	}
	free(buf);
	return PQ_OK;
}

pq_status pq_convert_csv_append(pq_source *old, const char *target, int in_fd, int out_fd,
				const char *display_name, const pq_convert_input *in,
				const pq_write_options *opts, pq_convert_stats *stats,
				pq_error *err)
{
	const char *name = display_name ? display_name : "input";
	target = target ? target : "the file";
	PQ_CHECK(old && in, err, PQ_EINVAL, "%s: nothing to append to", name);
	uint64_t size = pq_source_size(old);
	uint8_t head[4], tail[8];
	pq_footer_loc loc;
	pq_status st = size < PQ_FOOTER_MIN_FILE
			       ? pq_fail(err, PQ_ECORRUPT, "%llu bytes is too short for Parquet",
					 (unsigned long long)size)
			       : pq_source_pread(old, head, 4, 0, err);
	if (st == PQ_OK)
		st = pq_source_pread(old, tail, 8, size - 8, err);
	if (st == PQ_OK)
		st = pq_footer_locate(head, tail, size, &loc, err);
	if (st != PQ_OK)
		return pq_context(err, "%s: cannot append to %s", name, target);
	PQ_CHECK(!loc.encrypted, err, PQ_EUNSUPPORTED,
		 "%s: cannot append to %s: it is encrypted (PARE); nothing was changed", name,
		 target);
	uint8_t *footer = malloc(loc.length);
	PQ_CHECK(footer, err, PQ_ENOMEM, "%s: no memory for the footer of %s", name, target);
	pq_arena arena;
	pq_arena_init(&arena, 0);
	pq_file_meta_data md;
	memset(&md, 0, sizeof md);
	size_t used = 0;
	st = pq_source_pread(old, footer, loc.length, loc.offset, err);
	if (st == PQ_OK)
		st = pq_footer_decode(&loc, footer, loc.length, &md, &used, &arena, err);
	if (st != PQ_OK)
		pq_context(err, "%s: cannot append to %s", name, target);
	if (st == PQ_OK && (md.has_encryption_algorithm || used != loc.length))
		st = pq_fail(err, PQ_EUNSUPPORTED, "%s: cannot append to %s: its columns are "
			     "encrypted (signed plaintext footer); nothing was changed", name, target);
	pq_schema_element *els = NULL;
	if (st == PQ_OK)
		st = appendable_schema(&md, name, target, &arena, &els, err);
	pq_write_options wo;
	append_options(&md, opts, &wo);
	if (st == PQ_OK)
		st = copy_prefix(old, out_fd, loc.offset, name, target, err);
	if (st == PQ_OK) {
		pq_conv_append app = {.els = els, .nels = md.schema.n, .offset = loc.offset,
				      .rgs = md.row_groups.n, .footer = footer,
				      .footer_len = loc.length, .target = target};
		st = pq_conv_run(in_fd, out_fd, name, in, NULL, &app, &wo, stats, err);
	}
	pq_arena_free(&arena);
	free(footer);
	return st;
}
