package jobsync_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/internal/testsupport/adversarial"
	"github.com/jobsync/jobsync/jobsync"
)

// TestPropertyAdversarial runs Reconcile on snapshots built to break it
// (package adversarial) and checks what it promises whatever the input.
// FuzzReconcile checks the same with the fuzzer driving the draws.
//
// It runs rapid's checks ten times over (1,000 snapshots by default, a few
// seconds): the panic that TestWorkQueueJobWithIndexAnnotationIsCounted
// pins took 134 snapshots to show.
func TestPropertyAdversarial(t *testing.T) {
	for round := range 10 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				checkReconcileContract(t, adversarial.Snapshot(t), rapid.Uint64().Draw(t, "shuffleSeed"))
			})
		})
	}
}

// fataler is what the checks need of *testing.T and *rapid.T.
type fataler interface {
	Fatalf(format string, args ...any)
}

// hangLimit is how long one Reconcile of a snapshot of at most a few dozen
// pods may take before it counts as hung: thousands of times what it
// needs, so that a loaded machine does not make the property flaky.
const hangLimit = 20 * time.Second

// reconcileGuarded runs Reconcile, turning a panic into a failure with its
// stack and a call that does not return in time into a failure.
func reconcileGuarded(t fataler, s jobsync.Snapshot) (jobsync.Plan, error) {
	type result struct {
		plan  jobsync.Plan
		err   error
		panic string
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{panic: fmt.Sprintf("%v\n%s", r, debug.Stack())}
			}
		}()
		p, err := jobsync.Reconcile(s, jobsync.Options{})
		done <- result{plan: p, err: err}
	}()
	select {
	case r := <-done:
		if r.panic != "" {
			t.Fatalf("Reconcile panicked: %s", r.panic)
		}
		return r.plan, r.err
	case <-time.After(hangLimit):
		t.Fatalf("Reconcile did not return within %v", hangLimit)
	}
	panic("unreachable")
}

// checkReconcileContract checks, for any snapshot: no panic, no hang, the
// input left as it was, an error only as an *InputError with an empty
// plan, the same answer whatever the order of the pods, with its settled
// pods left out or its active pods held (checkSettledLeftOut,
// checkHeldActive), a plan sharing no memory with the snapshot, the
// plan's safety contract, and that carrying the plan out and reconciling
// again never releases a pod twice.
func checkReconcileContract(t fataler, s jobsync.Snapshot, shuffleSeed uint64) {
	before := deepCopySnapshot(s)
	plan, err := reconcileGuarded(t, s)
	if d := diffIfUnequal(before, s); d != "" {
		t.Fatalf("Reconcile modified its input:\n%s", d)
	}

	shuffled := s
	shuffled.Pods = slices.Clone(s.Pods)
	rand.New(rand.NewPCG(shuffleSeed, 18)).Shuffle(len(shuffled.Pods), func(i, j int) {
		shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i]
	})
	plan2, err2 := reconcileGuarded(t, shuffled)
	if (err == nil) != (err2 == nil) {
		t.Fatalf("the pod order decides whether there is an error: %v / %v", err, err2)
	}
	if err != nil {
		var ie *jobsync.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("error %v (%T) is not an *InputError", err, err)
		}
		if d := cmp.Diff(jobsync.Plan{}, plan); d != "" {
			t.Fatalf("a failed Reconcile returned half a plan:\n%s", d)
		}
		if without, settled := withoutSettled(s); settled > 0 {
			if _, err := reconcileGuarded(t, without); err == nil {
				t.Fatalf("leaving out %d settled pods takes away the error %v", settled, err)
			}
		}
		checkHeldActive(t, before, s, shuffled, plan, err, shuffleSeed)
		checkHeldDone(t, before, s, shuffled, plan, err, shuffleSeed)
		return
	}
	if d := diffIfUnequal(plan, plan2); d != "" {
		t.Fatalf("the pod order changes the plan:\n%s", d)
	}
	checkSettledLeftOut(t, s, plan)
	checkHeldActive(t, before, s, shuffled, plan, err, shuffleSeed)
	checkHeldDone(t, before, s, shuffled, plan, err, shuffleSeed)

	checkPlanSafety(t, s, plan)

	// Change every byte the plan holds: the snapshot must not move.
	scratch, _ := reconcileGuarded(t, s)
	scribble(&scratch)
	if d := diffIfUnequal(before, s); d != "" {
		t.Fatalf("changing the plan changed the snapshot:\n%s", d)
	}

	if plan.Skipped != "" {
		return
	}
	next := applyForTest(s, plan)
	plan3, err := reconcileGuarded(t, next)
	if err != nil {
		return // e.g. a counter the first plan took to the int32 limit
	}
	// Pods are told apart by namespace, name and UID: a snapshot may give
	// one UID to two pods, and releasing each once is right.
	released := map[jobsync.PodRef]bool{}
	for _, r := range plan.FinalizerRemovals {
		released[r.Pod] = true
	}
	for _, r := range plan3.FinalizerRemovals {
		if released[r.Pod] {
			t.Fatalf("finalizer of %s removed twice", r.Pod.Name)
		}
	}
}

