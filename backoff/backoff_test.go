package backoff_test

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/backoff"
)

var t0 = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

func ptr[T any](v T) *T { return &v }

var always = ptr(corev1.ContainerRestartPolicyAlways)

type podOpt func(*corev1.Pod)

func pod(opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{}
	for _, o := range opts {
		o(p)
	}
	return p
}

func terminated(t time.Time) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: metav1.NewTime(t)}}
}

var running = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}

// containers appends one regular container status per state.
func containers(states ...corev1.ContainerState) podOpt {
	return func(p *corev1.Pod) {
		for _, s := range states {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{State: s})
		}
	}
}

// initContainer declares an init container (policy nil: classic; Always:
// sidecar) and reports its status.
func initContainer(name string, policy *corev1.ContainerRestartPolicy, s corev1.ContainerState) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: name, RestartPolicy: policy})
		p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, corev1.ContainerStatus{Name: name, State: s})
	}
}

func readyCond(s corev1.ConditionStatus, t time.Time) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{
			Type: corev1.PodReady, Status: s, LastTransitionTime: metav1.NewTime(t),
		})
	}
}

func deleted(t time.Time, grace *int64) podOpt {
	return func(p *corev1.Pod) {
		p.DeletionTimestamp = ptr(metav1.NewTime(t))
		p.DeletionGracePeriodSeconds = grace
	}
}

func created(t time.Time) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(t) }
}

// TestFinishTime specifies the four sources of a pod's finish time, tried
// in turn, and what makes each source unusable.
func TestFinishTime(t *testing.T) {
	cases := []struct {
		name string
		pod  *corev1.Pod
		want time.Time
	}{
		// 1. containers
		{"all containers terminated: the latest finish, whatever the order",
			pod(containers(terminated(at(-time.Second)), terminated(at(0)), terminated(at(-2*time.Second))),
				readyCond(corev1.ConditionFalse, at(time.Hour)), deleted(at(2*time.Hour), nil), created(at(-time.Hour))),
			at(0)},
		{"one container still running: fall back to the deletion timestamp",
			pod(containers(terminated(at(-time.Second)), running, terminated(at(-2*time.Second))),
				deleted(at(0), nil)),
			at(0)},
		{"a terminated container without a finish time voids the containers' answer",
			pod(containers(terminated(at(-time.Second)), terminated(time.Time{})), created(at(-time.Hour))),
			at(-time.Hour)},
		{"a container status with no state at all voids the containers' answer",
			pod(containers(terminated(at(-time.Second)), corev1.ContainerState{}), created(at(-time.Hour))),
			at(-time.Hour)},
		{"no container statuses: not finished by containers",
			pod(created(at(-time.Hour))),
			at(-time.Hour)},
		{"a sidecar that finished after the regular containers gives the time",
			pod(containers(terminated(at(-time.Second))), initContainer("proxy", always, terminated(at(0)))),
			at(0)},
		{"a sidecar that finished before the regular containers does not",
			pod(containers(terminated(at(0))), initContainer("proxy", always, terminated(at(-time.Second)))),
			at(0)},
		{"a sidecar still running voids the containers' answer",
			pod(containers(terminated(at(-time.Second))), initContainer("proxy", always, running),
				deleted(at(time.Minute), nil)),
			at(time.Minute)},
		{"regular container running but every sidecar finished: the sidecars' time (upstream's lookup)",
			pod(containers(running), initContainer("proxy", always, terminated(at(-3*time.Second))),
				deleted(at(time.Minute), nil)),
			at(-3 * time.Second)},
		{"only sidecars, all finished",
			pod(initContainer("a", always, terminated(at(-time.Second))), initContainer("b", always, terminated(at(-2*time.Second)))),
			at(-time.Second)},
		{"a classic init container is ignored, running or not",
			pod(containers(terminated(at(0))), initContainer("setup", nil, running)),
			at(0)},
		{"a classic init container's late finish is ignored",
			pod(containers(terminated(at(0))), initContainer("setup", nil, terminated(at(time.Hour)))),
			at(0)},
		{"an init container with restartPolicy OnFailure is not a sidecar",
			pod(containers(terminated(at(0))), initContainer("setup", ptr(corev1.ContainerRestartPolicyOnFailure), running)),
			at(0)},
		{"an init status without a spec container is ignored",
			pod(containers(terminated(at(0))), func(p *corev1.Pod) {
				p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "ghost", State: running}}
			}),
			at(0)},
		{"duplicate init container names: a sidecar if any of them restarts Always",
			pod(containers(terminated(at(0))),
				initContainer("x", nil, terminated(at(time.Hour))),
				func(p *corev1.Pod) {
					p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: "x", RestartPolicy: always})
				}),
			at(time.Hour)},

		// 2. Ready=False
		{"Ready=False: its last transition",
			pod(containers(running), readyCond(corev1.ConditionFalse, at(0)), deleted(at(time.Hour), nil)),
			at(0)},
		{"Ready=False with a zero transition time is skipped",
			pod(containers(running), readyCond(corev1.ConditionFalse, time.Time{}), deleted(at(time.Hour), nil)),
			at(time.Hour)},
		{"Ready=True is skipped",
			pod(containers(running), readyCond(corev1.ConditionTrue, at(-30*time.Second)), deleted(at(0), nil)),
			at(0)},
		{"Ready=Unknown is skipped",
			pod(containers(running), readyCond(corev1.ConditionUnknown, at(-30*time.Second)), deleted(at(0), nil)),
			at(0)},
		{"only the first Ready condition is read",
			pod(containers(running), readyCond(corev1.ConditionTrue, at(-30*time.Second)),
				readyCond(corev1.ConditionFalse, at(-20*time.Second)), deleted(at(0), nil)),
			at(0)},
		{"other False conditions are not read",
			pod(containers(running), func(p *corev1.Pod) {
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionFalse,
					LastTransitionTime: metav1.NewTime(at(-20 * time.Second))}}
			}, deleted(at(0), nil)),
			at(0)},

		// 3. deletion
		{"deletion timestamp without grace period",
			pod(containers(running), deleted(at(0), nil), created(at(-time.Hour))),
			at(0)},
		{"deletion timestamp less the grace period",
			pod(containers(running), deleted(at(0), ptr[int64](30)), created(at(-time.Hour))),
			at(-30 * time.Second)},
		{"deletion timestamp with a zero grace period",
			pod(containers(running), deleted(at(0), ptr[int64](0))),
			at(0)},
		{"a grace period reaching before creation is not bounded",
			pod(deleted(at(0), ptr[int64](7200)), created(at(-time.Hour))),
			at(-2 * time.Hour)},

		// 4. creation
		{"nothing else: the creation timestamp",
			pod(containers(running), created(at(-time.Hour))),
			at(-time.Hour)},
		{"an empty pod: the zero time",
			&corev1.Pod{},
			time.Time{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pod.DeepCopy()
			got := backoff.FinishTime(tc.pod)
			if !got.Equal(tc.want) {
				t.Errorf("FinishTime = %v, want %v", got, tc.want)
			}
			if diff := cmp.Diff(before, tc.pod); diff != "" {
				t.Errorf("pod modified (-before +after):\n%s", diff)
			}
		})
	}
}

