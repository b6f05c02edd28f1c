package traps

import (
	"context"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// TestTrapDeletedJobLeavesNoFinalizerBehind: a Job deleted while its pods
// still carry the tracking finalizer must not leave them stuck. Deleted in
// the background, the Job is gone at once and its pods are orphans the
// controller cleans up; deleted in the foreground, the Job stays with a
// deletion timestamp until its pods go, and its syncs take the finalizers
// off. (No garbage collector runs here, so the pods themselves stay.)
func TestTrapDeletedJobLeavesNoFinalizerBehind(t *testing.T) {
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground} {
		t.Run(string(policy), func(t *testing.T) {
			ctx := context.Background()
			srv := apiservertest.Start(t)
			runController(t, srv.Config, jobcontroller.Options{})
			job, err := srv.Client.BatchV1().Jobs("default").Create(ctx, newJob("pi", 3, 3), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			pods := waitPods(t, ctx, srv.Client, job, 3)
			finishPod(t, ctx, srv.Client, pods[0], 1) // one has failed, two still run
			if err := srv.Client.BatchV1().Jobs("default").Delete(ctx, "pi", metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
				t.Fatal(err)
			}
			eventually(t, 20*time.Second, "no pod keeps the tracking finalizer", func() (bool, error) {
				pods, err := podsOf(ctx, srv.Client, job)
				if err != nil {
					return false, err
				}
				for _, p := range pods {
					if slices.Contains(p.Finalizers, finalizer) {
						return false, nil
					}
				}
				return len(pods) == 3, nil
			})
		})
	}
}
