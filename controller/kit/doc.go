// Package kit holds the parts every controller that runs Jobs with jobsync
// needs besides the memory store and the executor, each small enough to
// be used alone:
//
//   - PodIndexValues, ListPods and IndexerPods: a pod index on the
//     controller's UID (orphans under their namespace) and the listing of
//     a Job's pods from it, the pods it controls plus the orphans its
//     selector matches;
//   - StaleGuard: holds a sync back while the informer still shows a Job
//     older than the controller's own last status write of it;
//   - Orphans: a rate-limited queue that takes the tracking finalizer off
//     pods that no live, unfinished Job of the controller controls;
//   - Handlers: the informer event handlers, lowering the memory through a
//     memory.Observer and waking the Jobs concerned;
//   - HandleInputError: a Job that jobsync cannot sync gets a Warning
//     event and is not retried.
//
// Package jobcontroller is built from these parts; so is a
// controller-runtime reconciler.
//
// For a custom resource that embeds a JobSpec (jobsync.Options.Owner), set
// JobCache.Owner and JobCache.View (the resource seen as a Job: see package
// jobview and jobspec.Prepare), memory.Observer.Owner, and the executor's
// Status and Owner; the pod index and ListPods need nothing, since they
// key pods by their controller's UID.
package kit
