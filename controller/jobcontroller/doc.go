// Package jobcontroller is an external Job controller built on jobsync: it
// runs the Jobs whose spec.managedBy is its name and leaves every other Job
// to its own controller, deciding each sync exactly as Kubernetes' Job
// controller would.
//
// It is built as a Kubernetes component is: shared informers for Jobs and
// Pods (all namespaces), a rate-limited workqueue (1s doubling to 1m per
// Job after failures) and N workers. Job creations and spec changes sync at
// once; pod events and status changes are gathered for a second, as
// upstream batches them. A sync reads the Job from the cache and its pods
// as the pod handlers keep them (those it controls, and the orphans its
// selector may adopt): each pod is filed once per event among the Job's
// settled pods, its active pods (jobsync.ActivePods), its succeeded pods
// waiting to be recorded (jobsync.SucceededPods) and the rest, so that a
// sync of a Job of many pods reads the pods that changed state and the
// sets' sums, not every pod (Options.ScanPods lists them all instead). It
// reconciles with jobsync.Reconcile, stores the plan's memory in a
// memory.Store and carries the plan out with an executor.Executor;
// Plan.RequeueAfter becomes a delayed requeue, a failed step a rate-limited
// retry. The index, the listing, the event handlers, the stale-write guard,
// the orphan release and the handling of Jobs jobsync cannot sync are
// package kit's, which other controllers (package crjob's
// controller-runtime reconciler) share.
//
// Pods carrying the controller's tracking finalizer whose Job is gone,
// finished, or another controller's, get the finalizer taken off, as
// upstream's orphan-pod cleanup does for its own finalizer, so deleting a
// Job never leaves pods stuck.
//
// Stopping is immediate: once Run's context ends, no worker takes another
// Job and the syncs under way are abandoned, their remaining API calls
// never sent. That is safe because a plan's memory is stored before its
// first call and the next sync, here or in another replica, decides again
// from what the API server holds. Under RunLeaderElected the context ends
// as soon as this replica can no longer be sure it leads (the renew
// deadline counted from its last renewal), before another replica can
// take the Lease.
//
// Logs are structured (klog/v2, contextual through the context given to
// Run): at -v=2 one line per sync says what it did, at -v=4 every pod
// created and every note of the plan. Events are recorded on the Jobs with
// ControllerName as their source.
//
// On clusters without kube-controller-manager (envtest, API servers started
// by tests, KWOK-style clusters), Options.ActAsBuiltIn makes it the
// cluster's Job controller instead: it runs the Jobs without spec.managedBy
// too, with the built-in tracking finalizer.
package jobcontroller
