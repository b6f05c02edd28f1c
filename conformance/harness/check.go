package harness

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/conformance/apival"
	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/upstream"
	"github.com/jobsync/jobsync/jobsync"
)

// Verdict is the result of one differential check.
type Verdict struct {
	Case     gen.Case
	Upstream Outcome // normalised
	Library  Outcome // normalised
	// Diff is the go-cmp diff (-upstream +library); empty when they agree.
	Diff string
	// Classes name the fields that differ, e.g. "InterimStatus.Active".
	Classes []string
	// Invalid lists the API server's objections to statuses the plan writes.
	Invalid []string
	// UpstreamInvalid lists objections to upstream's own writes (for
	// information: they show where upstream itself is rejected).
	UpstreamInvalid []string
	// Panic is set when Reconcile panicked.
	Panic string
	// Settled is set when the library decided otherwise with the pods its
	// SettledFilter settles left out of the snapshot (counted in
	// Snapshot.SettledPods instead): upstream, which sees every pod, is
	// then compared with a plan a caller of that fast path would not get.
	Settled string
	// Held is set when the library decided otherwise with the active pods
	// an ActivePods takes held there (Snapshot.Active) instead of in Pods,
	// with the settled pods in Pods or, as a simulator keeps them, left out
	// too, or with the succeeded pods a SucceededPods takes held there
	// (Snapshot.Succeeded) as well: upstream is then compared with a plan
	// a caller keeping its pods by event would not get.
	Held string
	// UpstreamLog is upstream's calls, in order.
	UpstreamLog []string
	// Setup is set when the upstream driver could not run the case.
	Setup string
	Dur   time.Duration
}

// OK reports whether the library agreed with upstream and wrote only
// statuses the API server accepts, or statuses it rejects exactly as it
// rejects upstream's (see SharedInvalid).
func (v Verdict) OK() bool {
	return v.Agree() && (len(v.Invalid) == 0 || v.SharedInvalid())
}

// Agree reports whether both sides decided the same.
func (v Verdict) Agree() bool {
	return v.Diff == "" && v.Panic == "" && v.Setup == "" && v.Settled == "" && v.Held == ""
}

// SharedInvalid reports a plan whose status the API server rejects while
// upstream, deciding the same, writes a status rejected alike: a defect of
// upstream that the library reproduces. These are reported, not failed.
func (v Verdict) SharedInvalid() bool {
	return v.Agree() && len(v.Invalid) > 0 && len(v.UpstreamInvalid) > 0
}

// Class is a one-line name of what went wrong, for grouping.
func (v Verdict) Class() string {
	switch {
	case v.Setup != "":
		return "setup"
	case v.Panic != "":
		return "panic"
	case v.Settled != "":
		return "settled"
	case v.Held != "":
		return "held"
	}
	var parts []string
	if len(v.Classes) > 0 {
		parts = append(parts, strings.Join(v.Classes, "+"))
	}
	switch {
	case v.SharedInvalid():
		parts = append(parts, "invalid-status-as-upstream")
	case len(v.Invalid) > 0:
		parts = append(parts, "invalid-status")
	}
	return strings.Join(parts, " ")
}

// Check runs case c on both sides and compares them.
func Check(c gen.Case) (v Verdict) {
	start := time.Now()
	defer func() { v.Dur = time.Since(start) }()
	v.Case = c
	if c.TTL {
		checkTTL(c, &v)
		return v
	}
	s := c.Snapshot
	plan, panicked, perr := reconcile(c)
	if panicked != "" {
		v.Panic = panicked
		return v
	}
	if v.Settled = settledChanges(c, plan, perr); v.Settled != "" {
		return v
	}
	if v.Held = heldChanges(c, plan, perr, reconcile); v.Held != "" {
		return v
	}
	lib := fromPlan(plan, perr, s)
	normalize(&lib)
	v.Library = lib

	// Upstream meets the pods in the library's canonical order, and every
	// field must then be equal, including those that depend on that order
	// (which pods fill the uncounted cap, which pod a FailJob message names,
	// which pods of a tie go first, which failed pod of an index waits for
	// its replacement): a field that differs even then is a bug, not a tie.
	res, err := upstream.Run(upstream.Input{
		Job: s.Job, Pods: s.Pods, Now: s.Now, Expectations: s.Expectations, Backoff: s.Backoff, Gates: c.Gates(),
		SchedulingObjects: schedulingInput(c),
		PodOrder:          CanonicalOrder(s.Job),
	})
	if err != nil {
		v.Setup = err.Error()
		return v
	}
	up := fromUpstream(res, s)
	normalize(&up)
	v.Upstream, v.UpstreamLog = up, res.Log
	v.Diff, v.Classes = diff(up, lib)
	if perr == nil {
		v.Invalid = validateWrites(s.Job, plan.InterimStatus, plan.Status)
	}
	var uInterim, uFinal *batchv1.JobStatus
	for _, w := range res.Writes {
		st := w.Status
		if w.Final {
			uFinal = &st
		} else {
			uInterim = &st
		}
	}
	v.UpstreamInvalid = validateWrites(s.Job, uInterim, uFinal)
	return v
}

