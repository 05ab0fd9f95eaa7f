/* parquetfs-convert -o container=aruna (src/convert_aruna.c). */
#ifndef PFS_CONVERT_ARUNA_H
#define PFS_CONVERT_ARUNA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The key_file's `container:` key for out_path's name (the key_file must
 * be mode 600, as the mount wants it). false with a message. */
bool pfs_convert_aruna_key(const char *key_file, const char *out_path, uint8_t key[32], char *msg,
			   size_t msglen);

/* Seals the Parquet file at in_path into the container out_path (written
 * beside it, fsynced, renamed into place). 0, or 1 with a message on
 * stderr. */
int pfs_convert_aruna(const char *in_path, const char *out_path, const uint8_t key[32]);

#endif
