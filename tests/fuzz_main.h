/*
 * fuzz_main.h -- the entry points the fuzz drivers share.
 *
 * A driver defines FUZZ_NAME and `static void one(const uint8_t *data,
 * size_t size)`, then includes this file last.  Built with
 * -DWASP_LIBFUZZER it is a libFuzzer target; otherwise a program that
 * feeds each file named on the command line (or standard input) to one()
 * and exits 0 unless one() aborted, to replay crashes and corpora.
 */
#ifndef WASP_FUZZ_MAIN_H
#define WASP_FUZZ_MAIN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/load.h"

#ifdef WASP_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	one(data, size);
	return 0;
}
#else
static void run(const char *path)
{
	char *text;
	size_t len;
	wasp_error e;
	if (wl_read_file(path, &text, &len, &e)) {
		char buf[800];
		fprintf(stderr, FUZZ_NAME ": %s\n",
			wasp_error_format(&e, buf, sizeof buf));
		return;
	}
	one((const uint8_t *)text, len);
	free(text);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		run("-");
	for (int i = 1; i < argc; i++)
		run(argv[i]);
	return 0;
}
#endif

#endif
