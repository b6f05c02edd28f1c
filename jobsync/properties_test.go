package jobsync_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/indexes"
	"github.com/jobsync/jobsync/jobsync"
)

// TestPropertyDeterministicAndPure: the same snapshot gives a deep-equal
// plan every time and whatever the order of its pods, and the snapshot is
// left as it was.
func TestPropertyDeterministicAndPure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		before := deepCopySnapshot(s)
		first, err := jobsync.Reconcile(s, jobsync.Options{})
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		if d := cmp.Diff(before, deepCopySnapshot(s)); d != "" {
			t.Fatalf("Reconcile modified its input:\n%s", d)
		}
		again, _ := jobsync.Reconcile(s, jobsync.Options{})
		if d := cmp.Diff(first, again); d != "" {
			t.Fatalf("second call differs:\n%s", d)
		}
		shuffled := s
		shuffled.Pods = append([]*corev1.Pod(nil), s.Pods...)
		seed := rapid.Uint64().Draw(t, "shuffleSeed")
		rand.New(rand.NewPCG(seed, 7)).Shuffle(len(shuffled.Pods), func(i, j int) {
			shuffled.Pods[i], shuffled.Pods[j] = shuffled.Pods[j], shuffled.Pods[i]
		})
		third, _ := jobsync.Reconcile(shuffled, jobsync.Options{})
		if d := cmp.Diff(first, third); d != "" {
			t.Fatalf("shuffled pods change the plan:\n%s", d)
		}
	})
}

// TestPropertyPlanInvariants checks what every plan must respect.
func TestPropertyPlanInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		plan, err := jobsync.Reconcile(s, jobsync.Options{})
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		job := s.Job
		if len(plan.Creations) > 0 && len(plan.Deletions) > 0 {
			t.Fatalf("a plan both creates and deletes")
		}
		active := 0
		for _, p := range s.Pods {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed && p.DeletionTimestamp == nil {
				active++
			}
		}
		// Creations never take the active pods beyond parallelism.
		if n := len(plan.Creations); n > 0 && active+n > int(*job.Spec.Parallelism) {
			t.Fatalf("%d active + %d created > parallelism %d", active, n, *job.Spec.Parallelism)
		}
		if len(plan.Creations) > 0 && (*job.Spec.Suspend || job.DeletionTimestamp != nil) {
			t.Fatalf("pods created for a suspended or deleted Job")
		}
		// Write-ahead: a terminated pod losing its finalizer is recorded
		// before, or was recorded by an earlier sync.
		recorded := map[types.UID]bool{}
		for _, u := range job.Status.UncountedTerminatedPods.Succeeded {
			recorded[u] = true
		}
		for _, u := range job.Status.UncountedTerminatedPods.Failed {
			recorded[u] = true
		}
		if st := plan.InterimStatus; st != nil {
			for _, u := range st.UncountedTerminatedPods.Succeeded {
				recorded[u] = true
			}
			for _, u := range st.UncountedTerminatedPods.Failed {
				recorded[u] = true
			}
		}
		byUID := map[types.UID]*corev1.Pod{}
		for _, p := range s.Pods {
			byUID[p.UID] = p
		}
		indexed := *job.Spec.CompletionMode == batchv1.IndexedCompletion
		for _, r := range plan.FinalizerRemovals {
			p := byUID[r.Pod.UID]
			if p.Status.Phase == corev1.PodSucceeded && !indexed && !recorded[p.UID] {
				t.Fatalf("finalizer of succeeded pod %s removed before it was recorded", p.Name)
			}
			if p.Status.Phase == corev1.PodSucceeded && indexed {
				ix := indexes.Of(p.Annotations)
				written := job.Status.CompletedIndexes
				if plan.InterimStatus != nil {
					written = plan.InterimStatus.CompletedIndexes
				}
				if ix >= 0 && ix < int(*job.Spec.Completions) && !indexes.ParseLenient(written, int(*job.Spec.Completions)).Has(ix) {
					t.Fatalf("finalizer of succeeded pod %s of index %d removed before the index was recorded", p.Name, ix)
				}
			}
		}
		// A terminal condition comes only with nothing left to count or stop.
		if st := plan.Status; st != nil {
			for _, c := range st.Conditions {
				if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
					if len(st.UncountedTerminatedPods.Succeeded)+len(st.UncountedTerminatedPods.Failed) > 0 || *st.Terminating > 0 || st.Active > 0 {
						t.Fatalf("terminal condition with pods left: %+v", st)
					}
				}
			}
		}
		// Counters only grow.
		final := plan.Status
		if final == nil {
			final = plan.InterimStatus
		}
		if final != nil && !indexed {
			before := int(job.Status.Succeeded) + int(job.Status.Failed) + len(job.Status.UncountedTerminatedPods.Succeeded) + len(job.Status.UncountedTerminatedPods.Failed)
			after := int(final.Succeeded) + int(final.Failed) + len(final.UncountedTerminatedPods.Succeeded) + len(final.UncountedTerminatedPods.Failed)
			if after < before {
				t.Fatalf("counted pods went from %d to %d", before, after)
			}
		}
	})
}

