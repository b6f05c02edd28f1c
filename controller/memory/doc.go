// Package memory keeps what a controller built on jobsync must remember
// between the syncs of each Job: the expectations (pod creations, deletions
// and tracking-finalizer removals not yet seen in the informer) and the
// pod-failure backoff record.
//
// jobsync.Reconcile reads this memory in its Snapshot and returns the next
// one in its Plan, but the plan's memory cannot simply be written back:
// the informer goes on observing pods while the plan is carried out, and a
// plain overwrite after the API calls would erase those observations (the
// Job then waits for creations it has already seen until the expectations
// expire, five minutes later). A Store therefore offers no way to overwrite
// a Job's memory. A sync goes through three calls:
//
//   - Snapshot reads the memory and then lists the pods (it calls the
//     caller's PodLister itself, so the other order, which counts pods
//     twice, cannot be written) into a jobsync.Snapshot;
//   - Begin takes the snapshot, the options and the plan and stores the
//     plan's memory, merged with what was observed since the snapshot, and
//     returns a Sync;
//   - the API calls follow; after failed pod calls the Sync resumes the
//     plan (jobsync.Resume), and at the end it is told how far the plan
//     went (Advance) and keeps what jobsync.Advance says.
//
// The executor package takes a *Sync, not a plan, so a plan cannot be
// carried out through it before its memory is stored.
//
// An Observer lowers the memory from pod informer events by what
// jobsync.Observe says, and forgets a Job's memory when the Job is deleted.
package memory
