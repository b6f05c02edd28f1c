// Package harness compares upstream's Job controller with jobsync.Reconcile
// on generated snapshots: it runs both, maps each side's decisions onto one
// normalised Outcome, diffs the two, and checks every status a plan writes
// against the API server's status validation.
package harness

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/backoff"
	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/upstream"
	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// Outcome is everything observable about one sync, in one shape for both
// sides. Lists whose order upstream does not determine are sorted.
type Outcome struct {
	// Error is set when the side returned an error (or panicked). Only its
	// presence is compared: the texts of the two sides differ by design.
	Error string `json:"error,omitempty"`

	// Adoptions and Releases are the claim patches, sorted by pod, with
	// their bodies compared byte for byte.
	Adoptions []Claim `json:"adoptions,omitempty"`
	Releases  []Claim `json:"releases,omitempty"`
	// SchedulingOutcome holds the scheduling objects created
	// (WorkloadWithJob), in the release's API version (scheduling_*.go).
	SchedulingOutcome
	// Deletions are sorted by pod (see tieKey for pods upstream may swap).
	Deletions []Deletion `json:"deletions,omitempty"`
	// Creations are the pods to create, sorted by completion index, then
	// generateName (upstream creates them in parallel goroutines).
	Creations         []*corev1.Pod      `json:"creations,omitempty"`
	InterimStatus     *batchv1.JobStatus `json:"interimStatus,omitempty"`
	FinalizerRemovals []string           `json:"finalizerRemovals,omitempty"`
	Status            *batchv1.JobStatus `json:"status,omitempty"`
	RequeueAfter      time.Duration      `json:"requeueAfter,omitempty"`
	Events            []jobsync.Event    `json:"events,omitempty"`

	Expectations expectations.Expectations `json:"expectations"`
	Backoff      backoff.Record            `json:"backoff"`

	// TTL is the TTL-after-finished controller's decision, for the cases of
	// that family (the fields above are then empty).
	TTL *TTLOutcome `json:"ttl,omitempty"`
}

// Claim is one adoption or release: the pod and the patch body.
type Claim struct {
	Pod   string `json:"pod"`
	Patch string `json:"patch"`
}

// Deletion is one pod deleted.
type Deletion struct {
	Pod string `json:"pod"`
	// RemoveFinalizer: a finalizer-removal patch goes before the delete.
	RemoveFinalizer bool `json:"removeFinalizer,omitempty"`
}

// fromUpstream maps a recorded upstream sync onto an Outcome.
func fromUpstream(res upstream.Result, s jobsync.Snapshot) Outcome {
	var o Outcome
	if res.Err != nil {
		o.Error = res.Err.Error()
	}
	for _, c := range res.Adoptions {
		o.Adoptions = append(o.Adoptions, Claim{Pod: c.Pod, Patch: c.Patch})
	}
	for _, c := range res.Releases {
		o.Releases = append(o.Releases, Claim{Pod: c.Pod, Patch: c.Patch})
	}
	o.Adoptions, o.Releases = sortedClaims(o.Adoptions), sortedClaims(o.Releases)
	o.Error += o.SchedulingOutcome.fromUpstream(res.SchedulingCreates)
	for _, d := range res.Deletes {
		o.Deletions = append(o.Deletions, Deletion{Pod: d.Pod, RemoveFinalizer: d.FinalizerPatchedFirst})
	}
	o.Creations = res.Creates
	for _, w := range res.Writes {
		st := w.Status.DeepCopy()
		switch {
		case w.Unexpected:
			o.Error += fmt.Sprintf("; status written from unexpected site %s", w.Site)
		case w.Final && o.Status == nil:
			o.Status = st
		case !w.Final && o.InterimStatus == nil && o.Status == nil:
			o.InterimStatus = st
		default:
			o.Error += fmt.Sprintf("; extra status write from %s", w.Site)
		}
	}
	if len(res.OtherPatches) > 0 {
		o.Error += fmt.Sprintf("; unclassified patches %v", res.OtherPatches)
	}
	o.FinalizerRemovals = sorted(res.FinalizerRemovals)
	for i, d := range res.Requeues {
		if i == 0 || d < o.RequeueAfter {
			o.RequeueAfter = d
		}
	}
	for _, e := range res.Events {
		o.Events = append(o.Events, jobsync.Event{Type: e.Type, Reason: e.Reason, Message: e.Message})
	}
	o.Expectations = res.Expectations
	o.Backoff = res.Backoff
	return o
}

// fromPlan maps a plan onto an Outcome.
func fromPlan(p gen.Plan, err error, s jobsync.Snapshot) Outcome {
	var o Outcome
	if err != nil {
		o.Error = err.Error()
		return o
	}
	for _, c := range p.Adoptions {
		o.Adoptions = append(o.Adoptions, Claim{Pod: c.Pod.Name, Patch: string(c.Patch)})
	}
	for _, c := range p.Releases {
		o.Releases = append(o.Releases, Claim{Pod: c.Pod.Name, Patch: string(c.Patch)})
	}
	o.Adoptions, o.Releases = sortedClaims(o.Adoptions), sortedClaims(o.Releases)
	o.SchedulingOutcome = schedulingFromPlan(p)
	byName := podsByName(s)
	adopted := map[string]bool{}
	for _, c := range p.Adoptions {
		adopted[c.Pod.Name] = true // adoption adds the finalizer
	}
	for _, d := range p.Deletions {
		// Upstream patches only pods that still carry the finalizer; a plan
		// may ask for a removal that is then a no-op.
		pod := byName[d.Pod.Name]
		rm := d.RemoveFinalizer && pod != nil && (hasTrackingFinalizer(pod) || adopted[d.Pod.Name])
		o.Deletions = append(o.Deletions, Deletion{Pod: d.Pod.Name, RemoveFinalizer: rm})
	}
	for _, c := range p.Creations {
		o.Creations = append(o.Creations, c.Pod)
	}
	o.InterimStatus = p.InterimStatus.DeepCopy()
	o.Status = p.Status.DeepCopy()
	for _, r := range p.FinalizerRemovals {
		o.FinalizerRemovals = append(o.FinalizerRemovals, r.Pod.Name)
	}
	o.FinalizerRemovals = sorted(o.FinalizerRemovals)
	o.RequeueAfter = p.RequeueAfter
	o.Events = p.Events
	o.Expectations = p.Expectations
	o.Backoff = p.Backoff
	return o
}

func sorted(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

func sortedClaims(cs []Claim) []Claim {
	if len(cs) == 0 {
		return nil
	}
	out := slices.Clone(cs)
	slices.SortFunc(out, func(a, b Claim) int {
		if a.Pod != b.Pod {
			return strings.Compare(a.Pod, b.Pod)
		}
		return strings.Compare(a.Patch, b.Patch)
	})
	return out
}

func podsByName(s jobsync.Snapshot) map[string]*corev1.Pod {
	m := make(map[string]*corev1.Pod, len(s.Pods))
	for _, p := range s.Pods {
		m[p.Name] = p
	}
	return m
}

func hasTrackingFinalizer(p *corev1.Pod) bool {
	return slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer)
}

// completionIndex reads the index annotation (-1 when absent or invalid).
func completionIndex(p *corev1.Pod) int {
	v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return -1
	}
	return i
}

func sortUIDs(u []types.UID) []types.UID {
	if len(u) == 0 {
		return nil
	}
	out := slices.Clone(u)
	slices.Sort(out)
	return out
}
