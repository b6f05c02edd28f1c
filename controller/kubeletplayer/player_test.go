package kubeletplayer_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/jobsync/jobsync/controller/kubeletplayer"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// These tests play pods on client-go's fake clientset with a fake clock:
// they pin the lifecycle the player writes. The fake clientset neither
// binds pods nor deletes them gracefully; the integration module plays the
// same lifecycle on a real kube-apiserver.

const jobUID = "6f1c1e8a-0000-4000-8000-000000000001"

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func testJob() *batchv1.Job {
	return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job", Namespace: "default", UID: jobUID}}
}

// podOf is a pod the Job controller would create for testJob.
func podOf(name string, index int, policy corev1.RestartPolicy, containers ...string) *corev1.Pod {
	if len(containers) == 0 {
		containers = []string{"main"}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "default", UID: types.UID("uid-" + name),
			Labels: map[string]string{batchv1.ControllerUidLabel: jobUID},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: "job", UID: jobUID, Controller: ptr(true),
			}},
		},
		Spec:   corev1.PodSpec{RestartPolicy: policy, TerminationGracePeriodSeconds: ptr(int64(30))},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	if index >= 0 {
		pod.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: fmt.Sprint(index)}
	}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "busybox"})
	}
	return pod
}

// rig is a player running on a fake clientset and a fake clock.
type rig struct {
	t      *testing.T
	client *fake.Clientset
	clock  *testingclock.FakeClock
	player *kubeletplayer.Player
}

func start(t *testing.T, script *jobsynctest.Script, pods ...*corev1.Pod) *rig {
	t.Helper()
	return startWith(t, script, nil, pods...)
}

// startWith is start with a reactor for pod deletions, put in place before
// the player runs; it is called with the pod and the delete action.
func startWith(t *testing.T, script *jobsynctest.Script, onDelete func(*corev1.Pod, k8stesting.DeleteAction) bool, pods ...*corev1.Pod) *rig {
	t.Helper()
	var objs []runtime.Object
	for _, p := range pods {
		objs = append(objs, p)
	}
	r := &rig{t: t, client: fake.NewClientset(objs...), clock: testingclock.NewFakeClock(epoch)}
	if onDelete != nil {
		r.client.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			d := a.(k8stesting.DeleteAction)
			// The client would deadlock in a reactor: read the tracker.
			obj, err := r.client.Tracker().Get(podsResource, d.GetNamespace(), d.GetName())
			if err != nil {
				return false, nil, nil
			}
			return onDelete(obj.(*corev1.Pod), d), nil, nil
		})
	}
	r.player = kubeletplayer.New(r.client, kubeletplayer.Options{Clock: r.clock, RestartDelay: time.Second})
	if script != nil {
		r.player.Play(testJob(), *script)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- r.player.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if s := r.player.Stats(); s.Errors != 0 {
			t.Errorf("player errors: %d, last %v", s.Errors, s.Err)
		}
	})
	return r
}

var podsResource = corev1.SchemeGroupVersion.WithResource("pods")

// step waits until the player has a timer pending, then moves the clock.
func (r *rig) step(d time.Duration) { r.t.Helper(); r.stepAll(1, d) }

// stepAll waits until the player has n timers pending, then moves the
// clock.
func (r *rig) stepAll(n int, d time.Duration) {
	r.t.Helper()
	r.eventually(fmt.Sprintf("%d timers are set", n), func() bool { return r.clock.Waiters() >= n })
	r.clock.Step(d)
}