// CanonicalOrder is the library's canonical pod order, in which the
// harness's informer hands pods to upstream: completion index (Indexed
// Jobs), then creation time, name and UID. Upstream lists the pods the Job
// controls before the orphans it may adopt (two lookups of its pod index),
// so with this order within each lookup it meets the pods exactly in the
// library's canonical order: index, own before adopted, creation time,
// name, UID. A real informer lists pods in a map's order, so this is one of
// the orders upstream may meet.
func CanonicalOrder(job *batchv1.Job) func(a, b *corev1.Pod) int {
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	return func(a, b *corev1.Pod) int {
		if indexed {
			if c := cmpInt(completionIndex(a), completionIndex(b)); c != 0 {
				return c
			}
		}
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		return strings.Compare(string(a.UID), string(b.UID))
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// reconcile runs the library on c, turning a panic into its message and
// stack so that the report shows it as a mismatch instead of ending the run.
func reconcile(c gen.Case) (p gen.Plan, panicked string, err error) {
	defer func() {
		if r := recover(); r != nil {
			panicked = fmt.Sprintf("%v\n%s", r, debug.Stack())
		}
	}()
	p, err = c.Reconcile()
	return p, "", err
}

// settledChanges runs the library again with the pods its SettledFilter
// settles left out (see Snapshot.SettledPods) and says what that changed:
// empty when it decided the same.
func settledChanges(c gen.Case, plan gen.Plan, perr error) string {
	split, settled := withoutSettled(c)
	if settled == 0 {
		return ""
	}
	return splitChanges(c, plan, perr, split, fmt.Sprintf("%d settled pods left out", settled), reconcile)
}

// heldChanges runs the library (through run) again with some of its pods
// held in the sets a caller keeping its pods by event fills, instead of in
// Pods, and says what that changed: empty when it decided the same. Three
// splits: the active pods an ActivePods of the Job takes (Snapshot.Active);
// those with the settled pods left out too; and, as jobsynctest's view
// keeps them, those with the succeeded pods a SucceededPods takes
// (Snapshot.Succeeded) held as well. Each runs only when it holds a pod;
// a case that already holds pods in a set is left as it is.
func heldChanges(c gen.Case, plan gen.Plan, perr error, run func(gen.Case) (gen.Plan, string, error)) string {
	if c.Snapshot.Active != nil || c.Snapshot.Succeeded != nil {
		return ""
	}
	if held, n := withHeld(c); n > 0 {
		if d := splitChanges(c, plan, perr, held, fmt.Sprintf("%d active pods held in an ActivePods", n), run); d != "" {
			return d
		}
	}
	live, settled := withoutSettled(c)
	held, n := withHeld(live)
	if settled > 0 && n > 0 {
		if d := splitChanges(c, plan, perr, held, fmt.Sprintf("%d active pods held in an ActivePods and %d settled pods left out", n, settled), run); d != "" {
			return d
		}
	}
	all, done := withDone(held)
	if done == 0 {
		return ""
	}
	return splitChanges(c, plan, perr, all, fmt.Sprintf("%d succeeded pods held in a SucceededPods, %d active pods in an ActivePods and %d settled pods left out", done, n, settled), run)
}

// withoutSettled returns c with the pods its SettledFilter settles left
// out of Pods and counted in SettledPods, and how many were left out.
func withoutSettled(c gen.Case) (gen.Case, int) {
	f := jobsync.NewSettledFilter(c.Snapshot.Job, c.Options)
	var live []*corev1.Pod
	for _, p := range c.Snapshot.Pods {
		if !f.Settled(p) {
			live = append(live, p)
		}
	}
	settled := len(c.Snapshot.Pods) - len(live)
	split := c
	split.Snapshot.Pods, split.Snapshot.SettledPods = live, c.Snapshot.SettledPods+settled
	return split, settled
}

// withHeld returns c with every pod that an ActivePods of the Job takes
// held there (Snapshot.Active) instead of in Pods (see holdIn), and how
// many were held.
func withHeld(c gen.Case) (gen.Case, int) {
	set := jobsync.NewActivePods(c.Snapshot.Job)
	c.Snapshot.Pods, c.Snapshot.Active = holdIn(c.Snapshot.Pods, set), set
	return c, set.Len()
}

// withDone returns c with every pod that a SucceededPods of the Job (and
// c's Options) takes held there (Snapshot.Succeeded) instead of in Pods
// (see holdIn), and how many were held.
func withDone(c gen.Case) (gen.Case, int) {
	set := jobsync.NewSucceededPods(c.Snapshot.Job, c.Options)
	c.Snapshot.Pods, c.Snapshot.Succeeded = holdIn(c.Snapshot.Pods, set), set
	return c, set.Len()
}

// holdIn puts into set every pod it takes and returns the others, in their
// order. A pod whose UID the set already holds stays in the list: a
// snapshot may give two pods one UID, and the sets tell pods apart by UID
// (putting the second would replace the first, losing it). The library
// refuses such a split (see splitChanges).
func holdIn(pods []*corev1.Pod, set interface {
	Put(*corev1.Pod) bool
	Has(types.UID) bool
}) []*corev1.Pod {
	var rest []*corev1.Pod
	for _, p := range pods {
		if p == nil || set.Has(p.UID) || !set.Put(p) {
			rest = append(rest, p)
		}
	}
	return rest
}

// listedHeld returns the position in s.Pods of the first pod whose UID
// s.Active or s.Succeeded holds, -1 for none.
func listedHeld(s jobsync.Snapshot) int {
	for i, p := range s.Pods {
		if p != nil && (s.Active.Has(p.UID) || s.Succeeded.Has(p.UID)) {
			return i
		}
	}
	return -1
}

// splitChanges runs the library (through run) on split, case c with some
// of its pods kept aside as what describes, and says how its decision
// differs from plan and perr, the decision on c: empty when it is the
// same. Plans are compared whole (deep-equal, the pods of both being the
// same objects); a difference is shown as outcomes of c's snapshot.
//
// A split that lists a pod whose UID a set holds (c gave two pods one UID,
// and holdIn held one) must be refused with an *InputError instead, unless
// the sync is skipped before it reads any pod.
func splitChanges(c gen.Case, plan gen.Plan, perr error, split gen.Case, what string, run func(gen.Case) (gen.Plan, string, error)) string {
	got, panicked, err := run(split)
	at := listedHeld(split.Snapshot)
	var ie *jobsync.InputError
	switch {
	case panicked != "":
		return fmt.Sprintf("with %s, Reconcile panicked: %s", what, panicked)
	case at >= 0 && err == nil && got.Skipped == "":
		return fmt.Sprintf("with %s, pods[%d] (UID %s) is both listed and held, and Reconcile did not refuse it", what, at, split.Snapshot.Pods[at].UID)
	case at >= 0 && err != nil && !errors.As(err, &ie):
		return fmt.Sprintf("with %s, pods[%d] (UID %s) is both listed and held, and the error %v is not an *InputError", what, at, split.Snapshot.Pods[at].UID, err)
	case at >= 0 && err != nil:
		return "" // refused, as it must be
	case (err == nil) != (perr == nil):
		return fmt.Sprintf("with %s, the error is %v instead of %v", what, err, perr)
	}
	if reflect.DeepEqual(plan, got) {
		return ""
	}
	all, aside := fromPlan(plan, perr, c.Snapshot), fromPlan(got, err, c.Snapshot)
	normalize(&all)
	normalize(&aside)
	return fmt.Sprintf("with %s, the plan differs (-all pods in Pods +those kept aside):\n%s", what, cmp.Diff(all, aside, cmpOptions))
}

// validateWrites runs the API server's status validation on the writes in
// order: the interim status against the stored Job, the final one against
// the Job as the interim write left it.
func validateWrites(job *batchv1.Job, interim, final *batchv1.JobStatus) []string {
	var out []string
	cur := job
	for _, w := range []struct {
		name string
		st   *batchv1.JobStatus
	}{{"interimStatus", interim}, {"status", final}} {
		if w.st == nil {
			continue
		}
		for _, e := range apival.ValidateStatusUpdate(cur, w.st) {
			out = append(out, w.name+": "+e.Error())
		}
		next := cur.DeepCopy()
		next.Status = *w.st.DeepCopy()
		cur = next
	}
	return out
}

var cmpOptions = cmp.Options{
	cmpopts.EquateEmpty(),
	cmp.Comparer(func(a, b metav1.Time) bool { return a.Time.Equal(b.Time) }),
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }),
	// Only whether a side failed is compared, not its words.
	cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Error" || p.String() == "TTL.Error" },
		cmp.Comparer(func(a, b string) bool { return (a == "") == (b == "") })),
}

// diff returns the go-cmp diff of the two outcomes and the names of the
// fields that differ (two levels deep, e.g. "Status.Conditions").
func diff(up, lib Outcome) (string, []string) {
	var r pathReporter
	if cmp.Equal(up, lib, cmpOptions, cmp.Reporter(&r)) {
		return "", nil
	}
	d := cmp.Diff(up, lib, cmpOptions)
	classes := make([]string, 0, len(r.paths))
	for k := range r.paths {
		classes = append(classes, k)
	}
	sort.Strings(classes)
	return d, classes
}

type pathReporter struct {
	path  cmp.Path
	paths map[string]bool
}

func (r *pathReporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *pathReporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }
func (r *pathReporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	if r.paths == nil {
		r.paths = map[string]bool{}
	}
	var names []string
	for _, s := range r.path {
		if f, ok := s.(cmp.StructField); ok {
			names = append(names, f.Name())
			if len(names) == 2 {
				break
			}
		}
	}
	if len(names) == 0 {
		names = []string{"(root)"}
	}
	r.paths[strings.Join(names, ".")] = true
}
