package oracle

import (
	"reflect"
	"slices"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// The pod-order rule: a snapshot gives the same plan whatever the order of
// its pods.

// BeforePlan checks a plan against the snapshot it came from (the same
// plan for the pods in another order, the reasons for interim conditions)
// and works out the backoff record the sync works with.
func (k *Checker) BeforePlan(snap jobsync.Snapshot, plan jobsync.Plan) {
	k.seen = make(map[types.UID]bool, len(snap.Pods))
	for _, p := range snap.Pods {
		k.seen[p.UID] = true
		k.noteDeleteCall(p)
	}
	k.checkPodOrder(snap, plan)
	k.updateCandidate(snap, plan)
	k.checkInterimConditions(snap, plan)
}

// checkPodOrder reconciles the snapshot again with its pods shuffled.
func (k *Checker) checkPodOrder(snap jobsync.Snapshot, plan jobsync.Plan) {
	shuffled := snap
	shuffled.Pods = slices.Clone(snap.Pods)
	k.rng.Shuffle(len(shuffled.Pods), func(i, j int) { shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i] })
	other, err := jobsync.Reconcile(shuffled, k.opts)
	if err != nil {
		k.violate("pod-order", "the shuffled snapshot gives an error: %v", err)
	} else if !reflect.DeepEqual(plan, other) {
		k.violate("pod-order", "the shuffled snapshot gives another plan (-sorted +shuffled):\n%s", cmp.Diff(plan, other))
	}
}
