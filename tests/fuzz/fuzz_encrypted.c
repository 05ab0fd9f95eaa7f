/* Fuzz target: an encrypted Parquet file from memory, opened with the keys
 * its seeds were written with (parquetfs-convert -o key_file=...,encrypt=),
 * through every view. Seeds: tests/fuzz/corpus/encrypted/. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_views.h"
#include "pq_keyring.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The seeds' key_file (tests/fuzz/make-corpus writes the same text). */
static const char keys_text[] =
	"key kf: \"0123456789abcdef\"\n"
	"key kx: 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pq_keyring *kr;
	pq_error err;
	pq_error_clear(&err);
	if (pq_keyring_parse(keys_text, strlen(keys_text), "fuzz-keys", &kr, &err) != PQ_OK)
		return 0;
	(void)fuzz_file_bytes(data, size, kr, NULL);
	pq_keyring_free(kr);
	return 0;
}
