/*
 * decode.h -- from document trees to a snapshot.
 *
 * Understands v1 Node, v1 Pod, scheduling.k8s.io/v1 PriorityClass,
 * scheduling.k8s.io/v1beta1 PodGroup and Workload, kueue.x-k8s.io/v1beta2
 * (and v1alpha1) Topology, resource.k8s.io v1/v1beta2/v1beta1/v1alpha3
 * ResourceSlice, DeviceClass, ResourceClaim and ResourceClaimTemplate
 * (handed to wdr_decode, model/dra.h, with the pods' and groups'
 * resourceClaims), and unwraps `kind: List`.  Older
 * scheduling.k8s.io/v1alpha1|v1alpha2 objects are refused with a message
 * naming the v1beta1 fields.  Other kinds are counted and skipped with one
 * warning per kind.  Every error is WASP_EINPUT with the position of the
 * offending value.
 *
 * Details the other modules rely on (see decode_int.h for the
 * decoder's files):
 *   - a pod naming a missing PodGroup gets a placeholder group (basic,
 *     appended after the real groups) whose `invalid` says "PodGroup ns/x
 *     does not exist", plus a warning; its pods wait with that reason;
 *   - a group whose pods resolve to another priority or preemptionPolicy
 *     than the group's is marked invalid (as the beta scheduler fails it);
 *   - terminal pods (Succeeded/Failed) keep node == -1 and group == -1, are
 *     in no group's pod list and add nothing to any node's `used`;
 *   - a node without status.allocatable uses status.capacity; a node that
 *     lists no "pods" can take none (and a warning says so);
 *   - pod requests follow PodRequests(): limits stand in for missing
 *     requests, init containers by the max rule with KEP-753 sidecars,
 *     pod-level spec.resources for cpu/memory/hugepages, plus overhead;
 *   - the snapshot, including the struct, lives in its own arena.
 */
#ifndef WASP_DECODE_H
#define WASP_DECODE_H

#include "model/snapshot.h"
#include "io/tree.h"

/* Decode the documents into a new snapshot.  The trees may be freed
 * afterwards (the snapshot copies what it keeps into its own arena). */
int wd_decode(const wt_doc *docs, size_t ndocs, ws_snapshot **out,
	      wasp_error *err);
/* The same within the load's limits (NULL: none; io/tree.h): decoding
 * stops at their deadline or cancel with wl_stop's error (WASP_ELIMIT or
 * WASP_ECANCELED, at the object it had reached), and no snapshot. */
int wd_decode_lim(const wt_doc *docs, size_t ndocs, const wl_limits *lim,
		  ws_snapshot **out, wasp_error *err);

#endif
