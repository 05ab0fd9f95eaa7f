/* Fuzz target: key_file text (pq_keyring_parse), then every lookup the
 * reader and the writer make with it. Seeds: tests/fuzz/corpus/keyfile/. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pq_keyring.h"
#include "pq_write_options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pq_keyring *kr;
	pq_error err;
	pq_error_clear(&err);
	if (pq_keyring_parse((const char *)data, size, "fuzz-keys", &kr, &err) != PQ_OK)
		return 0;
	pq_key k;
	const uint8_t *aad;
	size_t aad_len;
	static const char *const paths[] = {"a.parquet", "dir/b.parquet", ""};
	for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
		(void)pq_keyring_footer_key(kr, paths[i], &k);
		(void)pq_keyring_column_key(kr, paths[i], "a.b", 3, &k);
		(void)pq_keyring_aad_prefix(kr, paths[i], &aad, &aad_len);
		(void)pq_keyring_key(kr, paths[i], (const uint8_t *)"kf", 2, &k);
		(void)pq_keyring_key(kr, paths[i], data, size < 16 ? size : 16, &k);
	}
	pq_write_options wo;
	pq_write_options_init(&wo);
	pq_write_keys wk;
	memset(&wk, 0, sizeof wk);
	if (pq_write_keys_resolve(kr, "a.parquet", "kf", "x:kx,y.z:kf", false, false, "p", &wk,
				  &wo, &err) == PQ_OK)
		pq_write_keys_free(&wk);
	pq_keyring_free(kr);
	return 0;
}