// finished are pods that finished at the given offsets from t0, each with
// one terminated container.
func finished(offsets ...time.Duration) []*corev1.Pod {
	var out []*corev1.Pod
	for _, d := range offsets {
		out = append(out, pod(containers(terminated(at(d)))))
	}
	return out
}

func record(failures int32, last *time.Time) backoff.Record {
	return backoff.Record{FailuresAfterLastSuccess: failures, LastFailureTime: last}
}

func TestUpdate(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name              string
		prev              backoff.Record
		succeeded, failed []*corev1.Pod
		want              backoff.Record
	}{
		{"nothing new keeps the empty record",
			backoff.Record{}, nil, nil, backoff.Record{}},
		{"nothing new keeps a remembered record",
			record(3, ptr(at(-time.Minute))), nil, nil, record(3, ptr(at(-time.Minute)))},
		{"empty (non-nil) slices are nothing new",
			record(3, ptr(at(-time.Minute))), []*corev1.Pod{}, []*corev1.Pod{}, record(3, ptr(at(-time.Minute)))},
		{"one failure",
			backoff.Record{}, nil, finished(0), record(1, ptr(at(0)))},
		{"two failures: the later sets the time, whatever the order",
			backoff.Record{}, nil, finished(0, -ms), record(2, ptr(at(0)))},
		{"new failures add to the remembered count",
			record(2, nil), nil, finished(0), record(3, ptr(at(0)))},
		{"new failures set the time even when earlier than the remembered one",
			record(2, ptr(at(time.Hour))), nil, finished(0), record(3, ptr(at(0)))},
		{"a negative remembered count is added to as it is",
			record(-1, nil), nil, finished(0, ms), record(1, ptr(at(ms)))},
		{"a success alone resets",
			record(5, ptr(at(-time.Minute))), finished(0), nil, backoff.Record{}},
		{"failures before the success are not counted",
			backoff.Record{}, finished(0), finished(-2*ms, -ms), backoff.Record{}},
		{"a failure at the same instant as the success is not counted",
			backoff.Record{}, finished(0), finished(0), backoff.Record{}},
		{"failures after the success count from zero",
			record(7, ptr(at(-time.Hour))), finished(-2 * ms), finished(0, -4*ms, -3*ms, -ms), record(2, ptr(at(0)))},
		{"the latest success decides which failures count",
			backoff.Record{}, finished(-5*ms, -ms, -3*ms), finished(-4*ms, -2*ms, 0), record(1, ptr(at(0)))},
		{"failures are timed by their finish time, here the deletion timestamp",
			backoff.Record{}, finished(0),
			[]*corev1.Pod{pod(containers(running), deleted(at(time.Second), nil)), pod(containers(running), deleted(at(time.Second), ptr[int64](2)))},
			record(1, ptr(at(time.Second)))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prev := tc.prev
			var prevLast time.Time
			if prev.LastFailureTime != nil {
				prevLast = *prev.LastFailureTime
			}
			succ, fail := slices.Clone(tc.succeeded), slices.Clone(tc.failed)

			got := tc.prev.Update(tc.succeeded, tc.failed)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Update (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(prev, tc.prev); diff != "" || (prev.LastFailureTime != nil && !prev.LastFailureTime.Equal(prevLast)) {
				t.Errorf("receiver modified")
			}
			if diff := cmp.Diff(succ, tc.succeeded); diff != "" {
				t.Errorf("succeeded reordered (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(fail, tc.failed); diff != "" {
				t.Errorf("failed reordered (-before +after):\n%s", diff)
			}
		})
	}
}

