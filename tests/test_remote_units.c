/* The pieces of the remote backends that need no server: ListObjectsV2
 * pages and S3 error documents (fs/s3_xml.c), where region, endpoint and
 * credentials come from (fs/s3_conf.c), s3:// URLs, URL escaping, remote
 * identities and the readahead window's growth (fs/remote_file.c). The
 * XML is written here after AWS's ListObjectsV2 documentation. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "remote_disk.h"
#include "remote_file.h"
#include "remote_http.h"
#include "s3_conf.h"
#include "s3_xml.h"

static const char page1[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
	"<Name>bucket</Name><Prefix>data/</Prefix><KeyCount>3</KeyCount>"
	"<MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated>"
	"<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>"
	"<Contents><Key>data/a.parquet</Key><LastModified>2009-10-12T17:50:30.000Z</LastModified>"
	"<ETag>&quot;fba9dede5f27731c9771645a39863328&quot;</ETag><Size>434234</Size>"
	"<StorageClass>STANDARD</StorageClass>"
	"<Owner><ID>x</ID><DisplayName>not-a-key</DisplayName></Owner></Contents>"
	"<Contents><Key>data/b &amp; c.parquet</Key><Size>0</Size><ETag>\"e\"</ETag></Contents>"
	"<CommonPrefixes><Prefix>data/2024/</Prefix></CommonPrefixes>"
	"<CommonPrefixes><Prefix>data/2025/</Prefix></CommonPrefixes>"
	"</ListBucketResult>";

START_TEST(test_list_page)
{
	pfs_s3_page pg;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_parse_list(page1, sizeof page1 - 1, &pg, &err), PQ_OK);
	ck_assert_uint_eq(pg.nobjs, 2);
	ck_assert_str_eq(pg.objs[0].key, "data/a.parquet");
	ck_assert_uint_eq(pg.objs[0].size, 434234);
	ck_assert_str_eq(pg.objs[0].etag, "\"fba9dede5f27731c9771645a39863328\"");
	ck_assert_int_eq((long)pg.objs[0].mtime, 1255369830L);
	ck_assert_str_eq(pg.objs[1].key, "data/b & c.parquet");
	ck_assert_uint_eq(pg.objs[1].size, 0);
	ck_assert_uint_eq(pg.nprefixes, 2);
	ck_assert_str_eq(pg.prefixes[0], "data/2024/");
	ck_assert_str_eq(pg.prefixes[1], "data/2025/");
	ck_assert(pg.truncated);
	ck_assert_str_eq(pg.next_token, "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=");
	pfs_s3_page_free(&pg);
}
END_TEST

START_TEST(test_list_last_page)
{
	static const char x[] = "<ListBucketResult><IsTruncated>false</IsTruncated>"
				"<Contents><Key>k.pq</Key><Size>7</Size></Contents></ListBucketResult>";
	pfs_s3_page pg;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_parse_list(x, sizeof x - 1, &pg, &err), PQ_OK);
	ck_assert(!pg.truncated);
	ck_assert_ptr_null(pg.next_token);
	ck_assert_uint_eq(pg.nobjs, 1);
	ck_assert_str_eq(pg.objs[0].etag, "");
	pfs_s3_page_free(&pg);
}
END_TEST

/* encoding-type=url: keys and prefixes decoded ('+' a space, as botocore
 * does); a key that does not decode (a bad escape, a NUL) is left out and
 * counted, not the page; without EncodingType nothing is decoded */
START_TEST(test_list_url_encoded)
{
	static const char x[] =
		"<ListBucketResult><IsTruncated>false</IsTruncated>"
		"<Contents><Key>p/ctl%01name+x%2B.parquet</Key><Size>1</Size></Contents>"
		"<Contents><Key>p/bad%G1.parquet</Key><Size>1</Size></Contents>"
		"<Contents><Key>p/nul%00.parquet</Key><Size>1</Size></Contents>"
		"<Contents><Key>p/cut%4</Key><Size>1</Size></Contents>"
		"<CommonPrefixes><Prefix>p/a%20b/</Prefix></CommonPrefixes>"
		"<EncodingType>url</EncodingType></ListBucketResult>";
	pfs_s3_page pg;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_parse_list(x, sizeof x - 1, &pg, &err), PQ_OK);
	ck_assert_uint_eq(pg.nobjs, 1);
	ck_assert_str_eq(pg.objs[0].key, "p/ctl\001name x+.parquet");
	ck_assert_uint_eq(pg.nprefixes, 1);
	ck_assert_str_eq(pg.prefixes[0], "p/a b/");
	ck_assert_uint_eq(pg.nbad, 3);
	ck_assert_str_eq(pg.bad_example, "p/bad%G1.parquet");
	pfs_s3_page_free(&pg);
	static const char y[] = "<ListBucketResult><IsTruncated>false</IsTruncated>"
				"<Contents><Key>p/a%20+b.pq</Key><Size>1</Size></Contents>"
				"</ListBucketResult>";
	ck_assert_int_eq(pfs_s3_parse_list(y, sizeof y - 1, &pg, &err), PQ_OK);
	ck_assert_str_eq(pg.objs[0].key, "p/a%20+b.pq");
	pfs_s3_page_free(&pg);
}
END_TEST

