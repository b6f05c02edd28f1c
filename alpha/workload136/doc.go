// Package workload136 adds Kubernetes 1.36's WorkloadWithJob feature gate
// (alpha, off by default) to jobsync.Reconcile: before any pod is managed,
// an Indexed Job whose parallelism, above 1, equals its completions, and
// whose pod template names no scheduling group, gets a Workload and a
// PodGroup in the scheduling.k8s.io/v1alpha2 API, and the pods it creates
// join the PodGroup.
//
// It is a module of its own because scheduling.k8s.io/v1alpha2 exists in
// k8s.io/api v0.36 only: v0.37 removed it (1.37 rewrote the feature on
// scheduling.k8s.io/v1beta1 with spec.scheduling on the Job). The jobsync
// module itself holds no alpha API type, so that it builds on every
// Kubernetes minor it supports; only programs that turn this gate on
// compile this module, and they are pinned to k8s.io v0.36 by it.
//
// Reconcile here is jobsync.Reconcile followed by the gate's additions;
// everything else about the plan is jobsync's.
package workload136
