/*
 * outfile.c -- writing a whole output file the careful way (outfile.h):
 * atomic replacement of regular files, direct writes to devices and
 * FIFOs, refusal of everything else.
 */
#define _XOPEN_SOURCE 700 /* fsync, realpath, strerror_r */

#include "base/outfile.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Tries at a fresh temporary name before giving up (each collides only
 * with a concurrent writer of the same file). */
#define WO_TMP_TRIES 64

enum wo_kind { WO_NEW, WO_REGULAR, WO_DIRECT };

/* What path is and where to write: *target is path itself or, through a
 * symbolic link, the file it names (malloc'd). */
typedef struct wo_dest {
	enum wo_kind kind;
	char *target;
	struct stat st; /* WO_REGULAR: the old file */
} wo_dest;

static int sys_err(wasp_error *err, const char *path, const char *what,
		   int e)
{
	char buf[128];
	if (strerror_r(e, buf, sizeof buf))
		snprintf(buf, sizeof buf, "error %d", e);
	return werr(err, WASP_EIO, "%s: %s: %s", path, what, buf);
}

static int classify(const char *path, wo_dest *d, wasp_error *err)
{
	struct stat st;
	memset(d, 0, sizeof *d);
	size_t n = strlen(path);
	if (n == 0)
		return werr(err, WASP_EINVAL, "empty output file name");
	if (path[n - 1] == '/')
		return werr(err, WASP_EINVAL, "%s: is a directory", path);
	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return sys_err(err, path, "cannot write", errno);
		d->kind = WO_NEW;
		d->target = strdup(path);
		return d->target ? WASP_OK
				 : werr(err, WASP_ENOMEM, "out of memory");
	}
	int link = S_ISLNK(st.st_mode);
	if (link && stat(path, &st)) {
		if (errno == ENOENT)
			return werr(err, WASP_EINVAL,
				    "%s: dangling symbolic link; not writing "
				    "through it",
				    path);
		return sys_err(err, path, "cannot write", errno);
	}
	if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
		d->kind = WO_DIRECT;
		d->target = strdup(path);
	} else if (S_ISREG(st.st_mode)) {
		d->kind = WO_REGULAR;
		d->st = st;
		if (link) {
			struct stat rs;
			d->target = realpath(path, NULL);
			if (d->target &&
			    (stat(d->target, &rs) || rs.st_dev != st.st_dev ||
			     rs.st_ino != st.st_ino)) {
				free(d->target);
				return werr(err, WASP_EINVAL,
					    "%s: the file this link names "
					    "cannot be replaced safely",
					    path);
			}
			if (!d->target)
				return sys_err(err, path, "cannot resolve",
					       errno);
			return WASP_OK;
		}
		d->target = strdup(path);
	} else if (S_ISDIR(st.st_mode)) {
		return werr(err, WASP_EINVAL, "%s: is a directory", path);
	} else {
		return werr(err, WASP_EINVAL,
			    "%s: not a regular file, character device or "
			    "FIFO; refusing to replace it",
			    path);
	}
	return d->target ? WASP_OK : werr(err, WASP_ENOMEM, "out of memory");
}

/* The directory part of path ("." when none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

static int write_fd(int fd, const char *data, size_t len)
{
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = EIO;
			return -1;
		}
		off += (size_t)w;
	}
	return 0;
}

static int write_direct(const char *path, const char *data, size_t len,
			wasp_error *err)
{
	int fd;
	do
		fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	while (fd < 0 && errno == EINTR);
	if (fd < 0)
		return sys_err(err, path, "cannot open", errno);
	if (write_fd(fd, data, len)) {
		int e = errno;
		close(fd);
		return sys_err(err, path, "cannot write", e);
	}
	if (close(fd) && errno != EINTR)
		return sys_err(err, path, "cannot write", errno);
	return WASP_OK;
}

/* A new file "DIR/.BASE.XXXXXXXX" beside target, 0666 less the umask;
 * *tmp is its name (malloc'd). */
static int open_temp(const char *target, char **tmp)
{
	const char *slash = strrchr(target, '/');
	const char *base = slash ? slash + 1 : target;
	int dirlen = slash ? (int)(slash - target) + 1 : 0;
	size_t size = strlen(target) + 24;
	char *t = malloc(size);
	if (!t) {
		errno = ENOMEM;
		return -1;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
			((uint64_t)getpid() << 16) ^ (uint64_t)(uintptr_t)&ts;
	for (int k = 0; k < WO_TMP_TRIES; k++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		snprintf(t, size, "%.*s.%s.%08x", dirlen, target, base,
			 (unsigned)(seed >> 32));
		int fd = open(t, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			      0666);
		if (fd >= 0) {
			*tmp = t;
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	int e = errno;
	free(t);
	errno = e;
	return -1;
}

static int write_atomic(const wo_dest *d, const char *path,
			const char *data, size_t len, wasp_error *err)
{
	char *tmp = NULL;
	int fd = open_temp(d->target, &tmp);
	if (fd < 0) {
		int e = errno;
		char *dir = dir_of(d->target);
		char what[PATH_MAX + 64];
		snprintf(what, sizeof what, "cannot create a temporary file in %s",
			 dir ? dir : "its directory");
		free(dir);
		return sys_err(err, path, what, e);
	}
	const char *what = NULL;
	int e = 0;
	if (d->kind == WO_REGULAR) {
		/* keep the old file's owner (where allowed) and mode */
		if ((d->st.st_uid != geteuid() || d->st.st_gid != getegid()) &&
		    fchown(fd, d->st.st_uid, d->st.st_gid))
			(void)0; /* as cp -p does for a non-owner: keep going */
		if (fchmod(fd, d->st.st_mode & 07777))
			what = "cannot set permissions", e = errno;
	}
	if (!what && write_fd(fd, data, len))
		what = "cannot write", e = errno;
	if (!what && fsync(fd))
		what = "cannot write", e = errno;
	if (close(fd) && !what)
		what = "cannot write", e = errno;
	if (!what && rename(tmp, d->target))
		what = "cannot rename the temporary file over it", e = errno;
	if (what) {
		unlink(tmp);
		free(tmp);
		return sys_err(err, path, what, e);
	}
	free(tmp);
	/* make the rename durable; a failure here loses nothing */
	char *dir = dir_of(d->target);
	int dfd = dir ? open(dir, O_RDONLY | O_CLOEXEC) : -1;
	if (dfd >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	free(dir);
	return WASP_OK;
}

int wo_write(const char *path, const char *data, size_t len,
	     wasp_error *err)
{
	wo_dest d;
	if (!path || (!data && len))
		return werr(err, WASP_EINVAL, "wo_write: NULL argument");
	int rc = classify(path, &d, err);
	if (rc)
		return rc;
	rc = d.kind == WO_DIRECT ? write_direct(d.target, data, len, err)
				 : write_atomic(&d, path, data, len, err);
	free(d.target);
	return rc;
}

int wo_check(const char *path, wasp_error *err)
{
	wo_dest d;
	if (!path)
		return werr(err, WASP_EINVAL, "wo_check: NULL path");
	int rc = classify(path, &d, err);
	if (rc)
		return rc;
	if (d.kind != WO_DIRECT) {
		char *dir = dir_of(d.target);
		if (!dir)
			rc = werr(err, WASP_ENOMEM, "out of memory");
		else if (access(dir, W_OK | X_OK))
			rc = sys_err(err, path, "cannot write in the "
				     "directory", errno);
		free(dir);
	}
	free(d.target);
	return rc;
}
