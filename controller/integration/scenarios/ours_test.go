package scenarios

import (
	"context"
	"k8s.io/klog/v2"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/jobsync/jobsync/controller/jobcontroller"
	"github.com/jobsync/jobsync/jobsync"
)

// oursName is the spec.managedBy value of the Jobs our controller runs.
const oursName = "jobsync.io/jobsync-controller"

func init() {
	starters["ours"] = startOurs
	identities["ours"] = [2]string{oursName, jobcontroller.TrackingFinalizerFor(oursName)}
}

// startOurs runs jobcontroller as jobsync-controller does, with the same
// pod-failure backoff as upstream's in these tests.
func startOurs(ctx context.Context, c *controller) (func(), error) {
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(c.cfg, "jobsync-controller"))
	if err != nil {
		return nil, err
	}
	jc, err := jobcontroller.New(client, jobcontroller.Options{
		ControllerName: oursName,
		Sync:           jobsync.Options{BackoffBase: backoffBase},
	})
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := jc.Run(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "jobcontroller.Run")
		}
	}()
	return func() { <-done }, nil
}
