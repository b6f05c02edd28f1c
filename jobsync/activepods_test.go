package jobsync_test

import (
	"errors"
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobsync"
)

// podSet is a set a caller fills between syncs: ActivePods or
// SucceededPods.
type podSet interface {
	Put(*corev1.Pod) bool
	Has(k8stypes.UID) bool
}

// holdIn puts into set the pods for which hold says yes and the set takes,
// and returns the others in their order. A pod whose UID the set already
// holds stays in the list: a snapshot may give one UID to two pods, and the
// sets tell pods apart by UID (putting the second would replace the
// first). Reconcile refuses the result (see checkSplitError).
func holdIn(pods []*corev1.Pod, set podSet, hold func(i int) bool) []*corev1.Pod {
	var rest []*corev1.Pod
	for i, p := range pods {
		if p == nil || set.Has(p.UID) || !hold(i) || !set.Put(p) {
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

// checkSplitError checks got and err2, Reconcile's answer on split (the
// snapshot with some of its pods held in sets), against err, its error on
// the whole snapshot. A split that lists a pod a set holds must be refused
// with an *InputError, and when the whole snapshot gives no error of its
// own, one that names the first such pod; unless the sync is skipped
// before it reads any pod (Plan.Skipped). Any other split errs exactly
// when the whole snapshot does. It reports whether the plans are to be
// compared: whether both succeeded. what says what the split holds.
func checkSplitError(t fataler, err error, got jobsync.Plan, err2 error, split jobsync.Snapshot, what string) bool {
	at := listedHeld(split)
	if at < 0 || (err2 == nil && got.Skipped != "") {
		if (err == nil) != (err2 == nil) {
			t.Fatalf("holding %s changes whether there is an error: %v / %v", what, err, err2)
		}
		return err == nil
	}
	var ie *jobsync.InputError
	if !errors.As(err2, &ie) {
		t.Fatalf("holding %s leaves pods[%d] (UID %s) both listed and held, and the error is %v, not an *InputError", what, at, split.Pods[at].UID, err2)
	}
	if err == nil && (ie.Field != fmt.Sprintf("pods[%d].metadata.uid", at) || ie.Value != any(split.Pods[at].UID)) {
		t.Fatalf("holding %s leaves pods[%d] (UID %s) both listed and held, and the error names another field: %v", what, at, split.Pods[at].UID, err2)
	}
	return false
}

// withHeld returns the snapshot with the active pods for which hold says
// yes held in an ActivePods instead of Pods (see holdIn), and how many
// were held.
func withHeld(s jobsync.Snapshot, hold func(i int) bool) (jobsync.Snapshot, int) {
	s.Active = jobsync.NewActivePods(s.Job)
	s.Pods = holdIn(s.Pods, s.Active, hold)
	return s, s.Active.Len()
}

// TestPropertyHeldActivePods: for any generated snapshot, holding any of
// its active pods in an ActivePods instead of Pods gives the same plan, or
// an error when the whole list gives one. The generator must reach the
// syncs that walk the held pods (deletions of active pods) and the sets
// that hold one index twice (which only the set's sums tell), or the
// property proves little about them; a quarter of the snapshots get an
// active pod's index copied onto another active pod to reach the latter.
func TestPropertyHeldActivePods(t *testing.T) {
	var cases, withHeldPods, deletingHeld, repeatedHeld int
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		if rapid.IntRange(0, 3).Draw(t, "repeatIndex") == 0 {
			repeatActiveIndex(t, s)
		}
		var opts jobsync.Options
		plan, err := jobsync.Reconcile(s, opts)
		if rapid.Bool().Draw(t, "settledOut") {
			s, _ = withoutSettled(s)
		}
		all := rapid.Bool().Draw(t, "holdAll")
		held, n := withHeld(s, func(int) bool { return all || rapid.Bool().Draw(t, "hold") })
		cases++
		got, err2 := jobsync.Reconcile(held, opts)
		if !checkSplitError(t, err, got, err2, held, fmt.Sprintf("%d active pods", n)) || n == 0 {
			return
		}
		withHeldPods++
		if heldIndexTwice(s, held) {
			repeatedHeld++
		}
		for _, d := range plan.Deletions {
			if held.Active.Has(d.Pod.UID) {
				deletingHeld++
				break
			}
		}
		if d := diffIfUnequal(plan, got); d != "" {
			t.Fatalf("holding %d active pods changes the plan:\n%s", n, d)
		}
	})
	if withHeldPods*5 < cases || deletingHeld*50 < cases || repeatedHeld*50 < cases {
		t.Errorf("of %d snapshots, %d held active pods, %d deleted a held one and %d held one index twice: the generator does not reach the property",
			cases, withHeldPods, deletingHeld, repeatedHeld)
	}
	t.Logf("of %d snapshots, %d held active pods, %d deleted a held one and %d held one index twice", cases, withHeldPods, deletingHeld, repeatedHeld)
}

// isActivePod is an active pod as ActivePods takes it: neither terminal
// nor being deleted.
func isActivePod(p *corev1.Pod) bool {
	return p != nil && p.DeletionTimestamp == nil && p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// repeatActiveIndex gives a drawn active pod of an Indexed Job the
// completion index of another active pod, when there are two with
// indexes.
func repeatActiveIndex(t *rapid.T, s jobsync.Snapshot) {
	if s.Job == nil || s.Job.Spec.CompletionMode == nil || *s.Job.Spec.CompletionMode != batchv1.IndexedCompletion {
		return
	}
	var withIndex []*corev1.Pod
	for _, p := range s.Pods {
		if _, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]; ok && isActivePod(p) {
			withIndex = append(withIndex, p)
		}
	}
	if len(withIndex) < 2 {
		return
	}
	from := rapid.IntRange(0, len(withIndex)-1).Draw(t, "indexFrom")
	to := rapid.IntRange(0, len(withIndex)-2).Draw(t, "indexTo")
	if to >= from {
		to++
	}
	withIndex[to].Annotations[batchv1.JobCompletionIndexAnnotation] = withIndex[from].Annotations[batchv1.JobCompletionIndexAnnotation]
}

// heldIndexTwice reports whether two pods of s that held holds (and not
// in its Pods) carry the same completion index annotation.
func heldIndexTwice(s, held jobsync.Snapshot) bool {
	listed := map[*corev1.Pod]bool{}
	for _, p := range held.Pods {
		listed[p] = true
	}
	seen := map[string]bool{}
	for _, p := range s.Pods {
		v, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		if !ok || listed[p] || !held.Active.Has(p.UID) {
			continue
		}
		if seen[v] {
			return true
		}
		seen[v] = true
	}
	return false
}

// activePod is a running pod of exampleJob with completion index ix (for
// an Indexed Job; NonIndexed Jobs ignore it).
func activePod(job *batchv1.Job, name string, ix string) *corev1.Pod {
	p := settledPod(job)
	p.Name, p.UID = name, k8stypes.UID("uid-"+name)
	p.Status.Phase = corev1.PodRunning
	p.Finalizers = []string{batchv1.JobTrackingFinalizer}
	if ix != "" {
		p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: ix}
	}
	return p
}

