// Package metrics defines the Job controller's metrics under the names,
// help, labels, label values and buckets kube-controller-manager exports
// (subsystem job_controller), and derives their values for one sync from
// what the sync saw, planned and did.
//
// The metrics live in component-base's legacy registry, as Kubernetes
// components keep theirs, so that one handler (legacyregistry.Handler)
// exposes them beside the workqueue, client-go request, informer and
// leader-election metrics that a program gets by importing
// component-base's client-go adapters (k8s.io/component-base/metrics/
// prometheus/clientgo), as jobsync-controller does. Neither is done by
// this package or by jobcontroller: both set process-wide state (the
// registry, client-go's metric providers) that belongs to the program.
//
// The values are derived by pure functions (ForSync, TerminatedEvent,
// ExternalController) that tests check without a registry; Record.Apply and
// the Record* helpers are the only code that touches the registry.
package metrics
