/* metadata.txt of file, row group and column chunk, and header.txt of a
 * page: human summaries, one "key: value" per line. Values that hold
 * arbitrary bytes are escaped like values.txt so every entry is one line. */
#include "config.h"

#define PQ_READ_INTERNAL
#include "file_internal.h"

#include <inttypes.h>
#include <stdio.h>

#include "codec/pq_codec.h"
#include "format/pq_metadata_codec.h"
#include "pq_aruna.h"
#include "pq_render.h"

static void put_bytes(pq_buf *out, pq_bytes b)
{
	pq_render_values_escape(b.p, b.n, out);
}

static void put_enum(pq_buf *out, const char *name, int32_t v)
{
	if (name)
		pq_buf_puts(out, name);
	else
		pq_buf_printf(out, "%" PRId32, v);
}

static void put_kv_list(pq_buf *out, const char *indent, const pq_key_value *kv, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		pq_buf_printf(out, "%s", indent);
		put_bytes(out, kv[i].key);
		pq_buf_puts(out, " = ");
		if (kv[i].has_value)
			put_bytes(out, kv[i].value);
		else
			pq_buf_puts(out, "(no value)");
		pq_buf_putc(out, '\n');
	}
}

void pq_text_bound(pq_buf *out, const pq_leaf *leaf, pq_bytes b)
{
	if (!leaf || !pq_render_plain_bytes(&leaf->render, b.p, b.n, PQ_MODE_VALUES, out))
		pq_render_hex(b.p, b.n, PQ_MODE_VALUES, out);
}

static void put_statistics(pq_buf *out, const char *indent, const pq_leaf *leaf,
			   const pq_statistics *s)
{
	const struct {
		const char *label;
		bool has;
		pq_bytes value;
	} bounds[] = {
		{"min_value", s->has_min_value, s->min_value},
		{"max_value", s->has_max_value, s->max_value},
		{"min (deprecated)", s->has_min, s->min},
		{"max (deprecated)", s->has_max, s->max},
	};
	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
		if (!bounds[i].has)
			continue;
		pq_buf_printf(out, "%s%s: ", indent, bounds[i].label);
		pq_text_bound(out, leaf, bounds[i].value);
		pq_buf_putc(out, '\n');
	}
	if (s->has_is_min_value_exact)
		pq_buf_printf(out, "%sis_min_value_exact: %s\n", indent, s->is_min_value_exact ? "true" : "false");
	if (s->has_is_max_value_exact)
		pq_buf_printf(out, "%sis_max_value_exact: %s\n", indent, s->is_max_value_exact ? "true" : "false");
	if (s->has_null_count)
		pq_buf_printf(out, "%snull_count: %" PRId64 "\n", indent, s->null_count);
	if (s->has_distinct_count)
		pq_buf_printf(out, "%sdistinct_count: %" PRId64 "\n", indent, s->distinct_count);
	if (s->has_nan_count)
		pq_buf_printf(out, "%snan_count: %" PRId64 "\n", indent, s->nan_count);
}

static void put_i64_list(pq_buf *out, const pq_list_i64 *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		pq_buf_printf(out, "%s%" PRId64, i ? " " : "", l->v[i]);
}

void pq_text_schema(const pq_file *f, pq_buf *out)
{
	pq_schema_print(f->schema, out);
}

