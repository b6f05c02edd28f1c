package jobsync_test

import (
	"fmt"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobsync"
)

// withDone returns the snapshot with the pods for which hold says yes held
// in a SucceededPods made with opts instead of Pods (see holdIn), and how
// many were held.
func withDone(s jobsync.Snapshot, opts jobsync.Options, hold func(i int) bool) (jobsync.Snapshot, int) {
	s.Succeeded = jobsync.NewSucceededPods(s.Job, opts)
	s.Pods = holdIn(s.Pods, s.Succeeded, hold)
	return s, s.Succeeded.Len()
}

// TestPropertyHeldSucceededPods: for any generated snapshot, holding any of
// its succeeded pods that still carry the tracking finalizer in a
// SucceededPods (with or without the settled pods left out and the active
// ones held) gives the same plan, or an error exactly when the whole list
// gives one. The cap on uncounted pods is drawn low, so that the held pods
// the cap keeps back are reached; the test asserts the generator reaches
// held pods released, and held pods kept back by the cap.
func TestPropertyHeldSucceededPods(t *testing.T) {
	var cases, withDonePods, released, keptBack int
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		var opts jobsync.Options
		if rapid.Bool().Draw(t, "lowCap") {
			opts.MaxUncountedPods = rapid.IntRange(1, 3).Draw(t, "maxUncounted")
		}
		plan, err := jobsync.Reconcile(s, opts)
		if rapid.Bool().Draw(t, "settledOut") {
			s, _ = withoutSettled(s)
		}
		if rapid.Bool().Draw(t, "activeHeld") {
			s, _ = withHeld(s, func(int) bool { return true })
		}
		all := rapid.Bool().Draw(t, "holdAll")
		split, n := withDone(s, opts, func(int) bool { return all || rapid.Bool().Draw(t, "hold") })
		cases++
		got, err2 := jobsync.Reconcile(split, opts)
		if !checkSplitError(t, err, got, err2, split, fmt.Sprintf("%d succeeded pods", n)) || n == 0 {
			return
		}
		withDonePods++
		out := 0
		for _, r := range plan.FinalizerRemovals {
			if split.Succeeded.Has(r.Pod.UID) {
				out++
			}
		}
		if out > 0 {
			released++
		}
		if out < n {
			keptBack++
		}
		if d := diffIfUnequal(plan, got); d != "" {
			t.Fatalf("holding %d succeeded pods changes the plan:\n%s", n, d)
		}
	})
	if withDonePods*20 < cases || released*50 < cases || keptBack*50 < cases {
		t.Errorf("of %d snapshots, %d held succeeded pods, %d released one and %d kept one back: the generator does not reach the property", cases, withDonePods, released, keptBack)
	}
	t.Logf("of %d snapshots, %d held succeeded pods, %d released one and %d kept one back", cases, withDonePods, released, keptBack)
}

func TestSucceededPodsPut(t *testing.T) {
	job := exampleJob()
	other := exampleJob()
	other.UID = "another-job"
	indexed := exampleJob()
	indexed.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	tests := []struct {
		name   string
		job    *batchv1.Job
		opts   jobsync.Options
		change func(p *corev1.Pod)
		want   bool
	}{
		{name: "succeeded with the finalizer, controlled and selected", want: true},
		{name: "being deleted makes no difference to a succeeded pod", change: func(p *corev1.Pod) { p.DeletionTimestamp = ptrTime(genEpoch) }, want: true},
		{name: "without the finalizer (settled)", change: func(p *corev1.Pod) { p.Finalizers = nil }},
		{name: "another tracking finalizer", opts: jobsync.Options{TrackingFinalizer: "example.com/track"}},
		{name: "the caller's own tracking finalizer", opts: jobsync.Options{TrackingFinalizer: "example.com/track"},
			change: func(p *corev1.Pod) { p.Finalizers = []string{"example.com/track"} }, want: true},
		{name: "failed", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }},
		{name: "running", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }},
		{name: "labels no longer selected", change: func(p *corev1.Pod) { p.Labels = nil }},
		{name: "orphan", change: func(p *corev1.Pod) { p.OwnerReferences = nil }},
		{name: "controlled by another Job", job: other},
		{name: "another namespace", change: func(p *corev1.Pod) { p.Namespace = "elsewhere" }},
		{name: "an Indexed Job", job: indexed},
		{name: "a Job with a pod failure policy", job: withPodFailurePolicy(exampleJob())},
		{name: "no Job", job: (*batchv1.Job)(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := settledPod(job)
			p.Finalizers = []string{batchv1.JobTrackingFinalizer}
			if tc.change != nil {
				tc.change(p)
			}
			setJob := job
			if tc.job != nil || tc.name == "no Job" {
				setJob = tc.job
			}
			set := jobsync.NewSucceededPods(setJob, tc.opts)
			if got := set.Put(p); got != tc.want {
				t.Fatalf("Put = %v, want %v", got, tc.want)
			}
			if got := set.Has(p.UID); got != tc.want {
				t.Errorf("Has = %v after Put, want %v", got, tc.want)
			}
		})
	}
}

// TestSucceededPodsOfAnotherJob: Reconcile refuses a set made for another
// Job, another completion mode, pod failure policy or tracking finalizer.
func TestSucceededPodsOfAnotherJob(t *testing.T) {
	job := exampleJob()
	other := exampleJob()
	other.UID = "another-job"
	indexed := exampleJob()
	indexed.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	for name, set := range map[string]*jobsync.SucceededPods{
		"another Job":                jobsync.NewSucceededPods(other, jobsync.Options{}),
		"an Indexed Job":             jobsync.NewSucceededPods(indexed, jobsync.Options{}),
		"a pod failure policy":       jobsync.NewSucceededPods(withPodFailurePolicy(exampleJob()), jobsync.Options{}),
		"another tracking finalizer": jobsync.NewSucceededPods(job, jobsync.Options{TrackingFinalizer: "example.com/track"}),
		"no Job":                     jobsync.NewSucceededPods(nil, jobsync.Options{}),
	} {
		if _, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Succeeded: set, Now: genEpoch}, jobsync.Options{}); err == nil {
			t.Errorf("a set made for %s was taken", name)
		}
	}
	if _, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Succeeded: jobsync.NewSucceededPods(job, jobsync.Options{}), Now: genEpoch}, jobsync.Options{}); err != nil {
		t.Errorf("an empty set of the Job itself: %v", err)
	}
}

// TestSucceededPodsRepeatedUID: two pods that count with one UID are an
// input error, one of them held or not.
func TestSucceededPodsRepeatedUID(t *testing.T) {
	job := exampleJob()
	a := settledPod(job)
	a.Finalizers = []string{batchv1.JobTrackingFinalizer}
	b := a.DeepCopy()
	b.Name = a.Name + "-twin"
	if _, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{a, b}, Now: genEpoch}, jobsync.Options{}); err == nil {
		t.Fatal("two counted pods with one UID, both listed, are not an error: the case does not test what it should")
	}
	set := jobsync.NewSucceededPods(job, jobsync.Options{})
	if !set.Put(a) {
		t.Fatal("the succeeded pod is not held")
	}
	_, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{b}, Succeeded: set, Now: genEpoch}, jobsync.Options{})
	if err == nil {
		t.Fatal("two counted pods with one UID, one held, are not an error")
	}
	t.Log(err)
}
