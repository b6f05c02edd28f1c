package backoff_test

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/backoff"
)

// genTime draws an instant near t0, now and then the zero time.
func genTime(t *rapid.T, label string) time.Time {
	if rapid.IntRange(0, 9).Draw(t, label+".zero?") == 0 {
		return time.Time{}
	}
	return at(time.Duration(rapid.IntRange(-600, 600).Draw(t, label)) * time.Second)
}

func genState(t *rapid.T, label string) corev1.ContainerState {
	switch rapid.IntRange(0, 3).Draw(t, label+".kind") {
	case 0:
		return running
	case 1:
		return corev1.ContainerState{}
	default:
		return terminated(genTime(t, label+".finished"))
	}
}

// genPod draws a finished-looking pod whose finish time may come from any
// of FinishTime's four sources.
func genPod(t *rapid.T, label string) *corev1.Pod {
	p := &corev1.Pod{}
	p.CreationTimestamp = metav1.NewTime(genTime(t, label+".created"))
	for i := range rapid.IntRange(0, 3).Draw(t, label+".containers") {
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses,
			corev1.ContainerStatus{Name: fmt.Sprintf("c%d", i), State: genState(t, fmt.Sprintf("%s.c%d", label, i))})
	}
	for i := range rapid.IntRange(0, 2).Draw(t, label+".inits") {
		policy := rapid.SampledFrom([]*corev1.ContainerRestartPolicy{nil, always}).Draw(t, fmt.Sprintf("%s.i%d.policy", label, i))
		initContainer(fmt.Sprintf("i%d", i), policy, genState(t, fmt.Sprintf("%s.i%d", label, i)))(p)
	}
	if rapid.Bool().Draw(t, label+".ready?") {
		s := rapid.SampledFrom([]corev1.ConditionStatus{corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown}).Draw(t, label+".ready")
		readyCond(s, genTime(t, label+".readyTime"))(p)
	}
	if rapid.Bool().Draw(t, label+".deleted?") {
		var grace *int64
		if rapid.Bool().Draw(t, label+".grace?") {
			grace = ptr(rapid.Int64Range(0, 120).Draw(t, label+".grace"))
		}
		deleted(genTime(t, label+".deletedAt"), grace)(p)
	}
	return p
}

func genPods(t *rapid.T, label string) []*corev1.Pod {
	return rapid.SliceOfN(rapid.Custom(func(t *rapid.T) *corev1.Pod { return genPod(t, label) }), 0, 6).Draw(t, label)
}

func genRecord(t *rapid.T) backoff.Record {
	r := backoff.Record{FailuresAfterLastSuccess: rapid.Int32Range(-2, 20).Draw(t, "prev.failures")}
	if rapid.Bool().Draw(t, "prev.last?") {
		r.LastFailureTime = ptr(genTime(t, "prev.last"))
	}
	return r
}

func latest(ts []time.Time) time.Time {
	m := ts[0]
	for _, x := range ts[1:] {
		if x.After(m) {
			m = x
		}
	}
	return m
}

// TestPropertyUpdate checks Update against a direct reading of its rule,
// with finish times from FinishTime, and that it never panics nor changes
// its inputs.
func TestPropertyUpdate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		prev := genRecord(t)
		succeeded, failed := genPods(t, "succeeded"), genPods(t, "failed")
		before := backoff.Record{FailuresAfterLastSuccess: prev.FailuresAfterLastSuccess}
		if prev.LastFailureTime != nil {
			before.LastFailureTime = ptr(*prev.LastFailureTime)
		}
		inS, inF := slices.Clone(succeeded), slices.Clone(failed)
		var deep []*corev1.Pod
		for _, p := range append(slices.Clone(succeeded), failed...) {
			deep = append(deep, p.DeepCopy())
		}

		got := prev.Update(succeeded, failed)

		var want backoff.Record
		var failTimes []time.Time
		for _, p := range failed {
			failTimes = append(failTimes, backoff.FinishTime(p))
		}
		switch {
		case len(succeeded) == 0 && len(failed) == 0:
			want = prev
		case len(succeeded) == 0:
			want = backoff.Record{
				FailuresAfterLastSuccess: prev.FailuresAfterLastSuccess + int32(len(failed)),
				LastFailureTime:          ptr(latest(failTimes)),
			}
		default:
			var succTimes []time.Time
			for _, p := range succeeded {
				succTimes = append(succTimes, backoff.FinishTime(p))
			}
			lastSuccess := latest(succTimes)
			var after []time.Time
			for _, ft := range failTimes {
				if ft.After(lastSuccess) {
					after = append(after, ft)
				}
			}
			if len(after) > 0 {
				want = backoff.Record{FailuresAfterLastSuccess: int32(len(after)), LastFailureTime: ptr(latest(after))}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Update (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(before, prev); diff != "" {
			t.Fatalf("receiver modified (-before +after):\n%s", diff)
		}
		if !slices.Equal(inS, succeeded) || !slices.Equal(inF, failed) {
			t.Fatalf("input slices reordered")
		}
		var after []*corev1.Pod
		for _, p := range append(slices.Clone(succeeded), failed...) {
			after = append(after, p.DeepCopy())
		}
		if diff := cmp.Diff(deep, after); diff != "" {
			t.Fatalf("pods modified (-before +after):\n%s", diff)
		}
	})
}

