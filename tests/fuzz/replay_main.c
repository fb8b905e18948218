// SPDX-License-Identifier: GPL-2.0-only
/*
 * Replays fuzz inputs without libFuzzer: every file named, or found in a
 * directory named, goes once through LLVMFuzzerTestOneInput. Built with
 * the normal compiler, so CI runs the corpus (under ASan in the sanitizer
 * build) on every change. Prints how many inputs ran; exit 1 if none.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	uint8_t *data = NULL;
	size_t size = 0;
	long len;
	FILE *f = fopen(path, "rb");

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "replay: cannot read '%s': %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	data = malloc(len ? (size_t)len : 1);
	if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	size = (size_t)len;
	fclose(f);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

static int run_path(const char *path, unsigned int *count)
{
	struct dirent *de;
	struct stat st;
	char child[4096];
	DIR *dir;
	int err = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		err = run_file(path);
		*count += !err;
		return err;
	}
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "replay: '%s': %s\n", path, strerror(errno));
		return -1;
	}
	while (!err && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
		err = run_path(child, count);
	}
	closedir(dir);
	return err;
}

int main(int argc, char **argv)
{
	unsigned int count = 0;

	for (int i = 1; i < argc; i++)
		if (run_path(argv[i], &count))
			return 1;
	printf("replay: %u inputs\n", count);
	return count ? 0 : 1;
}
