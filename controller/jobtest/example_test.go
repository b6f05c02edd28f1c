package jobtest_test

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/rest"

	"github.com/jobsync/jobsync/controller/jobtest"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// In a suite's set-up, once envtest (or any test API server) has started:
// the pods of Jobs labelled outcome=fail exit 1, the others run 100ms and
// succeed, and failed pods are replaced after 100ms rather than 10s.
func ExampleStart() {
	var cfg *rest.Config // from envtest.Environment.Start, say
	ctx := context.Background()
	env, err := jobtest.Start(ctx, cfg, jobtest.Options{
		Sync: jobsync.Options{BackoffBase: 100 * time.Millisecond},
		ScriptFor: func(job *batchv1.Job) *jobsynctest.Script {
			if job.Labels["outcome"] == "fail" {
				return &jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: 50 * time.Millisecond, ExitCode: 1}}
			}
			return nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer env.Stop()
	// ... create Jobs, or the objects of the controller under test, and
	// wait for their Jobs to finish.
}