START_TEST(test_list_bad)
{
	static const char *const bad[] = {
		/* truncated without a token: the listing would stop short */
		"<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
		/* not well-formed */
		"<ListBucketResult><Contents><Key>a</Key></ListBucketResult>",
		/* a size that is no number */
		"<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>",
		/* an object without a size */
		"<ListBucketResult><Contents><Key>a</Key></Contents></ListBucketResult>",
		"",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pfs_s3_page pg;
		pq_error err = {0};
		ck_assert_int_eq(pfs_s3_parse_list(bad[i], strlen(bad[i]), &pg, &err), PQ_ECORRUPT);
		ck_assert_ptr_null(pg.objs);
		ck_assert(strstr(err.msg, "ListObjectsV2"));
	}
	/* a key longer than S3 allows */
	size_t n = 3000;
	char *x = malloc(n + 200);
	ck_assert_ptr_nonnull(x);
	int k = sprintf(x, "<ListBucketResult><Contents><Key>");
	memset(x + k, 'a', 1100);
	sprintf(x + k + 1100, "</Key><Size>1</Size></Contents></ListBucketResult>");
	pfs_s3_page pg;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_parse_list(x, strlen(x), &pg, &err), PQ_ECORRUPT);
	free(x);
}
END_TEST

START_TEST(test_error_doc)
{
	static const char x[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
				"<Error><Code>SignatureDoesNotMatch</Code><Message>The request "
				"signature we calculated does not match</Message></Error>";
	char code[64], msg[128];
	ck_assert(pfs_s3_xml_value(x, sizeof x - 1, "Code", code, sizeof code));
	ck_assert_str_eq(code, "SignatureDoesNotMatch");
	ck_assert(pfs_s3_xml_value(x, sizeof x - 1, "Message", msg, sizeof msg));
	ck_assert(!strncmp(msg, "The request signature", 21));
	ck_assert(!pfs_s3_xml_value(x, sizeof x - 1, "UploadId", code, sizeof code));
	ck_assert(!pfs_s3_xml_value("<html>", 6, "Code", code, sizeof code));
	/* too long for the buffer: not cut, refused */
	ck_assert(!pfs_s3_xml_value(x, sizeof x - 1, "Message", msg, 10));
}
END_TEST

/* ---- configuration -------------------------------------------------------- */

static char dir[256];
static const char *fake_env[32][2];

static const char *env_of(const char *name)
{
	for (int i = 0; fake_env[i][0]; i++)
		if (!strcmp(fake_env[i][0], name))
			return fake_env[i][1];
	return NULL;
}

static void env_set(const char *name, const char *val)
{
	int i = 0;
	for (; fake_env[i][0]; i++)
		if (!strcmp(fake_env[i][0], name))
			break;
	ck_assert_int_lt(i, 31);
	fake_env[i][0] = name;
	fake_env[i][1] = val;
}

static void write_file(const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static char creds_path[512], conf_path[512];

static void conf_setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/pfs-remote-units.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(fake_env, 0, sizeof fake_env);
	write_file("credentials", "# comment\n[default]\naws_access_key_id = DEFKEY\n"
		   "aws_secret_access_key=DEFSECRET\n\n[dev]\naws_access_key_id=DEVKEY\n"
		   "aws_secret_access_key = DEVSECRET\naws_session_token=DEVTOKEN\n"
		   "[empty]\n");
	write_file("config", "[default]\nregion = eu-west-1\n[profile dev]\nregion=ap-south-1\n"
		   "[profile cfgonly]\naws_access_key_id=CK\naws_secret_access_key=CS\n");
	snprintf(creds_path, sizeof creds_path, "%s/credentials", dir);
	snprintf(conf_path, sizeof conf_path, "%s/config", dir);
	env_set("AWS_SHARED_CREDENTIALS_FILE", creds_path);
	env_set("AWS_CONFIG_FILE", conf_path);
	env_set("HOME", "/nonexistent");
}

static void conf_teardown(void)
{
	char p[512];
	snprintf(p, sizeof p, "%s/credentials", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/config", dir);
	unlink(p);
	rmdir(dir);
}

START_TEST(test_conf_default_profile)
{
	pfs_s3_opts o = {0};
	pfs_s3_conf c;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.access_key, "DEFKEY");
	ck_assert_str_eq(c.secret_key, "DEFSECRET");
	ck_assert_str_eq(c.session_token, "");
	ck_assert_str_eq(c.region, "eu-west-1");
	ck_assert_str_eq(c.endpoint, "https://s3.eu-west-1.amazonaws.com");
	ck_assert(!c.path_style);
	ck_assert(c.sign);
	char url[256];
	ck_assert(pfs_s3_bucket_url(&c, "bkt", url, sizeof url));
	ck_assert_str_eq(url, "https://bkt.s3.eu-west-1.amazonaws.com");
}
END_TEST

START_TEST(test_conf_env_over_default)
{
	env_set("AWS_ACCESS_KEY_ID", "ENVKEY");
	env_set("AWS_SECRET_ACCESS_KEY", "ENVSECRET");
	env_set("AWS_SESSION_TOKEN", "ENVTOKEN");
	env_set("AWS_DEFAULT_REGION", "us-west-2");
	pfs_s3_opts o = {0};
	pfs_s3_conf c;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.access_key, "ENVKEY");
	ck_assert_str_eq(c.session_token, "ENVTOKEN");
	ck_assert_str_eq(c.region, "us-west-2");
	env_set("AWS_REGION", "ca-central-1"); /* before AWS_DEFAULT_REGION */
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.region, "ca-central-1");
	o.region = "sa-east-1"; /* the option before both */
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.region, "sa-east-1");
}
END_TEST