// checkPlanSafety checks what every plan promises of the steps it asks
// for, however odd the snapshot it came from.
func checkPlanSafety(t fataler, s jobsync.Snapshot, plan jobsync.Plan) {
	job := s.Job
	if len(plan.Creations) > 0 && len(plan.Deletions) > 0 {
		t.Fatalf("a plan both creates and deletes")
	}
	if plan.Skipped != "" && (len(plan.Creations)+len(plan.Deletions)+len(plan.FinalizerRemovals) > 0 || plan.Status != nil || plan.InterimStatus != nil) {
		t.Fatalf("a skipped sync (%s) acts", plan.Skipped)
	}
	if len(plan.Creations) > 0 && ((job.Spec.Suspend != nil && *job.Spec.Suspend) || job.DeletionTimestamp != nil) {
		t.Fatalf("pods created for a suspended or deleted Job")
	}
	if plan.RequeueAfter < 0 {
		t.Fatalf("negative RequeueAfter %v", plan.RequeueAfter)
	}
	if job.Spec.Parallelism != nil && len(plan.Creations) > 0 && len(plan.Creations) > int(*job.Spec.Parallelism) {
		t.Fatalf("%d pods created, parallelism %d", len(plan.Creations), *job.Spec.Parallelism)
	}
	// Every step names a pod of the snapshot, never one in another
	// namespace or controlled by someone else.
	type key struct {
		ns, name string
		uid      types.UID
	}
	pods := map[key]*corev1.Pod{}
	for _, p := range s.Pods {
		pods[key{p.Namespace, p.Name, p.UID}] = p
	}
	foreign := func(p *corev1.Pod) bool {
		if p.Namespace != job.Namespace {
			return true
		}
		for _, o := range p.OwnerReferences {
			if o.Controller != nil && *o.Controller {
				return o.UID != job.UID
			}
		}
		return false
	}
	adopted := map[key]bool{}
	for _, a := range plan.Adoptions {
		k := key{a.Pod.Namespace, a.Pod.Name, a.Pod.UID}
		adopted[k] = true
		if p := pods[k]; p == nil || foreign(p) || controlled(p) {
			t.Fatalf("adoption of %s, which is not an orphan of the snapshot", a.Pod.Name)
		}
	}
	for _, d := range plan.Deletions {
		if p := pods[key{d.Pod.Namespace, d.Pod.Name, d.Pod.UID}]; p == nil || foreign(p) {
			t.Fatalf("deletion of %s, which is not the Job's", d.Pod.Name)
		}
	}
	for _, r := range plan.FinalizerRemovals {
		k := key{r.Pod.Namespace, r.Pod.Name, r.Pod.UID}
		p := pods[k]
		if p == nil || foreign(p) {
			t.Fatalf("finalizer removal of %s, which is not the Job's", r.Pod.Name)
		}
		if !adopted[k] && !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
			t.Fatalf("finalizer removal of %s, which has none", r.Pod.Name)
		}
	}
	// Counters never wrap around: what the library writes is what it
	// counted, and it counts no negative number of pods. An Indexed Job's
	// succeeded is read from completedIndexes, which, malformed, makes
	// upstream (and so the library) write a negative count.
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	wellFormed := true
	if indexed && job.Spec.Completions != nil {
		_, perr := indexes.Parse(job.Status.CompletedIndexes, int(*job.Spec.Completions))
		wellFormed = perr == nil
	}
	for _, st := range []*batchv1.JobStatus{plan.InterimStatus, plan.Status} {
		if st == nil {
			continue
		}
		if st.Active < 0 || st.Failed < 0 || (st.Succeeded < 0 && wellFormed) ||
			(st.Ready != nil && *st.Ready < 0) || (st.Terminating != nil && *st.Terminating < 0) {
			t.Fatalf("a counter below zero: active %d, succeeded %d, failed %d, ready %v, terminating %v",
				st.Active, st.Succeeded, st.Failed, st.Ready, st.Terminating)
		}
		if st.Failed < job.Status.Failed {
			t.Fatalf("status.failed went down from %d to %d", job.Status.Failed, st.Failed)
		}
		if !indexed && st.Succeeded < job.Status.Succeeded {
			t.Fatalf("status.succeeded went down from %d to %d", job.Status.Succeeded, st.Succeeded)
		}
	}
	// A terminal condition comes only with nothing left to count or stop.
	if st := plan.Status; st != nil {
		for _, c := range st.Conditions {
			if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
				if u := st.UncountedTerminatedPods; u != nil && len(u.Succeeded)+len(u.Failed) > 0 {
					t.Fatalf("terminal condition with uncounted pods: %+v", u)
				}
				if st.Terminating != nil && *st.Terminating > 0 {
					t.Fatalf("terminal condition with %d pods terminating", *st.Terminating)
				}
			}
		}
	}
}

