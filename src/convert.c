/* parquetfs-convert: CSV / TSV → Parquet without a mount, through the same
 * code path as staging/ (pq_convert_csv) and the same writer options,
 * validated by the same code as the mount's (src/options_writer.c).
 *
 *   parquetfs-convert [-q] [-o opt[,opt...]] IN OUT
 *
 * IN is a .csv or .tsv, possibly gzip or zstd compressed (by its suffix,
 * else by its magic), or `-` for standard input (spooled to an unlinked
 * temporary file when two passes are needed); OUT may be `-` (standard
 * output: written to an unlinked temporary file, then copied out, as the
 * writer needs to seek). On a terminal a progress line goes to stderr.
 *
 * The output is written to a temporary file beside OUT, fsynced and renamed
 * over OUT (then the directory is fsynced), so OUT is either the old file
 * or the complete new one. On bad input the one-line message (as staging/
 * writes it into `.error`) goes to stderr and the exit status is 1. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "convert_aruna.h"
#include "pfs_options.h"
#include "pq_convert.h"
#include "pq_keyring.h"
#include "pq_write_options.h"

#define SCHEMA_MAX (16u << 20)

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [-q] [-o opt[,opt...]] IN OUT.parquet\n"
		"\n"
		"Converts a CSV (RFC 4180) or TSV file into a Parquet file, as a file copied\n"
		"into a parquetfs staging/ folder is converted. IN is .csv or .tsv, also\n"
		"gzip or zstd compressed (.csv.gz, .tsv.zst, ... or by its first bytes), or\n"
		"- for standard input; OUT may be - for standard output. Column types are\n"
		"inferred, or taken from a sidecar schema (schema.txt syntax): -o schema=PATH,\n"
		"else IN's name with .schema instead of .csv/.tsv when that file exists.\n"
		"On a terminal a progress line goes to stderr; -q silences it.\n"
		"\n"
		"options (as the mount's writer defaults):\n"
		"    codec=NAME            uncompressed, snappy, gzip, brotli, zstd, lz4_raw\n"
		"                          (default zstd)\n"
		"    compression_level=N   gzip 1-9, brotli 0-11, zstd 1-22\n"
		"    row_group_rows=N      rows per row group (default 1048576)\n"
		"    page_size=SIZE        target uncompressed bytes per data page (default 1M)\n"
		"    data_page_version=1|2 (default 1)\n"
		"    dictionary=on|off     (default on)\n"
		"    bloom_filter=COL[;COL] columns that get a bloom filter\n"
		"    bloom_fpp=P           bloom filter false positive rate (default 0.01)\n"
		"    page_index=on|off     (default on)\n"
		"    crc=on|off            (default on)\n"
		"    schema=PATH           sidecar schema\n"
		"    format=csv|tsv        instead of IN's extension (standard input: csv)\n"
		"    delimiter=C           a CSV's delimiter: , ; | or tab (default: detected\n"
		"                          from the first 20 records)\n"
		"    threads=N             threads encoding column chunks (default: one per\n"
		"                          processor, at most 16; 1: none; same output)\n"
		"    key_file=PATH         keys (mode 600), as the mount's key_file=\n"
		"    encrypt=KEYID         encrypt footer and columns with key KEYID\n"
		"    encrypt_columns=COL:KEYID[;COL:KEYID]  per-column keys\n"
		"    plaintext_footer      keep the footer readable, signed\n"
		"    encryption_algorithm=gcm|gcm-ctr (default gcm)\n"
		"    aad_prefix=TEXT       AAD prefix, stored in the file\n"
		"    container=aruna       write OUT as an ARUNA container (zstd, ChaCha20-\n"
		"                          Poly1305) with key_file's container: key for OUT;\n"
		"                          IN may then also be a .parquet file, sealed as is\n"
		"\n"
		"Exit status: 0 converted, 1 bad input or I/O error (one line on stderr),\n"
		"2 bad usage or options.\n",
		prog);
}

typedef struct cli {
	pfs_options o;
	char *schema_path;
	char *format;
	char *container; /* container=aruna (src/convert_aruna.c) */
	char *threads;   /* threads=N */
} cli;

