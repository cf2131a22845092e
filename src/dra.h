/*
 * dra.h -- Dynamic Resource Allocation: the device model (placeholder).
 */
#ifndef WASP_DRA_H
#define WASP_DRA_H

#include "cel.h"

#endif
