/*
 * sort.c -- stable merge sort of int indices (sort.h).
 */
#include "base/sort.h"

#include <string.h>

void wis_sort(int *v, int *tmp, int n, wis_cmp cmp, const void *ctx)
{
	if (n < 2)
		return;
	int h = n / 2;
	wis_sort(v, tmp, h, cmp, ctx);
	wis_sort(v + h, tmp, n - h, cmp, ctx);
	int i = 0, j = h, k = 0;
	while (i < h && j < n)
		tmp[k++] = cmp(ctx, v[i], v[j]) <= 0 ? v[i++] : v[j++];
	while (i < h)
		tmp[k++] = v[i++];
	while (j < n)
		tmp[k++] = v[j++];
	memcpy(v, tmp, (size_t)n * sizeof *v);
}

int wis_desc(const void *ctx, int a, int b)
{
	const double *v = ctx;
	if (v[a] != v[b])
		return v[a] > v[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

int wis_asc(const void *ctx, int a, int b)
{
	const double *v = ctx;
	if (v[a] != v[b])
		return v[a] < v[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}
