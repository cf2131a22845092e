/* bench.c -- `wasp bench`: stub: being written. */
#include <stdio.h>

#include "cli.h"

int cmd_bench(int argc, char **argv)
{
	fprintf(stderr, "wasp: bench is not built yet\n");
	return 3;
}
