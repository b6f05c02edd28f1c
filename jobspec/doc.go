// Package jobspec applies the API server's defaults to a batch/v1 Job and
// reports what the API server would reject in it, so that a Job that never
// went through an API server (a hand-written or generated Job, a simulator's
// input) can be given to jobsync.Reconcile exactly as an informer would hand
// it over.
//
// Default returns the Job as the API server would store it; Validate
// reports, with the API server's field paths, what its create-time checks
// would reject. Both are pure: no I/O, no clock, and their input is never
// modified.
package jobspec
