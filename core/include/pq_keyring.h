/* The key_file (interface.md, "key_file"): keys for encrypted files.
 *
 *     # comment
 *     key ID: KEY          a key, matched against the key_metadata a file stores
 *     footer: KEY          the footer key of files that store no key_metadata
 *     column PATH: KEY     the key of column PATH (dotted path_in_schema)
 *     aad_prefix: TEXT     for files that ask for a supplied AAD prefix
 *     container: KEY       the 32-byte key of ARUNA containers (pq_aruna.h)
 *     [GLOB]               a section: what follows applies to files whose
 *                          path under SOURCE matches GLOB (* and ? stop at /)
 *
 * KEY is hex (32, 48 or 64 digits) or a quoted string of 16, 24 or 32 bytes
 * ("..." with \" and \\ as escapes). ID and PATH may be quoted too. Lines
 * before the first section apply to every file; every matching section
 * applies, in file order, and a later line wins over an earlier one.
 *
 * A keyring is immutable once parsed and may be shared by threads. Keys
 * never leave it except through the lookups below; no message names one. */
#ifndef PQ_KEYRING_H
#define PQ_KEYRING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pq_crypto.h"
#include "pq_error.h"

typedef struct pq_keyring pq_keyring;

/* Parses key_file text; name is used in messages ("keys.txt, line 4: ..."). */
pq_status pq_keyring_parse(const char *text, size_t len, const char *name, pq_keyring **out,
			   pq_error *err);
/* Reads and parses the file at path (at most 1 MiB). */
pq_status pq_keyring_load(const char *path, pq_keyring **out, pq_error *err);
/* Wipes the keys and frees. */
void pq_keyring_free(pq_keyring *kr);

/* Lookups for the file at path (its path under SOURCE). Each is true and
 * fills *out when the key_file has an applicable line. */
bool pq_keyring_key(const pq_keyring *kr, const char *path, const uint8_t *id, size_t id_len,
		    pq_key *out);
bool pq_keyring_footer_key(const pq_keyring *kr, const char *path, pq_key *out);
/* The `container:` key (always 32 bytes). */
bool pq_keyring_container_key(const pq_keyring *kr, const char *path, pq_key *out);
bool pq_keyring_column_key(const pq_keyring *kr, const char *path, const char *column,
			   size_t column_len, pq_key *out);
/* The supplied AAD prefix; *p stays valid while kr lives. */
bool pq_keyring_aad_prefix(const pq_keyring *kr, const char *path, const uint8_t **p,
			   size_t *n);

#endif