void pq_text_file_metadata(const pq_file *f, pq_buf *out)
{
	const pq_file_meta_data *md = &f->md;
	pq_buf_printf(out, "file: %s\n", f->name);
	pq_buf_printf(out, "file_size: %" PRIu64 "\n", f->size);
	pq_buf_printf(out, "footer_size: %zu\n", f->footer_len);
	pq_buf_printf(out, "version: %" PRId32 "\n", md->version);
	pq_buf_puts(out, "created_by: ");
	if (md->has_created_by)
		put_bytes(out, md->created_by);
	pq_buf_putc(out, '\n');
	pq_buf_printf(out, "num_rows: %" PRId64 "\n", md->num_rows);
	pq_buf_printf(out, "num_row_groups: %" PRIu32 "\n", md->row_groups.n);
	pq_buf_printf(out, "num_columns: %" PRIu32 "\n", f->num_columns);
	int64_t comp = 0, uncomp = 0;
	for (uint32_t r = 0; r < md->row_groups.n; r++)
		for (uint32_t c = 0; c < md->row_groups.v[r].columns.n; c++) {
			const pq_column_chunk *cc = &md->row_groups.v[r].columns.v[c];
			if (cc->has_meta_data) {
				comp += cc->meta_data.total_compressed_size;
				uncomp += cc->meta_data.total_uncompressed_size;
			}
		}
	pq_buf_printf(out, "total_compressed_size: %" PRId64 "\n", comp);
	pq_buf_printf(out, "total_uncompressed_size: %" PRId64 "\n", uncomp);
	if (f->crypto)
		pq_text_file_encryption(f, out); /* core/read/file_crypto.c */
	else
		pq_buf_puts(out, "encryption_algorithm: none\n");
	pq_aruna_describe(f->src, out); /* a container's line; nothing for other sources */
	if (md->has_column_orders) {
		uint32_t typed = 0, ieee = 0, int96 = 0;
		for (uint32_t i = 0; i < md->column_orders.n; i++) {
			typed += md->column_orders.v[i].has_TYPE_ORDER;
			ieee += md->column_orders.v[i].has_IEEE_754_TOTAL_ORDER;
			int96 += md->column_orders.v[i].has_INT96_TIMESTAMP_ORDER;
		}
		pq_buf_printf(out, "column_orders: %" PRIu32 " TYPE_ORDER", typed);
		if (ieee)
			pq_buf_printf(out, ", %" PRIu32 " IEEE_754_TOTAL_ORDER", ieee);
		if (int96)
			pq_buf_printf(out, ", %" PRIu32 " INT96_TIMESTAMP_ORDER", int96);
		pq_buf_printf(out, ", %" PRIu32 " unknown\n", md->column_orders.n - typed - ieee - int96);
	} else {
		pq_buf_puts(out, "column_orders: none\n");
	}
	pq_buf_printf(out, "key_value_metadata: %" PRIu32 "\n", md->key_value_metadata.n);
	put_kv_list(out, "  ", md->key_value_metadata.v, md->key_value_metadata.n);
	pq_buf_puts(out, "row_groups:\n");
	for (uint32_t r = 0; r < md->row_groups.n; r++) {
		const pq_row_group *rg = &md->row_groups.v[r];
		pq_buf_printf(out, "  %" PRIu32 ": num_rows %" PRId64 ", total_byte_size %" PRId64 "\n",
			      r, rg->num_rows, rg->total_byte_size);
	}
	pq_buf_puts(out, "columns:\n");
	for (uint32_t c = 0; c < f->num_columns; c++) {
		const pq_leaf *leaf = pq_schema_leaf(f->schema, c);
		pq_buf_printf(out, "  %" PRIu32 ": %s (%s)\n", c, leaf->path,
			      pq_type_name(leaf->physical) ? pq_type_name(leaf->physical) : "?");
	}
}

void pq_text_row_group_metadata(const pq_file *f, uint32_t r, pq_buf *out)
{
	if (r >= f->md.row_groups.n)
		return;
	const pq_row_group *rg = &f->md.row_groups.v[r];
	pq_buf_printf(out, "row_group: %" PRIu32 "\n", r);
	pq_buf_printf(out, "num_rows: %" PRId64 "\n", rg->num_rows);
	pq_buf_printf(out, "num_columns: %" PRIu32 "\n", rg->columns.n);
	pq_buf_printf(out, "total_byte_size: %" PRId64 "\n", rg->total_byte_size);
	if (rg->has_total_compressed_size)
		pq_buf_printf(out, "total_compressed_size: %" PRId64 "\n", rg->total_compressed_size);
	if (rg->has_file_offset)
		pq_buf_printf(out, "file_offset: %" PRId64 "\n", rg->file_offset);
	if (rg->has_ordinal)
		pq_buf_printf(out, "ordinal: %d\n", rg->ordinal);
	if (rg->has_sorting_columns) {
		pq_buf_puts(out, "sorting_columns:\n");
		for (uint32_t i = 0; i < rg->sorting_columns.n; i++) {
			const pq_sorting_column *s = &rg->sorting_columns.v[i];
			const pq_leaf *leaf = s->column_idx >= 0 ? pq_schema_leaf(f->schema, (uint32_t)s->column_idx) : NULL;
			pq_buf_printf(out, "  %s (column %" PRId32 ") %s, nulls %s\n",
				      leaf ? leaf->path : "?", s->column_idx,
				      s->descending ? "descending" : "ascending",
				      s->nulls_first ? "first" : "last");
		}
	}
	pq_buf_puts(out, "columns:\n");
	for (uint32_t c = 0; c < rg->columns.n; c++) {
		const pq_column_chunk *cc = &rg->columns.v[c];
		const pq_leaf *leaf = pq_schema_leaf(f->schema, c);
		pq_buf_printf(out, "  %s:", leaf ? leaf->path : "?");
		if (cc->has_meta_data)
			pq_buf_printf(out, " %s, %" PRId64 " values, %" PRId64 " bytes compressed, %" PRId64 " uncompressed\n",
				      pq_codec_name(cc->meta_data.codec) ? pq_codec_name(cc->meta_data.codec) : "?",
				      cc->meta_data.num_values, cc->meta_data.total_compressed_size,
				      cc->meta_data.total_uncompressed_size);
		else
			pq_buf_puts(out, " metadata encrypted\n");
	}
}