// TestUpdateSuccessesWithoutFailures specifies the shortcut Update takes
// when pods succeeded and none failed: the empty record, whatever the
// remembered record held and whatever the successes' finish times, as
// upstream's newBackoffRecord resets both fields then. Every case starts
// from a remembered failure, so an early return that kept any of it, or
// that compared the successes with the remembered failure time, fails here.
func TestUpdateSuccessesWithoutFailures(t *testing.T) {
	h := time.Hour
	cases := []struct {
		name      string
		prev      backoff.Record
		succeeded []*corev1.Pod
	}{
		{"a success after the remembered failure",
			record(4, ptr(at(-h))), finished(0)},
		{"a success long before the remembered failure still resets",
			record(4, ptr(at(h))), finished(-h)},
		{"a count without a time is reset",
			record(9, nil), finished(0)},
		{"a negative (wrapped) count is reset",
			record(-1, ptr(at(0))), finished(0)},
		{"a success without any finish time (created at the zero time)",
			record(2, ptr(at(0))), []*corev1.Pod{pod(containers(running))}},
		{"successes finished in any order",
			record(3, ptr(at(h))), finished(-h, h, 0, -2*h)},
		{"a success timed by its Ready=False transition",
			record(1, ptr(at(h))), []*corev1.Pod{pod(containers(running), readyCond(corev1.ConditionFalse, at(2*h)))}},
		// The result needs no finish time, so none is read: not even a nil
		// pod, which any read would dereference, is looked at.
		{"the successes are not read at all",
			record(5, ptr(at(0))), []*corev1.Pod{nil, nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, failed := range [][]*corev1.Pod{nil, {}} {
				if got := tc.prev.Update(tc.succeeded, failed); !cmp.Equal(got, backoff.Record{}) {
					t.Errorf("Update(succeeded, %#v) = %+v, want the empty record", failed, got)
				}
			}
		})
	}
}

