#include "config.h"

/* The writer's options: the contract's defaults (the one place they are
 * set: the mount's staging/ and parquetfs-convert start from them too, see
 * pfs_options_check_writer), and the per-column choices (value encoding,
 * bloom filter) looked up by column name. */

#define PQ_WRITE_INTERNAL
#include "writer_internal.h"

#include <string.h>

void pq_write_options_init(pq_write_options *o)
{
	memset(o, 0, sizeof *o);
	o->codec = PQ_CODEC_ZSTD;
	o->row_group_rows = 1048576;
	o->page_size = (uint64_t)1 << 20;
	o->data_page_version = 1;
	o->dictionary = true;
	o->page_index = true;
	o->crc = true;
	o->bloom_fpp = 0.01;
}

static bool name_is(const char *s, const char *name, size_t name_len)
{
	return s && strlen(s) == name_len && memcmp(s, name, name_len) == 0;
}

/* The encoding asked for this column, or -1 for the default. The last
 * entry naming a column wins. */
int pq_writer_column_encoding(const pq_writer *w, const char *name, size_t name_len)
{
	int enc = -1;
	if (!w->opts.column_encodings)
		return -1;
	for (size_t i = 0; i < w->opts.n_column_encodings; i++)
		if (name_is(w->opts.column_encodings[i].column, name, name_len))
			enc = w->opts.column_encodings[i].encoding;
	return enc;
}

bool pq_writer_column_bloom(const pq_writer *w, const char *name, size_t name_len)
{
	if (!w->opts.bloom_columns)
		return false;
	for (const char *const *c = w->opts.bloom_columns; *c; c++)
		if (name_is(*c, name, name_len))
			return true;
	return false;
}
