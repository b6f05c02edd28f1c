// Package customresource is a worked example: Job semantics for a resource
// of one's own. TrainingRun (crd.yaml, group batch.example.com) embeds the
// parts of a batch/v1 JobSpec it needs in its spec and reports JobStatus
// fields through its status subresource; Controller runs TrainingRuns with
// jobsync and the controller module's parts, exactly as kube-controller-
// manager's Job controller runs Jobs.
//
// The controller sees each TrainingRun as a Job (jobview.FromUnstructured):
// the TrainingRun's metadata, its spec as the JobSpec and its status as the
// JobStatus. jobsync.Options.Owner makes the pods' controller references
// name TrainingRun, the executor writes the status through the dynamic
// client (executor.DynamicStatusWriter), and the spec is defaulted and
// validated on every sync (jobspec.Prepare), since no API server does it
// for an embedded JobSpec.
//
// The test of controller/integration/customresource runs it on a real
// kube-apiserver beside upstream's Job controller on twin Jobs.
package customresource
