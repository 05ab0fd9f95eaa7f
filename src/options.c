/* fuse_opt templates and validation of the parquetfs options. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "loop.h"
#include "options.h"
#include "pq_io.h"
#include "pq_metadata.h"

#define PFS_OPT(t, f) {t, offsetof(pfs_options, f), 0}
/* libfuse's FUSE_OPT_KEY with its -1U offset widened explicitly (clang
 * warns about the implicit unsigned -> unsigned long conversion). */
#define PFS_KEY(t, k) {t, (unsigned long)-1U, k}

enum { KEY_RO, KEY_DISCARD };

static const struct fuse_opt pfs_opts[] = {
	PFS_OPT("key_file=%s", key_file),
	PFS_OPT("cache_size=%s", cache_size_s),
	PFS_OPT("mem_wait=%s", mem_wait_s),
	PFS_OPT("staging=%s", staging),
	PFS_OPT("index_dir=%s", index_dir_s),
	PFS_OPT("index_size=%s", index_size_s),
	PFS_OPT("crc_check=%s", crc_check_s),
	PFS_OPT("poll_us=%s", poll_us_s),
	PFS_OPT("codec=%s", codec_s),
	PFS_OPT("compression_level=%s", compression_level_s),
	PFS_OPT("row_group_rows=%s", row_group_rows_s),
	PFS_OPT("page_size=%s", page_size_s),
	PFS_OPT("data_page_version=%s", data_page_version_s),
	PFS_OPT("dictionary=%s", dictionary_s),
	PFS_OPT("bloom_filter=%s", bloom_filter),
	PFS_OPT("page_index=%s", page_index_s),
	PFS_OPT("crc=%s", crc_s),
	PFS_OPT("bloom_fpp=%s", bloom_fpp_s),
	PFS_OPT("encrypt=%s", encrypt),
	PFS_OPT("encrypt_columns=%s", encrypt_columns),
	/* a flag: fuse_opt stores the third field when the word is given */
	{"plaintext_footer", offsetof(pfs_options, plaintext_footer), 1},
	PFS_OPT("encryption_algorithm=%s", encryption_algorithm_s),
	PFS_OPT("aad_prefix=%s", aad_prefix),
	PFS_OPT("delimiter=%s", delimiter_s),
	PFS_OPT("replace=%s", replace_s),
	PFS_OPT("container=%s", container),
	PFS_OPT("endpoint=%s", endpoint),
	PFS_OPT("region=%s", region),
	PFS_OPT("profile=%s", profile),
	PFS_OPT("ca_file=%s", ca_file),
	PFS_OPT("metadata_ttl=%s", metadata_ttl_s),
	PFS_OPT("retries=%s", retries_s),
	PFS_OPT("timeout=%s", timeout_s),
	PFS_OPT("connect_timeout=%s", connect_timeout_s),
	PFS_OPT("cache_dir=%s", cache_dir_s),
	PFS_OPT("cache_dir_size=%s", cache_dir_size_s),
	PFS_OPT("spool_dir=%s", spool_dir_s),
	{"no_sign", offsetof(pfs_options, no_sign), 1},
	{"path_style", offsetof(pfs_options, path_style), 1},
	{"virtual_hosted", offsetof(pfs_options, virtual_hosted), 1},
	PFS_KEY("ro", KEY_RO),
	/* fstab and mount(8) words that mean nothing to a FUSE daemon. */
	PFS_KEY("noauto", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("auto", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("user", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("nouser", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("users", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("defaults", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("_netdev", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("nofail", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("x-systemd.", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("x-systemd.%s", FUSE_OPT_KEY_DISCARD),
	PFS_KEY("comment=%s", FUSE_OPT_KEY_DISCARD),
	FUSE_OPT_END
};

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	(void)outargs;
	pfs_options *o = data;
	switch (key) {
	case KEY_RO:
		o->read_only = 1;
		return 1; /* FUSE mounts read-only as well */
	case FUSE_OPT_KEY_NONOPT:
		/* SOURCE first (ours), then MOUNTPOINT (fuse_parse_cmdline's). */
		if (o->nonopt_count++ == 0) {
			free(o->source);
			o->source = strdup(arg);
			return o->source ? 0 : -1;
		}
		if (o->nonopt_count > 2)
			o->bad_nonopt = 1;
		return 1;
	default:
		return 1;
	}
}

int pfs_options_parse(struct fuse_args *args, pfs_options *o)
{
	return fuse_opt_parse(args, o, pfs_opts, opt_proc);
}

void pfs_options_help(const char *prog)
{
	printf("usage: %s [options] SOURCE MOUNTPOINT\n"
	       "\n"
	       "Shows every Parquet file under SOURCE (a directory, or one Parquet file)\n"
	       "as a directory of text and binary views. Unmount: fusermount3 -u MOUNTPOINT\n"
	       "\n"
	       "parquetfs options:\n"
	       "    -o key_file=PATH       keys for encrypted files (mode 600: a key file\n"
	       "                           readable by group or others is refused)\n"
	       "    -o cache_size=SIZE     memory for decoded pages and texts (default 256M;\n"
	       "                           suffixes K, M, G, T)\n"
	       "    -o mem_wait=SECONDS    a read waits this long at most for memory other\n"
	       "                           reads hold, then fails (default 30; 0: no wait)\n"
	       "    -o staging=NAME        name of the staging folder (default staging;\n"
	       "                           -o ro removes it)\n"
	       "    -o index_dir=DIR       where the sizes of data.csv, values.txt ... are kept\n"
	       "                           between mounts (default $XDG_CACHE_HOME/parquetfs,\n"
	       "                           else ~/.cache/parquetfs; none: memory only)\n"
	       "    -o index_size=SIZE     most the index_dir may take; least recently used\n"
	       "                           entries go past it (default 256M)\n"
	       "    -o crc_check=on|off    a page whose stored CRC does not match its bytes\n"
	       "                           fails its reads with EIO (default on; off: served\n"
	       "                           as decoded, verify.txt still reports it)\n"
	       "    -o poll_us=N           after a request, wait this many microseconds for\n"
	       "                           the next one awake (default 300; 0: sleep at once)\n"
	       "\n"
	       "remote sources (SOURCE s3://BUCKET[/PREFIX] or https://HOST/FILE.parquet):\n"
	       "    -o endpoint=URL        S3 endpoint (default AWS_ENDPOINT_URL_S3,\n"
	       "                           AWS_ENDPOINT_URL, else AWS's)\n"
	       "    -o region=NAME         (default AWS_REGION, AWS_DEFAULT_REGION, the\n"
	       "                           profile's region, else us-east-1)\n"
	       "    -o profile=NAME        credentials of ~/.aws/credentials and config\n"
	       "    -o no_sign             unsigned requests (public buckets)\n"
	       "    -o path_style / -o virtual_hosted   force the S3 URL style\n"
	       "    -o ca_file=PATH        a private CA for TLS, added to the system's\n"
	       "    -o metadata_ttl=SECONDS  listings and ETags trusted this long (default 60)\n"
	       "    -o retries=N           retries on 5xx, timeouts, resets (default 4)\n"
	       "    -o timeout=SECONDS     a request receiving nothing this long is retried\n"
	       "                           or fails (default 30)\n"
	       "    -o connect_timeout=SECONDS  connecting gives up (default 10); the check\n"
	       "                           at mount tries once, within this\n"
	       "    -o spool_dir=DIR       staged bytes until uploaded (S3)\n"
	       "    -o cache_dir=DIR, cache_dir_size=SIZE  fetched bytes on disk\n"
	       "\n"
	       "writer defaults for files written through staging/:\n"
	       "    -o codec=NAME          uncompressed, snappy, gzip, brotli, zstd, lz4_raw\n"
	       "                           (default zstd)\n"
	       "    -o compression_level=N gzip 1-9, brotli 0-11, zstd 1-22\n"
	       "    -o row_group_rows=N    rows per row group (default 1048576)\n"
	       "    -o page_size=SIZE      target uncompressed bytes per data page (default 1M)\n"
	       "    -o data_page_version=1|2   (default 1)\n"
	       "    -o dictionary=on|off   dictionary encoding (default on)\n"
	       "    -o bloom_filter=COL[;COL]  columns that get a bloom filter\n"
	       "    -o bloom_fpp=P         bloom filter false positive rate (default 0.01)\n"
	       "    -o page_index=on|off   column and offset index (default on)\n"
	       "    -o crc=on|off          page CRCs (default on)\n"
	       "    -o encrypt=KEYID       encrypt footer and columns with key_file's key KEYID\n"
	       "    -o encrypt_columns=COL:KEYID[;COL:KEYID]  per-column keys\n"
	       "    -o plaintext_footer    keep the footer readable (signed)\n"
	       "    -o encryption_algorithm=gcm|gcm-ctr  (default gcm)\n"
	       "    -o aad_prefix=TEXT     AAD prefix stored in written files\n"
	       "    -o delimiter=C         a .csv's delimiter: , ; | or tab (default: detected)\n"
	       "    -o replace=yes|no      no: an existing SOURCE/<name>.parquet is kept and\n"
	       "                           the close fails with EEXIST (default yes: replaced)\n"
	       "    -o container=aruna     staging/ publishes NAME.parquet.aruna (key_file's\n"
	       "                           container: key)\n"
	       "\n",
	       prog);
}

void pfs_options_help_mount(void)
{
	printf("mount options:\n"
	       "    -o ro                  read-only: no staging folder\n"
	       "    -o allow_other         let every user in, each with their own rights (a\n"
	       "                           mount by a user needs user_allow_other, fuse.conf(5))\n"
	       "    -o allow_root          let root in besides the mounting user\n"
	       "    -o auto_unmount        unmount when parquetfs exits\n"
	       "    -o nosuid, nodev, noexec, ...  as for mount(8)\n"
	       "    -o max_threads=N       requests handled at once (default 10)\n"
	       "    -o clone_fd            libfuse's loop, a FUSE device per thread\n"
	       "    -f                     stay in the foreground, log to stderr too\n"
	       "    -d                     debug output (implies -f)\n"
	       "    -s                     one thread\n"
	       "    -h, --help             this text\n"
	       "    -V, --version          versions\n"
	       "fstab: \"SOURCE MOUNTPOINT fuse.parquetfs OPTIONS 0 0\" (see parquetfs(1));\n"
	       "defaults, noauto, user, users, _netdev, nofail and x-systemd.* are ignored.\n");
}

/* ---- validation (writer options: src/options_writer.c) ---------------- */

static bool check_key_file(const char *path, char *msg, size_t msglen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, msglen, "key_file %s: %s", path, strerror(errno));
		return false;
	}
	struct stat st;
	bool ok = fstat(fd, &st) == 0;
	close(fd);
	if (!ok || !S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "key_file %s: not a regular file", path);
		return false;
	}
	if (st.st_mode & (S_IRGRP | S_IROTH)) {
		snprintf(msg, msglen,
			 "key_file %s is readable by group or others (mode %03o): "
			 "run chmod 600 %s",
			 path, (unsigned)(st.st_mode & 0777), path);
		return false;
	}
	return true;
}

static bool is_parquet_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	char m[PQ_MAGIC_LEN];
	bool ok = pread(fd, m, sizeof m, 0) == (ssize_t)sizeof m && pq_magic_is_parquet(m, sizeof m);
	close(fd);
	return ok;
}

/* "DIR/SUB", freshly allocated (NULL when out of memory). */
static char *join(const char *dir, const char *sub);

/* An absolute directory for a path option (made absolute: the daemon
 * leaves its working directory), or the user's cache directory + sub.
 * *out stays NULL when there is none; false with a message on failure. */
static bool dir_option(const char *name, const char *s, const char *sub, char **out,
		       char *msg, size_t msglen)
{
	*out = NULL;
	if (s && !*s) {
		snprintf(msg, msglen, "%s=: expected a directory", name);
		return false;
	}
	if (s && s[0] == '/') {
		*out = strdup(s);
	} else if (s) {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd)) {
			snprintf(msg, msglen, "%s=%s: %s", name, s, strerror(errno));
			return false;
		}
		*out = join(cwd, s);
	} else if (sub) {
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		if (xdg && xdg[0] == '/')
			*out = join(xdg, sub);
		else if (home && home[0] == '/') {
			char *c = join(home, ".cache");
			*out = c ? join(c, sub) : NULL;
			free(c);
		} else
			return true;
	} else {
		return true;
	}
	if (!*out) {
		snprintf(msg, msglen, "out of memory");
		return false;
	}
	return true;
}

static bool parse_count(const char *name, const char *s, long max, long *out, char *msg,
			size_t msglen)
{
	char *end;
	errno = 0;
	long v = s && *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
	if (v < 0 || errno || *end || v > max) {
		snprintf(msg, msglen, "%s=%s: expected a number from 0 to %ld", name, s ? s : "",
			 max);
		return false;
	}
	*out = v;
	return true;
}

/* s3://BUCKET[/PREFIX] or http(s)://...: the URL is SOURCE as given. */
static bool check_remote(pfs_options *o, char *msg, size_t msglen)
{
	const char *s = o->source;
	o->source_kind = !strncmp(s, "s3://", 5) ? PFS_SRC_S3 : PFS_SRC_HTTP;
	if (o->source_kind == PFS_SRC_HTTP) {
		const char *host = strstr(s, "://") + 3, *path = strchr(host, '/');
		if (!*host || !path || !path[1] || path[strlen(path) - 1] == '/') {
			snprintf(msg, msglen, "SOURCE %s: expected http(s)://HOST/PATH/FILE.parquet", s);
			return false;
		}
		o->source_is_file = true;
	} else if (strlen(s) <= 5 || s[5] == '/') {
		snprintf(msg, msglen, "SOURCE %s: expected s3://BUCKET[/PREFIX]", s);
		return false;
	}
	for (const char *p = s; *p; p++) {
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			snprintf(msg, msglen, "SOURCE %s: a URL holds no blanks or control characters "
				 "(escape them as %%XX)", s);
			return false;
		}
	}
	size_t n = strlen(s);
	if (o->source_kind == PFS_SRC_S3)
		while (n > 5 && s[n - 1] == '/')
			n--; /* s3://b/p/ is s3://b/p */
	o->source_abs = strndup(s, n);
	if (!o->source_abs) {
		snprintf(msg, msglen, "out of memory");
		return false;
	}
	long v;
	o->metadata_ttl = PFS_DEFAULT_METADATA_TTL;
	if (o->metadata_ttl_s) {
		if (!parse_count("metadata_ttl", o->metadata_ttl_s, 1L << 30, &v, msg, msglen))
			return false;
		o->metadata_ttl = v;
	}
	o->retries = PFS_DEFAULT_RETRIES;
	if (o->retries_s) {
		if (!parse_count("retries", o->retries_s, 20, &v, msg, msglen))
			return false;
		o->retries = (int)v;
	}
	o->timeout = PFS_DEFAULT_TIMEOUT;
	if (o->timeout_s) {
		if (!parse_count("timeout", o->timeout_s, 3600, &v, msg, msglen) || v == 0) {
			if (v == 0)
				snprintf(msg, msglen, "timeout=0: expected at least 1 second");
			return false;
		}
		o->timeout = v;
	}
	o->connect_timeout = PFS_DEFAULT_CONNECT_TIMEOUT;
	if (o->connect_timeout_s) {
		if (!parse_count("connect_timeout", o->connect_timeout_s, 3600, &v, msg, msglen) ||
		    v == 0) {
			if (v == 0)
				snprintf(msg, msglen, "connect_timeout=0: expected at least 1 second");
			return false;
		}
		o->connect_timeout = v;
	}
	if (o->ca_file && access(o->ca_file, R_OK) != 0) {
		snprintf(msg, msglen, "ca_file %s: %s", o->ca_file, strerror(errno));
		return false;
	}
	if (o->ca_file && o->ca_file[0] != '/') {
		char *abs = realpath(o->ca_file, NULL);
		if (!abs) {
			snprintf(msg, msglen, "ca_file %s: %s", o->ca_file, strerror(errno));
			return false;
		}
		free(o->ca_file);
		o->ca_file = abs;
	}
	if (o->path_style && o->virtual_hosted) {
		snprintf(msg, msglen, "path_style and virtual_hosted exclude each other");
		return false;
	}
	o->cache_dir_size = PFS_DEFAULT_CACHE_DIR_SIZE;
	if (o->cache_dir_size_s && !pfs_parse_size(o->cache_dir_size_s, &o->cache_dir_size)) {
		snprintf(msg, msglen, "cache_dir_size=%s: expected a size such as 1G",
			 o->cache_dir_size_s);
		return false;
	}
	return dir_option("cache_dir", o->cache_dir_s, NULL, &o->cache_dir, msg, msglen) &&
	       dir_option("spool_dir", o->spool_dir_s, "parquetfs/spool", &o->spool_dir, msg,
			  msglen);
}

static bool check_source(pfs_options *o, char *msg, size_t msglen)
{
	if (!o->source) {
		snprintf(msg, msglen, "no SOURCE given (usage: parquetfs [options] SOURCE MOUNTPOINT)");
		return false;
	}
	if (!strncmp(o->source, "s3://", 5) || !strncmp(o->source, "http://", 7) ||
	    !strncmp(o->source, "https://", 8))
		return check_remote(o, msg, msglen);
	const char *remote_only = o->endpoint ? "endpoint" : o->region ? "region"
				: o->profile ? "profile" : o->no_sign ? "no_sign"
				: o->ca_file ? "ca_file" : o->spool_dir_s ? "spool_dir"
				: o->cache_dir_s ? "cache_dir" : NULL;
	if (remote_only) {
		snprintf(msg, msglen, "%s is an option of remote sources (s3://, https://)",
			 remote_only);
		return false;
	}
	struct stat st;
	if (stat(o->source, &st) != 0) {
		snprintf(msg, msglen, "SOURCE %s: %s", o->source, strerror(errno));
		return false;
	}
	if (S_ISREG(st.st_mode)) {
		if (!is_parquet_file(o->source)) {
			snprintf(msg, msglen,
				 "SOURCE %s is neither a directory nor a Parquet file "
				 "(no PAR1/PARE magic)", o->source);
			return false;
		}
		o->source_is_file = true;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(msg, msglen, "SOURCE %s is neither a directory nor a Parquet file",
			 o->source);
		return false;
	}
	o->source_abs = realpath(o->source, NULL);
	if (!o->source_abs) {
		snprintf(msg, msglen, "SOURCE %s: %s", o->source, strerror(errno));
		return false;
	}
	return true;
}

static bool check_encryption(pfs_options *o, char *msg, size_t msglen)
{
	if (o->encrypt && !*o->encrypt) {
		snprintf(msg, msglen, "encrypt=: expected a key id of the key_file");
		return false;
	}
	if (o->encrypt_columns && !pfs_option_list_ok(o->encrypt_columns, true)) {
		snprintf(msg, msglen, "encrypt_columns=%s: expected COLUMN:KEYID[;COLUMN:KEYID...]",
			 o->encrypt_columns);
		return false;
	}
	if (o->encryption_algorithm_s) {
		if (!strcasecmp(o->encryption_algorithm_s, "gcm"))
			o->encrypt_ctr = false;
		else if (!strcasecmp(o->encryption_algorithm_s, "gcm-ctr"))
			o->encrypt_ctr = true;
		else {
			snprintf(msg, msglen, "encryption_algorithm=%s: expected gcm or gcm-ctr",
				 o->encryption_algorithm_s);
			return false;
		}
	}
	const char *needs = o->encrypt_columns ? "encrypt_columns"
			    : o->plaintext_footer ? "plaintext_footer"
			    : o->encryption_algorithm_s ? "encryption_algorithm"
			    : o->aad_prefix ? "aad_prefix" : NULL;
	if (needs && !o->encrypt) {
		snprintf(msg, msglen, "%s needs encrypt=KEYID (the footer key)", needs);
		return false;
	}
	if (o->container && strcasecmp(o->container, "aruna")) {
		snprintf(msg, msglen, "container=%s: the one container is aruna", o->container);
		return false;
	}
	if (o->encrypt && !o->key_file) {
		snprintf(msg, msglen, "encrypt=%s needs key_file=PATH holding key %s",
			 o->encrypt, o->encrypt);
		return false;
	}
	return true;
}

static char *join(const char *dir, const char *sub)
{
	size_t n = strlen(dir) + 1 + strlen(sub) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, sub);
	return p;
}

