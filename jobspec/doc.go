// Package jobspec applies the API server's defaults to a batch/v1 Job and
// reports what the API server would reject in it, so that a Job that never
// went through an API server (a hand-written or generated Job, a simulator's
// input, a custom resource that embeds a JobSpec) can be given to
// jobsync.Reconcile exactly as an informer would hand a Job over.
//
// Default returns the Job as the API server would store it; Validate
// reports, with the API server's field paths, what its create-time checks
// would reject. All functions are pure: no I/O, no clock, and their input
// is never modified.
//
// # A custom resource that embeds a JobSpec
//
// An API server defaults and validates a Job it stores, but not the JobSpec
// embedded in a custom resource: its controller does both, seeing the
// resource as a Job (its metadata, with the embedded spec and status; see
// jobsync.Options.Owner).
//
//   - On every sync, Prepare defaults the view (with the selector and
//     template labels generated from the resource's UID, the same on every
//     sync) and validates it. Reconcile the result only when it reports
//     nothing; otherwise report the errors (an event, a condition) and
//     leave the resource alone, as an API server would have refused it.
//   - In a validating admission webhook on create, ValidateNew reports the
//     same errors before the object exists, when it has a name but no UID
//     yet, so that an invalid resource is refused rather than stored. Updates
//     are not checked: a webhook that must keep the fields a Job may not
//     change (selector, completion mode, template outside suspension)
//     compares the old and new objects itself.
//
// Nothing is written back: the stored resource keeps what its author wrote,
// and the defaults are applied again on each sync, so a default that a
// later release changes follows the release.
package jobspec
