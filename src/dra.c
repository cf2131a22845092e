/*
 * dra.c -- Dynamic Resource Allocation device model (see dra.h).
 */
#include "dra.h"
