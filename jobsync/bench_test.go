package jobsync_test

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// The benchmarks measure Reconcile on Jobs of 10 to 100,000 pods in three
// shapes, beside a floor that only visits each pod once and counts phases:
//
//   - steady: every pod runs and is ready, the status says so; nothing to do;
//   - tracking: a third of the pods just succeeded and must be recorded and
//     released (the 500-per-sync cap is in play from 1,500 pods on);
//   - manage: parallelism dropped to a tenth (NonIndexed: mass deletion) or
//     a Job with N pending indexes and none running (Indexed: creation).
//
// Reproduce the README table with:
//
//	go test ./jobsync -run '^$' -bench . -benchmem -count 6 | tee new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest new.txt
var benchSizes = []int{10, 100, 1000, 10000, 100000}

var benchNow = time.Date(2026, 1, 1, 1, 0, 0, 0, time.UTC)

func benchJob(n int, indexed bool) *batchv1.Job {
	spec := batchv1.JobSpec{Completions: ptr(int32(n)), Parallelism: ptr(int32(n))}
	if indexed {
		spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	}
	job := scenarioJob(batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "bench"}, Spec: spec})
	job.Status = batchv1.JobStatus{
		StartTime:               &metav1.Time{Time: benchNow.Add(-time.Hour)},
		Active:                  int32(n),
		Ready:                   ptr(int32(n)),
		Terminating:             ptr(int32(0)),
		UncountedTerminatedPods: &batchv1.UncountedTerminatedPods{},
	}
	return job
}

func benchPods(job *batchv1.Job, n int, indexed bool, phase func(i int) corev1.PodPhase) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range n {
		ps := podShorthand{Name: fmt.Sprintf("bench-%06d", i), Phase: phase(i), Ready: phase(i) == corev1.PodRunning,
			Created: &metav1.Time{Time: benchNow.Add(-time.Duration(i) * time.Millisecond)}}
		if indexed {
			ps.Index = ptr(i)
		}
		pods[i] = podFor(job, ps, batchv1.JobTrackingFinalizer)
	}
	return pods
}

func running(int) corev1.PodPhase { return corev1.PodRunning }

// floor visits every pod once and counts phases: no algorithm can do less.
func floor(pods []*corev1.Pod) (active, succeeded, failed int) {
	for _, p := range pods {
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			succeeded++
		case corev1.PodFailed:
			failed++
		default:
			if p.DeletionTimestamp == nil {
				active++
			}
		}
	}
	return
}

// semanticFloor reads, once per pod, the fields upstream's rules oblige any
// faithful reimplementation to read on every sync: the namespace, the
// controller owner reference, the selector's label, the phase, the deletion
// timestamp and the Ready condition. It decides nothing.
func semanticFloor(pods []*corev1.Pod, uid string) (active, ready, mine int) {
	for _, p := range pods {
		if p.Namespace == "" {
			continue
		}
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && string(ref.UID) == uid && p.Labels[batchv1.ControllerUidLabel] == uid {
			mine++
		}
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			active++
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
	}
	return
}

func benchReconcile(b *testing.B, s jobsync.Snapshot) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jobsync.Reconcile(s, jobsync.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFloor(b *testing.B) {
	for _, n := range benchSizes {
		job := benchJob(n, false)
		pods := benchPods(job, n, false, running)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				floor(pods)
			}
		})
	}
}

func BenchmarkSemanticFloor(b *testing.B) {
	for _, n := range benchSizes {
		job := benchJob(n, false)
		pods := benchPods(job, n, false, running)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				semanticFloor(pods, string(job.UID))
			}
		})
	}
}

func BenchmarkSteady(b *testing.B) {
	for _, indexed := range []bool{false, true} {
		for _, n := range benchSizes {
			job := benchJob(n, indexed)
			pods := benchPods(job, n, indexed, running)
			b.Run(fmt.Sprintf("%s/n=%d", mode(indexed), n), func(b *testing.B) {
				benchReconcile(b, jobsync.Snapshot{Job: job, Pods: pods, Now: benchNow})
			})
		}
	}
}

func BenchmarkTracking(b *testing.B) {
	for _, indexed := range []bool{false, true} {
		for _, n := range benchSizes {
			job := benchJob(n, indexed)
			pods := benchPods(job, n, indexed, func(i int) corev1.PodPhase {
				if i%3 == 0 {
					return corev1.PodSucceeded
				}
				return corev1.PodRunning
			})
			b.Run(fmt.Sprintf("%s/n=%d", mode(indexed), n), func(b *testing.B) {
				benchReconcile(b, jobsync.Snapshot{Job: job, Pods: pods, Now: benchNow})
			})
		}
	}
}

func BenchmarkManage(b *testing.B) {
	for _, n := range benchSizes {
		job := benchJob(n, false)
		job.Spec.Parallelism = ptr(int32(n / 10))
		pods := benchPods(job, n, false, running)
		b.Run(fmt.Sprintf("NonIndexed-scale-down/n=%d", n), func(b *testing.B) {
			benchReconcile(b, jobsync.Snapshot{Job: job, Pods: pods, Now: benchNow})
		})
	}
	for _, n := range benchSizes {
		job := benchJob(n, true)
		job.Status.Active, job.Status.Ready = 0, ptr(int32(0))
		b.Run(fmt.Sprintf("Indexed-create/n=%d", n), func(b *testing.B) {
			benchReconcile(b, jobsync.Snapshot{Job: job, Now: benchNow})
		})
	}
}

func mode(indexed bool) string {
	if indexed {
		return "Indexed"
	}
	return "NonIndexed"
}