// TestDelay specifies the exponential backoff: base after one failure,
// doubling per failure, capped.
func TestDelay(t *testing.T) {
	const base, cap10m = 10 * time.Second, 10 * time.Minute
	cases := []struct {
		name      string
		failures  int32
		base, max time.Duration
		want      time.Duration
	}{
		{"no failure", 0, base, cap10m, 0},
		{"one failure: base", 1, base, cap10m, base},
		{"two failures: double", 2, base, cap10m, 20 * time.Second},
		{"three failures", 3, base, cap10m, 40 * time.Second},
		{"six failures: 320s, below the cap", 6, base, cap10m, 320 * time.Second},
		{"seven failures: 640s is cut to the cap", 7, base, cap10m, cap10m},
		{"the cap reached exactly", 4, base, 80 * time.Second, 80 * time.Second},
		{"one past the cap", 5, base, 80 * time.Second, 80 * time.Second},
		{"many failures stay at the cap", math.MaxInt32, base, cap10m, cap10m},
		{"upstream's unit-test numbers: eight failures, 5s base, 700s cap", 8, 5 * time.Second, 700 * time.Second, 640 * time.Second},
		{"upstream's unit-test numbers: nine failures", 9, 5 * time.Second, 700 * time.Second, 700 * time.Second},
		{"a base above the cap is owed in full after one failure (as upstream)", 1, time.Hour, cap10m, time.Hour},
		{"a base above the cap is cut from the second failure", 2, time.Hour, cap10m, cap10m},
		{"a negative count (only overflow makes one) counts as one failure, as upstream", -1, base, cap10m, base},
		{"the most negative count", math.MinInt32, base, cap10m, base},
		{"a zero base owes nothing", math.MaxInt32, 0, cap10m, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := backoff.Delay(tc.failures, tc.base, tc.max); got != tc.want {
				t.Errorf("Delay(%d, %v, %v) = %v, want %v", tc.failures, tc.base, tc.max, got, tc.want)
			}
		})
	}
}

// TestRemainingFor: the delay owed less the time since the last failure,
// never below zero.
func TestRemainingFor(t *testing.T) {
	const base, cap10m = 10 * time.Second, 10 * time.Minute
	cases := []struct {
		name     string
		failures int32
		now      time.Time
		want     time.Duration
	}{
		{"no failure", 0, at(0), 0},
		{"no failure, failure time in the future", 0, at(-time.Hour), 0},
		{"one failure, just now", 1, at(0), base},
		{"one failure, 1s ago", 1, at(time.Second), 9 * time.Second},
		{"one failure, exactly the delay ago", 1, at(base), 0},
		{"one failure, 1ns short of the delay", 1, at(base - 1), 1},
		{"one failure, long ago", 1, at(time.Hour), 0},
		{"three failures, just now", 3, at(0), 40 * time.Second},
		{"cap reached, 1m ago", 20, at(time.Minute), 9 * time.Minute},
		{"negative count, just now: base, as upstream", -3, at(0), base},
		{"failure time after now (clock skew): the skew is added, even past the cap, as upstream", 20, at(-time.Minute), cap10m + time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := backoff.RemainingFor(tc.failures, t0, tc.now, base, cap10m); got != tc.want {
				t.Errorf("RemainingFor(%d, last=t0, now=t0%+v) = %v, want %v", tc.failures, tc.now.Sub(t0), got, tc.want)
			}
		})
	}
}

func TestRecordRemaining(t *testing.T) {
	const base, cap10m = 10 * time.Second, 10 * time.Minute
	cases := []struct {
		name string
		r    backoff.Record
		now  time.Time
		want time.Duration
	}{
		{"zero record", backoff.Record{}, at(0), 0},
		{"failures without a failure time owe nothing", record(4, nil), at(0), 0},
		{"a failure time with no failures owes nothing", record(0, ptr(at(0))), at(0), 0},
		{"two failures 5s ago", record(2, ptr(at(0))), at(5 * time.Second), 15 * time.Second},
		{"two failures 20s ago", record(2, ptr(at(0))), at(20 * time.Second), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.r.Remaining(tc.now, base, cap10m); got != tc.want {
				t.Errorf("Remaining = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestRemainingForZeroBase: a zero base owes nothing after any number of
// failures, except that a failure time after now still owes the skew, as
// upstream's arithmetic does.
func TestRemainingForZeroBase(t *testing.T) {
	cases := []struct {
		name string
		now  time.Time
		want time.Duration
	}{
		{"failure just now", at(0), 0},
		{"failure in the past", at(time.Minute), 0},
		{"failure 1m in the future", at(-time.Minute), time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := backoff.RemainingFor(5, t0, tc.now, 0, time.Hour); got != tc.want {
				t.Errorf("RemainingFor = %v, want %v", got, tc.want)
			}
		})
	}
}