/* The size index's directory: as given (made absolute: the daemon leaves
 * its working directory when it goes to the background), none, or the
 * user's cache directory. It need not exist (made at the first write). */
static bool check_index_dir(pfs_options *o, char *msg, size_t msglen)
{
	const char *s = o->index_dir_s;
	if (s && !strcmp(s, "none"))
		return true;
	if (s && !*s) {
		snprintf(msg, msglen, "index_dir=: expected a directory or none");
		return false;
	}
	if (s && s[0] == '/') {
		o->index_dir = strdup(s);
	} else if (s) {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof cwd)) {
			snprintf(msg, msglen, "index_dir=%s: %s", s, strerror(errno));
			return false;
		}
		o->index_dir = join(cwd, s);
	} else {
		const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
		if (xdg && xdg[0] == '/')
			o->index_dir = join(xdg, "parquetfs");
		else if (home && home[0] == '/')
			o->index_dir = join(home, ".cache/parquetfs");
		else
			return true; /* nowhere to keep it: memory only */
	}
	if (!o->index_dir) {
		snprintf(msg, msglen, "out of memory");
		return false;
	}
	return true;
}

bool pfs_options_validate(pfs_options *o, char *msg, size_t msglen)
{
	if (o->bad_nonopt) {
		snprintf(msg, msglen, "too many arguments (usage: parquetfs [options] SOURCE MOUNTPOINT)");
		return false;
	}
	if (!check_source(o, msg, msglen))
		return false;
	o->cache_size = PFS_DEFAULT_CACHE_SIZE;
	if (o->cache_size_s && !pfs_parse_size(o->cache_size_s, &o->cache_size)) {
		snprintf(msg, msglen, "cache_size=%s: expected a size such as 256M or 1G",
			 o->cache_size_s);
		return false;
	}
	/* below this not even one ordinary page fits: every read would fail */
	if (o->cache_size < PFS_MIN_CACHE_SIZE) {
		snprintf(msg, msglen, "cache_size=%s: at least 16M (decoded pages must fit; the "
			 "default is 256M)", o->cache_size_s);
		return false;
	}
	o->mem_wait = PFS_DEFAULT_MEM_WAIT;
	if (o->mem_wait_s) {
		long v;
		if (!parse_count("mem_wait", o->mem_wait_s, 86400, &v, msg, msglen))
			return false;
		o->mem_wait = (unsigned)v;
	}
	o->poll_us = PFS_LOOP_POLL_US;
	if (o->poll_us_s) {
		long v;
		if (!parse_count("poll_us", o->poll_us_s, 1000000, &v, msg, msglen))
			return false;
		o->poll_us = (unsigned)v;
	}
	if (o->staging) {
		const char *s = o->staging;
		if (!*s || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..") ||
		    !strcmp(s, ".parquetfs")) {
			snprintf(msg, msglen, "staging=%s: expected a plain folder name", s);
			return false;
		}
	}
	if (o->key_file && !check_key_file(o->key_file, msg, msglen))
		return false;
	if (!check_index_dir(o, msg, msglen))
		return false;
	o->index_size = PFS_DEFAULT_INDEX_SIZE;
	if (o->index_size_s && (!pfs_parse_size(o->index_size_s, &o->index_size) ||
				!o->index_size || o->index_size > PFS_INDEX_SIZE_MAX)) {
		snprintf(msg, msglen, "index_size=%s: expected a size such as 256M or 1G "
			 "(index_dir=none keeps no index)", o->index_size_s);
		return false;
	}
	if (o->crc_check_s) {
		if (!strcasecmp(o->crc_check_s, "on") || !strcasecmp(o->crc_check_s, "off")) {
			o->crc_check = !strcasecmp(o->crc_check_s, "on");
		} else {
			snprintf(msg, msglen, "crc_check=%s: expected on or off", o->crc_check_s);
			return false;
		}
	}
	return pfs_options_check_writer(o, msg, msglen) && check_encryption(o, msg, msglen);
}
