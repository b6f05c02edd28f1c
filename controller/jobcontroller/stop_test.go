package jobcontroller

import (
	"context"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
)

// TestNoSyncOnceStopped: a worker that takes a key after the controller's
// context has ended leaves it, and makes no API call; the same for the
// orphan workers. Before, syncs ran on a context shutdown did not reach
// and the workers emptied the queue.
func TestNoSyncOnceStopped(t *testing.T) {
	job := testJob("job-uid")
	client := fake.NewClientset(job)
	c, err := New(client, Options{ControllerName: testController, Recorder: record.NewFakeRecorder(10)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.factory.Batch().V1().Jobs().Informer().GetStore().Add(job); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c.queue.Add("ns/pi")
	c.orphans.Add("ns/pi-abcde")
	if live := c.processNext(context.Background()); !live || len(client.Actions()) == 0 {
		t.Fatalf("a sync of the Job made no API call: the test would prove nothing")
	}
	client.ClearActions()
	c.store.Forget("ns", "pi")
	c.queue.Add("ns/pi")
	if c.processNext(ctx) {
		t.Error("processNext went on after the context ended")
	}
	if c.orphans.ProcessNext(ctx) {
		t.Error("ProcessNext went on after the context ended")
	}
	if n := len(client.Actions()); n != 0 {
		t.Errorf("%d API calls after the context ended: %v", n, client.Actions())
	}
}
