/*
 * load.c -- reading input files and choosing the syntax (see load.h).
 *
 * Also the small pieces both loaders share: the key set used to find
 * duplicate keys (and to apply YAML merge keys) and key quoting for
 * messages.
 */
#define _POSIX_C_SOURCE 200809L /* fileno */
#include "load.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Maps up to this many pairs are checked pairwise; bigger ones hash. */
#define DUP_LINEAR_MAX 16

/* ------------------------------------------------------------ key sets */

static size_t key_hash(const wt_node *k)
{
	/* FNV-1a: cheap, and keys are short. */
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < k->len; i++) {
		h ^= (unsigned char)k->str[i];
		h *= 1099511628211ULL;
	}
	return (size_t)(h ^ (h >> 29));
}

int wl_keyset_init(wl_keyset *s, size_t expect)
{
	size_t cap = 16;
	while (cap < expect * 2) {
		if (cap > SIZE_MAX / 4 / sizeof *s->slot)
			return -1;
		cap *= 2;
	}
	s->slot = calloc(cap, sizeof *s->slot);
	s->mask = cap - 1;
	return s->slot ? 0 : -1;
}

const wt_node *wl_keyset_add(wl_keyset *s, const wt_node *k)
{
	size_t i = key_hash(k) & s->mask;
	while (s->slot[i]) {
		if (wl_key_eq(s->slot[i], k))
			return s->slot[i];
		i = (i + 1) & s->mask;
	}
	s->slot[i] = k;
	return NULL;
}

void wl_keyset_free(wl_keyset *s)
{
	free(s->slot);
	s->slot = NULL;
}

int wl_find_dup(wt_node *const *items, size_t npairs, size_t *first,
		size_t *second)
{
	if (npairs <= DUP_LINEAR_MAX) {
		for (size_t j = 1; j < npairs; j++)
			for (size_t i = 0; i < j; i++)
				if (wl_key_eq(items[2 * i], items[2 * j])) {
					*first = i;
					*second = j;
					return 1;
				}
		return 0;
	}
	wl_keyset ks;
	if (wl_keyset_init(&ks, npairs))
		return -1;
	int found = 0;
	for (size_t j = 0; j < npairs && !found; j++) {
		const wt_node *prev = wl_keyset_add(&ks, items[2 * j]);
		if (prev) {
			/* find the pair index of the first occurrence */
			for (size_t i = 0; i < j; i++)
				if (items[2 * i] == prev) {
					*first = i;
					break;
				}
			*second = j;
			found = 1;
		}
	}
	wl_keyset_free(&ks);
	return found;
}

const char *wl_quote(char *buf, size_t size, const char *s, size_t n)
{
	size_t o = 0;
	if (!size)
		return buf;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		/* stop at ~60 bytes, on a UTF-8 character boundary */
		if (o >= 60 && (c & 0xC0) != 0x80) {
			if (o + 4 < size)
				o += (size_t)snprintf(buf + o, size - o, "...");
			break;
		}
		if (c < 0x20 || c == 0x7F || c == '"' || c == '\\') {
			if (o + 5 >= size)
				break;
			if (c == '"' || c == '\\')
				o += (size_t)snprintf(buf + o, size - o, "\\%c",
						      c);
			else
				o += (size_t)snprintf(buf + o, size - o,
						      "\\x%02X", c);
		} else {
			if (o + 1 >= size)
				break;
			buf[o++] = (char)c;
		}
	}
	buf[o < size ? o : size - 1] = 0;
	return buf;
}

/* --------------------------------------------------------------- files */

static int io_error(wasp_error *err, const char *what, const char *path,
		    int e)
{
	return werr(err, WASP_EIO, "cannot %s %s: %s", what, path,
		    strerror(e));
}

static int too_big(wasp_error *err, const char *path)
{
	return werr(err, WASP_ELIMIT,
		    "%s is larger than %ld bytes (WASP_MAX_INPUT_BYTES)", path,
		    (long)WASP_MAX_INPUT_BYTES);
}

