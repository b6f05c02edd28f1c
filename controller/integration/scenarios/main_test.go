// Package scenarios runs Jobs end to end on a real kube-apiserver v1.36.5
// and etcd: a Job controller (ours, jobcontroller, or upstream's own from
// k8s.io/kubernetes/pkg/controller/job) manages each Job while the kubelet
// player runs its pods from a script. The scenario suite checks
// each Job's outcome and records the controller's API calls; the
// side-by-side runner runs upstream's controller and ours on one
// API server on twin Jobs and compares how they end.
package scenarios

import (
	"testing"
	"time"

	upstream "k8s.io/kubernetes/pkg/controller/job"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
)

// backoffBase is the pod-failure backoff base of both controllers in these
// tests (upstream's default is 10s, too long for tests of a few seconds).
// Upstream's is a package variable its own integration tests lower too;
// ours is jobsync.Options.BackoffBase. Side-by-side runs need them equal.
const backoffBase = time.Second

func TestMain(m *testing.M) {
	upstream.DefaultJobPodFailureBackOff = backoffBase
	maybeRunChild() // the scale runs' controller processes
	apiservertest.Main(m)
}
