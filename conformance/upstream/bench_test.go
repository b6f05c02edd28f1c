package upstream

// Benchmarks of upstream's syncJob beside jobsync.Reconcile, on the
// snapshots of internal/testsupport/benchsnap, in one run on one machine:
//
//	BenchmarkUpstream/shape=Steady/mode=NonIndexed/n=10000
//	BenchmarkOurs/shape=Steady/mode=NonIndexed/n=10000
//	BenchmarkFloor/n=10000, BenchmarkSemanticFloor/n=10000
//	BenchmarkShapeFloor/shape=Suspend/mode=NonIndexed/n=10000
//
// benchstat -col .name compares the first two (BENCHMARKS.md has the
// commands and the table).
//
// What is measured on the upstream side: the syncJob call alone. Building
// the controller (fake clientset, informer factory, NewController, filling
// the informer indexers with the Job and its pods) and tearing it down
// happen for every iteration with the timer stopped (b.StopTimer /
// b.StartTimer), so they are excluded from ns/op and allocs/op. Garbage
// collection is switched off while syncJob runs and done with the timer
// stopped (collect), so upstream's ns/op excludes GC work, and its
// setup garbage is never collected on its clock; Reconcile's ns/op includes
// its (small) GC cost. Both choices favour upstream.
//
// Upstream's side effects go to a sink that counts them: pod creations
// build the pod from the template as the real pod control does before its
// API call (podToCreate, shared with the recorder); deletions, patches, status
// writes, events and requeues only count. The conformance recorder
// (recorder.go) is not used: its per-call stack walk and patch decoding
// would be charged to upstream.
//
// Upstream's pods are the snapshot's pods (deep-copied once per
// sub-benchmark, not per iteration): syncJob treats informer objects as
// read-only, which TestBenchLeavesPodsAlone checks.

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"

	"github.com/jobsync/jobsync/internal/testsupport/benchsnap"
	"github.com/jobsync/jobsync/jobsync"
)

func BenchmarkFloor(b *testing.B) { benchsnap.BenchFloor(b) }

func BenchmarkSemanticFloor(b *testing.B) { benchsnap.BenchSemanticFloor(b) }

func BenchmarkShapeFloor(b *testing.B) { benchsnap.BenchShapeFloor(b) }

func BenchmarkOurs(b *testing.B) {
	forEachCase(b, func(b *testing.B, s jobsync.Snapshot) {
		b.ReportAllocs()
		cpu, iters := cpuTime(), 0
		for b.Loop() {
			if _, err := jobsync.Reconcile(s, jobsync.Options{}); err != nil {
				b.Fatal(err)
			}
			iters++
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(iters), "cpu-ns/op")
	})
}

func BenchmarkUpstream(b *testing.B) {
	forEachCase(b, func(b *testing.B, s jobsync.Snapshot) {
		b.StopTimer()
		b.ReportAllocs()
		pods := make([]*corev1.Pod, len(s.Pods))
		for i, p := range s.Pods {
			pods[i] = p.DeepCopy()
		}
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		var want benchCounts
		var cpu time.Duration
		// A plain b.N loop: b.Loop requires the timer running when it
		// starts and ends.
		for i := range b.N {
			c := newBenchController(b, s, pods)
			collect(len(pods) >= 1000)
			b.StartTimer()
			start := cpuTime()
			err := c.sync()
			cpu += cpuTime() - start
			b.StopTimer()
			c.close()
			if err != nil {
				b.Fatalf("syncJob: %v", err)
			}
			got := c.sink.counts()
			if i == 0 {
				want = got
				checkAgainstPlan(b, s, got)
			} else if got != want {
				b.Fatalf("iteration %d did %+v, the first did %+v", i, got, want)
			}
		}
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	})
}

// collect runs the garbage collector when always is set or 64 MiB or more
// have been allocated since it last did, so that with GC switched off the
// heap stays bounded. It is called with the timer stopped. From 1,000 pods
// on every timed syncJob starts on a freshly collected heap; below, where
// syncJob takes tens of microseconds and a collection milliseconds, about
// every few hundred iterations.
func collect(always bool) {
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(sample)
	if allocs := sample[0].Value.Uint64(); always || allocs-allocsAtGC >= 64<<20 {
		runtime.GC()
		allocsAtGC = allocs
	}
}

var allocsAtGC uint64

// cpuTime is the CPU time the process has used, in user and system mode,
// on all its threads. cpu-ns/op, beside ns/op, is robust to time slices
// lost to other processes on a shared machine; on the upstream side it
// counts the goroutines syncJob starts for parallel creates and deletes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// forEachCase runs f as a sub-benchmark named shape=…/mode=…/n=… for every
// case of benchsnap.
func forEachCase(b *testing.B, f func(*testing.B, jobsync.Snapshot)) {
	for _, sh := range benchsnap.Shapes {
		for _, m := range sh.Modes {
			for _, n := range benchsnap.Sizes {
				name := fmt.Sprintf("shape=%s/mode=%s/n=%d", sh.Name, m, n)
				// Build only the cases -bench selects, once: the
				// 100,000-pod snapshots take a while.
				var s *jobsync.Snapshot
				b.Run(name, func(b *testing.B) {
					if s == nil {
						b.StopTimer()
						v := sh.Build(n, m)
						s = &v
						b.StartTimer()
					}
					f(b, *s)
				})
			}
		}
	}
}

