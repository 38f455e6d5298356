/* fuzz_driver.c: replays files through LLVMFuzzerTestOneInput without libFuzzer (zstd's
 * regression_driver.c). Each argument is a file or a directory of files (not recursive),
 * run in name order. Every input is copied into a buffer of exactly its size, so an
 * overread shows under ASan. Exits non-zero if nothing was run or an input cannot be
 * read; a failing input crashes or aborts, after its name was printed. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	uint8_t *buf;
	size_t n;

	if (!f || fstat(fileno(f), &st)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	n = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
	fclose(f);
	if (!buf || n != (size_t)st.st_size) {
		fprintf(stderr, "%s: short read\n", path);
		free(buf);
		return -1;
	}
	fprintf(stderr, "running %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 0;
}

static int only_files(const struct dirent *de)
{
	return de->d_name[0] != '.';
}

int main(int argc, char **argv)
{
	size_t ran = 0;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			struct dirent **ents;
			int n = scandir(argv[i], &ents, only_files, alphasort);

			if (n < 0) {
				fprintf(stderr, "%s: %s\n", argv[i], strerror(errno));
				return 1;
			}
			for (int j = 0; j < n; j++) {
				char path[4096];
				struct stat fst;

				snprintf(path, sizeof(path), "%s/%s", argv[i], ents[j]->d_name);
				if (!stat(path, &fst) && S_ISREG(fst.st_mode)) {
					if (run_file(path))
						return 1;
					ran++;
				}
				free(ents[j]);
			}
			free(ents);
		} else {
			if (run_file(argv[i]))
				return 1;
			ran++;
		}
	}
	if (!ran) {
		fprintf(stderr, "%s: no inputs\n", argv[0]);
		return 1;
	}
	fprintf(stderr, "%s: %zu inputs ok\n", argv[0], ran);
	return 0;
}