func TestActivePodsPut(t *testing.T) {
	job := exampleJob()
	other := exampleJob()
	other.UID = "another-job"
	indexed := exampleJob()
	indexed.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	tests := []struct {
		name   string
		job    *batchv1.Job
		change func(p *corev1.Pod)
		want   bool
	}{
		{name: "running, controlled and selected", want: true},
		{name: "pending", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }, want: true},
		{name: "no phase yet", change: func(p *corev1.Pod) { p.Status.Phase = "" }, want: true},
		{name: "without the tracking finalizer", change: func(p *corev1.Pod) { p.Finalizers = nil }, want: true},
		{name: "succeeded", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }},
		{name: "failed", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }},
		{name: "being deleted", change: func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} }},
		{name: "labels no longer selected (to be released)", change: func(p *corev1.Pod) { p.Labels = nil }},
		{name: "orphan (to be adopted or left)", change: func(p *corev1.Pod) { p.OwnerReferences = nil }},
		{name: "controlled by another Job", job: other},
		{name: "another namespace", change: func(p *corev1.Pod) { p.Namespace = "elsewhere" }},
		{name: "Indexed, with an index", job: indexed, change: func(p *corev1.Pod) {
			p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "3"}
		}, want: true},
		{name: "Indexed, an index past completions (Reconcile deletes it)", job: indexed, change: func(p *corev1.Pod) {
			p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "1000000000"}
		}, want: true},
		{name: "Indexed, without an index", job: indexed},
		{name: "Indexed, an index that does not parse", job: indexed, change: func(p *corev1.Pod) {
			p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "three"}
		}},
		{name: "no Job", job: (*batchv1.Job)(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := activePod(job, "p", "")
			if tc.change != nil {
				tc.change(p)
			}
			setJob := job
			if tc.job != nil || tc.name == "no Job" {
				setJob = tc.job
			}
			set := jobsync.NewActivePods(setJob)
			if got := set.Put(p); got != tc.want {
				t.Fatalf("Put = %v, want %v", got, tc.want)
			}
			if got := set.Has(p.UID); got != tc.want {
				t.Errorf("Has = %v after Put, want %v", got, tc.want)
			}
		})
	}

	t.Run("a pod that stops being active is let go", func(t *testing.T) {
		set := jobsync.NewActivePods(job)
		p := activePod(job, "p", "")
		if !set.Put(p) || set.Len() != 1 {
			t.Fatalf("Put of a running pod: Len = %d", set.Len())
		}
		done := p.DeepCopy()
		done.Status.Phase = corev1.PodSucceeded
		if set.Put(done) || set.Has(p.UID) || set.Len() != 0 {
			t.Fatalf("the succeeded version is still held: Has = %v, Len = %d", set.Has(p.UID), set.Len())
		}
		if set.Delete(p.UID) {
			t.Error("Delete found a pod already let go")
		}
		if set.Put(nil) {
			t.Error("a nil pod was taken")
		}
	})
}

// TestActivePodsOfAnotherJob: Reconcile refuses a set made for another
// Job, and one made for another completion mode.
func TestActivePodsOfAnotherJob(t *testing.T) {
	job := exampleJob()
	other := exampleJob()
	other.UID = "another-job"
	indexed := exampleJob()
	indexed.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	for _, setJob := range []*batchv1.Job{other, indexed, nil} {
		_, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Active: jobsync.NewActivePods(setJob), Now: genEpoch}, jobsync.Options{})
		if err == nil {
			t.Errorf("a set made for %v was taken for Job %s", setJob, job.UID)
		}
	}
	if _, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Active: jobsync.NewActivePods(job), Now: genEpoch}, jobsync.Options{}); err != nil {
		t.Errorf("an empty set of the Job itself: %v", err)
	}
}
