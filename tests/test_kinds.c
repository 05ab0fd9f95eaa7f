/* The table of entry kinds (fs/kinds.c) is consistent: every kind has a
 * row, a row's columns agree with each other, names are unique in their
 * directory, and keys hash and compare all their fields. */
#include "config.h"

#include <check.h>
#include <string.h>

#include "kinds.h"

static bool in_tree(const pfs_kind_desc *d)
{
	return d->parent != PFS_K_NONE;
}

START_TEST(every_kind_has_a_row)
{
	for (uint32_t k = 1; k < PFS_K_COUNT; k++) {
		const pfs_kind_desc *d = pfs_kind_info(k);
		bool something = d->dir || d->source || d->staging || d->cache_only ||
				 d->body != PFS_BODY_NONE;
		ck_assert_msg(something, "kind %u has no row", k);
	}
	/* out of range: the empty row of PFS_K_NONE */
	ck_assert_ptr_eq(pfs_kind_info(PFS_K_COUNT), pfs_kind_info(PFS_K_NONE));
	ck_assert_ptr_eq(pfs_kind_info(UINT32_MAX), pfs_kind_info(PFS_K_NONE));
}
END_TEST

START_TEST(directories_render_nothing)
{
	for (uint32_t k = 0; k < PFS_K_COUNT; k++) {
		const pfs_kind_desc *d = pfs_kind_info(k);
		if (!d->dir)
			continue;
		ck_assert_msg(d->body == PFS_BODY_NONE && d->size == PFS_SZ_NONE, "dir %u has a body", k);
		ck_assert_msg(!d->render && !d->mem && !d->range && !d->stream && !d->quick_size,
			      "dir %u has a renderer", k);
		ck_assert_msg(!d->cache_only, "dir %u is cache-only", k);
	}
}
END_TEST

START_TEST(bodies_have_their_functions)
{
	for (uint32_t k = 0; k < PFS_K_COUNT; k++) {
		const pfs_kind_desc *d = pfs_kind_info(k);
		switch (d->body) {
		case PFS_BODY_NONE:
			ck_assert_msg(!d->render && !d->mem && !d->range && !d->stream,
				      "kind %u: functions without a body", k);
			break;
		case PFS_BODY_TEXT:
			ck_assert_msg(d->render && !d->mem && !d->range && !d->stream,
				      "text kind %u needs render only", k);
			break;
		case PFS_BODY_MEM:
			ck_assert_msg(d->mem && !d->render && !d->range && !d->stream,
				      "mem kind %u needs mem only", k);
			break;
		case PFS_BODY_RANGE:
			ck_assert_msg(d->range && !d->render && !d->mem && !d->stream,
				      "range kind %u needs range only", k);
			break;
		case PFS_BODY_STREAM:
			ck_assert_msg(d->stream && !d->render && !d->mem && !d->range,
				      "stream kind %u needs a stream renderer only", k);
			ck_assert_msg(d->segment != PFS_K_NONE, "stream kind %u has no segment", k);
			break;
		}
		if (d->segment != PFS_K_NONE)
			ck_assert_msg(d->body == PFS_BODY_STREAM, "kind %u: segment of a non-stream", k);
	}
}
END_TEST

START_TEST(sizes_fit_bodies)
{
	for (uint32_t k = 0; k < PFS_K_COUNT; k++) {
		const pfs_kind_desc *d = pfs_kind_info(k);
		/* every file of a Parquet file's tree says how its size is known */
		if (in_tree(d) && !d->dir)
			ck_assert_msg(d->size != PFS_SZ_NONE, "file kind %u has no size policy", k);
		switch (d->size) {
		case PFS_SZ_NONE:
			break;
		case PFS_SZ_TEXT:
		case PFS_SZ_CHECK:
			ck_assert_msg(d->body == PFS_BODY_TEXT, "kind %u: text size without text", k);
			break;
		case PFS_SZ_EXTENT:
			ck_assert_msg(d->body == PFS_BODY_MEM || d->body == PFS_BODY_RANGE,
				      "kind %u: extent size without extent", k);
			break;
		case PFS_SZ_PAGES: {
			/* the sum of page texts: its segment is a page's text */
			ck_assert_msg(d->body == PFS_BODY_STREAM, "kind %u: pages not streamed", k);
			const pfs_kind_desc *seg = pfs_kind_info(d->segment);
			ck_assert_msg(seg->size == PFS_SZ_TEXT && seg->parent == PFS_K_PAGE,
				      "kind %u: segment is not a page text", k);
			break;
		}
		case PFS_SZ_PASS:
			/* the size pass measures exactly these (pfs_sizes_entry) */
			ck_assert_msg(d->body == PFS_BODY_STREAM || d->body == PFS_BODY_TEXT,
				      "aggregate %u is neither streamed nor rendered", k);
			ck_assert_msg(k == PFS_K_CSV || k == PFS_K_JSONL || k == PFS_K_RG_CSV ||
					      k == PFS_K_RG_JSONL || k == PFS_K_COLUMN_VALUES ||
					      k == PFS_K_VERIFY,
				      "kind %u: sized by the pass, which does not measure it", k);
			break;
		}
		/* a text's size without rendering, an extent's without its
		 * range (raw.bin: without the chunk's layout) */
		if (d->quick_size)
			ck_assert_msg(d->size == PFS_SZ_TEXT || d->size == PFS_SZ_EXTENT,
				      "kind %u: quick size of a non-text, non-extent", k);
	}
}
END_TEST

