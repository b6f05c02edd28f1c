package jobsynctest

import (
	"fmt"
	"slices"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobsync"
)

// TestPropertyViewListsTheLivePods: whatever the pods' arrivals, changes,
// removals and Job changes, the view holds exactly the pods an ActivePods
// of its Job takes, lists exactly the others a SettledFilter does not
// settle, each once, counts the settled ones, and lists the pods that stay
// live in the order they became live (until a Job with other settling
// fields sorts them all again).
func TestPropertyViewListsTheLivePods(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "job-1"},
			Spec: batchv1.JobSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "j"}}}}
		other := job.DeepCopy()
		other.UID = "job-2"
		v := newView(job, jobsync.Options{}, 0)
		var order []types.UID // the model: live pods in the order they became live
		model := map[types.UID]*corev1.Pod{}
		for step := range rapid.IntRange(0, 60).Draw(t, "steps") {
			resorted := false // another Job sorts every pod again, in the view's own order
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op < 7:
				uid := types.UID(fmt.Sprint("p", rapid.IntRange(0, 12).Draw(t, "pod")))
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: string(uid), Namespace: "ns", UID: uid,
					Labels:          map[string]string{"app": "j"},
					OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(job, batchv1.SchemeGroupVersion.WithKind("Job"))}}}
				p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}).Draw(t, "phase")
				if rapid.IntRange(0, 3).Draw(t, "deleting") == 0 {
					p.DeletionTimestamp = &metav1.Time{}
				}
				if rapid.IntRange(0, 3).Draw(t, "orphan") == 0 {
					p.OwnerReferences = nil
				}
				if rapid.Bool().Draw(t, "finalizer") {
					p.Finalizers = []string{batchv1.JobTrackingFinalizer}
				}
				v.put(p)
				model[uid] = p
			case op < 9:
				uid := types.UID(fmt.Sprint("p", rapid.IntRange(0, 12).Draw(t, "pod")))
				v.remove(uid)
				delete(model, uid)
			default:
				j := job
				if rapid.Bool().Draw(t, "otherJob") {
					j = other
				}
				resorted = !sameSettling(v.settledFor, j)
				v.setJob(j)
			}
			f := jobsync.NewSettledFilter(v.job, jobsync.Options{})
			// A scratch set tells which pods the view must hold.
			takes := func(p *corev1.Pod) bool { return jobsync.NewActivePods(v.job).Put(p) }
			takesDone := func(p *corev1.Pod) bool { return jobsync.NewSucceededPods(v.job, jobsync.Options{}).Put(p) }
			isLive := func(p *corev1.Pod) bool { return !f.Settled(p) && !takes(p) && !takesDone(p) }
			wasLive := map[types.UID]bool{}
			for _, u := range order {
				wasLive[u] = true
			}
			var stillLive []types.UID
			for _, u := range order {
				if p, ok := model[u]; ok && isLive(p) {
					stillLive = append(stillLive, u)
				}
			}
			settled, held, done := 0, 0, 0
			for u, p := range model {
				switch {
				case f.Settled(p):
					settled++
				case takes(p):
					held++
					if !v.held.Has(u) {
						t.Fatalf("step %d: %s is not held", step, u)
					}
				case takesDone(p):
					done++
					if !v.done.Has(u) {
						t.Fatalf("step %d: %s is not held as done", step, u)
					}
				case !wasLive[u]:
					stillLive = append(stillLive, u)
				}
			}
			order = stillLive
			listed, set, doneSet, n := v.list()
			if set.Len() != held || doneSet.Len() != done {
				t.Fatalf("step %d: %d held and %d done, want %d and %d", step, set.Len(), doneSet.Len(), held, done)
			}
			var got []types.UID
			for _, p := range listed {
				got = append(got, p.UID)
				if model[p.UID] != p {
					t.Fatalf("step %d: the view lists a stale or removed version of %s", step, p.UID)
				}
			}
			if n != settled {
				t.Fatalf("step %d: %d settled, want %d", step, n, settled)
			}
			// Pods that became live in the same step are in no particular
			// order in the model; compare as sets, then the order of
			// those that were live before.
			if !slices.Equal(sortedUIDs(got), sortedUIDs(order)) {
				t.Fatalf("step %d: lists %v, want %v", step, got, order)
			}
			var before, gotBefore []types.UID
			for _, u := range order {
				if wasLive[u] {
					before = append(before, u)
				}
			}
			for _, u := range got {
				if wasLive[u] {
					gotBefore = append(gotBefore, u)
				}
			}
			if !resorted && !slices.Equal(before, gotBefore) {
				t.Fatalf("step %d: the pods live before are listed as %v, want their order %v", step, gotBefore, before)
			}
			order = got
			if len(v.all()) != len(model) {
				t.Fatalf("step %d: all() has %d pods, want %d", step, len(v.all()), len(model))
			}
		}
	})
}

func sortedUIDs(u []types.UID) []types.UID {
	s := slices.Clone(u)
	slices.Sort(s)
	return s
}