static void put_double(pq_buf *out, double d)
{
	char buf[PQ_FORMAT_BUF];
	pq_buf_append(out, buf, pq_format_double(d, buf));
}

/* interface.md: the box as `xmin ymin xmax ymax` (then `zmin zmax`,
 * `mmin mmax` when present). */
static void put_geo_statistics(pq_buf *out, const pq_geospatial_statistics *g)
{
	pq_buf_puts(out, "geospatial_statistics:\n");
	if (g->has_bbox) {
		const pq_bounding_box *b = &g->bbox;
		pq_buf_puts(out, "  bbox: ");
		put_double(out, b->xmin);
		const double more[] = {b->ymin, b->xmax, b->ymax, b->zmin, b->zmax, b->mmin, b->mmax};
		size_t n = 3 + (b->has_zmin && b->has_zmax ? 2 : 0);
		for (size_t i = 0; i < n; i++) {
			pq_buf_putc(out, ' ');
			put_double(out, more[i]);
		}
		if (b->has_mmin && b->has_mmax) {
			pq_buf_putc(out, ' ');
			put_double(out, b->mmin);
			pq_buf_putc(out, ' ');
			put_double(out, b->mmax);
		}
		pq_buf_putc(out, '\n');
	}
	if (g->has_geospatial_types) {
		pq_buf_puts(out, "  geospatial_types:");
		for (uint32_t i = 0; i < g->geospatial_types.n; i++)
			pq_buf_printf(out, " %" PRId32, g->geospatial_types.v[i]);
		pq_buf_putc(out, '\n');
	}
}

/* GEOMETRY / GEOGRAPHY columns: the CRS and edge algorithm, with the
 * defaults Geospatial.md gives when they are not stored. */
static void put_geo_type(pq_buf *out, const pq_schema_element *e)
{
	if (!e->has_logicalType)
		return;
	const pq_logical_type *l = &e->logicalType;
	if (!l->has_GEOMETRY && !l->has_GEOGRAPHY)
		return;
	bool has_crs = l->has_GEOMETRY ? l->GEOMETRY.has_crs : l->GEOGRAPHY.has_crs;
	pq_bytes crs = l->has_GEOMETRY ? l->GEOMETRY.crs : l->GEOGRAPHY.crs;
	pq_buf_puts(out, "crs: ");
	if (has_crs)
		put_bytes(out, crs);
	else
		pq_buf_puts(out, "OGC:CRS84 (default)");
	pq_buf_puts(out, "\nedge_algorithm: ");
	if (l->has_GEOMETRY) {
		pq_buf_puts(out, "planar");
	} else if (l->GEOGRAPHY.has_algorithm) {
		put_enum(out, pq_edge_algorithm_name(l->GEOGRAPHY.algorithm), l->GEOGRAPHY.algorithm);
	} else {
		pq_buf_puts(out, "SPHERICAL (default)");
	}
	pq_buf_putc(out, '\n');
}

