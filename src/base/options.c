/*
 * options.c -- the defaults of wasp_options (options.h).
 */
#include "base/options.h"

#include <string.h>

void wopt_init(wasp_options *o)
{
	memset(o, 0, sizeof *o);
	o->time_limit_s = WASP_DEFAULT_TIME_LIMIT_S;
	o->gap = 0;
	o->threads = 0;
	o->mode = WASP_MODE_AUTO;
	o->domain_mode = WASP_DOMAIN_VALUE;
	o->value_resource = NULL;
	o->cancel = NULL;
	o->start_time = 0;
}