// checkAgainstPlan fails the benchmark unless upstream did, in numbers,
// what Reconcile plans for the same snapshot: the two sides must be
// measured doing the same work.
func checkAgainstPlan(b *testing.B, s jobsync.Snapshot, got benchCounts) {
	b.Helper()
	plan, err := jobsync.Reconcile(s, jobsync.Options{})
	if err != nil {
		b.Fatal(err)
	}
	writes := 0
	if plan.InterimStatus != nil {
		writes++
	}
	if plan.Status != nil {
		writes++
	}
	patches := len(plan.FinalizerRemovals) + len(plan.Adoptions) + len(plan.Releases)
	for _, d := range plan.Deletions {
		if d.RemoveFinalizer {
			patches++
		}
	}
	want := benchCounts{Creates: len(plan.Creations), Deletes: len(plan.Deletions), Patches: patches, Writes: writes, Events: len(plan.Events)}
	if got != want {
		b.Fatalf("upstream did %+v, the plan %+v", got, want)
	}
}

// benchController is one upstream controller set up for one syncJob call,
// with the sink in place of the conformance recorder.
type benchController struct {
	*driven
	sink *benchSink
}

// newBenchController builds the controller as run does and fills its pod
// indexer with pods, which it does not copy.
func newBenchController(b testing.TB, s jobsync.Snapshot, pods []*corev1.Pod) *benchController {
	sink := &benchSink{}
	d, err := newDriven(s.Job, s.Now, sink)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range pods {
		if err := d.podIndexer.Add(p); err != nil {
			b.Fatal(err)
		}
	}
	return &benchController{driven: d, sink: sink}
}

// benchCounts is what one sync did, in numbers.
type benchCounts struct {
	Creates, Deletes, Patches, Writes, Events int
}

// benchSink takes upstream's side effects and counts them. Upstream calls
// it from several goroutines at once.
type benchSink struct {
	creates, deletes, patches, writes, events, requeues atomic.Int64
}

var _ sideEffects = (*benchSink)(nil)

func (s *benchSink) counts() benchCounts {
	return benchCounts{
		Creates: int(s.creates.Load()), Deletes: int(s.deletes.Load()), Patches: int(s.patches.Load()),
		Writes: int(s.writes.Load()), Events: int(s.events.Load()),
	}
}

func (s *benchSink) CreatePods(ctx context.Context, namespace string, template *corev1.PodTemplateSpec, object kruntime.Object, controllerRef *metav1.OwnerReference) error {
	return s.CreatePodsWithGenerateName(ctx, namespace, template, object, controllerRef, "")
}

// CreatePodsWithGenerateName builds the pod as the real pod control does
// before its API call (podToCreate), and counts it.
func (s *benchSink) CreatePodsWithGenerateName(_ context.Context, namespace string, template *corev1.PodTemplateSpec, object kruntime.Object, controllerRef *metav1.OwnerReference, generateName string) error {
	if _, err := podToCreate(namespace, template, object, controllerRef, generateName); err != nil {
		return err
	}
	s.creates.Add(1)
	return nil
}

func (s *benchSink) DeletePod(context.Context, string, string, kruntime.Object) error {
	s.deletes.Add(1)
	return nil
}

func (s *benchSink) PatchPod(context.Context, string, string, []byte) error {
	s.patches.Add(1)
	return nil
}

func (s *benchSink) updateStatus(_ context.Context, job *batchv1.Job) (*batchv1.Job, error) {
	s.writes.Add(1)
	return job, nil
}

func (s *benchSink) patchJob(context.Context, *batchv1.Job, []byte) error {
	s.writes.Add(1)
	return nil
}

func (s *benchSink) Event(kruntime.Object, string, string, string) { s.events.Add(1) }

func (s *benchSink) Eventf(kruntime.Object, string, string, string, ...any) { s.events.Add(1) }

func (s *benchSink) AnnotatedEventf(kruntime.Object, map[string]string, string, string, string, ...any) {
	s.events.Add(1)
}

func (s *benchSink) requeue(string, time.Duration) { s.requeues.Add(1) }

// TestBenchLeavesPodsAlone checks what BenchmarkUpstream relies on to reuse
// one copy of the pods across iterations: syncJob does not modify the pods
// in its informer. It also runs each benchmark case once at a small size.
func TestBenchLeavesPodsAlone(t *testing.T) {
	for _, sh := range benchsnap.Shapes {
		for _, m := range sh.Modes {
			s := sh.Build(100, m)
			pods := make([]*corev1.Pod, len(s.Pods))
			for i, p := range s.Pods {
				pods[i] = p.DeepCopy()
			}
			for range 2 {
				c := newBenchController(t, s, pods)
				if err := c.sync(); err != nil {
					t.Fatalf("%s/%s: syncJob: %v", sh.Name, m, err)
				}
				c.close()
				if c.sink.counts() == (benchCounts{}) && sh.Name != "Steady" {
					t.Errorf("%s/%s: upstream did nothing", sh.Name, m)
				}
			}
			for i := range pods {
				if !equality.Semantic.DeepEqual(pods[i], s.Pods[i]) {
					t.Fatalf("%s/%s: syncJob modified pod %s", sh.Name, m, pods[i].Name)
				}
			}
		}
	}
}