void pq_text_chunk_metadata(const pq_file *f, uint32_t rg, uint32_t col, pq_buf *out)
{
	const pq_column_chunk *cc = pq_file_chunk(f, rg, col);
	const pq_leaf *leaf = pq_schema_leaf(f->schema, col);
	if (!cc || !leaf)
		return;
	pq_buf_printf(out, "path: %s\n", leaf->path);
	pq_buf_printf(out, "row_group: %" PRIu32 "\n", rg);
	pq_buf_printf(out, "column: %" PRIu32 "\n", col);
	pq_buf_printf(out, "max_definition_level: %d\n", leaf->max_def);
	pq_buf_printf(out, "max_repetition_level: %d\n", leaf->max_rep);
	put_geo_type(out, &leaf->node->el);
	pq_buf_printf(out, "file_offset: %" PRId64 "\n", cc->file_offset);
	if (cc->has_file_path) {
		pq_buf_puts(out, "file_path: ");
		put_bytes(out, cc->file_path);
		pq_buf_putc(out, '\n');
	}
	if (cc->has_crypto_metadata) {
		const pq_column_crypto_meta_data *cm = &cc->crypto_metadata;
		pq_buf_puts(out, "encryption: ");
		if (cm->has_ENCRYPTION_WITH_FOOTER_KEY) {
			pq_buf_puts(out, "footer key");
		} else if (cm->has_ENCRYPTION_WITH_COLUMN_KEY) {
			pq_buf_puts(out, "column key");
			if (cm->ENCRYPTION_WITH_COLUMN_KEY.has_key_metadata) {
				pq_buf_puts(out, " ");
				put_bytes(out, cm->ENCRYPTION_WITH_COLUMN_KEY.key_metadata);
			}
		}
		pq_buf_putc(out, '\n');
	}
	if (!cc->has_meta_data) {
		pq_buf_puts(out, "meta_data: not available (encrypted)\n");
		return;
	}
	const pq_column_meta_data *m = &cc->meta_data;
	pq_buf_printf(out, "type: %s\n", pq_type_name(m->type) ? pq_type_name(m->type) : "?");
	pq_buf_puts(out, "codec: ");
	put_enum(out, pq_codec_name(m->codec), m->codec);
	pq_buf_puts(out, "\nencodings:");
	for (uint32_t i = 0; i < m->encodings.n; i++) {
		pq_buf_puts(out, i ? ", " : " ");
		put_enum(out, pq_encoding_name(m->encodings.v[i]), m->encodings.v[i]);
	}
	pq_buf_putc(out, '\n');
	if (m->has_encoding_stats) {
		pq_buf_puts(out, "encoding_stats:\n");
		for (uint32_t i = 0; i < m->encoding_stats.n; i++) {
			const pq_page_encoding_stats *s = &m->encoding_stats.v[i];
			pq_buf_puts(out, "  ");
			put_enum(out, pq_page_type_name(s->page_type), s->page_type);
			pq_buf_puts(out, " ");
			put_enum(out, pq_encoding_name(s->encoding), s->encoding);
			pq_buf_printf(out, ": %" PRId32 " pages\n", s->count);
		}
	}
	pq_buf_printf(out, "num_values: %" PRId64 "\n", m->num_values);
	pq_buf_printf(out, "total_uncompressed_size: %" PRId64 "\n", m->total_uncompressed_size);
	pq_buf_printf(out, "total_compressed_size: %" PRId64 "\n", m->total_compressed_size);
	pq_buf_printf(out, "data_page_offset: %" PRId64 "\n", m->data_page_offset);
	if (m->has_dictionary_page_offset)
		pq_buf_printf(out, "dictionary_page_offset: %" PRId64 "\n", m->dictionary_page_offset);
	if (m->has_index_page_offset)
		pq_buf_printf(out, "index_page_offset: %" PRId64 "\n", m->index_page_offset);
	if (m->has_statistics) {
		pq_buf_puts(out, "statistics:\n");
		put_statistics(out, "  ", leaf, &m->statistics);
	}
	if (m->has_size_statistics) {
		const pq_size_statistics *s = &m->size_statistics;
		pq_buf_puts(out, "size_statistics:\n");
		if (s->has_unencoded_byte_array_data_bytes)
			pq_buf_printf(out, "  unencoded_byte_array_data_bytes: %" PRId64 "\n",
				      s->unencoded_byte_array_data_bytes);
		if (s->has_repetition_level_histogram) {
			pq_buf_puts(out, "  repetition_level_histogram: ");
			put_i64_list(out, &s->repetition_level_histogram);
			pq_buf_putc(out, '\n');
		}
		if (s->has_definition_level_histogram) {
			pq_buf_puts(out, "  definition_level_histogram: ");
			put_i64_list(out, &s->definition_level_histogram);
			pq_buf_putc(out, '\n');
		}
	}
	if (m->has_geospatial_statistics)
		put_geo_statistics(out, &m->geospatial_statistics);
	if (m->has_bloom_filter_offset)
		pq_buf_printf(out, "bloom_filter_offset: %" PRId64 "\n", m->bloom_filter_offset);
	if (m->has_bloom_filter_length)
		pq_buf_printf(out, "bloom_filter_length: %" PRId32 "\n", m->bloom_filter_length);
	if (cc->has_column_index_offset)
		pq_buf_printf(out, "column_index_offset: %" PRId64 "\n", cc->column_index_offset);
	if (cc->has_column_index_length)
		pq_buf_printf(out, "column_index_length: %" PRId32 "\n", cc->column_index_length);
	if (cc->has_offset_index_offset)
		pq_buf_printf(out, "offset_index_offset: %" PRId64 "\n", cc->offset_index_offset);
	if (cc->has_offset_index_length)
		pq_buf_printf(out, "offset_index_length: %" PRId32 "\n", cc->offset_index_length);
	if (m->has_key_value_metadata) {
		pq_buf_printf(out, "key_value_metadata: %" PRIu32 "\n", m->key_value_metadata.n);
		put_kv_list(out, "  ", m->key_value_metadata.v, m->key_value_metadata.n);
	}
}

