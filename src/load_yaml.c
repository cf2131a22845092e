/* load_yaml.c -- stub: being written. */
#include "wasp.h"