// controlled reports whether the pod has a controller owner reference.
func controlled(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Controller != nil && *o.Controller {
			return true
		}
	}
	return false
}

// diffIfUnequal is cmp.Diff (nil and empty alike) for values that are not
// reflect.DeepEqual: the fast check first keeps the fuzzer fast, the diff
// says what differs.
func diffIfUnequal(a, b any) string {
	if reflect.DeepEqual(a, b) {
		return ""
	}
	return cmp.Diff(a, b, cmpopts.EquateEmpty())
}

// checkSettledLeftOut checks SettledFilter's promise: the snapshot without
// the pods it settles, counted in SettledPods instead, gives the same plan.
func checkSettledLeftOut(t fataler, s jobsync.Snapshot, plan jobsync.Plan) {
	without, settled := withoutSettled(s)
	if settled == 0 {
		return
	}
	got, err := reconcileGuarded(t, without)
	if err != nil {
		t.Fatalf("leaving out %d settled pods gives an error: %v", settled, err)
	}
	if d := diffIfUnequal(plan, got); d != "" {
		t.Fatalf("leaving out %d settled pods changes the plan:\n%s", settled, d)
	}
}

// withoutSettled returns the snapshot with the pods a SettledFilter of its
// Job settles left out (in the order of the others) and counted in
// SettledPods, and how many those are.
func withoutSettled(s jobsync.Snapshot) (jobsync.Snapshot, int) {
	f := jobsync.NewSettledFilter(s.Job, jobsync.Options{})
	var live []*corev1.Pod
	for _, p := range s.Pods {
		if !f.Settled(p) {
			live = append(live, p)
		}
	}
	settled := len(s.Pods) - len(live)
	s.Pods, s.SettledPods = live, s.SettledPods+settled
	return s, settled
}

