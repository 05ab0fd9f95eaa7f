/* S3's XML answers, read with expat: a ListObjectsV2 page, an error
 * document, and single values (UploadId). Every answer is hostile: sizes
 * and counts are bounded, names must be text without NUL. */
#ifndef PFS_S3_XML_H
#define PFS_S3_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pq_error.h"
#include "remote_http.h"

#define PFS_S3_KEY_MAX 1024     /* S3's own limit on a key */
#define PFS_S3_PAGE_MAX 100000  /* entries of one page we accept */

typedef struct pfs_s3_obj {
	char *key;
	uint64_t size;
	char etag[PFS_ETAG_MAX];
	time_t mtime;
} pfs_s3_obj;

typedef struct pfs_s3_page {
	pfs_s3_obj *objs;
	size_t nobjs, objcap;
	char **prefixes;          /* CommonPrefixes/Prefix */
	size_t nprefixes, prefcap;
	bool truncated;           /* IsTruncated */
	char *next_token;         /* NextContinuationToken, or NULL */
	/* EncodingType was url: keys and prefixes were percent-decoded (keys
	 * whose encoding was malformed, or decoded to a NUL, are left out
	 * and counted here, the first one kept as sent) */
	bool url_encoded;
	size_t nbad;
	char *bad_example;
} pfs_s3_page;

/* One ListObjectsV2 page (ListBucketResult). PQ_ECORRUPT with a message
 * when it is not well-formed or breaks a bound. */
pq_status pfs_s3_parse_list(const char *xml, size_t n, pfs_s3_page *out, pq_error *err);
void pfs_s3_page_free(pfs_s3_page *p);

/* s decoded in place as S3 encodes keys for encoding-type=url (percent
 * escapes, '+' for a space, as the AWS SDKs decode them): false when an
 * escape is malformed or gives a NUL byte (s is then unchanged). */
bool pfs_s3_url_decode(char *s);

/* The text of the first element named tag anywhere in the document
 * (Error/Code, UploadId, ...): false when absent, malformed or too long. */
bool pfs_s3_xml_value(const char *xml, size_t n, const char *tag, char *out, size_t outn);

/* "2009-10-12T17:50:30.000Z" as seconds since the epoch (0 when malformed). */
time_t pfs_s3_parse_time(const char *s);

#endif
