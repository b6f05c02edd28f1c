// Package gen makes seeded, realistic snapshots of one Job and its pods, as
// the API server and the kubelets would have left them after some history of
// syncs: Jobs defaulted and validated by upstream's own API code, pods owned
// by the Job with consistent phases, conditions, container states, finish
// times and finalizers, a status that earlier syncs could have written, and
// the controller memory (expectations, backoff) of those syncs.
//
// Snapshots come in named families, each aimed at one area of the
// controller. The same family and seed always give the same snapshot.
package gen

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// Case is one generated snapshot with the options it is reconciled under.
type Case struct {
	Family   string
	Seed     uint64
	Snapshot jobsync.Snapshot
	Options  jobsync.Options
	// TTL marks a case for the TTL-after-finished controller: compared is
	// its decision on Snapshot.Job at Snapshot.Now, not a sync. TTLFresh,
	// when set, is the Job as a fresh read from the API server returns it
	// (the controller decides again on it before deleting).
	TTL      bool
	TTLFresh *batchv1.Job
	// UpstreamGates are gates upstream runs with beyond those Options
	// stand for: a gate the library does not model on this release, for a
	// deviation's test (DEVIATIONS.md). No family sets them.
	UpstreamGates map[string]bool
	// Scheduling holds the release's WorkloadWithJob input, where the
	// library models it (scheduling_*.go): on v1.36 the gate and the
	// snapshot's Workloads and PodGroups, decided by alpha/workload136.
	Scheduling
}

// Gates are the feature gates upstream must run with so that it agrees with
// c.Options (only those that differ from their v1.36 defaults).
func (c Case) Gates() map[string]bool {
	var gates map[string]bool
	set := func(name string, on bool) {
		if gates == nil {
			gates = map[string]bool{}
		}
		gates[name] = on
	}
	if c.Options.KeepStartTimeOnSuspend {
		set("MutableSchedulingDirectivesForSuspendedJobs", false)
	}
	c.workloadGates(set) // scheduling_*.go
	for name, on := range c.UpstreamGates {
		set(name, on)
	}
	return gates
}

// Families lists the snapshot families, in the order reports show them.
var Families = []string{
	"basic", "work-queue", "suspend", "deadline", "backoff", "finalizers",
	"indexed", "elastic", "per-index-backoff", "success-policy",
	"pod-failure-policy", "replacement-policy", "managed-by", "deleted-job", "mixed",
	"owner-references", "ttl-after-finished",
	// workload-with-job is added where the release's WorkloadWithJob is
	// modelled (scheduling_*.go).
}

// baseFamilies are the families that build a Job from scratch, each about
// one area; mixed and owner-references start from one of them.
var baseFamilies = Families[:14]

var families map[string]func(*G)

func init() {
	families = map[string]func(*G){
		"basic":              familyBasic,
		"work-queue":         familyWorkQueue,
		"suspend":            familySuspend,
		"deadline":           familyDeadline,
		"backoff":            familyBackoff,
		"finalizers":         familyFinalizers,
		"indexed":            familyIndexed,
		"elastic":            familyElastic,
		"per-index-backoff":  familyPerIndexBackoff,
		"success-policy":     familySuccessPolicy,
		"pod-failure-policy": familyPodFailurePolicy,
		"replacement-policy": familyReplacementPolicy,
		"managed-by":         familyManagedBy,
		"deleted-job":        familyDeletedJob,
		"mixed":              familyMixed,
		"owner-references":   familyOwnerReferences,
		"ttl-after-finished": familyTTLAfterFinished,
	}
}

// Generate makes the snapshot of family for seed.
func Generate(family string, seed uint64) (Case, error) {
	f, ok := families[family]
	if !ok {
		return Case{}, fmt.Errorf("unknown family %q (known: %v)", family, Families)
	}
	h := fnv.New64a()
	h.Write([]byte(family))
	g := &G{
		r:    rand.New(rand.NewPCG(seed, h.Sum64())),
		bo:   nil,
		want: map[*corev1.Pod]*podPlan{},
	}
	// A clock on whole seconds, as times read back from the API server are.
	g.now = baseTime.Add(time.Duration(g.r.IntN(30*24*3600)) * time.Second)
	f(g)
	c := Case{
		Family: family,
		Seed:   seed,
		Snapshot: jobsync.Snapshot{
			Job:          g.job,
			Pods:         g.pods,
			Now:          g.now,
			Expectations: g.exp,
			Backoff:      g.backoffRecord(),
		},
		Options:  g.opts,
		TTL:      g.ttlCase,
		TTLFresh: g.ttlFresh,
	}
	g.fillScheduling(&c) // scheduling_*.go
	return c, nil
}

var baseTime = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

// G is the state of one generation.
type G struct {
	r    *rand.Rand
	now  time.Time
	job  *batchv1.Job
	pods []*corev1.Pod
	plan []*podPlan
	want map[*corev1.Pod]*podPlan
	exp  expectations.Expectations
	bo   *backoff.Record
	opts jobsync.Options

	// ownerVariety gives pods assorted extra owner references (see
	// varyOwnerReferences).
	ownerVariety bool
	// ttlCase and ttlFresh: see Case.TTL and Case.TTLFresh.
	ttlCase  bool
	ttlFresh *batchv1.Job
	// schedulingObjects: the scheduling objects of the snapshot, in the
	// release's API (scheduling_*.go).
	schedulingObjects

	h       *history
	pending []*podPlan
	names   map[string]bool
}

// --- randomness helpers ---

func (g *G) chance(p float64) bool { return g.r.Float64() < p }

// between returns an int in [lo, hi].
func (g *G) between(lo, hi int) int {
	if hi <= lo {
		return lo
	}
	return lo + g.r.IntN(hi-lo+1)
}

func pick[T any](g *G, xs ...T) T { return xs[g.r.IntN(len(xs))] }

// secs returns a duration of a whole number of seconds in [lo, hi].
func (g *G) secs(lo, hi int) time.Duration { return time.Duration(g.between(lo, hi)) * time.Second }

func (g *G) uid() string {
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff, 0x4000|g.r.Uint32()&0x0fff, 0x8000|g.r.Uint32()&0x3fff, g.r.Uint64()&0xffffffffffff)
}

const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func (g *G) suffix(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = nameAlphabet[g.r.IntN(len(nameAlphabet))]
	}
	return string(b)
}