pq_status pq_text_page_header(const pq_file *f, const pq_chunk_layout *l,
			      const pq_page_info *page, pq_buf *out, pq_error *err)
{
	const pq_page_header *h = &page->header;
	const pq_leaf *leaf = pq_schema_leaf(f->schema, l->col);
	pq_crc_state crc;
	uint32_t computed;
	PQ_TRY(pq_page_crc(f, page, &crc, &computed, err));
	pq_buf_puts(out, "type: ");
	put_enum(out, pq_page_type_name(h->type), h->type);
	pq_buf_printf(out, "\nfile_offset: %" PRIu64 "\n", page->header_offset);
	pq_buf_printf(out, "header_size: %" PRIu32 "\n", page->header_len);
	pq_buf_printf(out, "compressed_page_size: %" PRId32 "\n", h->compressed_page_size);
	pq_buf_printf(out, "uncompressed_page_size: %" PRId32 "\n", h->uncompressed_page_size);
	if (crc == PQ_CRC_ABSENT)
		pq_buf_puts(out, "crc: none\n");
	else
		pq_buf_printf(out, "crc: 0x%08" PRIx32 " (%s, computed 0x%08" PRIx32 ")\n",
			      (uint32_t)h->crc, crc == PQ_CRC_OK ? "matches" : "MISMATCH", computed);
	if (h->type == PQ_PAGE_DICTIONARY && h->has_dictionary_page_header) {
		const pq_dictionary_page_header *d = &h->dictionary_page_header;
		pq_buf_printf(out, "num_values: %" PRId32 "\nencoding: ", d->num_values);
		put_enum(out, pq_encoding_name(d->encoding), d->encoding);
		pq_buf_putc(out, '\n');
		if (d->has_is_sorted)
			pq_buf_printf(out, "is_sorted: %s\n", d->is_sorted ? "true" : "false");
	} else if (h->type == PQ_PAGE_DATA && h->has_data_page_header) {
		const pq_data_page_header *d = &h->data_page_header;
		pq_buf_printf(out, "num_values: %" PRId32 "\nencoding: ", d->num_values);
		put_enum(out, pq_encoding_name(d->encoding), d->encoding);
		pq_buf_puts(out, "\ndefinition_level_encoding: ");
		put_enum(out, pq_encoding_name(d->definition_level_encoding), d->definition_level_encoding);
		pq_buf_puts(out, "\nrepetition_level_encoding: ");
		put_enum(out, pq_encoding_name(d->repetition_level_encoding), d->repetition_level_encoding);
		pq_buf_putc(out, '\n');
		if (page->rows_known)
			pq_buf_printf(out, "num_rows: %" PRIu32 "\nfirst_row_index: %" PRIu64 "\n",
				      page->num_rows, page->first_row);
		if (d->has_statistics) {
			pq_buf_puts(out, "statistics:\n");
			put_statistics(out, "  ", leaf, &d->statistics);
		}
	} else if (h->type == PQ_PAGE_DATA_V2 && h->has_data_page_header_v2) {
		const pq_data_page_header_v2 *d = &h->data_page_header_v2;
		pq_buf_printf(out, "num_values: %" PRId32 "\nnum_nulls: %" PRId32 "\nnum_rows: %" PRId32 "\nencoding: ",
			      d->num_values, d->num_nulls, d->num_rows);
		put_enum(out, pq_encoding_name(d->encoding), d->encoding);
		pq_buf_printf(out, "\ndefinition_levels_byte_length: %" PRId32
			      "\nrepetition_levels_byte_length: %" PRId32 "\nis_compressed: %s\n",
			      d->definition_levels_byte_length, d->repetition_levels_byte_length,
			      !d->has_is_compressed || d->is_compressed ? "true" : "false");
		pq_buf_printf(out, "first_row_index: %" PRIu64 "\n", page->first_row);
		if (d->has_statistics) {
			pq_buf_puts(out, "statistics:\n");
			put_statistics(out, "  ", leaf, &d->statistics);
		}
	}
	return PQ_OK;
}
