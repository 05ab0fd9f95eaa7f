/* Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without
 * libFuzzer (any compiler, any sanitizer): the corpus as a regression test.
 *
 *   replay_NAME FILE_OR_DIR...
 *
 * Directories are read one level deep, in name order. Exits 1 when an
 * argument cannot be read; a crash is the target's failure. */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_INPUT (64u << 20)

static int run_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		perror(path);
		return 1;
	}
	uint8_t *p = NULL;
	size_t n = 0, cap = 0;
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			uint8_t *q = cap <= REPLAY_MAX_INPUT ? realloc(p, cap) : NULL;
			if (!q) {
				fprintf(stderr, "%s: too large or out of memory\n", path);
				free(p);
				fclose(fp);
				return 1;
			}
			p = q;
		}
		size_t r = fread(p + n, 1, cap - n, fp);
		n += r;
		if (r == 0)
			break;
	}
	fclose(fp);
	fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
	/* An exact-size copy, so ASan sees a read past the input's end. */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(p);
		return 1;
	}
	if (n)
		memcpy(exact, p, n);
	free(p);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int bad = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **q = realloc(names, cap * sizeof *names);
			if (!q) {
				bad = 1;
				break;
			}
			names = q;
		}
		names[n] = strdup(e->d_name);
		if (!names[n]) {
			bad = 1;
			break;
		}
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			bad |= run_file(path);
			(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			bad |= run_dir(argv[i], &count);
		} else {
			bad |= run_file(argv[i]);
			count++;
		}
	}
	printf("%s: %u inputs replayed\n", argv[0], count);
	return bad;
}
