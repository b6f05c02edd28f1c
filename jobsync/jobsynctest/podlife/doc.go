// Package podlife is the pod lifecycle model that jobsynctest's simulated
// cluster and the controller module's kubelet player share: how a
// container's exit becomes container statuses and a pod phase, when a
// failing container restarts instead and after how long, how a deleted pod
// stops and when the kubelet lets it go, and the predicates both read pods
// with.
//
// Both worlds apply these rules to their own copies of a pod (jobsynctest
// writes its stored objects, the player patches through the API server), so
// the functions here take and fill plain Kubernetes types and hold no state.
// Keeping the rules in one place is what lets a script played in memory and
// the same script played on a real API server give pods the same statuses.
package podlife
