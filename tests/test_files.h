/* Reading a whole file in the tests (test data, expectations). */
#ifndef TEST_FILES_H
#define TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* The bytes of path, NUL-terminated (*len excludes the NUL); NULL when it
 * cannot be read or memory runs out. The caller frees. */
static inline char *test_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0, got;
	char *p = malloc(cap + 1);
	while (p && (got = fread(p + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			char *q = realloc(p, (cap *= 2) + 1);
			if (!q)
				free(p);
			p = q;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (!p || bad) {
		free(p);
		return NULL;
	}
	p[n] = '\0';
	*len = n;
	return p;
}

#endif
