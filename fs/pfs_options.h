/* Mount options of parquetfs: parsed by src/options.c, read by fs/.
 *
 * fuse_opt stores every `-o name=value` as a string; pfs_options_validate
 * turns them into the typed fields below and refuses bad values with a
 * one-line message, before anything is mounted. */
#ifndef PFS_OPTIONS_H
#define PFS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_convert.h"

#define PFS_DEFAULT_CACHE_SIZE ((uint64_t)256 << 20)
#define PFS_MIN_CACHE_SIZE ((uint64_t)16 << 20) /* -o cache_size= below: refused */
#define PFS_DEFAULT_STAGING "staging"
/* The size of writes into staging/ (max_write, and st_blksize of staged
 * files so that cp writes that much at a time). */
#define PFS_STG_WRITE_BLOCK (1u << 20)
#define PFS_DEFAULT_METADATA_TTL 60
#define PFS_DEFAULT_RETRIES 4
#define PFS_DEFAULT_TIMEOUT 30
#define PFS_DEFAULT_MEM_WAIT 30 /* seconds */
#define PFS_DEFAULT_CONNECT_TIMEOUT 10
#define PFS_DEFAULT_CACHE_DIR_SIZE ((uint64_t)1 << 30)
#define PFS_DEFAULT_INDEX_SIZE ((uint64_t)256 << 20)
#define PFS_INDEX_SIZE_MAX ((uint64_t)1 << 50)

enum { PFS_SRC_LOCAL, PFS_SRC_S3, PFS_SRC_HTTP };

typedef struct pfs_options {
	/* As given (fuse_opt strings, freed by pfs_options_free). */
	char *source;
	char *key_file;
	char *cache_size_s;
	char *mem_wait_s;
	char *staging;
	char *index_dir_s;
	char *crc_check_s; /* crc_check=on|off */
	char *poll_us_s;  /* the request loop's polling (fs/loop.h) */
	char *codec_s, *compression_level_s, *row_group_rows_s, *page_size_s,
	    *data_page_version_s, *dictionary_s, *bloom_filter, *page_index_s,
	    *crc_s, *bloom_fpp_s, *encrypt, *encrypt_columns,
	    *encryption_algorithm_s, *aad_prefix, *delimiter_s, *replace_s;
	char *container; /* container=aruna: staging/ publishes ARUNA containers */
	/* remote sources (s3://, http(s)://) */
	char *endpoint, *region, *profile, *ca_file, *metadata_ttl_s, *retries_s,
	    *timeout_s, *connect_timeout_s, *cache_dir_s, *cache_dir_size_s, *spool_dir_s;
	int no_sign, path_style, virtual_hosted;
	int plaintext_footer;
	int read_only;   /* -o ro: no staging folder */
	int nonopt_count;
	int bad_nonopt;  /* a third positional argument */

	/* Validated. */
	char *source_abs;     /* realpath of SOURCE; a remote SOURCE's URL */
	int source_kind;      /* PFS_SRC_LOCAL, _S3, _HTTP */
	long metadata_ttl;    /* seconds (remote) */
	int retries;          /* remote */
	long timeout;         /* seconds without progress (remote) */
	long connect_timeout; /* seconds to connect (remote) */
	char *spool_dir;      /* absolute (S3 staging) */
	char *cache_dir;      /* absolute or NULL (remote bytes on disk) */
	uint64_t cache_dir_size;
	bool source_is_file;  /* SOURCE is one Parquet file */
	uint64_t cache_size;
	unsigned mem_wait;    /* seconds a read waits for memory at most */
	unsigned poll_us;     /* after a request, /dev/fuse is polled this long */
	/* The size index's directory (absolute), NULL for none (index_dir=none,
	 * or no cache directory to default to). */
	char *index_dir;
	uint64_t index_size;  /* its bound (index_size=, default 256M): LRU beyond it */
	char *index_size_s;
	/* The writer options (staging/ and parquetfs-convert alike): the core
	 * defaults with codec= ... bloom_fpp= applied; bloom_columns points
	 * into bloom_list. No encryption keys (resolved per file). */
	pq_write_options write;
	char **bloom_list;    /* bloom_filter= split at ';' (one allocation) */
	bool encrypt_ctr;     /* encryption_algorithm=gcm-ctr */
	uint8_t delimiter;    /* delimiter= of a CSV: , ; | or tab; 0 detects */
	bool no_replace;      /* replace=no: staging refuses an existing target */
	/* crc_check=on (default): a page whose stored CRC does not match fails
	 * every read that needs it; off: served as decoded */
	bool crc_check;
} pfs_options;

void pfs_options_init(pfs_options *o);
void pfs_options_free(pfs_options *o);
/* Parses "256M", "1G", "4096", "64KiB" (binary multiples). false when malformed. */
bool pfs_parse_size(const char *s, uint64_t *out);
/* "A;B;C" with no empty item; with pairs, every item is NAME:ID. */
bool pfs_option_list_ok(const char *s, bool pairs);
/* Checks the writer options alone (codec_s ... bloom_fpp_s) and fills
 * write: pq_write_options_init's defaults for those not given
 * (src/options_writer.c; the one mapping of these options, parquetfs-convert
 * uses it too). false with a message when a value is bad or memory ran out. */
bool pfs_options_check_writer(pfs_options *o, char *msg, size_t msglen);
/* Checks every option and SOURCE; on failure writes a one-line message. */
bool pfs_options_validate(pfs_options *o, char *msg, size_t msglen);

#endif