func (r *rig) pod(name string) *corev1.Pod {
	p, err := r.client.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// eventually polls cond for up to five seconds of real time: the player
// acts in goroutines of its own.
func (r *rig) eventually(what string, cond func() bool) {
	r.t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	r.t.Fatalf("timed out waiting until %s", what)
}

func (r *rig) phase(name string, want corev1.PodPhase) {
	r.t.Helper()
	r.eventually(fmt.Sprintf("pod %s is %s", name, want), func() bool {
		p := r.pod(name)
		return p != nil && p.Status.Phase == want
	})
}

// summary is what the tests compare of a pod's status.
type summary struct {
	Phase    corev1.PodPhase
	Ready    corev1.ConditionStatus
	Disrupt  string // reason of a DisruptionTarget condition
	Exit     map[string]int32
	Restarts map[string]int32
}

func summarize(p *corev1.Pod) summary {
	s := summary{Phase: p.Status.Phase}
	for _, c := range p.Status.Conditions {
		switch c.Type {
		case corev1.PodReady:
			s.Ready = c.Status
		case corev1.DisruptionTarget:
			s.Disrupt = c.Reason
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if cs.State.Terminated != nil {
			if s.Exit == nil {
				s.Exit = map[string]int32{}
			}
			s.Exit[cs.Name] = cs.State.Terminated.ExitCode
		}
		if cs.RestartCount > 0 {
			if s.Restarts == nil {
				s.Restarts = map[string]int32{}
			}
			s.Restarts[cs.Name] = cs.RestartCount
		}
	}
	return s
}

func (r *rig) want(name string, want summary) {
	r.t.Helper()
	p := r.pod(name)
	if p == nil {
		r.t.Fatalf("pod %s is gone", name)
	}
	if diff := cmp.Diff(want, summarize(p)); diff != "" {
		r.t.Errorf("pod %s (-want +got):\n%s", name, diff)
	}
}

func TestPodRunsThenSucceeds(t *testing.T) {
	r := start(t, &jobsynctest.Script{Default: &jobsynctest.Behavior{StartDelay: 2 * time.Second, RunTime: 10 * time.Second}},
		podOf("a", -1, corev1.RestartPolicyNever))
	r.step(time.Second)
	r.want("a", summary{Phase: corev1.PodPending})
	r.step(time.Second)
	r.phase("a", corev1.PodRunning)
	r.want("a", summary{Phase: corev1.PodRunning, Ready: corev1.ConditionTrue})
	if st := r.pod("a").Status.StartTime; st == nil || !st.Time.Equal(epoch.Add(2*time.Second)) {
		t.Errorf("startTime = %v, want %v", st, epoch.Add(2*time.Second))
	}
	r.step(10 * time.Second)
	r.phase("a", corev1.PodSucceeded)
	r.want("a", summary{Phase: corev1.PodSucceeded, Ready: corev1.ConditionFalse, Exit: map[string]int32{"main": 0}})
}

func TestNamedContainerFails(t *testing.T) {
	r := start(t, &jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: time.Second, ExitCode: 42, Container: "side"}},
		podOf("a", -1, corev1.RestartPolicyNever, "main", "side"))
	r.step(0)
	r.phase("a", corev1.PodRunning)
	r.step(time.Second)
	r.phase("a", corev1.PodFailed)
	r.want("a", summary{Phase: corev1.PodFailed, Ready: corev1.ConditionFalse, Exit: map[string]int32{"main": 0, "side": 42}})
}

// Under restartPolicy OnFailure a failing container restarts after the
// crash-loop delay (1s, then 2s here) and the pod succeeds in the end.
func TestOnFailureRestarts(t *testing.T) {
	r := start(t, &jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 5 * time.Second, Restarts: 2}},
		podOf("a", -1, corev1.RestartPolicyOnFailure))
	r.step(0)
	r.phase("a", corev1.PodRunning)
	r.step(5 * time.Second) // first run fails
	r.eventually("one restart", func() bool { return summarize(r.pod("a")).Restarts["main"] == 1 })
	r.want("a", summary{Phase: corev1.PodRunning, Ready: corev1.ConditionTrue, Restarts: map[string]int32{"main": 1}})
	if lt := r.pod("a").Status.ContainerStatuses[0].LastTerminationState.Terminated; lt == nil || lt.ExitCode != 1 {
		t.Errorf("last termination state = %+v, want exit code 1", lt)
	}
	r.step(6 * time.Second) // 1s delay + 5s run: second failure
	r.eventually("two restarts", func() bool { return summarize(r.pod("a")).Restarts["main"] == 2 })
	r.step(6 * time.Second) // 2s delay + 5s run: not yet
	r.want("a", summary{Phase: corev1.PodRunning, Ready: corev1.ConditionTrue, Restarts: map[string]int32{"main": 2}})
	r.step(time.Second)
	r.phase("a", corev1.PodSucceeded)
	r.want("a", summary{Phase: corev1.PodSucceeded, Ready: corev1.ConditionFalse, Exit: map[string]int32{"main": 0}, Restarts: map[string]int32{"main": 2}})
}

// A disruption puts the DisruptionTarget condition on the pod and deletes
// it (the fake clientset removes it at once).
func TestDisruption(t *testing.T) {
	var mu sync.Mutex
	var disrupted string
	r := startWith(t, &jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 3 * time.Second, Disruption: true, DisruptionReason: "EvictionByEvictionAPI"}},
		func(p *corev1.Pod, _ k8stesting.DeleteAction) bool {
			mu.Lock()
			disrupted = summarize(p).Disrupt
			mu.Unlock()
			return false
		}, podOf("a", -1, corev1.RestartPolicyNever))
	r.step(0)
	r.phase("a", corev1.PodRunning)
	r.step(3 * time.Second)
	r.eventually("the pod is deleted", func() bool { return r.pod("a") == nil })
	mu.Lock()
	defer mu.Unlock()
	if disrupted != "EvictionByEvictionAPI" {
		t.Errorf("DisruptionTarget reason at deletion = %q, want EvictionByEvictionAPI", disrupted)
	}
	if s := r.player.Stats(); s.Disrupted != 1 {
		t.Errorf("Stats.Disrupted = %d, want 1", s.Disrupted)
	}
}

