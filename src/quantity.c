/* quantity.c -- stub: being written. */
#include "wasp.h"
