package client

import "encoding/json"

// Plan is a plan the server returned: the document (doc/output.md),
// decoded, and its raw JSON for Assume and Check.
type Plan struct {
	SnapshotVersion int64 // the version it was computed on
	Raw             json.RawMessage
	Doc             PlanDoc
}

// PlanDoc is the part of the plan document (apiVersion
// wasp.dev/v1alpha1) a scheduler reads; Raw holds all of it.
type PlanDoc struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Summary    Summary     `json:"summary"`
	Placements []Placement `json:"placements"`
	Evictions  []Eviction  `json:"evictions"`
	Moves      []Move      `json:"moves"`
	Admitted   []Admitted  `json:"admitted"`
	Waiting    []Waiting   `json:"waiting"`
	Claims     []Claim     `json:"claims"`
	Warnings   []string    `json:"warnings"`
}

// Summary is the plan's summary (a subset).
type Summary struct {
	Mode       string `json:"mode"`
	ModeReason string `json:"modeReason"`
	Status     string `json:"status"`
	Counts     struct {
		AdmittedGroups int `json:"admittedGroups"`
		WaitingGroups  int `json:"waitingGroups"`
		PlacedPods     int `json:"placedPods"`
		EvictedPods    int `json:"evictedPods"`
		MovedPods      int `json:"movedPods"`
	} `json:"counts"`
}

// Placement is a pending pod placed on a node.
type Placement struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	Node      string `json:"node"`
	Group     string `json:"group"`
}

// Eviction is a running pod the plan evicts.
type Eviction struct {
	Namespace    string `json:"namespace"`
	Pod          string `json:"pod"`
	Node         string `json:"node"`
	Unit         string `json:"unit"`
	Priority     int32  `json:"priority"`
	Reason       string `json:"reason"`
	PDBViolation bool   `json:"pdbViolation"`
	PreemptedBy  struct {
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
		Priority  int32  `json:"priority"`
	} `json:"preemptedBy"`
}

// Move is a running pod the plan moves.
type Move struct {
	Namespace string `json:"namespace"`
	Pod       string `json:"pod"`
	From      string `json:"from"`
	To        string `json:"to"`
	Group     string `json:"group"`
}

// Admitted is a group the plan admits.
type Admitted struct {
	Namespace   string `json:"namespace"`
	Name        string `json:"name"`
	Pods        int    `json:"pods"`
	Pending     int    `json:"pending"`
	Running     int    `json:"running"`
	Priority    int32  `json:"priority"`
	TopologyKey string `json:"topologyKey"`
	Domain      string `json:"domain"`
}

// Waiting is a group (or lone pod) the plan keeps waiting, and why.
type Waiting struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Pods      int    `json:"pods"`
	Priority  int32  `json:"priority"`
	Reason    string `json:"reason"`
}

// Claim is a device claim the plan allocates.
type Claim struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Pod       string `json:"pod"`
	PodGroup  string `json:"podGroup"`
	Node      string `json:"node"`
	Results   []struct {
		Request string `json:"request"`
		Driver  string `json:"driver"`
		Pool    string `json:"pool"`
		Device  string `json:"device"`
	} `json:"results"`
}

// NodeOf returns the node the plan puts a pod on, or "".
func (p *Plan) NodeOf(namespace, pod string) string {
	for _, x := range p.Doc.Placements {
		if x.Namespace == namespace && x.Pod == pod {
			return x.Node
		}
	}
	return ""
}
