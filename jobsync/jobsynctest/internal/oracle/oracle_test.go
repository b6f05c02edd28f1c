package oracle

import (
	"iter"
	"slices"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync"
)

// The rules are exercised end to end by jobsynctest's runs; these tests
// show, on a hand-made world, that each rule tested here reports what
// breaks it and lets pass what does not.

const fin = batchv1.JobTrackingFinalizer

// world is a hand-made World.
type world struct {
	now       time.Time
	job       *batchv1.Job
	pods      []Pod
	tolerated []string
}

func (w *world) Now() time.Time    { return w.now }
func (w *world) Job() *batchv1.Job { return w.job }
func (w *world) Pods() iter.Seq[Pod] {
	return slices.Values(w.pods)
}
func (w *world) SortedPods() []Pod { return w.pods }
func (w *world) Controlled(p *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && ref.UID == w.job.UID
}
func (w *world) Tolerate(note string) { w.tolerated = append(w.tolerated, note) }

func newWorld(parallelism int32) *world {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	start := metav1.NewTime(t0)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Parallelism: &parallelism, Completions: ptr(int32(4)), BackoffLimit: ptr(int32(6)), Suspend: ptr(false),
		},
		Status: batchv1.JobStatus{StartTime: &start, UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{}},
	}
	return &world{now: t0.Add(time.Minute), job: job}
}

func (w *world) addPod(name string, phase corev1.PodPhase) Pod {
	ctrl := true
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "ns", UID: types.UID(name + "-uid"), Finalizers: []string{fin},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: w.job.UID, Controller: &ctrl}},
		},
		Status: corev1.PodStatus{Phase: phase},
	}
	sp := Pod{Obj: p, Index: -1}
	w.pods = append(w.pods, sp)
	return sp
}

func (w *world) snapshot() jobsync.Snapshot {
	s := jobsync.Snapshot{Job: w.job.DeepCopy(), Now: w.now}
	for _, p := range w.pods {
		s.Pods = append(s.Pods, p.Obj)
	}
	return s
}

func rules(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Rule)
	}
	return out
}

func TestWriteAhead(t *testing.T) {
	w := newWorld(2)
	done := w.addPod("a", corev1.PodSucceeded)
	k := New(w, jobsync.Options{}, fin, 1)

	// The finalizer goes before the status records the pod.
	k.FinalizerRemoval(done, false, &jobsync.Plan{}, w.snapshot())
	if got := rules(k.Take()); !slices.Equal(got, []string{"write-ahead"}) {
		t.Errorf("removal before the record: violations %v, want write-ahead", got)
	}

	// Recorded first, as the rule asks.
	w2 := newWorld(2)
	done2 := w2.addPod("a", corev1.PodSucceeded)
	w2.job.Status.UncountedTerminatedPods.Succeeded = []types.UID{done2.Obj.UID}
	k2 := New(w2, jobsync.Options{}, fin, 1)
	k2.FinalizerRemoval(done2, false, &jobsync.Plan{}, w2.snapshot())
	if got := k2.Take(); len(got) != 0 {
		t.Errorf("removal after the record: violations %v, want none", got)
	}
}

func TestReleasedActive(t *testing.T) {
	w := newWorld(2)
	running := w.addPod("a", corev1.PodRunning)
	k := New(w, jobsync.Options{}, fin, 1)
	k.FinalizerRemoval(running, false, &jobsync.Plan{}, w.snapshot())
	if got := rules(k.Take()); !slices.Equal(got, []string{"released-active"}) {
		t.Errorf("a running pod released: violations %v, want released-active", got)
	}
}