/* One `name=value` of -o into the option strings. */
static bool set_option(cli *c, const char *item, char *msg, size_t msglen)
{
	static const struct {
		const char *name;
		size_t off;
	} names[] = {
		{"codec", offsetof(pfs_options, codec_s)},
		{"compression_level", offsetof(pfs_options, compression_level_s)},
		{"row_group_rows", offsetof(pfs_options, row_group_rows_s)},
		{"page_size", offsetof(pfs_options, page_size_s)},
		{"data_page_version", offsetof(pfs_options, data_page_version_s)},
		{"dictionary", offsetof(pfs_options, dictionary_s)},
		{"bloom_filter", offsetof(pfs_options, bloom_filter)},
		{"page_index", offsetof(pfs_options, page_index_s)},
		{"crc", offsetof(pfs_options, crc_s)},
		{"bloom_fpp", offsetof(pfs_options, bloom_fpp_s)},
		{"key_file", offsetof(pfs_options, key_file)},
		{"encrypt", offsetof(pfs_options, encrypt)},
		{"encrypt_columns", offsetof(pfs_options, encrypt_columns)},
		{"encryption_algorithm", offsetof(pfs_options, encryption_algorithm_s)},
		{"aad_prefix", offsetof(pfs_options, aad_prefix)},
		{"delimiter", offsetof(pfs_options, delimiter_s)},
	};
	if (!strcmp(item, "plaintext_footer")) {
		c->o.plaintext_footer = 1;
		return true;
	}
	const char *eq = strchr(item, '=');
	if (!eq) {
		snprintf(msg, msglen, "option %s: expected name=value", item);
		return false;
	}
	size_t nl = (size_t)(eq - item);
	char **slot = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == nl && !memcmp(item, names[i].name, nl))
			slot = (char **)((char *)&c->o + names[i].off);
	if (nl == 6 && !memcmp(item, "schema", 6))
		slot = &c->schema_path;
	if (nl == 6 && !memcmp(item, "format", 6))
		slot = &c->format;
	if (nl == 9 && !memcmp(item, "container", 9))
		slot = &c->container;
	if (nl == 7 && !memcmp(item, "threads", 7))
		slot = &c->threads;
	if (!slot) {
		snprintf(msg, msglen, "unknown option %.*s", (int)nl, item);
		return false;
	}
	free(*slot);
	*slot = strdup(eq + 1);
	if (!*slot) {
		snprintf(msg, msglen, "out of memory");
		return false;
	}
	return true;
}

/* Splits "a=1,b=2" at commas (bloom_filter lists use ';'). */
static bool set_options(cli *c, const char *arg, char *msg, size_t msglen)
{
	char *copy = strdup(arg);
	if (!copy) {
		snprintf(msg, msglen, "out of memory");
		return false;
	}
	bool ok = true;
	for (char *save = NULL, *it = strtok_r(copy, ",", &save); it && ok;
	     it = strtok_r(NULL, ",", &save))
		ok = set_option(c, it, msg, msglen);
	free(copy);
	return ok;
}

static bool has_ext(const char *path, const char *ext)
{
	size_t n = strlen(path), e = strlen(ext);
	return n > e && !strcasecmp(path + n - e, ext);
}

/* 0 for a CSV name, 1 for TSV (.csv .tsv, also .gz and .zst: then
 * *codec says which), -1 for neither; *stem: the length before it. A
 * plain name leaves *codec AUTO (the file's magic decides). */
static int name_kind(const char *path, pq_input_codec *codec, size_t *stem)
{
	static const struct {
		const char *ext;
		int kind;
		pq_input_codec codec;
	} x[] = {
		{".csv.gz", 0, PQ_INPUT_GZIP}, {".tsv.gz", 1, PQ_INPUT_GZIP},
		{".csv.zst", 0, PQ_INPUT_ZSTD}, {".tsv.zst", 1, PQ_INPUT_ZSTD},
		{".csv", 0, PQ_INPUT_AUTO}, {".tsv", 1, PQ_INPUT_AUTO},
	};
	for (size_t i = 0; i < sizeof x / sizeof x[0]; i++)
		if (has_ext(path, x[i].ext)) {
			*codec = x[i].codec;
			*stem = strlen(path) - strlen(x[i].ext);
			return x[i].kind;
		}
	if (has_ext(path, ".gz"))
		*codec = PQ_INPUT_GZIP;
	else if (has_ext(path, ".zst"))
		*codec = PQ_INPUT_ZSTD;
	return -1;
}

