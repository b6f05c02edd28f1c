package customresource

import (
	_ "embed"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kind is the kind of TrainingRuns, the resource of crd.yaml.
var Kind = schema.GroupVersionKind{Group: "batch.example.com", Version: "v1", Kind: "TrainingRun"}

// Resource is the API resource of TrainingRuns.
var Resource = Kind.GroupVersion().WithResource("trainingruns")

// CRD is crd.yaml, the CustomResourceDefinition of TrainingRuns.
//
//go:embed crd.yaml
var CRD []byte

// Finalizer is the tracking finalizer on TrainingRuns' pods. It is not
// batch/v1's: kube-controller-manager's Job controller takes that one off
// every pod without a controller reference, so an orphan that a
// TrainingRun is adopting could lose it to a controller that does not
// count the pod, and the pod could be gone before it is counted.
const Finalizer = "batch.example.com/trainingrun-tracking"