// A deleted running pod stops after its shutdown time: exit 143 within
// the grace period, 137 when killed at its end; then the player deletes it
// with grace period 0, as the kubelet does.
func TestDeletionStopsPod(t *testing.T) {
	for _, tc := range []struct {
		shutdown time.Duration
		wait     time.Duration
		code     int32
	}{
		{shutdown: 5 * time.Second, wait: 5 * time.Second, code: 143},
		{shutdown: time.Minute, wait: 30 * time.Second, code: 137},
	} {
		t.Run(fmt.Sprint(tc.code), func(t *testing.T) {
			var finalGrace atomic.Pointer[int64]
			r := startWith(t, &jobsynctest.Script{Default: &jobsynctest.Behavior{Forever: true, Shutdown: tc.shutdown}},
				func(_ *corev1.Pod, d k8stesting.DeleteAction) bool {
					finalGrace.Store(d.GetDeleteOptions().GracePeriodSeconds)
					return true // keep the pod to look at it
				}, podOf("a", -1, corev1.RestartPolicyNever))
			r.step(0)
			r.phase("a", corev1.PodRunning)
			markDeleted(t, r, "a", 30)
			r.step(tc.wait - time.Millisecond)
			r.want("a", summary{Phase: corev1.PodRunning, Ready: corev1.ConditionTrue})
			r.step(time.Millisecond)
			r.phase("a", corev1.PodFailed)
			r.want("a", summary{Phase: corev1.PodFailed, Ready: corev1.ConditionFalse, Exit: map[string]int32{"main": tc.code}})
			r.eventually("the final delete", func() bool { return finalGrace.Load() != nil })
			if g := *finalGrace.Load(); g != 0 {
				t.Errorf("final delete grace = %d, want 0", g)
			}
		})
	}
}

// A pod deleted before it was bound is failed at once, as the pod garbage
// collector does (with the DisruptionTarget condition it adds), with no
// grace period and no final delete.
func TestDeletionBeforeStart(t *testing.T) {
	r := start(t, &jobsynctest.Script{Default: &jobsynctest.Behavior{StartDelay: time.Minute}},
		podOf("a", -1, corev1.RestartPolicyNever))
	r.eventually("a timer is set", r.clock.HasWaiters)
	markDeleted(t, r, "a", 0)
	r.phase("a", corev1.PodFailed)
	r.want("a", summary{Phase: corev1.PodFailed, Disrupt: "DeletionByPodGC"})
	r.clock.Step(time.Hour)
	r.want("a", summary{Phase: corev1.PodFailed, Disrupt: "DeletionByPodGC"})
}

// markDeleted gives the pod a deletion timestamp as the API server's
// graceful deletion does.
func markDeleted(t *testing.T, r *rig, name string, grace int64) {
	t.Helper()
	p := r.pod(name)
	at := metav1.NewTime(r.clock.Now().Add(time.Duration(grace) * time.Second))
	p.DeletionTimestamp = &at
	p.DeletionGracePeriodSeconds = &grace
	if err := r.client.Tracker().Update(podsResource, p, "default"); err != nil {
		t.Fatal(err)
	}
}

// Rules select pods by completion index and attempt; pods of Jobs that are
// not played are left alone; pods seen before their Job is played are
// played once it is.
func TestRulesAndUnplayedJobs(t *testing.T) {
	stranger := podOf("stranger", -1, corev1.RestartPolicyNever)
	stranger.OwnerReferences[0].UID = "another-job"
	stranger.Labels[batchv1.ControllerUidLabel] = "another-job"
	r := start(t, nil, podOf("i0", 0, corev1.RestartPolicyNever), podOf("i1", 1, corev1.RestartPolicyNever), stranger)
	time.Sleep(50 * time.Millisecond) // the informer has seen the pods before Play
	r.player.Play(testJob(), jobsynctest.Script{
		Default: &jobsynctest.Behavior{},
		Pods:    []jobsynctest.PodRule{{Index: ptr(1), Attempt: ptr(0), Behavior: jobsynctest.Behavior{ExitCode: 3}}},
	})
	r.stepAll(2, 0) // both start
	r.stepAll(2, 0) // both exit
	r.phase("i0", corev1.PodSucceeded)
	r.phase("i1", corev1.PodFailed)
	r.want("i1", summary{Phase: corev1.PodFailed, Ready: corev1.ConditionFalse, Exit: map[string]int32{"main": 3}})
	if _, err := r.client.CoreV1().Pods("default").Create(context.Background(), podOf("i1b", 1, corev1.RestartPolicyNever), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	r.step(0)
	r.step(0)
	r.phase("i1b", corev1.PodSucceeded) // attempt 1 of index 1: the default
	r.want("stranger", summary{Phase: corev1.PodPending})
}
