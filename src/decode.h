/*
 * decode.h -- from document trees to a snapshot.
 *
 * Understands v1 Node, v1 Pod, scheduling.k8s.io/v1 PriorityClass,
 * scheduling.k8s.io/v1beta1 PodGroup and Workload, kueue.x-k8s.io/v1beta2
 * (and v1alpha1) Topology, and unwraps `kind: List`.  Older
 * scheduling.k8s.io/v1alpha1|v1alpha2 objects are refused with a message
 * naming the v1beta1 fields.  Other kinds are counted and skipped with one
 * warning per kind.  Every error is WASP_EINPUT with the position of the
 * offending value.
 */
#ifndef WASP_DECODE_H
#define WASP_DECODE_H

#include "snapshot.h"
#include "tree.h"

/* Decode the documents into a new snapshot.  The trees may be freed
 * afterwards (the snapshot copies what it keeps into its own arena). */
int wd_decode(const wt_doc *docs, size_t ndocs, ws_snapshot **out,
	      wasp_error *err);

#endif
