package kubeletplayer_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/jobsync/jobsync/controller/kubeletplayer"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// TestStatusUpdatesOutlastAnOutage: the API server refuses every status
// write for 3 seconds (of real time: retries wait on the real clock); the
// pod's end is written once it is back, as a kubelet keeps retrying. The
// player used to give up after five tries (about 0.75s), leaving the pod
// Running for good.
func TestStatusUpdatesOutlastAnOutage(t *testing.T) {
	r := start(t, nil, podOf("a", -1, corev1.RestartPolicyNever))
	var down atomic.Int64 // the outage's end, in Unix nanoseconds
	r.client.PrependReactor("patch", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && time.Now().UnixNano() < down.Load() {
			return true, nil, apierrors.NewServiceUnavailable("the API server is away")
		}
		return false, nil, nil
	})
	r.player.Play(testJob(), jobsynctest.Script{Default: &jobsynctest.Behavior{StartDelay: time.Second, RunTime: time.Second}})
	r.step(time.Second)
	r.phase("a", corev1.PodRunning)
	down.Store(time.Now().Add(3 * time.Second).UnixNano())
	r.step(time.Second)
	// The pod's end is being retried; it lands once the outage is over.
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if p := r.pod("a"); p.Status.Phase == corev1.PodSucceeded {
			if time.Now().UnixNano() < down.Load() {
				t.Fatal("the pod's end was written during the outage")
			}
			if s := r.player.Stats(); s.Retries < 5 {
				t.Errorf("%d retries over a 3s outage, want more than the 5 tries the player used to give up after", s.Retries)
			}
			return
		}
	}
	t.Fatalf("the pod is %s 15s after a 3s outage began; player stats %+v", r.pod("a").Status.Phase, r.player.Stats())
}

// TestRetriesEndWithTheContext: a call retried during an outage stops
// when the player's context ends.
func TestRetriesEndWithTheContext(t *testing.T) {
	client := newFailingClient()
	p := kubeletplayer.New(client, kubeletplayer.Options{})
	p.Play(testJob(), jobsynctest.Script{Default: &jobsynctest.Behavior{}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); p.Stats().Retries < 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no retries: %+v", p.Stats())
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the player did not stop within 5s of its context's end while retrying")
	}
}

// newFailingClient holds one pod of testJob and refuses every write.
func newFailingClient() *fake.Clientset {
	client := fake.NewClientset(podOf("a", -1, corev1.RestartPolicyNever))
	client.PrependReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		switch a.GetVerb() {
		case "get", "list", "watch":
			return false, nil, nil
		}
		return true, nil, apierrors.NewServiceUnavailable("the API server is away")
	})
	return client
}