START_TEST(test_conf_profile_over_env)
{
	env_set("AWS_ACCESS_KEY_ID", "ENVKEY");
	env_set("AWS_SECRET_ACCESS_KEY", "ENVSECRET");
	pfs_s3_opts o = {.profile = "dev"};
	pfs_s3_conf c;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.access_key, "DEVKEY");
	ck_assert_str_eq(c.session_token, "DEVTOKEN");
	ck_assert_str_eq(c.region, "ap-south-1"); /* the profile's, from config */
	/* AWS_PROFILE does the same; the option wins over it */
	o.profile = NULL;
	env_set("AWS_PROFILE", "cfgonly");
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.access_key, "CK");
	ck_assert_str_eq(c.region, "us-east-1");
	o.profile = "dev";
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.access_key, "DEVKEY");
}
END_TEST

START_TEST(test_conf_errors)
{
	pfs_s3_opts o = {.profile = "nosuch"};
	pfs_s3_conf c;
	pq_error err = {0};
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_EINVAL);
	ck_assert(strstr(err.msg, "profile nosuch not found"));
	o.profile = "empty";
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_EINVAL);
	ck_assert(strstr(err.msg, "empty"));
	/* nothing anywhere */
	env_set("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/c");
	env_set("AWS_CONFIG_FILE", "/nonexistent/f");
	o.profile = NULL;
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_EINVAL);
	ck_assert(strstr(err.msg, "no_sign"));
	/* no_sign needs none, and signs nothing */
	o.no_sign = true;
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert(!c.sign);
	ck_assert_str_eq(c.access_key, "");
	o.endpoint = "ftp://x";
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_EINVAL);
}
END_TEST

START_TEST(test_conf_endpoint)
{
	pfs_s3_opts o = {0};
	pfs_s3_conf c;
	pq_error err = {0};
	char url[256];
	env_set("AWS_ENDPOINT_URL", "http://generic:1");
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.endpoint, "http://generic:1");
	env_set("AWS_ENDPOINT_URL_S3", "http://s3only:2/");
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert_str_eq(c.endpoint, "http://s3only:2");
	ck_assert(c.path_style); /* a custom endpoint: path-style */
	ck_assert(pfs_s3_bucket_url(&c, "b", url, sizeof url));
	ck_assert_str_eq(url, "http://s3only:2/b");
	o.endpoint = "https://opt:3";
	o.virtual_hosted = true;
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert(!c.path_style);
	ck_assert(pfs_s3_bucket_url(&c, "b", url, sizeof url));
	ck_assert_str_eq(url, "https://b.opt:3");
	o = (pfs_s3_opts){.path_style = true};
	env_set("AWS_ENDPOINT_URL", "");
	env_set("AWS_ENDPOINT_URL_S3", "");
	ck_assert_int_eq(pfs_s3_conf_resolve(&o, env_of, &c, &err), PQ_OK);
	ck_assert(pfs_s3_bucket_url(&c, "b", url, sizeof url));
	ck_assert_str_eq(url, "https://s3.eu-west-1.amazonaws.com/b");
}
END_TEST