func TestParallelism(t *testing.T) {
	w := newWorld(2)
	w.addPod("a", corev1.PodRunning)
	w.addPod("b", corev1.PodSucceeded) // terminal: not active
	created := w.addPod("c", corev1.PodPending)
	k := New(w, jobsync.Options{}, fin, 1)
	k.Created(created, &jobsync.Plan{}, w.snapshot())
	if got := k.Take(); len(got) != 0 {
		t.Errorf("2 active, parallelism 2: violations %v, want none", got)
	}
	third := w.addPod("d", corev1.PodPending)
	k.Created(third, &jobsync.Plan{}, w.snapshot())
	if got := rules(k.Take()); !slices.Equal(got, []string{"parallelism"}) {
		t.Errorf("3 active, parallelism 2: violations %v, want parallelism", got)
	}
}

func TestSuspendedCreation(t *testing.T) {
	w := newWorld(2)
	w.job.Spec.Suspend = ptr(true)
	created := w.addPod("a", corev1.PodPending)
	k := New(w, jobsync.Options{}, fin, 1)
	k.Created(created, &jobsync.Plan{}, w.snapshot())
	if got := rules(k.Take()); !slices.Equal(got, []string{"suspended"}) {
		t.Errorf("created while suspended: violations %v, want suspended", got)
	}
}

func TestRejected(t *testing.T) {
	w := newWorld(1)
	k := New(w, jobsync.Options{}, fin, 1)
	k.Rejected("status", []string{"counters must not be negative"}, false)
	if got := rules(k.Take()); !slices.Equal(got, []string{"status-rejected"}) {
		t.Errorf("a refused write: violations %v, want status-rejected", got)
	}
	// Upstream's own refusal: a Job that finished while suspended.
	w.job.Spec.Suspend = ptr(true)
	k.Rejected("status", []string{"startTime required for a finished Job"}, true)
	if got := k.Take(); len(got) != 0 || len(w.tolerated) != 1 {
		t.Errorf("the tolerated refusal: violations %v, tolerated %v; want none and one note", got, w.tolerated)
	}
}

func TestCountAtEnd(t *testing.T) {
	w := newWorld(1)
	failed := w.addPod("a", corev1.PodFailed)
	w.job.Status.UncountedTerminatedPods.Failed = []types.UID{failed.Obj.UID}
	k := New(w, jobsync.Options{}, fin, 1)
	k.FinalizerRemoval(failed, false, &jobsync.Plan{}, w.snapshot())
	failed.Obj.Finalizers = nil
	// The Job ends Failed without counting the pod.
	w.job.Status.UncountedTerminatedPods.Failed = nil
	w.job.Status.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded},
		{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: batchv1.JobReasonBackoffLimitExceeded},
	}
	k.AtEnd(false)
	if got := rules(k.Take()); !slices.Equal(got, []string{"count"}) {
		t.Errorf("a failed pod not counted: violations %v, want count", got)
	}
	w.job.Status.Failed = 1
	k.AtEnd(false)
	if got := k.Take(); len(got) != 0 {
		t.Errorf("counted once: violations %v, want none", got)
	}
}

