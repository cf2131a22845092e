/*
 * png_stats.c -- for tests/html_browser.sh: read a PNG screenshot (8-bit
 * RGB or RGBA, not interlaced, as Chromium writes them) with zlib and
 * print "WIDTH HEIGHT COLOURS NONWHITE_PERMILLE": its size, the number of
 * distinct RGB colours and the share of pixels that are not white, then
 * for each RRGGBB argument the number of pixels of exactly that colour.
 * A blank or failed render shows as one or two colours and almost
 * nothing but white.  Exit status 2 on a file it cannot read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PNG_MAX_SIDE 32768

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int fail(const char *path, const char *why)
{
	fprintf(stderr, "png_stats: %s: %s\n", path, why);
	return 2;
}

static int paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: png_stats FILE.png [RRGGBB...]\n");
		return 2;
	}
	const char *path = argv[1];
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(path, "cannot open");
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *buf = size > 8 ? malloc((size_t)size) : NULL;
	if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		return fail(path, "cannot read");
	}
	fclose(f);
	if (memcmp(buf, "\x89PNG\r\n\x1a\n", 8))
		return fail(path, "not a PNG");
	uint32_t w = 0, h = 0;
	int bpp = 0;
	unsigned char *idat = malloc((size_t)size);
	if (!idat)
		return fail(path, "out of memory");
	size_t nidat = 0;
	for (long at = 8; at + 12 <= size;) {
		uint32_t len = be32(buf + at);
		const unsigned char *type = buf + at + 4, *data = buf + at + 8;
		if (len > (uint32_t)(size - at - 12))
			return fail(path, "truncated chunk");
		if (!memcmp(type, "IHDR", 4)) {
			w = be32(data);
			h = be32(data + 4);
			if (data[8] != 8 || (data[9] != 2 && data[9] != 6) ||
			    data[12] != 0)
				return fail(path, "not 8-bit RGB(A) "
						  "non-interlaced");
			bpp = data[9] == 6 ? 4 : 3;
		} else if (!memcmp(type, "IDAT", 4)) {
			memcpy(idat + nidat, data, len);
			nidat += len;
		} else if (!memcmp(type, "IEND", 4)) {
			break;
		}
		at += 12 + (long)len;
	}
	if (!bpp || !w || !h || w > PNG_MAX_SIDE || h > PNG_MAX_SIDE)
		return fail(path, "no usable IHDR");
	size_t stride = (size_t)w * bpp;
	uLongf rawlen = (uLongf)((stride + 1) * h);
	unsigned char *raw = malloc(rawlen);
	if (!raw || uncompress(raw, &rawlen, idat, nidat) != Z_OK ||
	    rawlen != (stride + 1) * h)
		return fail(path, "bad image data");
	/* undo the row filters in place */
	for (uint32_t y = 0; y < h; y++) {
		unsigned char *row = raw + y * (stride + 1), *px = row + 1;
		const unsigned char *up = y ? px - (stride + 1) : NULL;
		for (size_t i = 0; i < stride; i++) {
			int a = i >= (size_t)bpp ? px[i - bpp] : 0;
			int b = up ? up[i] : 0;
			int c = up && i >= (size_t)bpp ? up[i - bpp] : 0;
			switch (row[0]) {
			case 0: break;
			case 1: px[i] = (unsigned char)(px[i] + a); break;
			case 2: px[i] = (unsigned char)(px[i] + b); break;
			case 3: px[i] = (unsigned char)(px[i] + (a + b) / 2); break;
			case 4: px[i] = (unsigned char)(px[i] + paeth(a, b, c)); break;
			default: return fail(path, "bad row filter");
			}
		}
	}
	unsigned char *seen = calloc(1 << 21, 1); /* a bit per RGB colour */
	if (!seen)
		return fail(path, "out of memory");
	size_t colours = 0, nonwhite = 0;
	for (uint32_t y = 0; y < h; y++) {
		const unsigned char *px = raw + y * (stride + 1) + 1;
		for (uint32_t x = 0; x < w; x++, px += bpp) {
			uint32_t rgb = (uint32_t)px[0] << 16 | px[1] << 8 | px[2];
			if (!(seen[rgb >> 3] & (1 << (rgb & 7)))) {
				seen[rgb >> 3] |= (unsigned char)(1 << (rgb & 7));
				colours++;
			}
			nonwhite += rgb != 0xffffff;
		}
	}
	printf("%u %u %zu %llu", w, h, colours,
	       (unsigned long long)(nonwhite * 1000 / ((size_t)w * h)));
	for (int a = 2; a < argc; a++) {
		uint32_t want = (uint32_t)strtoul(argv[a], NULL, 16);
		size_t k = 0;
		for (uint32_t y = 0; y < h; y++) {
			const unsigned char *px = raw + y * (stride + 1) + 1;
			for (uint32_t x = 0; x < w; x++, px += bpp)
				k += ((uint32_t)px[0] << 16 | px[1] << 8 |
				      px[2]) == want;
		}
		printf(" %zu", k);
	}
	printf("\n");
	free(seen);
	free(raw);
	free(idat);
	free(buf);
	return 0;
}