/* ---- URLs, identities, windows ----------------------------------------------- */

START_TEST(test_split_url)
{
	char b[64], p[256];
	ck_assert(pfs_s3_split_url("s3://bkt/a/b/", b, sizeof b, p, sizeof p));
	ck_assert_str_eq(b, "bkt");
	ck_assert_str_eq(p, "a/b");
	ck_assert(pfs_s3_split_url("s3://bkt", b, sizeof b, p, sizeof p));
	ck_assert_str_eq(p, "");
	ck_assert(!pfs_s3_split_url("s3://", b, sizeof b, p, sizeof p));
	ck_assert(!pfs_s3_split_url("s3://b", b, sizeof b, p, sizeof p)); /* too short */
	ck_assert(!pfs_s3_split_url("s3://bk t/x", b, sizeof b, p, sizeof p));
	ck_assert(!pfs_s3_split_url("s3://bkt/a//b", b, sizeof b, p, sizeof p));
	ck_assert(!pfs_s3_split_url("http://bkt/a", b, sizeof b, p, sizeof p));
}
END_TEST

START_TEST(test_escape)
{
	char buf[64];
	ck_assert(pfs_url_escape("a b/c+d~e.f_g-h", true, buf, sizeof buf));
	ck_assert_str_eq(buf, "a%20b/c%2Bd~e.f_g-h");
	ck_assert(pfs_url_escape("a/b=\xc3\xa9", false, buf, sizeof buf));
	ck_assert_str_eq(buf, "a%2Fb%3D%C3%A9");
	ck_assert(!pfs_url_escape("abcdef", true, buf, 6)); /* no room for the NUL */
	ck_assert(pfs_url_escape("abcde", true, buf, 6));
	ck_assert(!pfs_url_escape("ab/", false, buf, 5));
}
END_TEST

START_TEST(test_identity)
{
	pq_identity a, b, c, d;
	pfs_remote_identity("http://h/x.parquet", 100, "\"e1\"", &a);
	pfs_remote_identity("http://h/x.parquet", 100, "\"e1\"", &b);
	ck_assert(pq_identity_eq(&a, &b));
	pfs_remote_identity("http://h/y.parquet", 100, "\"e1\"", &c); /* nginx: mtime-size */
	ck_assert(!pq_identity_eq(&a, &c));
	pfs_remote_identity("http://h/x.parquet", 101, "\"e1\"", &c);
	ck_assert(!pq_identity_eq(&a, &c));
	pfs_remote_identity("http://h/x.parquet", 100, "\"e2\"", &c);
	ck_assert(!pq_identity_eq(&a, &c));
	pfs_remote_identity("http://h/x.parquet", 100, "", &d);
	ck_assert(!pq_identity_eq(&d, &d)); /* unknown: validates nothing */
	/* ETags longer than the identity still differ in their ends */
	char e1[100], e2[100];
	memset(e1, 'x', 99);
	e1[99] = '\0';
	memcpy(e2, e1, 100);
	e2[97] = 'y';
	pfs_remote_identity("u", 1, e1, &a);
	pfs_remote_identity("u", 1, e2, &b);
	ck_assert(!pq_identity_eq(&a, &b));
}
END_TEST

START_TEST(test_window)
{
	ck_assert_uint_eq(pfs_remote_next_window(0), PFS_REMOTE_RA_MIN);
	ck_assert_uint_eq(pfs_remote_next_window(4096), PFS_REMOTE_RA_MIN);
	ck_assert_uint_eq(pfs_remote_next_window(PFS_REMOTE_RA_MIN), 2 * PFS_REMOTE_RA_MIN);
	uint64_t w = 0;
	int steps = 0;
	while (w < PFS_REMOTE_RA_MAX && steps < 100) {
		uint64_t n = pfs_remote_next_window(w);
		ck_assert_uint_gt(n, w);
		w = n;
		steps++;
	}
	ck_assert_uint_eq(w, PFS_REMOTE_RA_MAX);
	ck_assert_int_le(steps, 8);
	ck_assert_uint_eq(pfs_remote_next_window(PFS_REMOTE_RA_MAX), PFS_REMOTE_RA_MAX);
	ck_assert_uint_eq(pfs_remote_next_window(UINT64_MAX), PFS_REMOTE_RA_MAX);
	ck_assert_int_eq((long)pfs_s3_parse_time("1970-01-01T00:00:10Z"), 10);
	ck_assert_int_eq((long)pfs_s3_parse_time("garbage"), 0);
}
END_TEST

