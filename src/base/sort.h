/*
 * sort.h -- a stable merge sort of int indices under a comparator with a
 * context pointer.  C11 has no qsort_r, and the solvers sort indices
 * (units, nodes, pods) by keys that live in their own state.
 */
#ifndef WASP_SORT_H
#define WASP_SORT_H

/* <0, 0, >0 as a orders before, with, after b. */
typedef int (*wis_cmp)(const void *ctx, int a, int b);

/* Sort v[0..n) stably by cmp; tmp has room for n ints. */
void wis_sort(int *v, int *tmp, int n, wis_cmp cmp, const void *ctx);

/* A comparator for indices into the double array ctx: the largest value
 * first, ties by index. */
int wis_desc(const void *ctx, int a, int b);
/* The same, smallest value first. */
int wis_asc(const void *ctx, int a, int b);

#endif