/* The whole file as a NUL-terminated string, or NULL (message in msg). */
static char *read_text(const char *path, char *msg, size_t msglen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, msglen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	char *buf = NULL;
	if (fstat(fd, &st) != 0 || st.st_size < 0 || (uint64_t)st.st_size > SCHEMA_MAX) {
		snprintf(msg, msglen, "%s: not a schema file of at most 16 MiB", path);
		goto out;
	}
	size_t n = (size_t)st.st_size;
	buf = malloc(n + 1);
	if (!buf) {
		snprintf(msg, msglen, "%s: out of memory", path);
		goto out;
	}
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			snprintf(msg, msglen, "%s: %s", path, r < 0 ? strerror(errno) : "file shrank");
			free(buf);
			buf = NULL;
			goto out;
		}
		got += (size_t)r;
	}
	buf[n] = '\0';
	if (strlen(buf) != n) {
		snprintf(msg, msglen, "%s: a schema holds no NUL bytes", path);
		free(buf);
		buf = NULL;
	}
out:
	close(fd);
	return buf;
}

/* Bloom filter columns "a;b" as a NULL-terminated list (in place). */
static int fsync_dir(const char *path)
{
	char *copy = strdup(path);
	if (!copy)
		return -1;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return -1;
	int r = fsync(fd);
	close(fd);
	return r;
}

/* ---- progress on a terminal -------------------------------------------- */

typedef struct tty_progress {
	struct timespec start;
	double last;
	bool shown;
} tty_progress;

static double since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* "412 MB of 1049 MB, 2710000 rows, 39%, 85 MB/s, 7 s left", four times a
 * second, over itself (\r, then erase to the end of the line). */
static void tty_show(void *ctx, const pq_convert_progress *p)
{
	tty_progress *t = ctx;
	double el = since(&t->start);
	if (el - t->last < 0.25 && !p->finished)
		return;
	t->last = el;
	t->shown = true;
	double mb = 1024.0 * 1024.0, passes = p->passes > 0 ? p->passes : 1;
	double done = (double)(p->pass - 1) * (double)p->bytes_total + (double)p->bytes_read;
	double rate = el > 0 ? done / el : 0;
	if (!p->bytes_total) {
		fprintf(stderr, "\r%.0f MB, %llu rows, %.0f MB/s\033[K", (double)p->bytes_read / mb,
			(unsigned long long)p->rows, rate / mb);
		return;
	}
	double all = passes * (double)p->bytes_total;
	double left = rate > 0 ? (all - done) / rate : 0;
	fprintf(stderr, "\r%.0f MB of %.0f MB, %llu rows, %d%%, %.0f MB/s, %.0f s left\033[K",
		(double)p->bytes_read / mb, (double)p->bytes_total / mb,
		(unsigned long long)p->rows, (int)(100.0 * done / (all > 0 ? all : 1)), rate / mb,
		left);
}

static void tty_clear(tty_progress *t)
{
	if (t->shown)
		fputs("\r\033[K", stderr);
	t->shown = false;
}

/* ---- standard input and output ----------------------------------------- */

/* An unlinked temporary file in $TMPDIR (else /tmp), or -1. */
static int anon_file(void)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	int fd;
#ifdef O_TMPFILE
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) >= 0)
		return fd;
#endif
	char path[PATH_MAX];
	if (snprintf(path, sizeof path, "%s/parquetfs-convert.XXXXXX", dir) >= (int)sizeof path)
		return -1;
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* Copies all of in (from where it stands, read()) to out (write()); the
 * bytes written so far are reported to grow (types inferred meanwhile). */
static bool pump(int in, int out, bool positional, const char *what, pq_infer_ahead *grow)
{
	static char buf[1 << 16];
	off_t off = 0;
	for (;;) {
		ssize_t n = positional ? pread(in, buf, sizeof buf, off) : read(in, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "%s: %s\n", what, strerror(errno));
			return false;
		}
		if (n == 0)
			return true;
		off += n;
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(out, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				fprintf(stderr, "%s: %s\n", what, strerror(errno));
				return false;
			}
			done += w;
		}
		if (grow)
			pq_infer_ahead_grow(grow, (uint64_t)off);
	}
}

/* ---- the conversion ---------------------------------------------------- */

/* Converts into a temporary file beside out_path, then renames it (or,
 * for `-`, into an unlinked one copied to standard output). */
