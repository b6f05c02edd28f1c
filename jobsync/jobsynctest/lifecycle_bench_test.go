package jobsynctest_test

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// lifecycleMax bounds the sizes BenchmarkLifecycle runs: the million-pod
// Job takes minutes and gigabytes, so it runs only when asked for.
var lifecycleMax = flag.Int("lifecycle.max", 100_000, "largest completions count BenchmarkLifecycle runs (1000000 for the million-pod Job)")

// BenchmarkLifecycle plays a whole Job in the fake cluster, from creation
// to Complete: completions N, parallelism N/10, every pod starts 2s after
// its creation and succeeds 60s later. It reports, beside the time of a
// lifecycle, the syncs it took, the time per sync and the peak resident
// set size of the process during the lifecycle (Linux: VmHWM, reset
// before each iteration through /proc/self/clear_refs), and the process's
// CPU time per lifecycle and per pod of the Job, and the pods listed to
// its syncs (the sum over syncs of the pods in Snapshot.Pods: the pods the
// view did not settle or hold in a set, each of which a sync reads).
//
//	go test ./jobsync/jobsynctest -run '^$' -bench Lifecycle -benchtime 1x -count 5
//	go test ./jobsync/jobsynctest -run '^$' -bench 'Lifecycle/.*/n=1000000$' -benchtime 1x -lifecycle.max 1000000 -timeout 2h
func BenchmarkLifecycle(b *testing.B) {
	for _, mode := range []batchv1.CompletionMode{batchv1.IndexedCompletion, batchv1.NonIndexedCompletion} {
		for n := 1000; n <= *lifecycleMax; n *= 10 {
			b.Run(fmt.Sprintf("mode=%s/n=%d", mode, n), func(b *testing.B) {
				var syncs int
				var listed int64
				var peak int64
				var elapsed, cpu time.Duration
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					job := lifecycleJob(n, mode)
					runtime.GC()
					debug.FreeOSMemory()
					resetPeakRSS()
					b.StartTimer()
					start, cpu0 := time.Now(), cpuTime()
					c, err := jobsynctest.NewCluster(job, lifecycleConfig())
					if err != nil {
						b.Fatal(err)
					}
					res, err := c.Run()
					if err != nil {
						b.Fatal(err)
					}
					elapsed += time.Since(start)
					cpu += cpuTime() - cpu0
					b.StopTimer()
					if res.Outcome != jobsynctest.OutcomeComplete || res.Job.Status.Succeeded != int32(n) {
						b.Fatalf("outcome %s, succeeded %d of %d after %d syncs", res.Outcome, res.Job.Status.Succeeded, n, res.Syncs)
					}
					syncs += res.Syncs
					listed += jobsynctest.PodsListed(c)
					peak = max(peak, peakRSS())
					b.StartTimer()
				}
				b.ReportMetric(float64(syncs)/float64(b.N), "syncs/op")
				b.ReportMetric(float64(elapsed.Nanoseconds())/float64(syncs), "ns/sync")
				b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
				b.ReportMetric(float64(listed)/float64(b.N), "pods-listed/op")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/pod")
				if peak > 0 {
					b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
				}
			})
		}
	}
}

// lifecycleJob is the Job of BenchmarkLifecycle.
func lifecycleJob(n int, mode batchv1.CompletionMode) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "scale", Namespace: "default", UID: "5ca1e000-0000-4000-8000-000000000001"},
		Spec: batchv1.JobSpec{
			Completions:    ptr(int32(n)),
			Parallelism:    ptr(int32(n / 10)),
			CompletionMode: ptr(mode),
			BackoffLimit:   ptr(int32(6)),
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
			}},
		},
	}
}

func lifecycleConfig() jobsynctest.Config {
	return jobsynctest.Config{
		Script:       jobsynctest.Script{Default: &jobsynctest.Behavior{StartDelay: 2 * time.Second, RunTime: 60 * time.Second}},
		MaxSyncs:     1 << 30,
		DiscardSteps: true,
		DiscardPods:  true,
	}
}

// cpuTime is the CPU time the process used so far (user and system, every
// thread: the garbage collector's too). On a shared machine it is steadier
// than the wall clock, which counts the time other processes ran.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// resetPeakRSS resets the kernel's high-water mark of the resident set
// (Linux 4.0 and later); elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS reads VmHWM, the peak resident set size, in bytes; 0 where
// /proc is missing.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// BenchmarkPodLookup measures what the simulator's event handling does at
// every pod event, at the sizes of BenchmarkLifecycle: find a pod by UID
// in a map of n pods and read a field of it, in random order. The work is
// the same at every n; the time per lookup grows with n only because the
// map and the pods stop fitting in the processor's caches. It is the
// yardstick for the lifecycles' growth beyond n log n (BENCHMARKS.md).
//
//	go test ./jobsync/jobsynctest -run '^$' -bench PodLookup
func BenchmarkPodLookup(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			pods := make(map[types.UID]*corev1.Pod, n)
			uids := make([]types.UID, n)
			for i := range n {
				uids[i] = types.UID(fmt.Sprintf("5ca1e000-0000-4000-8000-%012d", i))
				pods[uids[i]] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: uids[i], Name: fmt.Sprint("p-", i)}}
			}
			rand.New(rand.NewPCG(1, 2)).Shuffle(n, func(i, j int) { uids[i], uids[j] = uids[j], uids[i] })
			b.ResetTimer()
			var sum int
			for i := 0; i < b.N; i++ {
				sum += len(pods[uids[i%n]].Name)
			}
			if sum == 0 {
				b.Fatal("no pod found")
			}
		})
	}
}