/* The disk cache: whole blocks only, keyed by identity, hash-checked. */
START_TEST(test_disk_cache)
{
	char d[64] = "/tmp/pfs-remote-disk.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(d));
	pfs_disk *c = pfs_disk_new(d, (uint64_t)64 << 20);
	ck_assert_ptr_nonnull(c);
	uint64_t size = 2 * PFS_DISK_BLOCK + 100;
	uint8_t *obj = malloc((size_t)size), *got = malloc((size_t)size);
	ck_assert(obj && got);
	for (uint64_t i = 0; i < size; i++)
		obj[i] = (uint8_t)(i * 7 + i / 251);
	pq_identity id, other;
	pfs_remote_identity("http://h/o.parquet", size, "\"a\"", &id);
	pfs_remote_identity("http://h/o.parquet", size, "\"b\"", &other);
	/* a part of block 0 and all of block 1: only block 1 is kept */
	pfs_disk_write(c, &id, size, obj + 10, 10, 2 * PFS_DISK_BLOCK - 10);
	ck_assert(!pfs_disk_read(c, &id, size, got, 0, PFS_DISK_BLOCK));
	ck_assert(pfs_disk_read(c, &id, size, got, PFS_DISK_BLOCK, PFS_DISK_BLOCK));
	ck_assert(!memcmp(got, obj + PFS_DISK_BLOCK, (size_t)PFS_DISK_BLOCK));
	/* another version of the object never sees these bytes */
	ck_assert(!pfs_disk_read(c, &other, size, got, PFS_DISK_BLOCK, PFS_DISK_BLOCK));
	/* the last, short block */
	pfs_disk_write(c, &id, size, obj + 2 * PFS_DISK_BLOCK, 2 * PFS_DISK_BLOCK, 100);
	ck_assert(pfs_disk_read(c, &id, size, got, PFS_DISK_BLOCK, PFS_DISK_BLOCK + 100));
	ck_assert(!memcmp(got, obj + PFS_DISK_BLOCK, (size_t)PFS_DISK_BLOCK + 100));
	/* a damaged byte on disk: a miss, never wrong bytes */
	char cmd[200];
	snprintf(cmd, sizeof cmd, "for f in %s/*.blk; do printf X | dd of=$f bs=1 seek=%llu "
		 "conv=notrunc status=none; done", d, (unsigned long long)PFS_DISK_BLOCK + 5);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert(!pfs_disk_read(c, &id, size, got, PFS_DISK_BLOCK, PFS_DISK_BLOCK));
	ck_assert(pfs_disk_read(c, &id, size, got, 2 * PFS_DISK_BLOCK, 100));
	pfs_disk_free(c);
	snprintf(cmd, sizeof cmd, "rm -rf %s", d);
	ck_assert_int_eq(system(cmd), 0);
	free(obj);
	free(got);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("remote_units");
	TCase *x = tcase_create("xml");
	tcase_add_test(x, test_list_page);
	tcase_add_test(x, test_list_last_page);
	tcase_add_test(x, test_list_url_encoded);
	tcase_add_test(x, test_list_bad);
	tcase_add_test(x, test_error_doc);
	suite_add_tcase(s, x);
	TCase *c = tcase_create("conf");
	tcase_add_checked_fixture(c, conf_setup, conf_teardown);
	tcase_add_test(c, test_conf_default_profile);
	tcase_add_test(c, test_conf_env_over_default);
	tcase_add_test(c, test_conf_profile_over_env);
	tcase_add_test(c, test_conf_errors);
	tcase_add_test(c, test_conf_endpoint);
	suite_add_tcase(s, c);
	TCase *u = tcase_create("urls");
	tcase_add_test(u, test_split_url);
	tcase_add_test(u, test_escape);
	tcase_add_test(u, test_identity);
	tcase_add_test(u, test_window);
	tcase_add_test(u, test_disk_cache);
	suite_add_tcase(s, u);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
