/*
 * options.h -- the defaults of wasp_options, for the public front and for
 * the stages that make options of their own (a solver's sub-runs).
 */
#ifndef WASP_OPTIONS_H
#define WASP_OPTIONS_H

#include "wasp.h"

/* Every field at its documented default (wasp.h). */
void wopt_init(wasp_options *o);
/* WASP_OK, or WASP_EINVAL naming the first field out of its range
 * (wasp_options_check). */
int wopt_check(const wasp_options *o, wasp_error *err);

#endif
