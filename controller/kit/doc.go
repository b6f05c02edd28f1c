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
package kit