int wl_read_file(const char *path, char **text, size_t *len,
		 wasp_error *err)
{
	*text = NULL;
	*len = 0;
	if (!path)
		return werr(err, WASP_EINVAL, "no file name");
	int is_stdin = strcmp(path, "-") == 0;
	const char *shown = is_stdin ? "standard input" : path;
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	if (!f)
		return io_error(err, "open", shown, errno);

	/* Size the buffer from fstat for regular files; pipes grow. */
	size_t cap = 64 * 1024;
	struct stat st;
	if (fstat(fileno(f), &st) == 0) {
		int bad = 0;
		if (S_ISDIR(st.st_mode))
			bad = io_error(err, "read", shown, EISDIR);
		else if (S_ISREG(st.st_mode) &&
			 st.st_size > WASP_MAX_INPUT_BYTES)
			bad = too_big(err, shown);
		if (bad) {
			if (!is_stdin)
				fclose(f);
			return bad;
		}
		/* +2: the read that sees end of file needs room too */
		if (S_ISREG(st.st_mode))
			cap = (size_t)st.st_size + 2;
	}
	char *buf = malloc(cap);
	size_t n = 0;
	int rc = WASP_OK;
	if (!buf) {
		rc = werr(err, WASP_ENOMEM, "out of memory reading %s", shown);
		goto out;
	}
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > (size_t)WASP_MAX_INPUT_BYTES + 1) {
				rc = too_big(err, shown);
				goto out;
			}
			size_t nc = cap * 2;
			char *nb = realloc(buf, nc);
			if (!nb) {
				rc = werr(err, WASP_ENOMEM,
					  "out of memory reading %s", shown);
				goto out;
			}
			buf = nb;
			cap = nc;
		}
		size_t got = fread(buf + n, 1, cap - 1 - n, f);
		n += got;
		if (n > (size_t)WASP_MAX_INPUT_BYTES) {
			rc = too_big(err, shown);
			goto out;
		}
		if (got == 0) {
			if (ferror(f))
				rc = io_error(err, "read", shown, errno);
			break;
		}
	}
out:
	if (!is_stdin)
		fclose(f);
	else
		clearerr(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = 0;
	*text = buf;
	*len = n;
	return WASP_OK;
}

/* ------------------------------------------------------------- loading */

int wl_push(wt_node ***stk, size_t *n, size_t *cap, wt_node *v)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		wt_node **ns = realloc(*stk, nc * sizeof *ns);
		if (!ns)
			return -1;
		*stk = ns;
		*cap = nc;
	}
	(*stk)[(*n)++] = v;
	return 0;
}

int wl_begin(wa_arena *a, size_t len, const char **name, wt_doc *out,
	     wasp_error *err)
{
	memset(out, 0, sizeof *out);
	if (!*name)
		*name = "<input>";
	out->file = wa_strdup(a, *name);
	if (!out->file)
		return werr(err, WASP_ENOMEM, "out of memory loading %s",
			    *name);
	if (len > (size_t)WASP_MAX_INPUT_BYTES)
		return too_big(err, *name);
	return 0;
}

int wl_load_text(wa_arena *a, const char *text, size_t len, const char *name,
		 wt_doc *out, wasp_error *err)
{
	if (!name)
		name = "<input>";
	if (len > (size_t)WASP_MAX_INPUT_BYTES)
		return too_big(err, name);
	/* Sniff: the first byte after a BOM and white space. */
	size_t i = wl_bom(text, len);
	while (i < len && (text[i] == ' ' || text[i] == '\t' ||
			   text[i] == '\r' || text[i] == '\n'))
		i++;
	if (i < len && (text[i] == '{' || text[i] == '['))
		return wl_load_json(a, text, len, name, out, err);
	return wl_load_yaml(a, text, len, name, out, err);
}

int wl_load_file(wa_arena *a, const char *path, wt_doc *out, wasp_error *err)
{
	char *text;
	size_t len;
	int rc = wl_read_file(path, &text, &len, err);
	if (rc)
		return rc;
	const char *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
	rc = wl_load_text(a, text, len, name, out, err);
	free(text);
	return rc;
}