// TestPropertyNoDoubleCount applies a plan as a cluster would (finalizers
// removed, statuses written) and reconciles again: no pod released by the
// first plan is recorded again by the second.
func TestPropertyNoDoubleCount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		plan, err := jobsync.Reconcile(s, jobsync.Options{})
		if err != nil || plan.Skipped != "" {
			return
		}
		next := applyForTest(s, plan)
		plan2, err := jobsync.Reconcile(next, jobsync.Options{})
		if err != nil {
			t.Fatalf("second Reconcile: %v", err)
		}
		released := map[types.UID]bool{}
		for _, r := range plan.FinalizerRemovals {
			released[r.Pod.UID] = true
		}
		if st := plan2.InterimStatus; st != nil {
			for _, u := range append(append([]types.UID(nil), st.UncountedTerminatedPods.Succeeded...), st.UncountedTerminatedPods.Failed...) {
				if released[u] && !contains(next.Job.Status.UncountedTerminatedPods, u) {
					t.Fatalf("pod %s counted again after its finalizer went", u)
				}
			}
		}
		for _, r := range plan2.FinalizerRemovals {
			if released[r.Pod.UID] {
				t.Fatalf("finalizer of %s removed twice", r.Pod.UID)
			}
		}
	})
}

func contains(u *batchv1.UncountedTerminatedPods, uid types.UID) bool {
	for _, x := range append(append([]types.UID(nil), u.Succeeded...), u.Failed...) {
		if x == uid {
			return true
		}
	}
	return false
}

// applyForTest carries out a plan on a copy of the snapshot, the way the
// API server would, without any failure: released pods lose the Job's
// controller reference, adopted ones gain it and the tracking finalizer,
// deleted pods get a deletion timestamp (and vanish when they have no
// finalizer left), finalizers are removed, and the last status written
// becomes the Job's. Plans name pods by namespace, name and UID; a step
// applies to every pod so named, since a bad snapshot may repeat one.
func applyForTest(s jobsync.Snapshot, plan jobsync.Plan) jobsync.Snapshot {
	next := deepCopySnapshot(s)
	named := func(ref jobsync.PodRef) []*corev1.Pod {
		var out []*corev1.Pod
		for _, p := range next.Pods {
			if p != nil && p.Namespace == ref.Namespace && p.Name == ref.Name && p.UID == ref.UID {
				out = append(out, p)
			}
		}
		return out
	}
	for _, r := range plan.Releases {
		for _, p := range named(r.Pod) {
			var refs []metav1.OwnerReference
			for _, o := range p.OwnerReferences {
				if o.Controller == nil || !*o.Controller || o.UID != s.Job.UID {
					refs = append(refs, o)
				}
			}
			p.OwnerReferences = refs
		}
	}
	for _, a := range plan.Adoptions {
		for _, p := range named(a.Pod) {
			p.OwnerReferences = append(p.OwnerReferences, *metav1.NewControllerRef(s.Job, batchv1.SchemeGroupVersion.WithKind("Job")))
			if !slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) {
				p.Finalizers = append(p.Finalizers, batchv1.JobTrackingFinalizer)
			}
		}
	}
	for _, d := range plan.Deletions {
		for _, p := range named(d.Pod) {
			if d.RemoveFinalizer {
				p.Finalizers = nil
			}
			if p.DeletionTimestamp == nil {
				p.DeletionTimestamp = ptrTime(s.Now)
			}
		}
	}
	for _, r := range plan.FinalizerRemovals {
		for _, p := range named(r.Pod) {
			p.Finalizers = nil
		}
	}
	if plan.InterimStatus != nil {
		next.Job.Status = *plan.InterimStatus.DeepCopy()
	}
	if plan.Status != nil {
		next.Job.Status = *plan.Status.DeepCopy()
	}
	var pods []*corev1.Pod
	for _, p := range next.Pods {
		if p != nil && p.DeletionTimestamp != nil && len(p.Finalizers) == 0 {
			continue
		}
		pods = append(pods, p)
	}
	next.Pods = pods
	next.Expectations = plan.Expectations
	for _, r := range plan.FinalizerRemovals {
		next.Expectations = next.Expectations.FinalizerRemovalObserved(r.Pod.UID)
	}
	next.Expectations.Creations, next.Expectations.Deletions = 0, 0
	next.Backoff = plan.Backoff
	return next
}

func deepCopySnapshot(s jobsync.Snapshot) jobsync.Snapshot {
	c := s
	if s.Job != nil {
		c.Job = s.Job.DeepCopy()
	}
	if s.Pods != nil {
		c.Pods = make([]*corev1.Pod, len(s.Pods))
		for i, p := range s.Pods {
			c.Pods[i] = p.DeepCopy()
		}
	}
	if t := s.Backoff.LastFailureTime; t != nil {
		last := *t
		c.Backoff.LastFailureTime = &last
	}
	// Expectations is a value: its set of finalizer removals is immutable.
	return c
}
