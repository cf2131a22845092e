/* load_json.c -- stub: being written. */
#include "wasp.h"
