/* The local SOURCE backend (fs/source_local.c) through its interface
 * (fs/pfs_source.h): listing, stat and identity, the magic sniff, opening
 * a file as a pq_source, and publishing (commit and abort). */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pfs_source.h"

static char root[256];
static pfs_source *src;

static void put(const char *rel, const char *bytes, size_t n)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", root, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, bytes, n), (ssize_t)n);
	close(fd);
}

static void setup(void)
{
	snprintf(root, sizeof root, "%s/pfs-src-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	ck_assert(mkdtemp(root));
	char p[512];
	snprintf(p, sizeof p, "%s/sub", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	put("a.parquet", "PAR1....PAR1", 12);
	put("notes.txt", "hello", 5);
	snprintf(p, sizeof p, "%s/fifo", root);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	src = pfs_source_local_new(root);
	ck_assert(src);
}

static void teardown(void)
{
	pfs_source_free(src);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

typedef struct seen {
	char names[16][64];
	int n;
} seen;

static int collect(void *ctx, const char *name, const struct stat *st, const pq_identity *id)
{
	seen *s = ctx;
	ck_assert(S_ISDIR(st->st_mode) || S_ISREG(st->st_mode));
	ck_assert_uint_gt(id->len, 0);
	ck_assert_int_lt(s->n, 16);
	snprintf(s->names[s->n++], 64, "%s", name);
	return 0;
}

static bool has(const seen *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return true;
	return false;
}

START_TEST(test_list)
{
	seen s = {.n = 0};
	ck_assert_int_eq(src->ops->list(src->be, "", collect, &s), 0);
	ck_assert_int_eq(s.n, 3); /* no ".", "..", nor the fifo */
	ck_assert(has(&s, "sub") && has(&s, "a.parquet") && has(&s, "notes.txt"));
	s.n = 0;
	ck_assert_int_eq(src->ops->list(src->be, "sub", collect, &s), 0);
	ck_assert_int_eq(s.n, 0);
	ck_assert_int_eq(src->ops->list(src->be, "missing", collect, &s), -ENOENT);
}
END_TEST

START_TEST(test_stat_identity)
{
	struct stat st;
	pq_identity a, b;
	ck_assert_int_eq(src->ops->stat(src->be, "a.parquet", &st, &a), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_size, 12);
	ck_assert_int_eq(src->ops->stat(src->be, "a.parquet", &st, &b), 0);
	ck_assert(pq_identity_eq(&a, &b));
	put("a.parquet", "PAR1......PAR1", 14); /* rewritten: another identity */
	ck_assert_int_eq(src->ops->stat(src->be, "a.parquet", &st, &b), 0);
	ck_assert(!pq_identity_eq(&a, &b));
	ck_assert_int_eq(src->ops->stat(src->be, "", &st, &a), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(src->ops->stat(src->be, "nope", &st, &a), -ENOENT);
}
END_TEST

START_TEST(test_sniff)
{
	ck_assert_int_eq(src->ops->sniff(src->be, "a.parquet"), 1);
	ck_assert_int_eq(src->ops->sniff(src->be, "notes.txt"), 0);
	ck_assert_int_eq(src->ops->sniff(src->be, "nope"), 0);
	put("short", "PA", 2);
	ck_assert_int_eq(src->ops->sniff(src->be, "short"), 0);
}
END_TEST

START_TEST(test_open)
{
	pq_source *s;
	pq_error err;
	ck_assert_int_eq(src->ops->open(src->be, "a.parquet", &s, &err), PQ_OK);
	ck_assert_uint_eq(pq_source_size(s), 12);
	ck_assert_int_ge(pq_source_fd(s), 0); /* local: zero-copy possible */
	/* the open file's identity is the path's: generic code may compare them */
	struct stat st;
	pq_identity id;
	ck_assert_int_eq(src->ops->stat(src->be, "a.parquet", &st, &id), 0);
	ck_assert(pq_identity_eq(&id, pq_source_identity(s)));
	char b[4];
	ck_assert_int_eq(pq_source_pread(s, b, 4, 8, &err), PQ_OK);
	ck_assert(!memcmp(b, "PAR1", 4));
	pq_source_unref(s);
	ck_assert_int_eq(src->ops->open(src->be, "sub/none.parquet", &s, &err), PQ_EIO);
	ck_assert_str_eq(err.msg, "none.parquet: cannot open: No such file or directory");
}
END_TEST

/* Names in a directory, sorted into one string ("a b c"). */
static void names_of(const char *rel, char *out, size_t n)
{
	seen s = {.n = 0};
	ck_assert_int_eq(src->ops->list(src->be, rel, collect, &s), 0);
	out[0] = '\0';
	for (int i = 0; i < s.n; i++)
		for (int j = i + 1; j < s.n; j++)
			if (strcmp(s.names[j], s.names[i]) < 0) {
				char t[64];
				memcpy(t, s.names[i], 64);
				memcpy(s.names[i], s.names[j], 64);
				memcpy(s.names[j], t, 64);
			}
	for (int i = 0; i < s.n; i++) {
		strncat(out, s.names[i], n - strlen(out) - 1);
		if (i + 1 < s.n)
			strncat(out, " ", n - strlen(out) - 1);
	}
}

START_TEST(test_publish)
{
	const pfs_publish_ops *pub = src->ops->publish;
	ck_assert(pub);
	pfs_publish *p;
	int fd;
	pq_error err;
	pfs_cred me = {.uid = geteuid(), .gid = getegid()};
	/* into a directory that does not exist yet */
	ck_assert_int_eq(pub->begin(src->be, "new/dir/x.parquet", "x.csv", &me, &p, &fd, &err), PQ_OK);
	char names[256];
	names_of("new/dir", names, sizeof names);
	ck_assert_msg(!strncmp(names, ".x.parquet.tmp-", 15), "%s", names); /* hidden meanwhile */
	ck_assert_int_eq(write(fd, "PAR1xxxxPAR1", 12), 12);
	ck_assert_int_eq(pub->commit(p, &err), PQ_OK);
	names_of("new/dir", names, sizeof names);
	ck_assert_str_eq(names, "x.parquet");
	ck_assert_int_eq(src->ops->sniff(src->be, "new/dir/x.parquet"), 1);
	/* replacing: a reader of the old file keeps it */
	pq_source *old;
	ck_assert_int_eq(src->ops->open(src->be, "new/dir/x.parquet", &old, &err), PQ_OK);
	ck_assert_int_eq(pub->begin(src->be, "new/dir/x.parquet", "x.csv", &me, &p, &fd, &err), PQ_OK);
	ck_assert_int_eq(write(fd, "PARE", 4), 4);
	ck_assert_int_eq(pub->commit(p, &err), PQ_OK);
	struct stat st;
	pq_identity id;
	ck_assert_int_eq(src->ops->stat(src->be, "new/dir/x.parquet", &st, &id), 0);
	ck_assert_int_eq(st.st_size, 4);
	ck_assert_uint_eq(pq_source_size(old), 12);
	ck_assert_int_eq(pq_source_check(old, &err), PQ_OK); /* renamed over, not changed */
	pq_source_unref(old);
	/* abort leaves nothing, the old file stays */
	ck_assert_int_eq(pub->begin(src->be, "new/dir/x.parquet", "x.csv", &me, &p, &fd, &err), PQ_OK);
	ck_assert_int_eq(write(fd, "junk", 4), 4);
	pub->abort(p);
	names_of("new/dir", names, sizeof names);
	ck_assert_str_eq(names, "x.parquet");
	/* a target whose directory is a file */
	ck_assert_int_eq(pub->begin(src->be, "notes.txt/y.parquet", "y.csv", &me, &p, &fd, &err), PQ_EIO);
	ck_assert_str_eq(err.msg, "y.csv: cannot create the directory of notes.txt/y.parquet: "
				  "Not a directory");
}
END_TEST

/* Publishing acts with the caller's rights (pfs_cred): a user other
 * than the owner, in a sticky world-writable directory, may not replace
 * the owner's file nor remove the owner's directory, and reaches nothing
 * under a directory they cannot search. The checks read mode bits, so a
 * made-up uid tests them without privileges. */
START_TEST(test_publish_rights)
{
	const pfs_publish_ops *pub = src->ops->publish;
	char p[512];
	ck_assert_int_eq(chmod(root, 0755), 0); /* mkdtemp's is 0700 */
	snprintf(p, sizeof p, "%s/tmp", root);
	ck_assert_int_eq(mkdir(p, 0777), 0);
	ck_assert_int_eq(chmod(p, 01777), 0);
	put("tmp/victim.parquet", "PAR1....PAR1", 12);
	ck_assert_int_eq(chmod(p, 01777), 0);
	snprintf(p, sizeof p, "%s/tmp/victim.parquet", root);
	ck_assert_int_eq(chmod(p, 0666), 0); /* even writable by all: sticky wins */
	snprintf(p, sizeof p, "%s/tmp/owned", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof p, "%s/private", root);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	pfs_cred me = {.uid = geteuid(), .gid = getegid()};
	pfs_cred other = {.uid = geteuid() + 4242, .gid = getegid() + 4242};
	ck_assert_int_eq(pub->may_write(src->be, "tmp/victim.parquet", &me), 0);
	ck_assert_int_eq(pub->may_write(src->be, "tmp/victim.parquet", &other), -EPERM);
	ck_assert_int_eq(pub->may_write(src->be, "tmp/new.parquet", &other), 0);
	ck_assert_int_eq(pub->may_write(src->be, "tmp/new/deeper/x.parquet", &other), 0);
	ck_assert_int_eq(pub->may_write(src->be, "sub/x.parquet", &other), -EACCES); /* 0755 */
	ck_assert_int_eq(pub->may_write(src->be, "private/x.parquet", &other), -EACCES);
	ck_assert_int_eq(pub->may_write(src->be, "private/d/x.parquet", &other), -EACCES);
	pfs_publish *pp;
	int fd;
	pq_error err;
	ck_assert_int_eq(pub->begin(src->be, "tmp/victim.parquet", "victim.csv", &other, &pp, &fd,
				    &err), PQ_EIO);
	ck_assert_msg(strstr(err.msg, "Operation not permitted"), "%s", err.msg);
	ck_assert_int_eq(pub->rmdir(src->be, "tmp/owned", &other), -EPERM);
	ck_assert_int_eq(pub->mkdir(src->be, "sub/d", 0755, &other), -EACCES);
	ck_assert_int_eq(pub->mkdir(src->be, "tmp/d", 0755, &other), 0);
	/* a check at begin is not enough: the target may appear meanwhile */
	ck_assert_int_eq(pub->begin(src->be, "tmp/late.parquet", "late.csv", &other, &pp, &fd,
				    &err), PQ_OK);
	put("tmp/late.parquet", "PAR1....PAR1", 12);
	ck_assert_int_eq(pub->commit(pp, &err), PQ_EIO);
	ck_assert_msg(strstr(err.msg, "may not write"), "%s", err.msg);
	ck_assert_int_eq(pub->may_write(src->be, "tmp/victim.parquet", &other), -EPERM);
}
END_TEST

/* Links inside SOURCE are not followed (doc/design.md, "Symbolic links"):
 * not listed, not there for stat, sniff and open, not even on the way. */
START_TEST(test_symlinks)
{
	char p[512];
	snprintf(p, sizeof p, "%s/link.parquet", root);
	ck_assert_int_eq(symlink("a.parquet", p), 0);
	snprintf(p, sizeof p, "%s/linkdir", root);
	ck_assert_int_eq(symlink("sub", p), 0);
	put("sub/b.parquet", "PAR1....PAR1", 12);
	char names[256];
	names_of("", names, sizeof names);
	ck_assert_str_eq(names, "a.parquet notes.txt sub");
	struct stat st;
	pq_identity id;
	ck_assert_int_eq(src->ops->stat(src->be, "link.parquet", &st, &id), -ENOENT);
	ck_assert_int_eq(src->ops->stat(src->be, "linkdir", &st, &id), -ENOENT);
	int rc = src->ops->stat(src->be, "linkdir/b.parquet", &st, &id);
	ck_assert_msg(rc == -ENOTDIR || rc == -ENOENT, "%d", rc);
	ck_assert_int_eq(src->ops->stat(src->be, "sub/b.parquet", &st, &id), 0);
	ck_assert_int_eq(src->ops->stat(src->be, "sub/../a.parquet", &st, &id), -ENOENT);
	ck_assert_int_eq(src->ops->sniff(src->be, "link.parquet"), 0);
	ck_assert_int_eq(src->ops->sniff(src->be, "linkdir/b.parquet"), 0);
	ck_assert_int_eq(src->ops->sniff(src->be, "sub/b.parquet"), 1);
	/* a name in SOURCE itself is opened by path: never "." or ".." */
	ck_assert_int_eq(src->ops->sniff(src->be, ".."), 0);
	ck_assert_int_eq(src->ops->sniff(src->be, "."), 0);
	pq_source *s;
	pq_error err;
	ck_assert_int_eq(src->ops->open(src->be, "link.parquet", &s, &err), PQ_EIO);
	ck_assert_int_eq(src->ops->open(src->be, "linkdir/b.parquet", &s, &err), PQ_EIO);
	ck_assert_int_eq(src->ops->open(src->be, "..", &s, &err), PQ_EIO);
	seen sn = {.n = 0};
	ck_assert_int_ne(src->ops->list(src->be, "linkdir", collect, &sn), 0);
	ck_assert_int_ne(src->ops->list(src->be, "..", collect, &sn), 0);
}
END_TEST

START_TEST(test_single_file_root)
{
	char file[512];
	snprintf(file, sizeof file, "%s/a.parquet", root);
	pfs_source *one = pfs_source_local_new(file);
	ck_assert(one);
	struct stat st;
	pq_identity id;
	ck_assert_int_eq(one->ops->stat(one->be, "", &st, &id), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(one->ops->sniff(one->be, ""), 1);
	pq_source *s;
	pq_error err;
	ck_assert_int_eq(one->ops->open(one->be, "", &s, &err), PQ_OK);
	ck_assert_uint_eq(pq_source_size(s), 12);
	pq_source_unref(s);
	pfs_source_free(one);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("source_local");
	TCase *tc = tcase_create("local");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_list);
	tcase_add_test(tc, test_stat_identity);
	tcase_add_test(tc, test_sniff);
	tcase_add_test(tc, test_open);
	tcase_add_test(tc, test_publish);
	tcase_add_test(tc, test_publish_rights);
	tcase_add_test(tc, test_symlinks);
	tcase_add_test(tc, test_single_file_root);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
