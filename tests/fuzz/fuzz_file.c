/* Fuzz target: a whole Parquet file from memory, through every view the
 * filesystem shows (fuzz_views.c). Seeds: tests/fuzz/corpus/file/. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "fuzz_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)fuzz_file_bytes(data, size, NULL, NULL);
	return 0;
}
