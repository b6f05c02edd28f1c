package traps

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2/ktesting"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// TestStopSendsNothing: a controller whose requests take 50ms more is busy
// with 100 new Jobs when its context is cancelled. From that moment it
// sends no write (no pod, status, finalizer or event), no new sync starts,
// and Run returns promptly. Syncs used to run on a context the
// cancellation did not reach, and the workers emptied the queue first: in
// an earlier run 162 writes succeeded after the cancellation.
func TestStopSendsNothing(t *testing.T) {
	ctx := context.Background()
	srv := apiservertest.Start(t)
	log := &writeLog{minDelay: 50 * time.Millisecond, maxDelay: 50 * time.Millisecond}
	client, err := kubernetes.NewForConfig(log.wrap(srv.Config))
	if err != nil {
		t.Fatal(err)
	}
	c, err := jobcontroller.New(client, jobcontroller.Options{ControllerName: controllerName})
	if err != nil {
		t.Fatal(err)
	}
	_, rctx := ktesting.NewTestContext(t)
	rctx, cancel := context.WithCancel(rctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- c.Run(rctx) }()
	// A first Job shows that the controller runs (its caches synced).
	first, err := srv.Client.BatchV1().Jobs("default").Create(ctx, newJob("first", 1, 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitPods(t, ctx, srv.Client, first, 1)

	var wg sync.WaitGroup
	for w := range 10 {
		wg.Go(func() {
			for i := w; i < 100; i += 10 {
				if _, err := srv.Client.BatchV1().Jobs("default").Create(ctx, newJob(fmt.Sprintf("job-%d", i), 1, 1), metav1.CreateOptions{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond)
	before := log.count()
	cancel()
	stopped := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10s of the cancellation")
	}
	returned := time.Since(stopped)
	// Anything still running would show here.
	time.Sleep(2 * time.Second)
	sent, succeeded := log.since(stopped)
	// A write answered in the instant of the cancellation can be reported
	// an instant after it; anything later was sent afterwards.
	var late []write
	for _, w := range succeeded {
		if w.answered.Sub(stopped) > 100*time.Millisecond {
			late = append(late, w)
		}
	}
	t.Logf("%d writes before the cancellation; Run returned %v after it; %d writes sent after it, %d succeeded after it",
		before, returned.Round(time.Millisecond), len(sent), len(succeeded))
	if before < 20 {
		t.Errorf("only %d writes before the cancellation: the controller was not busy, the test proves nothing", before)
	}
	for i, w := range sent {
		if i < 10 {
			t.Errorf("sent %v after the cancellation: %s", w.sent.Sub(stopped).Round(time.Millisecond), w.what)
		}
	}
	for i, w := range late {
		if i < 10 {
			t.Errorf("succeeded %v after the cancellation: %s", w.answered.Sub(stopped).Round(time.Millisecond), w.what)
		}
	}
	if len(sent) > 0 || len(late) > 0 {
		t.Errorf("%d writes sent and %d succeeded after the cancellation, want none", len(sent), len(late))
	}
}
