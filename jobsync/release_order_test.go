package jobsync_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/jobsync"
)

// monoBase is an instant with a monotonic clock reading, as metav1.Now()
// gives in-process: time.Time.Compare orders two such instants by their
// monotonic readings, and the release order must follow it.
var monoBase = time.Now()

// TestPropertyReleaseOrderAcrossTheCap specifies the order in which a
// NonIndexed Job's finished pods lose their tracking finalizer: the
// canonical order (the Job's own pods before adopted ones, then creation
// time, name and UID), taken until the pods newly recorded in
// uncountedTerminatedPods reach MaxUncountedPods. Pods already recorded
// there are released again without being recorded, so they do not count
// towards the cap, and the release may run past the first cap's worth of
// pods. Creation times and names repeat, so that every key decides some
// pairs; some creation times carry a monotonic reading.
func TestPropertyReleaseOrderAcrossTheCap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{
			Parallelism: ptr(int32(5)), Completions: ptr(int32(1000)), BackoffLimit: ptr(int32(1000)),
		}})
		job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{}
		maxUncounted := rapid.IntRange(1, 6).Draw(t, "maxUncounted")
		n := rapid.IntRange(0, 40).Draw(t, "pods")
		uids := rapid.Permutation(seq(n)).Draw(t, "uids")
		type drawn struct {
			pod      *corev1.Pod
			adopted  bool
			recorded bool
		}
		var all []drawn
		for i := range n {
			created := monoBase.Add(time.Duration(rapid.IntRange(0, 2).Draw(t, "created")) * time.Second)
			if rapid.Bool().Draw(t, "wallOnly") {
				created = created.Round(0)
			}
			ps := podShorthand{
				Name:    rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "name"),
				UID:     fmt.Sprintf("uid-%02d", uids[i]),
				Phase:   rapid.SampledFrom([]corev1.PodPhase{corev1.PodSucceeded, corev1.PodFailed}).Draw(t, "phase"),
				Created: &metav1.Time{Time: created},
			}
			d := drawn{adopted: rapid.IntRange(0, 3).Draw(t, "orphan") == 0}
			if d.adopted {
				ps.Owner = "none"
				ps.NoFinalizer = rapid.Bool().Draw(t, "noFinalizer")
			} else {
				d.recorded = rapid.IntRange(0, 2).Draw(t, "recorded") == 0
			}
			d.pod = podFor(job, ps, batchv1.JobTrackingFinalizer)
			if d.recorded {
				u := job.Status.UncountedTerminatedPods
				if ps.Phase == corev1.PodSucceeded {
					u.Succeeded = append(u.Succeeded, d.pod.UID)
				} else {
					u.Failed = append(u.Failed, d.pod.UID)
				}
			}
			all = append(all, d)
		}

		// The model: sort every pod canonically, release in that order
		// until the newly recorded ones fill what the cap leaves.
		sorted := slices.Clone(all)
		slices.SortFunc(sorted, func(a, b drawn) int {
			if a.adopted != b.adopted {
				if b.adopted {
					return -1
				}
				return 1
			}
			if c := a.pod.CreationTimestamp.Compare(b.pod.CreationTimestamp.Time); c != 0 {
				return c
			}
			if c := strings.Compare(a.pod.Name, b.pod.Name); c != 0 {
				return c
			}
			return strings.Compare(string(a.pod.UID), string(b.pod.UID))
		})
		room := maxUncounted - len(job.Status.UncountedTerminatedPods.Succeeded) - len(job.Status.UncountedTerminatedPods.Failed)
		var want []types.UID
		for _, d := range sorted {
			want = append(want, d.pod.UID)
			if !d.recorded {
				room--
			}
			if room <= 0 {
				break
			}
		}

		pods := make([]*corev1.Pod, len(all))
		for i, d := range all {
			pods[i] = d.pod
		}
		plan, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: monoBase.Add(time.Minute)},
			jobsync.Options{MaxUncountedPods: maxUncounted})
		if err != nil {
			t.Fatalf("Reconcile: %v", err)
		}
		var got []types.UID
		for _, r := range plan.FinalizerRemovals {
			got = append(got, r.Pod.UID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("finalizer removals\n got  %v\n want %v", got, want)
		}
	})
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// TestRepeatedUIDNamesTheFirstRepeatAndItsFirstTwin pins which pods the
// repeated-UID error names when a UID is shared by several pods to count
// and another UID repeats later: the first pod whose UID an earlier one
// has, and the first of those earlier ones. A pod not counted (running)
// with the same UID does not take part.
func TestRepeatedUIDNamesTheFirstRepeatAndItsFirstTwin(t *testing.T) {
	job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{Parallelism: ptr(int32(5)), Completions: ptr(int32(5))}})
	mk := func(name, uid string, phase corev1.PodPhase) *corev1.Pod {
		return podFor(job, podShorthand{Name: name, UID: uid, Phase: phase}, batchv1.JobTrackingFinalizer)
	}
	pods := []*corev1.Pod{
		mk("running-x", "x", corev1.PodRunning),
		mk("a", "y", corev1.PodSucceeded),
		mk("b", "x", corev1.PodSucceeded),
		mk("c", "z", corev1.PodFailed),
		mk("d", "z", corev1.PodSucceeded),
		mk("e", "x", corev1.PodSucceeded),
		mk("f", "x", corev1.PodFailed),
	}
	_, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}, jobsync.Options{})
	want := &jobsync.InputError{Field: "pods[4].metadata.uid", Value: types.UID("z"), Msg: "is also the UID of pods[3]"}
	if got, ok := err.(*jobsync.InputError); !ok || *got != *want {
		t.Fatalf("got %#v, want %#v", err, want)
	}
	// Without the z pair, x repeats first: pods[5] and its first twin
	// among the pods to count, pods[2].
	pods = append(pods[:3], pods[5:]...)
	_, err = jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}, jobsync.Options{})
	want = &jobsync.InputError{Field: "pods[3].metadata.uid", Value: types.UID("x"), Msg: "is also the UID of pods[2]"}
	if got, ok := err.(*jobsync.InputError); !ok || *got != *want {
		t.Fatalf("got %#v, want %#v", err, want)
	}
}