static int convert(const char *in_path, const char *out_path, const pq_convert_input *ci,
		   const char *schema, const pq_write_options *wo, bool quiet)
{
	bool from_stdin = !strcmp(in_path, "-"), to_stdout = !strcmp(out_path, "-");
	int in;
	pq_infer_ahead *ahead = NULL;
	if (from_stdin) {
		/* a second pass (inference, delimiter detection) needs a file */
		bool two = !schema || (ci->format == PQ_CSV_COMMA && !ci->delimiter);
		in = STDIN_FILENO;
		struct stat st;
		if (two && !(fstat(in, &st) == 0 && S_ISREG(st.st_mode))) {
			in = anon_file();
			/* the types are inferred while standard input is copied */
			pq_error aerr;
			if (in >= 0 && !schema && pq_infer_ahead_start(in, "stdin", ci, &ahead, &aerr) != PQ_OK)
				ahead = NULL;
			if (in < 0 || !pump(STDIN_FILENO, in, false, "standard input", ahead)) {
				if (in < 0)
					fprintf(stderr, "cannot make a temporary file in $TMPDIR: %s\n",
						strerror(errno));
				else
					close(in);
				pq_infer_ahead_free(ahead);
				return 1;
			}
		}
	} else {
		in = open(in_path, O_RDONLY | O_CLOEXEC);
		if (in < 0) {
			fprintf(stderr, "%s: %s\n", in_path, strerror(errno));
			return 1;
		}
	}
	char *tmp = NULL;
	int out = -1;
	if (to_stdout) {
		out = anon_file();
		if (out < 0)
			fprintf(stderr, "cannot make a temporary file in $TMPDIR: %s\n", strerror(errno));
	} else {
		char *dcopy = strdup(out_path), *bcopy = strdup(out_path);
		if (dcopy && bcopy) {
			size_t len = strlen(out_path) + 64;
			tmp = malloc(len);
			if (tmp)
				snprintf(tmp, len, "%s/.%s.tmp-XXXXXX", dirname(dcopy), basename(bcopy));
		}
		free(dcopy);
		free(bcopy);
		if (!tmp)
			fprintf(stderr, "out of memory\n");
		else if ((out = mkstemp(tmp)) < 0)
			fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
	}
	if (out < 0) {
		free(tmp);
		if (in != STDIN_FILENO)
			close(in);
		pq_infer_ahead_free(ahead);
		return 1;
	}
	char *ncopy = strdup(in_path);
	pq_convert_input c2 = *ci;
	c2.ahead = ahead;
	tty_progress tp = {.last = -1}; /* the first block shows at once */
	clock_gettime(CLOCK_MONOTONIC, &tp.start);
	if (!quiet && isatty(STDERR_FILENO)) {
		c2.progress = tty_show;
		c2.progress_ctx = &tp;
	}
	pq_error err;
	pq_error_clear(&err);
	pq_convert_stats stats;
	pq_status st = ncopy ? pq_convert_csv_ex(in, out, from_stdin ? "stdin" : basename(ncopy), &c2,
						 schema, wo, &stats, &err)
			     : pq_fail(&err, PQ_ENOMEM, "out of memory");
	if (st == PQ_OK && tp.shown)
		fputc('\n', stderr); /* the last line stays: how long it took */
	if (st == PQ_OK && c2.split_bytes) { /* the test hook also says what it did */
		fprintf(stderr, "inference ranges %llu, tokenized again %llu\n",
			(unsigned long long)stats.infer_ranges,
			(unsigned long long)stats.infer_reparsed);
		if (stats.inferred_ahead)
			fputs("types inferred while standard input was read\n", stderr);
	} else
		tty_clear(&tp);
	free(ncopy);
	pq_infer_ahead_free(ahead);
	if (in != STDIN_FILENO)
		close(in);
	int rc = 0;
	if (st != PQ_OK) {
		fprintf(stderr, "%s\n", err.msg);
		rc = 1;
	} else if (to_stdout) {
		rc = pump(out, STDOUT_FILENO, true, "standard output", NULL) ? 0 : 1;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		if (fchmod(out, 0666 & ~mask) != 0 || fsync(out) != 0) {
			fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
			rc = 1;
		}
	}
	if (close(out) != 0 && rc == 0 && !to_stdout) {
		fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
		rc = 1;
	}
	if (to_stdout) {
		free(tmp);
		return rc;
	}
	if (rc == 0 && rename(tmp, out_path) != 0) {
		fprintf(stderr, "%s: %s\n", out_path, strerror(errno));
		rc = 1;
	}
	if (rc != 0)
		unlink(tmp);
	else
		fsync_dir(out_path);
	free(tmp);
	return rc;
}

