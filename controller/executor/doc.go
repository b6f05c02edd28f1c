// Package executor carries a jobsync.Plan out through client-go, step by
// step as jobsync.Plan.Steps lists them, with upstream's API calls:
//
//  1. claims: one strategic merge patch per pod, PodClaim.Patch as is
//     (adoptions only after a fresh read of the Job shows it is not being
//     deleted, as upstream's ControllerRefManager checks);
//  2. pods: deletions (the tracking-finalizer patch first where
//     RemoveFinalizer, then the delete, all in parallel) or creations (in
//     slow-start batches of 1, 2, 4, ... pods, stopping after the first
//     batch with a failure);
//  3. the interim status, through the status subresource, by the
//     Executor's StatusWriter (JobStatusWriter for batch/v1 Jobs,
//     DynamicStatusWriter for a custom resource that embeds a JobSpec);
//  4. the finalizer removals, in parallel with a bound;
//  5. the final status, on the Job object the interim write returned.
//
// Each step's events (Step.Events) are recorded once the step is over,
// through an events.k8s.io recorder (k8s.io/client-go/tools/events, as
// controller-runtime and Kueue use), a core/v1 one (tools/record), or
// both; SuccessfulCreate, FailedCreate, SuccessfulDelete and FailedDelete
// are recorded at each call, as upstream's pod control records them.
//
// Which step comes next and what to remember belong to the library: after
// failed pod calls the plan goes on with what jobsync.Resume decides (the
// status still written, with the pods that were not made not counted, so
// that an active deadline still runs while a quota refuses every pod), and
// the error is returned at the end, as upstream's syncJob does. Any other
// failed step stops the plan. The memory.Sync is told how far the plan
// went (jobsync.Progress), and keeps what jobsync.Advance says.
//
// The executor takes a *memory.Sync, so the plan's memory is stored before
// its first API call. A status write refused as a conflict is sent again
// (StatusConflictRetries times at most) on the Job read afresh when the
// Job changed only where Reconcile does not look (labels, annotations,
// finalizers, owner references: another writer's metadata); upstream
// returns every conflict and retries the whole sync a rate-limited second
// or more later, which a Job whose labels another actor keeps writing may
// never get past. The *Error returned names the step and carries a Result
// with what was done. Reconcile again from a fresh snapshot (a workqueue's
// rate-limited retry does that).
//
// For a custom resource that owns its pods (jobsync.Options.Owner), set
// Executor.Status and Executor.Owner: the status is written to the
// resource and the events name it with its own apiVersion and kind. The
// pods are created, patched and deleted through Client as for a Job.
//
// One difference from upstream: a pod creation refused because the
// namespace is being deleted counts as failed like any other (upstream
// ignores it silently, keeping the expectation until it expires); the
// namespace and the Job are going away either way.
package executor