// TestPropertyRepeatedUIDsAmongPodsToCount: a UID shared by two pods that
// are terminal or being deleted and carry the tracking finalizer is an
// InputError naming the first such pod whose UID an earlier one has, and
// the first of those earlier ones; UIDs shared with other pods (running,
// or without the finalizer) are no error.
func TestPropertyRepeatedUIDsAmongPodsToCount(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	rapid.Check(t, func(t *rapid.T) {
		job := scenarioJob(batchv1.Job{Spec: batchv1.JobSpec{
			Parallelism: ptr(int32(100)), Completions: ptr(int32(100)), BackoffLimit: ptr(int32(1000)),
		}})
		n := rapid.IntRange(0, 120).Draw(t, "pods")
		distinct := rapid.IntRange(1, 200).Draw(t, "distinctUIDs")
		var pods []*corev1.Pod
		var wantErr *jobsync.InputError
		first := map[string]int{}
		for i := range n {
			uid := fmt.Sprintf("uid-%d", rapid.IntRange(0, distinct-1).Draw(t, "uid"))
			ps := podShorthand{
				Name:  fmt.Sprintf("p%d", i),
				UID:   uid,
				Phase: rapid.SampledFrom([]corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}).Draw(t, "phase"),
			}
			if rapid.IntRange(0, 4).Draw(t, "deleting") == 0 {
				ps.Deleted = &metav1.Time{Time: now.Add(-time.Second)}
			}
			ps.NoFinalizer = rapid.IntRange(0, 4).Draw(t, "noFinalizer") == 0
			pods = append(pods, podFor(job, ps, batchv1.JobTrackingFinalizer))
			counted := !ps.NoFinalizer && (ps.Phase != corev1.PodRunning || ps.Deleted != nil)
			if !counted || wantErr != nil {
				continue
			}
			if j, seen := first[uid]; seen {
				wantErr = &jobsync.InputError{Field: fmt.Sprintf("pods[%d].metadata.uid", i), Value: types.UID(uid), Msg: fmt.Sprintf("is also the UID of pods[%d]", j)}
			} else {
				first[uid] = i
			}
		}
		_, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: pods, Now: now}, jobsync.Options{})
		if wantErr == nil {
			if err != nil {
				t.Fatalf("Reconcile: %v", err)
			}
			return
		}
		if got, ok := err.(*jobsync.InputError); !ok || *got != *wantErr {
			t.Fatalf("got %#v, want %#v", err, wantErr)
		}
	})
}
