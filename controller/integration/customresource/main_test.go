// Package customresource runs the worked example of examples/customresource
// on a real kube-apiserver and etcd: its TrainingRun CRD installed, its
// controller running TrainingRuns beside upstream's Job controller running
// twin batch/v1 Jobs, one kubelet player per owner kind playing both from
// the same pod scripts. Each TrainingRun must end with its twin's status.
package customresource

import (
	"testing"
	"time"

	upstream "k8s.io/kubernetes/pkg/controller/job"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
)

// backoffBase is the pod-failure backoff base of both controllers
// (upstream's default of 10s is too long for tests of a few seconds).
const backoffBase = time.Second

func TestMain(m *testing.M) {
	upstream.DefaultJobPodFailureBackOff = backoffBase
	apiservertest.Main(m)
}
