// Package executor carries a jobsync.Plan out through client-go, in the
// order the plan contract gives and with upstream's API calls:
//
//  1. claims: one strategic merge patch per pod, PodClaim.Patch as is
//     (adoptions only after a fresh read of the Job shows it is not being
//     deleted, as upstream's ControllerRefManager checks);
//  2. deletions: the tracking-finalizer patch first where RemoveFinalizer,
//     then the delete, all in parallel;
//  3. creations: in slow-start batches of 1, 2, 4, ... pods, stopping after
//     the first batch with a failure;
//  4. the interim status, through the status subresource (UpdateStatus);
//  5. the finalizer removals, in parallel with a bound;
//  6. the final status, on the Job object the interim write returned;
//  7. events: the plan's own, and SuccessfulCreate, FailedCreate,
//     SuccessfulDelete and FailedDelete as upstream's pod control records
//     them.
//
// The executor takes a *memory.Sync, so the plan's memory is stored before
// its first API call. A status write refused as a conflict is sent again
// (StatusConflictRetries times at most) on the Job read afresh when the
// Job changed only where Reconcile does not look (labels, annotations,
// finalizers, owner references: another writer's metadata); upstream
// returns every conflict and retries the whole sync a rate-limited second
// or more later, which a Job whose labels another actor keeps writing may
// never get past. A conflict over anything else, or any failed step, stops
// the plan: what
// was not done is lowered in the memory, and the *Error returned names the
// step and carries a Result with what was done. Reconcile again from a
// fresh snapshot (a workqueue's rate-limited retry does that).
//
// One difference from upstream: a pod creation refused because the
// namespace is being deleted lowers the expectations and fails the step
// like any other error (upstream ignores it silently, keeping the
// expectation until it expires); the namespace and the Job are going away
// either way.
package executor
