/*
 * outfile.h -- writing a whole output file the careful way.
 *
 * wo_write(path, data, len, err) writes data to path so that a failure
 * never leaves a half-written file, and never replaces what is not a
 * regular file (doc/output.md, "Output files"):
 *
 *   missing or regular file  a temporary file beside it, written, synced,
 *                            renamed over it, the directory synced; an old
 *                            file's mode (and owner, where allowed) is kept,
 *                            a new one gets 0666 less the umask
 *   symbolic link            the same at the file it finally names; a
 *                            dangling link is refused
 *   character device, FIFO   opened and written directly (/dev/stdout, a
 *                            terminal, a pipe)
 *   anything else            refused: WASP_EINVAL, nothing touched
 *
 * Write errors are WASP_EIO with strerror's text.  wo_check answers early
 * (before a long solve) whether wo_write could start; it changes nothing.
 * No global state: safe from several threads on different paths.
 */
#ifndef WASP_OUTFILE_H
#define WASP_OUTFILE_H

#include <stddef.h>

#include "wasp.h"

int wo_write(const char *path, const char *data, size_t len,
	     wasp_error *err);
int wo_check(const char *path, wasp_error *err);

#endif
