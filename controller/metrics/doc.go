// Package metrics defines the Job controller's metrics under the names,
// help, labels, label values and buckets kube-controller-manager exports
// (subsystem job_controller), and derives their values for one sync from
// what the sync saw, planned and did.
//
// The metrics live in component-base's legacy registry, as Kubernetes
// components keep theirs, so that one handler (legacyregistry.Handler)
// exposes them beside the workqueue, client-go request, informer and
// leader-election metrics this package also registers by importing
// component-base's client-go adapters.
//
// The values are derived by pure functions (ForSync, TerminatedEvent,
// ExternalController) that tests check without a registry; Record.Apply and
// the Record* helpers are the only code that touches the registry.
package metrics