// TestPropertyRemainingBounded: with a base no larger than the cap and a
// failure time not after now, the wait is within [0, max], shrinks as time
// passes, is the full Delay at the failure instant and is over once the cap
// has elapsed.
func TestPropertyRemainingBounded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxD := time.Duration(rapid.Int64Range(1, int64(24*time.Hour)).Draw(t, "max"))
		base := time.Duration(rapid.Int64Range(1, int64(maxD)).Draw(t, "base"))
		r := backoff.Record{
			FailuresAfterLastSuccess: rapid.Int32Range(math.MinInt32, math.MaxInt32).Draw(t, "failures"),
			LastFailureTime:          ptr(at(time.Duration(rapid.Int64Range(-int64(time.Hour), int64(time.Hour)).Draw(t, "last")))),
		}
		since := time.Duration(rapid.Int64Range(0, int64(48*time.Hour)).Draw(t, "since"))
		later := since + time.Duration(rapid.Int64Range(0, int64(time.Hour)).Draw(t, "more"))
		now := r.LastFailureTime.Add(since)

		got := r.Remaining(now, base, maxD)
		if got < 0 || got > maxD {
			t.Fatalf("Remaining = %v, outside [0, %v]", got, maxD)
		}
		if next := r.Remaining(r.LastFailureTime.Add(later), base, maxD); next > got {
			t.Fatalf("Remaining grew from %v to %v as time passed", got, next)
		}
		if full := r.Remaining(*r.LastFailureTime, base, maxD); full != backoff.Delay(r.FailuresAfterLastSuccess, base, maxD) {
			t.Fatalf("Remaining at the failure instant = %v, Delay = %v", full, backoff.Delay(r.FailuresAfterLastSuccess, base, maxD))
		}
		if over := r.Remaining(r.LastFailureTime.Add(maxD), base, maxD); over != 0 {
			t.Fatalf("Remaining after the cap elapsed = %v", over)
		}
	})
}

// TestPropertyDelay: zero only for no failure; never above the cap when the
// base is not; non-decreasing as failures grow.
func TestPropertyDelay(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Caps up to half the largest Duration: doubling below such a cap cannot
		// overflow (above it upstream's arithmetic wraps, and so does ours).
		maxD := time.Duration(rapid.Int64Range(1, math.MaxInt64/2).Draw(t, "max"))
		base := time.Duration(rapid.Int64Range(1, int64(maxD)).Draw(t, "base"))
		n := rapid.Int32Range(1, math.MaxInt32-1).Draw(t, "failures")
		d, next := backoff.Delay(n, base, maxD), backoff.Delay(n+1, base, maxD)
		if d <= 0 || d > maxD {
			t.Fatalf("Delay(%d) = %v, outside (0, %v]", n, d, maxD)
		}
		if next < d {
			t.Fatalf("Delay(%d) = %v < Delay(%d) = %v", n+1, next, n, d)
		}
		if n == 1 && d != base {
			t.Fatalf("Delay(1) = %v, want base %v", d, base)
		}
	})
}

// TestPropertyFinishTimeSource: whatever sources are missing, zero or
// skewed, FinishTime answers with one of the times the pod carries.
func TestPropertyFinishTimeSource(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := genPod(t, "pod")
		got := backoff.FinishTime(p)
		// The answer is one of the times the pod carries.
		var candidates []time.Time
		for _, s := range append(slices.Clone(p.Status.ContainerStatuses), p.Status.InitContainerStatuses...) {
			if s.State.Terminated != nil {
				candidates = append(candidates, s.State.Terminated.FinishedAt.Time)
			}
		}
		for _, c := range p.Status.Conditions {
			candidates = append(candidates, c.LastTransitionTime.Time)
		}
		if p.DeletionTimestamp != nil {
			var g int64
			if p.DeletionGracePeriodSeconds != nil {
				g = *p.DeletionGracePeriodSeconds
			}
			candidates = append(candidates, p.DeletionTimestamp.Add(-time.Duration(g)*time.Second))
		}
		candidates = append(candidates, p.CreationTimestamp.Time)
		if !slices.ContainsFunc(candidates, got.Equal) {
			t.Fatalf("FinishTime = %v, not a time the pod carries: %v", got, candidates)
		}
	})
}
