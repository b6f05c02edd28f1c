package jobsync_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/jobsync/jobsync/internal/testsupport/benchsnap"
	"github.com/jobsync/jobsync/jobsync"
)

// BenchmarkSteadyHeld measures the steady sync (benchsnap.Steady: every pod
// runs and is ready, the status says so) of a Job of 100,000 active pods,
// with the pods in Snapshot.Pods (pods=listed, as BenchmarkSteady) and
// with all of them held in an ActivePods (pods=held), as an event-keeping
// caller hands them over. The set is filled before the clock starts: a
// caller fills it once and then puts only the pods that change. Before
// measuring, the held sync is checked to plan as the listed one does.
//
//	go test ./jobsync -run '^$' -bench 'SteadyHeld|ActivePodsPut' -benchmem -count 5
func BenchmarkSteadyHeld(b *testing.B) {
	const n = 100_000
	for _, m := range []benchsnap.Mode{benchsnap.NonIndexed, benchsnap.Indexed} {
		for _, pods := range []string{"listed", "held"} {
			b.Run(fmt.Sprintf("mode=%s/n=%d/pods=%s", m, n, pods), func(b *testing.B) {
				s := benchsnap.Steady(n, m)
				if pods == "held" {
					want, err := jobsync.Reconcile(s, jobsync.Options{})
					if err != nil {
						b.Fatal(err)
					}
					s = holdAll(b, s)
					got, err := jobsync.Reconcile(s, jobsync.Options{})
					if err != nil || !reflect.DeepEqual(want, got) {
						b.Fatalf("held, the steady sync plans otherwise (error %v):\n%s", err, diffIfUnequal(want, got))
					}
				}
				benchReconcile(b, s)
			})
		}
	}
}

// BenchmarkActivePodsPut measures what the caller pays per pod event: the
// Put of a new version of a pod the set holds (a status update), in a set
// of 100,000 pods of a steady Job.
func BenchmarkActivePodsPut(b *testing.B) {
	const n = 100_000
	for _, m := range []benchsnap.Mode{benchsnap.NonIndexed, benchsnap.Indexed} {
		b.Run(fmt.Sprintf("mode=%s/n=%d", m, n), func(b *testing.B) {
			s := holdAll(b, benchsnap.Steady(n, m))
			// Other objects for 1,024 of the pods held (the builder gives
			// the same UIDs): every Put replaces a pod the set holds.
			again := benchsnap.Steady(n, m).Pods[:1024]
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if !s.Active.Put(again[i%len(again)]) {
					b.Fatal("a running pod was not taken")
				}
				i++
			}
		})
	}
}

// holdAll returns s with every pod held in an ActivePods of its Job, and
// fails unless the set takes them all.
func holdAll(b *testing.B, s jobsync.Snapshot) jobsync.Snapshot {
	b.Helper()
	held, n := withHeld(s, func(int) bool { return true })
	if n != len(s.Pods) || len(held.Pods) != 0 {
		b.Fatalf("the set took %d of %d pods", n, len(s.Pods))
	}
	return held
}

// BenchmarkShapesHeld measures every sync shape of BenchmarkSteady and its
// siblings with the pods kept as jobsynctest's view keeps them: the
// settled ones left out, the active ones held in an ActivePods, a
// NonIndexed Job's succeeded ones still carrying the finalizer held in a
// SucceededPods, only the others listed. The sets are filled before the
// clock starts (a caller fills them as events arrive), and each held sync
// is first checked to plan as the listed one does. The listed figures are
// BenchmarkSteady's and its siblings'.
//
//	go test ./jobsync -run '^$' -bench 'ShapesHeld' -benchmem
func BenchmarkShapesHeld(b *testing.B) {
	shapes := []struct {
		name string
		make func(int, benchsnap.Mode) jobsync.Snapshot
	}{
		{"Steady", benchsnap.Steady}, {"Tracking", benchsnap.Tracking}, {"ScaleDown", benchsnap.ScaleDown},
		{"Suspend", benchsnap.Suspend}, {"Create", benchsnap.Create},
	}
	for _, n := range []int{10_000, 100_000} {
		for _, shape := range shapes {
			for _, m := range []benchsnap.Mode{benchsnap.NonIndexed, benchsnap.Indexed} {
				if shape.name == "Create" && m == benchsnap.NonIndexed {
					continue // as in BenchmarkCreate: the Indexed Job's creations are the ones that read
				}
				b.Run(fmt.Sprintf("shape=%s/mode=%s/n=%d", shape.name, m, n), func(b *testing.B) {
					s := shape.make(n, m)
					want, err := jobsync.Reconcile(s, jobsync.Options{})
					if err != nil {
						b.Fatal(err)
					}
					s, _ = withoutSettled(s)
					s, _ = withHeld(s, func(int) bool { return true })
					s, _ = withDone(s, jobsync.Options{}, func(int) bool { return true })
					got, err := jobsync.Reconcile(s, jobsync.Options{})
					if err != nil || !reflect.DeepEqual(want, got) {
						b.Fatalf("held, the sync plans otherwise (error %v):\n%s", err, diffIfUnequal(want, got))
					}
					benchReconcile(b, s)
					// After the loop: starting it resets the reported metrics.
					b.ReportMetric(float64(len(s.Pods)), "pods-listed")
				})
			}
		}
	}
}