// TestIndexBackoffHiddenFailure: the per-index backoff is measured from
// the failures the controller could see. Index 3 (backoffLimitPerIndex 2)
// failed a second time 51s ago and a third time 12s ago; the third failure
// failed the index. A pod created now with failure-count 2 replaces the
// second failed pod: that is a backoff rule kept only when the controller
// could not see the third failure (released in its pod view, not yet in
// its Job view, recorded in the stored Job).
func TestIndexBackoffHiddenFailure(t *testing.T) {
	for _, c := range []struct {
		name         string
		viewTracked  bool   // the view shows the third failed pod with its finalizer
		storedFailed string // the stored Job's failedIndexes
		newCount     string // the new pod's failure-count annotation
		want         []string
		tolerated    int
	}{
		{name: "hidden by skew", storedFailed: "3", newCount: "2", tolerated: 1},
		{name: "seen with its finalizer", viewTracked: true, storedFailed: "3", newCount: "2", want: []string{"backoff"}},
		{name: "not recorded anywhere", storedFailed: "", newCount: "2", want: []string{"backoff"}},
		{name: "replacing the third failure early", storedFailed: "3", newCount: "3", want: []string{"backoff"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(3)
			w.job.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			w.job.Spec.BackoffLimitPerIndex = ptr(int32(2))
			w.job.Status.FailedIndexes = ptr("")
			view := w.job.DeepCopy()
			w.job.Status.FailedIndexes = ptr(c.storedFailed)
			failed := func(name, count string, ago time.Duration) Pod {
				sp := w.addPod(name, corev1.PodFailed)
				sp.Obj.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "3", batchv1.JobIndexFailureCountAnnotation: count}
				sp.Obj.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{
					Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.NewTime(w.now.Add(-ago))}}}}
				w.pods[len(w.pods)-1].Index = 3
				sp.Index = 3
				return sp
			}
			failed("second", "1", 51*time.Second)
			third := failed("third", "2", 12*time.Second)
			third.Obj.Finalizers = nil // released in the stored pod
			snap := jobsync.Snapshot{Job: view, Now: w.now}
			for _, p := range w.pods {
				o := p.Obj.DeepCopy()
				if c.viewTracked && o.UID == third.Obj.UID {
					o.Finalizers = []string{fin}
				}
				snap.Pods = append(snap.Pods, o)
			}
			created := w.addPod("new", corev1.PodPending)
			created.Obj.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "3", batchv1.JobIndexFailureCountAnnotation: c.newCount}
			created.Index = 3
			k := New(w, jobsync.Options{}, fin, 1)
			k.Created(created, &jobsync.Plan{}, snap)
			if got := rules(k.Take()); !slices.Equal(got, c.want) {
				t.Errorf("violations %v, want %v", got, c.want)
			}
			if len(w.tolerated) != c.tolerated {
				t.Errorf("tolerated %q, want %d notes", w.tolerated, c.tolerated)
			}
		})
	}
}

// A terminating pod's failure may be dated from its delete call, which a
// view showed as deletion timestamp less grace period. Once the pod
// stopped, the kubelet's final delete moves the stored timestamp to the
// stop with grace 0: the index's backoff is measured from the delete call
// the views showed, not from the stored pod alone. Index 0's pod was
// deleted 10s ago with grace 5 and stopped 8s ago; a replacement created
// now (owing 10s after 1 failure) kept the backoff only from the call.
func TestIndexBackoffFromTheDeleteCall(t *testing.T) {
	for _, c := range []struct {
		name     string
		seenCall bool // a view showed the pod terminating
		want     []string
	}{
		{name: "delete call seen", seenCall: true},
		{name: "only the stored pod", want: []string{"backoff"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(1)
			w.job.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
			w.job.Spec.BackoffLimitPerIndex = ptr(int32(1))
			old := w.addPod("old", corev1.PodFailed)
			old.Obj.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "0"}
			stop := metav1.NewTime(w.now.Add(-8 * time.Second))
			old.Obj.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "main", State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: 143, FinishedAt: stop}}}}
			old.Obj.DeletionTimestamp, old.Obj.DeletionGracePeriodSeconds = &stop, ptr(int64(0))
			w.pods[0].Index = 0
			k := New(w, jobsync.Options{}, fin, 1)
			if c.seenCall {
				viewed := old.Obj.DeepCopy()
				viewed.Status = corev1.PodStatus{Phase: corev1.PodRunning}
				due := metav1.NewTime(w.now.Add(-5 * time.Second))
				viewed.DeletionTimestamp, viewed.DeletionGracePeriodSeconds = &due, ptr(int64(5))
				k.noteDeleteCall(viewed)
			}
			created := w.addPod("new", corev1.PodPending)
			created.Obj.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: "0", batchv1.JobIndexFailureCountAnnotation: "1"}
			created.Index = 0
			k.Created(created, &jobsync.Plan{}, w.snapshot())
			if got := rules(k.Take()); !slices.Equal(got, c.want) {
				t.Errorf("violations %v, want %v", got, c.want)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
