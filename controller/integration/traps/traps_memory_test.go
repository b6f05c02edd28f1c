package traps

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// TestTrapMemoryStoredBeforeTheFirstAPICall: the informer sees the pods a
// sync creates while the sync is still writing status. Had the plan's
// memory been stored after the API calls, it would overwrite those
// observations and the Job would wait "to observe 2 creations" for five
// minutes before replacing its finished pods. Status writes are slowed
// down here so that the observations surely come first.
func TestTrapMemoryStoredBeforeTheFirstAPICall(t *testing.T) {
	ctx := context.Background()
	srv := apiservertest.Start(t)
	f := &faults{}
	f.add(&rule{match: is("PUT jobs/status"), delay: time.Second})
	runController(t, f.wrap(srv.Config), jobcontroller.Options{})

	job, err := srv.Client.BatchV1().Jobs("default").Create(ctx, newJob("pi", 4, 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := waitPods(t, ctx, srv.Client, job, 2)
	for _, p := range first {
		finishPod(t, ctx, srv.Client, p, 0)
	}
	// Two replacements, in seconds rather than after the five-minute
	// expectations timeout.
	eventually(t, 20*time.Second, "the two remaining pods are created", func() (bool, error) {
		pods, err := podsOf(ctx, srv.Client, job)
		return len(pods) == 4, err
	})
}