static pq_keyring *kr;

/* encrypt= and the rest, with the keys of key_file= (refused when group
 * or others may read it, as the mount refuses it). */
static bool encryption(const pfs_options *o, const char *out, pq_write_keys *keys,
		       pq_write_options *wo, char *msg, size_t msglen)
{
	const char *needs = o->encrypt_columns ? "encrypt_columns"
			    : o->plaintext_footer ? "plaintext_footer"
			    : o->encryption_algorithm_s ? "encryption_algorithm"
			    : o->aad_prefix ? "aad_prefix" : NULL;
	if (!o->encrypt) {
		if (needs)
			snprintf(msg, msglen, "%s needs encrypt=KEYID (the footer key)", needs);
		return !needs;
	}
	bool ctr = false;
	if (o->encryption_algorithm_s) {
		ctr = !strcasecmp(o->encryption_algorithm_s, "gcm-ctr");
		if (!ctr && strcasecmp(o->encryption_algorithm_s, "gcm")) {
			snprintf(msg, msglen, "encryption_algorithm=%s: expected gcm or gcm-ctr",
				 o->encryption_algorithm_s);
			return false;
		}
	}
	struct stat st;
	if (!o->key_file || stat(o->key_file, &st) != 0) {
		snprintf(msg, msglen, "encrypt=%s needs key_file=PATH holding key %s", o->encrypt,
			 o->encrypt);
		return false;
	}
	if (st.st_mode & (S_IRGRP | S_IROTH)) {
		snprintf(msg, msglen, "key_file %s is readable by group or others (mode %03o): run chmod 600 %s",
			 o->key_file, (unsigned)(st.st_mode & 0777), o->key_file);
		return false;
	}
	pq_error err;
	pq_error_clear(&err);
	char *bcopy = strdup(out);
	pq_status s = bcopy ? pq_keyring_load(o->key_file, &kr, &err)
			    : pq_fail(&err, PQ_ENOMEM, "out of memory");
	if (s == PQ_OK)
		s = pq_write_keys_resolve(kr, basename(bcopy), o->encrypt, o->encrypt_columns,
					  o->plaintext_footer != 0, ctr, o->aad_prefix, keys, wo, &err);
	free(bcopy);
	if (s != PQ_OK)
		snprintf(msg, msglen, "%s", err.msg);
	return s == PQ_OK;
}