START_TEST(places_in_the_tree)
{
	for (uint32_t k = 0; k < PFS_K_COUNT; k++) {
		const pfs_kind_desc *d = pfs_kind_info(k);
		if (!in_tree(d)) {
			ck_assert_msg(!d->name && !d->present && d->naming == PFS_NAME_FIXED,
				      "kind %u named but not in the tree", k);
			continue;
		}
		ck_assert_msg(!d->source && !d->staging && !d->cache_only,
			      "kind %u of another namespace in a file's tree", k);
		const pfs_kind_desc *p = pfs_kind_info(d->parent);
		ck_assert_msg(p->dir && !p->staging && p->key_kind == PFS_K_NONE,
			      "parent of kind %u is not a tree directory", k);
		if (d->naming == PFS_NAME_FIXED)
			ck_assert_msg(d->name && *d->name && !strchr(d->name, '/'),
				      "kind %u has no fixed name", k);
		else
			ck_assert_msg(!d->name && !d->present && d->dir,
				      "generated kind %u: a name, a condition, or not a dir", k);
		/* the chain of parents reaches a Parquet file's directory */
		uint32_t up = k;
		int depth = 0;
		while (pfs_kind_info(up)->parent != PFS_K_NONE && depth++ < 16)
			up = pfs_kind_info(up)->parent;
		ck_assert_msg(up == PFS_K_FILE, "kind %u does not hang below a file", k);
		/* one name once per directory */
		for (uint32_t j = k + 1; j < PFS_K_COUNT; j++) {
			const pfs_kind_desc *o = pfs_kind_info(j);
			if (o->parent == d->parent && o->name && d->name)
				ck_assert_msg(strcmp(o->name, d->name), "%s twice", d->name);
		}
		if (d->key_kind != PFS_K_NONE)
			ck_assert_msg(d->dir && pfs_kind_info(d->key_kind)->dir,
				      "kind %u: an alias of a non-directory", k);
	}
}
END_TEST

START_TEST(predicates_read_the_table)
{
	ck_assert(pfs_kind_is_dir(PFS_K_SRC_DIR) && pfs_kind_is_dir(PFS_K_PAGE));
	ck_assert(!pfs_kind_is_dir(PFS_K_CHUNK_BIN));
	ck_assert(pfs_kind_is_stream(PFS_K_CSV) && !pfs_kind_is_stream(PFS_K_VERIFY));
	ck_assert(pfs_kind_is_aggregate(PFS_K_VERIFY) && !pfs_kind_is_aggregate(PFS_K_CHUNK_VALUES));
	ck_assert(pfs_kind_is_staging(PFS_K_STG_ERROR) && !pfs_kind_is_staging(PFS_K_FILE));
}
END_TEST

START_TEST(keys_carry_a_string)
{
	pfs_key a = pfs_key_make(7, PFS_K_PAGE, 1, 2, 3), b = a;
	ck_assert_uint_eq(a.str, 0);
	ck_assert(pfs_key_eq(&a, &b));
	b.str = 42;
	ck_assert(!pfs_key_eq(&a, &b));
	ck_assert(pfs_key_hash(&a) != pfs_key_hash(&b));
}
END_TEST

/* A directory lists its fixed names in table order: the order of the
 * contract's tree (interface.md "The tree of one Parquet file"). */
static void listed(pfs_kind dir, const char *want)
{
	char got[512] = "";
	for (uint32_t k = 0; k < PFS_K_COUNT; k++) {
		const pfs_kind_desc *d = pfs_kind_info(k);
		if (d->parent == dir && d->name && strcmp(d->name, "error.txt")) {
			strcat(got, got[0] ? " " : "");
			strcat(got, d->name);
		}
	}
	ck_assert_str_eq(got, want);
}

START_TEST(listing_order_is_the_contracts)
{
	listed(PFS_K_FILE, "schema.txt metadata.txt metadata.json footer.bin verify.txt data.csv "
			   "data.jsonl file.parquet columns row_groups");
	listed(PFS_K_COLUMN, "values.txt stats.txt");
	const pfs_kind_desc *d = pfs_kind_info(PFS_K_FILE_PARQUET);
	ck_assert(d->body == PFS_BODY_RANGE && d->size == PFS_SZ_EXTENT);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("kinds");
	TCase *t = tcase_create("table");
	tcase_add_test(t, every_kind_has_a_row);
	tcase_add_test(t, directories_render_nothing);
	tcase_add_test(t, bodies_have_their_functions);
	tcase_add_test(t, sizes_fit_bodies);
	tcase_add_test(t, places_in_the_tree);
	tcase_add_test(t, predicates_read_the_table);
	tcase_add_test(t, keys_carry_a_string);
	tcase_add_test(t, listing_order_is_the_contracts);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