// checkHeld checks the held sets' promise (ActivePods, SucceededPods):
// split, the snapshot build makes from shuffled (s with its pods
// shuffled) holding all of some pods in a set or those the seed picks,
// gives plan, the plan of s, or an error when s gives one, or when split
// lists a pod a set holds (see checkSplitError). It also checks
// that Reconcile leaves the pods and the sets as they were (before is a
// deep copy of s taken before any Reconcile), and that the plan shares no
// memory with them: the sets are compared with twins built from the same
// pods and picks. what names the pods held.
func checkHeld(t fataler, before, s jobsync.Snapshot, plan jobsync.Plan, err error, seed, stream uint64, what string,
	build func(pick func(int) bool) (jobsync.Snapshot, int)) {
	r := rand.New(rand.NewPCG(seed, stream))
	all := r.IntN(2) == 0
	var picks []bool
	split, n := build(func(int) bool {
		pick := all || r.IntN(2) == 0
		picks = append(picks, pick)
		return pick
	})
	if n == 0 {
		return
	}
	twin, _ := build(func(int) bool { pick := picks[0]; picks = picks[1:]; return pick })
	got, err2 := reconcileGuarded(t, split)
	if checkSplitError(t, err, got, err2, split, fmt.Sprintf("%d %s", n, what)) {
		if d := diffIfUnequal(plan, got); d != "" {
			t.Fatalf("holding %d %s changes the plan:\n%s", n, what, d)
		}
		scribble(&got)
	} else if d := cmp.Diff(jobsync.Plan{}, got); d != "" {
		t.Fatalf("a failed Reconcile with %d %s held returned half a plan:\n%s", n, what, d)
	}
	if d := diffIfUnequal(before, s); d != "" {
		t.Fatalf("Reconcile with %d %s held, or changing its plan, modified its input:\n%s", n, what, d)
	}
	sameSet(t, "ActivePods", twin.Active, split.Active)
	sameSet(t, "SucceededPods", twin.Succeeded, split.Succeeded)
}

// sameSet fails unless set is as its twin was built. The sets' fields are
// unexported, which go-cmp reads only through an Exporter; and a set's
// label matcher keeps a selector of several labels in the order of a map,
// so two sets of one Job may differ there alone (Reconcile does not read
// the matcher): it is left out of the comparison.
func sameSet[T any](t fataler, name string, twin, set *T) {
	if reflect.DeepEqual(twin, set) {
		return
	}
	var zero T
	if d := cmp.Diff(twin, set, cmp.Exporter(func(reflect.Type) bool { return true }), cmpopts.IgnoreFields(zero, "match")); d != "" {
		t.Fatalf("Reconcile, or changing its plan, modified the %s it was given (-before +after):\n%s", name, d)
	}
}

// checkHeldActive checks ActivePods' promise with checkHeld: all or some
// of the active pods held.
func checkHeldActive(t fataler, before, s, shuffled jobsync.Snapshot, plan jobsync.Plan, err error, seed uint64) {
	checkHeld(t, before, s, plan, err, seed, 165, "active pods", func(pick func(int) bool) (jobsync.Snapshot, int) {
		return withHeld(shuffled, pick)
	})
}

// checkHeldDone checks SucceededPods' promise with checkHeld, the way a
// simulator uses the three: the settled pods left out, the active ones
// held in an ActivePods, and all or some of the succeeded ones still
// carrying the tracking finalizer held in a SucceededPods.
func checkHeldDone(t fataler, before, s, shuffled jobsync.Snapshot, plan jobsync.Plan, err error, seed uint64) {
	checkHeld(t, before, s, plan, err, seed, 166, "succeeded pods", func(pick func(int) bool) (jobsync.Snapshot, int) {
		base, _ := withoutSettled(shuffled)
		base, _ = withHeld(base, func(int) bool { return true })
		return withDone(base, jobsync.Options{}, pick)
	})
}
