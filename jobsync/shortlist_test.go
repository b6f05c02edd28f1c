package jobsync

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/podorder"
)

// chosenPod is what TestPropertyShortlistIsFirstRanked compares of a pod
// chosen for deletion.
type chosenPod struct {
	Name      string
	UID       types.UID
	Ready     bool
	Finalizer bool
}

// TestPropertyShortlistIsFirstRanked: the scan's shortlist (pods ranked as
// they are scanned, caught up at the first active pod past parallelism,
// bounded by MaxPodCreateDeletePerSync) holds exactly the pods that
// podorder.FirstRanked (FirstRankedIndexed) chooses from the active pods
// after the scan, in the same order, with the same readiness and the
// tracking finalizer as the pod carries it; the scan's ready count is
// IsReady's; and the scan ranks when the Job is suspended or has more
// active pods than parallelism, and otherwise not.
func TestPropertyShortlistIsFirstRanked(t *testing.T) {
	now := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	times := []time.Time{{}, now.Add(-time.Hour), now.Add(-time.Minute)}
	rapid.Check(t, func(t *rapid.T) {
		indexed := rapid.Bool().Draw(t, "indexed")
		suspended := rapid.Bool().Draw(t, "suspended")
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: "j", Namespace: "ns", UID: "job-uid"},
			Spec: batchv1.JobSpec{
				Parallelism: ptrInt32(int32(rapid.IntRange(0, 12).Draw(t, "parallelism"))),
				Completions: ptrInt32(6),
				Selector:    &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
				Suspend:     &suspended,
			},
		}
		if indexed {
			mode := batchv1.IndexedCompletion
			job.Spec.CompletionMode = &mode
		}
		opts := Options{MaxPodCreateDeletePerSync: rapid.IntRange(1, 10).Draw(t, "max")}.withDefaults()
		ref := metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "job-uid", Controller: ptr(true)}
		n := rapid.IntRange(0, 40).Draw(t, "pods")
		pods := make([]*corev1.Pod, n)
		for i := range pods {
			l := fmt.Sprintf("pod%d", i)
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
				Name:              rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, l+".name"),
				UID:               types.UID(strconv.Itoa(i)),
				Namespace:         "ns",
				Labels:            map[string]string{"app": "x"},
				CreationTimestamp: metav1.NewTime(rapid.SampledFrom(times).Draw(t, l+".created")),
			}}
			switch rapid.IntRange(0, 5).Draw(t, l+".owner") {
			case 0: // an orphan, adopted: the scan keeps a copy
			case 1: // another namespace: not the Job's
				p.Namespace = "other"
				p.OwnerReferences = []metav1.OwnerReference{ref}
			default:
				p.OwnerReferences = []metav1.OwnerReference{ref}
			}
			if rapid.Bool().Draw(t, l+".finalizer") {
				p.Finalizers = []string{batchv1.JobTrackingFinalizer}
			}
			if rapid.IntRange(0, 5).Draw(t, l+".deleting") == 0 {
				p.DeletionTimestamp = ptrTime(now)
			}
			p.Status.Phase = rapid.SampledFrom([]corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}).Draw(t, l+".phase")
			if rapid.Bool().Draw(t, l+".node") {
				p.Spec.NodeName = "n"
			}
			if c := rapid.IntRange(0, 2).Draw(t, l+".ready"); c > 0 {
				p.Status.Conditions = []corev1.PodCondition{{
					Type: corev1.PodReady, Status: []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue}[c-1],
					LastTransitionTime: metav1.NewTime(rapid.SampledFrom(times).Draw(t, l+".readySince")),
				}}
			}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: rapid.Int32Range(0, 1).Draw(t, l+".restarts")}}
			if ix := rapid.IntRange(-1, 7).Draw(t, l+".index"); ix >= 0 {
				p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: strconv.Itoa(ix)}
			}
			pods[i] = p
		}

		var plan Plan
		sync := newSyncState(Snapshot{Job: job, Pods: pods, Now: now}, opts)
		census, _, err := sync.scan(pods, 0, nil, nil, plan.Expectations.FinalizerRemovals, plan.memory())
		if err != nil {
			t.Fatalf("scan: %v", err)
		}
		active := census.activePods()
		ready := 0
		for _, p := range active {
			if podorder.IsReady(p) {
				ready++
			}
		}
		if int(census.counts.ready) != ready {
			t.Fatalf("the scan counts %d ready pods, IsReady %d", census.counts.ready, ready)
		}
		if want := suspended || len(active) > int(*job.Spec.Parallelism); census.shortlist.ranking != want {
			t.Fatalf("shortlist ranking %v, want %v (%d active, parallelism %d)", census.shortlist.ranking, want, len(active), *job.Spec.Parallelism)
		}
		if !census.shortlist.ranking {
			return
		}
		upTo := len(active)
		if !suspended {
			upTo = min(upTo, opts.MaxPodCreateDeletePerSync)
		}
		for k := 1; k <= upTo; k++ {
			got, ok := census.shortlist.first(k)
			if !ok {
				t.Fatalf("first(%d) of a shortlist that ranks: not held", k)
			}
			want := podorder.FirstRanked(active, k)
			if indexed {
				want = podorder.FirstRankedIndexed(active, k)
			}
			if diff := cmp.Diff(chosenOfRanks(want), chosenOfCandidates(got)); diff != "" {
				t.Fatalf("first(%d) (-FirstRanked +shortlist):\n%s", k, diff)
			}
		}
		if !suspended && len(active) > opts.MaxPodCreateDeletePerSync {
			if _, ok := census.shortlist.first(opts.MaxPodCreateDeletePerSync + 1); ok {
				t.Fatalf("first(%d) beyond the bound %d claims to hold the pods", opts.MaxPodCreateDeletePerSync+1, opts.MaxPodCreateDeletePerSync)
			}
		}
	})
}

func chosenOfRanks(ranks []podorder.Ranked) []chosenPod {
	var out []chosenPod
	for _, r := range ranks {
		p := r.Pod()
		out = append(out, chosenPod{p.Name, p.UID, r.Ready(), hasFinalizer(p, batchv1.JobTrackingFinalizer)})
	}
	return out
}

func chosenOfCandidates(cs []*candidate) []chosenPod {
	var out []chosenPod
	for _, c := range cs {
		out = append(out, chosenPod{c.pod().Name, c.pod().UID, c.rank.Ready(), c.finalizer})
	}
	return slices.Clip(out)
}

func ptr[T any](v T) *T { return &v }

// TestCandidateFillsOneCacheLine: the sort of a suspension compares
// candidates at random places in the list; at 64 bytes none straddles two
// cache lines.
func TestCandidateFillsOneCacheLine(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) != 8 {
		t.Skip("the layout is planned for 64-bit platforms")
	}
	if got := unsafe.Sizeof(candidate{}); got != 64 {
		t.Errorf("a candidate takes %d bytes, want 64", got)
	}
}
