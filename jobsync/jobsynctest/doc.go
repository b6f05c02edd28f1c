// Package jobsynctest is a fake cluster for testing code built on jobsync,
// in the spirit of net/http/httptest: one Job, its pods, an API server that
// behaves like the real one where the Job controller can tell, a pod
// lifecycle model, and the Job controller itself (jobsync.Reconcile plus
// the memory a controller keeps between syncs), all on a discrete-event
// clock.
//
// A Cluster is built from a Job and a Config and run with Run (to the end)
// or Step (one event at a time). Everything is deterministic for a given
// Config: randomness comes from Config.Seed, time from the simulated clock.
// There are no goroutines and no I/O.
//
// # The API server
//
// Pods created from generateName get unique names and UIDs; a deleted pod
// keeps a deletion timestamp while a finalizer holds it and leaves once it
// is terminal and free of finalizers. Status writes carry the
// resourceVersion of the Job the controller read, and are refused on a
// conflict or when the API server's status validation rejects them (ready
// above active, terminal conditions with active, terminating or uncounted
// pods, Complete without SuccessCriteriaMet, counters going down, and so
// on). Deleting the Job deletes it in the foreground: its pods are deleted
// and it leaves once they are gone. The claim patch and the status
// validation are package apirules, the pod lifecycle package podlife: the
// controller module's kubelet player and the library's interaction tests
// apply the same rules.
//
// # The controller
//
// Each sync reads the controller's informer view (not the API server), its
// expectations and its backoff record, calls jobsync.Reconcile, and carries
// the plan out in the documented order: claims, deletions (with their
// finalizer patch first where asked), creations, the interim status, the
// finalizer removals, the final status. The plan's Expectations and Backoff
// are kept, lowered for the calls not carried out. The informer lowers the
// expectations as upstream's event handlers do (jobsync.Observe, as any
// controller built on jobsync would): a pod seen added observes a
// creation, a pod seen with a deletion timestamp or gone observes a
// deletion, a pod seen without the tracking finalizer observes its removal.
// The work queue gathers pod events for a second before it syncs, syncs at
// once on a change to the Job, retries a failed sync after a delay that
// doubles from 1s to 1m, and honours the plan's RequeueAfter.
//
// The view sorts each pod, as its event arrives, into settled (a
// jobsync.SettledFilter says so: counted long ago, read by no decision
// again), held (an active pod of the Job, kept in a jobsync.ActivePods),
// done (a NonIndexed Job's succeeded pod still carrying the tracking
// finalizer, kept in a jobsync.SucceededPods) or live. A sync hands
// Reconcile the live pods in Snapshot.Pods, the sets in Snapshot.Active
// and Snapshot.Succeeded and the number of settled ones in
// Snapshot.SettledPods, so that a sync of a long, wide Job reads the pods
// that changed state and the sets' sums rather than every pod it ever had.
// With Config.Check every plan is compared with Reconcile's plan for the
// whole view, settled and held pods included and shuffled.
//
// # Pods
//
// Each pod follows a Behavior: Pending for StartDelay, then running and
// ready, then after RunTime its container exits (restarting under
// restartPolicy OnFailure while it fails), or it is disrupted
// (DisruptionTarget condition, then deleted). A running pod that is deleted
// stops after its Shutdown time, capped by its grace period, and is Failed;
// deletion and removal follow the API server's rules (package apirules). A
// Script fixes behaviours per pod, per completion index and per attempt;
// pods it leaves open get a random behaviour from the seed.
//
// # Faults
//
// Faults make API calls fail, crash the controller in the middle of a plan
// (its memory is lost and it starts over from a fresh list of the API
// server), stall the informer's watch streams so that syncs see stale
// views, have other actors delete pods, and change the Job on a schedule
// (suspend, resume, parallelism, elastic scaling of Indexed Jobs, deletion).
//
// # Statuses for other tests
//
// Statuses and FinalStatus run a Job to its end (with the scripts
// AllSucceed, FailFirst and RunForever, or any other) and return the
// statuses the controller wrote, so that a test of code that reads Jobs
// sets job.Status to what a controller would write instead of conditions
// written by hand, which the API server's status validation refuses unless
// they are exactly that.
//
// # Checks
//
// With Config.Check the cluster checks (from this package's internal
// oracle, a file per rule), at every step, the invariants listed on
// Violation, and at the end that every pod that ended while tracked is
// counted exactly once. The counting rule, from upstream's semantics: a pod
// is counted as the Job's status recorded it (uncountedTerminatedPods) before
// its tracking finalizer went, and otherwise as the controller saw it at
// that moment:
//
//   - A pod deleted as surplus (suspend, scale-down) has its finalizer
//     removed while active and is never counted, whatever it does next.
//   - A succeeded pod counts once in status.succeeded; for Indexed Jobs the
//     count is of distinct completed indexes (status.completedIndexes), so
//     two pods succeeding for one index count once, and indexes at or above
//     completions (after scaling down) not at all.
//   - A failed pod (phase Failed, or being deleted under
//     podReplacementPolicy TerminatingOrFailed without a pod failure
//     policy) counts once in status.failed, unless a pod failure policy
//     rule with action Ignore matches it; for Indexed Jobs every failed pod
//     counts, not every index.
//   - A pod still running when the Job is failing counts as failed (unless
//     an Ignore rule matches its conditions); one still running when the
//     Job succeeded, or when the Job is being deleted and did not record
//     it, is not counted.
//
// A few behaviours of upstream's controller, which jobsync follows, are let
// pass by the checks and listed in Result.Tolerated instead (see "Upstream
// hazards" in README.md): a Failed condition refused for want of startTime
// while the Job is suspended, an Indexed pod recorded as failed whose index
// also completes, a Job completed while pods it created after a stale
// success are not yet in its view, and, under informer skew, an index
// retried without the backoff of a failure its Job view did not yet hold.
package jobsynctest
