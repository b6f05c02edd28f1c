// Package oracle holds the invariant checks of jobsynctest's Config.Check,
// one file a rule. They are written from upstream's semantics, not from
// jobsync's code: a rule here that agrees with Reconcile by construction
// would check nothing. That is also why they sit behind a package boundary
// of their own: what looks like a duplicate of the library's logic here is
// the second opinion the checks exist to give, and must not be shared with
// the code it judges.
//
// The simulated cluster calls the checker at each event that a rule looks
// at (a plan made, a pod created, a finalizer removed, a status written or
// refused, the Job changed, the controller crashed, the run ended) and
// reads the violations found since the last time.
package oracle

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/jobsync"
)

// World is what the checks read of the simulated cluster, as the API
// server holds it at the moment of the call.
type World interface {
	// Now is the simulated time.
	Now() time.Time
	// Job is the Job as stored (nil once it is gone).
	Job() *batchv1.Job
	// Pods are the stored pods, in no order.
	Pods() iter.Seq[Pod]
	// SortedPods are the stored pods by name.
	SortedPods() []Pod
	// Controlled reports whether p's controller is the Job.
	Controlled(p *corev1.Pod) bool
	// Tolerate records what the checks let pass as upstream's own
	// behaviour, in Result.Tolerated.
	Tolerate(note string)
}

// Pod is a stored pod with its completion index (-1 when none).
type Pod struct {
	Obj   *corev1.Pod
	Index int
}

// Violation is a broken rule, found at Time.
type Violation struct {
	Rule   string
	Time   time.Time
	Detail string
}

// Checker holds what the checks need to remember between steps. It has its
// own random source, so that checking does not change the run.
type Checker struct {
	w       World
	opts    jobsync.Options
	fin     string
	rng     *rand.Rand
	pending []Violation

	base, max time.Duration // pod-failure backoff bounds

	// verdicts holds, per pod, how it must be counted, fixed when its
	// tracking finalizer went.
	verdicts map[types.UID]string
	// succeededAt holds, per completion index, the latest time a pod of it
	// was released as succeeded; scaledDown the completions and times of
	// changes that lowered completions.
	succeededAt map[int]time.Time
	scaledDown  []scaleEvent
	initial     batchv1.JobStatus
	// failedThenSucceeded holds the indexes of pods recorded as failed
	// (the Job was failing while they ran) that had succeeded by the time
	// their finalizer went.
	failedThenSucceeded map[int]bool
	// surplus holds the pods whose finalizer went with a surplus deletion
	// (suspend, scale-down), while they are not counted.
	surplus map[types.UID]Pod

	// seen holds the UIDs of the pods in the view of the current sync.
	seen map[types.UID]bool
	// deleteCalls holds, per pod, the earliest moment of a delete call any
	// view showed (deletion timestamp less the grace period): the kubelet's
	// final delete moves the stored timestamp to the pod's stop, so the
	// stored pod no longer tells when the first call came.
	deleteCalls map[types.UID]time.Time
	// unseen holds pods still running, unseen by the controller, when it
	// wrote a terminal condition (the stale-view exception).
	unseen []types.UID

	// backoff is the pod-failure backoff record the controller should hold,
	// candidate the one the current sync works with.
	backoff, candidate backoff.Record
}

// New returns a checker of the world w, whose controller runs with opts
// (defaulted) and tracks pods with finalizer fin. seed seeds the checker's
// own random source.
func New(w World, opts jobsync.Options, fin string, seed int64) *Checker {
	k := &Checker{
		w:                   w,
		opts:                opts,
		fin:                 fin,
		rng:                 rand.New(rand.NewPCG(uint64(seed), 0x636865636b)),
		base:                opts.BackoffBase,
		max:                 opts.BackoffMax,
		verdicts:            map[types.UID]string{},
		succeededAt:         map[int]time.Time{},
		failedThenSucceeded: map[int]bool{},
		surplus:             map[types.UID]Pod{},
		initial:             *w.Job().Status.DeepCopy(),
	}
	if k.base <= 0 {
		k.base = 10 * time.Second
	}
	if k.max <= 0 {
		k.max = 10 * time.Minute
	}
	return k
}

// Violate reports a broken rule found by the world itself.
func (k *Checker) Violate(rule, format string, args ...any) { k.violate(rule, format, args...) }

func (k *Checker) violate(rule, format string, args ...any) {
	k.pending = append(k.pending, Violation{Rule: rule, Time: k.w.Now(), Detail: fmt.Sprintf(format, args...)})
}

// Take returns the violations found since the last call.
func (k *Checker) Take() []Violation {
	v := k.pending
	k.pending = nil
	return v
}