int main(int argc, char **argv)
{
	const char *prog = "parquetfs-convert";
	cli c;
	memset(&c, 0, sizeof c);
	pfs_options_init(&c.o);
	const char *pos[2] = {NULL, NULL};
	size_t npos = 0;
	char msg[512];
	int rc = 2;
	bool quiet = false;
	char *schema = NULL;
	pq_write_keys keys;
	memset(&keys, 0, sizeof keys);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout, prog);
			rc = 0;
			goto done;
		}
		if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			printf("%s %s\n", prog, PACKAGE_VERSION);
			rc = 0;
			goto done;
		}
		if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = true;
			continue;
		}
		if (!strcmp(a, "-o") || !strncmp(a, "-o", 2)) {
			const char *v = a[2] ? a + 2 : (i + 1 < argc ? argv[++i] : NULL);
			if (!v) {
				fprintf(stderr, "%s: -o needs options\n", prog);
				goto done;
			}
			if (!set_options(&c, v, msg, sizeof msg)) {
				fprintf(stderr, "%s: %s\n", prog, msg);
				goto done;
			}
			continue;
		}
		if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown argument %s (see --help)\n", prog, a);
			goto done;
		}
		if (npos == 2) {
			fprintf(stderr, "%s: too many arguments (see --help)\n", prog);
			goto done;
		}
		pos[npos++] = a;
	}
	if (npos != 2) {
		usage(stderr, prog);
		goto done;
	}
	if (!pfs_options_check_writer(&c.o, msg, sizeof msg)) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		goto done;
	}
	const char *in = pos[0];
	uint8_t ckey[32];
	if (c.container && (strcasecmp(c.container, "aruna") ||
			    !pfs_convert_aruna_key(c.o.key_file, pos[1], ckey, msg, sizeof msg))) {
		fprintf(stderr, "%s: %s\n", prog, strcasecmp(c.container, "aruna")
			? "container=: the one container is aruna" : msg);
		goto done;
	}
	if (c.container && !strcmp(pos[1], "-")) {
		/* the Parquet file is made first, then sealed: OUT must be a file */
		fprintf(stderr, "%s: container=aruna writes a file, not - (stdout)\n", prog);
		goto done;
	}
	if (c.container && !c.format && has_ext(in, ".parquet")) { /* pass-through */
		rc = pfs_convert_aruna(in, pos[1], ckey);
		goto done;
	}
	bool from_stdin = !strcmp(in, "-");
	pq_convert_input ci = {.delimiter = c.o.delimiter, .codec = PQ_INPUT_AUTO};
	if (c.threads) {
		char *end;
		errno = 0;
		unsigned long t = strtoul(c.threads, &end, 10);
		if (errno || end == c.threads || *end || c.threads[0] == '-' || t < 1 || t > 16) {
			fprintf(stderr, "%s: threads=%s: expected 1 to 16\n", prog, c.threads);
			rc = 2;
			goto done;
		}
		ci.threads = (unsigned)t;
	}
	/* test hook (tests/test_convert_parallel.sh): tiny inference ranges */
	const char *split = getenv("PARQUETFS_CONVERT_SPLIT");
	if (split && *split)
		ci.split_bytes = strtoull(split, NULL, 10);
	size_t stem = 0;
	int kind = from_stdin ? -1 : name_kind(in, &ci.codec, &stem);
	if (c.format ? !strcasecmp(c.format, "csv") : from_stdin || kind == 0)
		ci.format = PQ_CSV_COMMA;
	else if (c.format ? !strcasecmp(c.format, "tsv") : kind == 1)
		ci.format = PQ_CSV_TAB;
	else {
		fprintf(stderr, "%s: %s: %s\n", prog, c.format ? c.format : in,
			c.format ? "format must be csv or tsv" : "expected a .csv or .tsv file, "
			"maybe .gz or .zst (or -o format=csv|tsv)");
		goto done;
	}
	if (isatty(STDOUT_FILENO) && !strcmp(pos[1], "-")) {
		fprintf(stderr, "%s: not writing Parquet bytes to a terminal\n", prog);
		goto done;
	}
	/* The sidecar: -o schema=PATH, else IN.schema beside IN. */
	const char *spath = c.schema_path;
	char *guess = NULL;
	if (!spath && kind >= 0) {
		guess = malloc(stem + 8);
		if (guess) {
			memcpy(guess, in, stem);
			strcpy(guess + stem, ".schema");
			if (access(guess, F_OK) == 0)
				spath = guess;
		}
	}
	if (spath) {
		schema = read_text(spath, msg, sizeof msg);
		if (!schema) {
			fprintf(stderr, "%s\n", msg);
			free(guess);
			rc = 1;
			goto done;
		}
		const char *slash = strrchr(spath, '/');
		pq_error err;
		if (pq_convert_check_schema(schema, slash ? slash + 1 : spath, &err) != PQ_OK) {
			fprintf(stderr, "%s\n", err.msg);
			free(guess);
			rc = 1;
			goto done;
		}
	}
	free(guess);
	pq_write_options wo = c.o.write;
	if (!encryption(&c.o, pos[1], &keys, &wo, msg, sizeof msg)) {
		fprintf(stderr, "%s: %s\n", prog, msg);
		rc = 2;
		goto done;
	}
	if (!c.container) {
		rc = convert(in, pos[1], &ci, schema, &wo, quiet);
	} else { /* the Parquet file beside OUT first, then sealed */
		size_t n = strlen(pos[1]) + 16;
		char *mid = malloc(n);
		rc = 1;
		if (mid) {
			snprintf(mid, n, "%s.parquet-tmp", pos[1]);
			rc = convert(in, mid, &ci, schema, &wo, quiet);
			if (rc == 0)
				rc = pfs_convert_aruna(mid, pos[1], ckey);
			unlink(mid);
			free(mid);
		}
	}
done:
	pq_write_keys_free(&keys);
	pq_keyring_free(kr);
	free(schema);
	free(c.schema_path);
	free(c.threads);
	free(c.format);
	free(c.container);
	pfs_options_free(&c.o);
	return rc;
}
