// Package jobsync decides what Kubernetes' Job controller does in one sync
// of one batch/v1 Job, without doing any of it.
//
// Reconcile takes a Snapshot (the Job, its pods, the clock and the memory a
// controller keeps between syncs) and returns a Plan: pods to delete, pods
// to create, status writes, tracking-finalizer removals, when to look again,
// the events to record and the memory to keep. The decisions are those of
// kube-controller-manager's Job controller in Kubernetes v1.36 with its
// default feature gates. The package does no I/O, reads no clock and never
// modifies its inputs; the same snapshot gives a deep-equal plan whatever the
// order of its pods.
//
// # The plan contract
//
// Carry a plan out in the order of its fields:
//
//  1. Releases, Adoptions: pod ownership changes (upstream's
//     ControllerRefManager). Each PodClaim carries the strategic merge patch
//     to send (PodClaim.Patch, of type ClaimPatchType), byte for byte
//     upstream's: an adoption adds the Job's controller reference and the
//     tracking finalizer, a release deletes every owner reference with the
//     Job's UID and the tracking finalizer; both name the pod's UID as a
//     precondition. OwnerReference and Finalizer say the same as data.
//  2. Deletions: each with RemoveFinalizer when upstream patches the
//     finalizer away first (suspend, scale-down); a finishing Job's pods keep
//     theirs until they are counted.
//  3. Creations: complete pod objects.
//  4. InterimStatus: the first status write, before any finalizer goes. It
//     records every pod about to be released in
//     status.uncountedTerminatedPods (write-ahead) and carries the interim
//     conditions FailureTarget and SuccessCriteriaMet. When a sync writes
//     status once only, it writes it here.
//  5. FinalizerRemovals.
//  6. Status: the second write, moving released pods into the counters and
//     adding Complete or Failed once no pod is uncounted or terminating.
//  7. RequeueAfter: the earliest moment at which time alone changes the
//     decision (active deadline, pod-failure backoff); zero for none.
//  8. Events, and Expectations and Backoff to keep for the next call.
//
// The caller carries a plan out step by step (Plan.Steps), recording each
// step's events once it is over. A failed pod creation or deletion does
// not stop the plan: Resume decides the rest (the status still written for
// what was done, as upstream writes it), and the error goes to a
// rate-limited retry afterwards. Any other failed step stops the plan.
// Advance says what memory to keep of a plan carried out that far, and
// Observe what each pod informer event lowers in it. The next sync starts
// from a fresh snapshot: the write-ahead order makes this safe, as no
// tracking finalizer is removed before the pod is recorded in the Job's
// status.
//
// Every creation, deletion and finalizer removal carries a Reason a person
// can read, and Plan.Notes explain decisions that lead to no action ("no
// pods are created: pod-failure backoff after 2 failures, 15s left").
// Pod creation and deletion events (SuccessfulCreate, SuccessfulDelete)
// belong to whoever carries the plan out and are not in Plan.Events.
//
// # Jobs of many pods
//
// A sync needs far less than every pod of a large Job. A caller that keeps
// its pods by event, as an informer's handlers do, can spare each sync the
// pods that cannot change its decision or whose sums are enough, in three
// places beside Snapshot.Pods. Reconcile returns the plan it returns with
// every pod in Snapshot.Pods (a property test, the fuzz targets, every
// conformance case and every checked simulator sync compare the two). A pod
// must be in one place only: Pods, one of the sets, or the settled count.
// jobsynctest and jobsim run do all three.
//
// Settled pods. A pod that the Job controls and selects, that is terminal
// and no longer carries the tracking finalizer, was counted long ago, and
// no later decision reads it (unless the Job has a pod failure policy). A
// Job of a million completions ends with a million of them. Test each pod
// once, when it changes, with NewSettledFilter(job, opts).Settled(pod),
// keep the settled ones out of Snapshot.Pods and give their number in
// Snapshot.SettledPods (see ExampleSettledFilter).
//
// Active pods. A wide Job has many active pods at every sync, and every
// sync must know how many there are, how many are ready and, for an Indexed
// Job, which indexes they hold; most syncs delete none of them. Keep them
// in an ActivePods made with NewActivePods(job): call Put(pod) on every add
// and update event (it lets go of the pod and returns false when the pod is
// no longer an active pod of the Job: keep such pods in Snapshot.Pods) and
// Delete(uid) on every delete, and hand the set in Snapshot.Active.
// Reconcile adds the set's sums to what it finds in Pods and walks the held
// pods only when it must rank or delete active pods (scaling down,
// suspending, finishing, mending an Indexed Job's indexes). See
// ExampleActivePods.
//
// Succeeded pods waiting to be recorded. Upstream records at most 500
// finished pods a sync in uncountedTerminatedPods, so when a wide
// NonIndexed Job's pods succeed faster than that they wait, still carrying
// the tracking finalizer, and any of them may be the next recorded. Hold
// them in a SucceededPods (NewSucceededPods(job, opts), the same Put and
// Delete), handed in Snapshot.Succeeded: Reconcile counts them, looks up by
// UID only those in uncountedTerminatedPods and those whose finalizer
// removal is expected, and reads only the first ones, as many as the sync
// can record. It takes no pod of an Indexed Job (upstream's cap counts only
// new indexes, so that backlog stays small) nor of a Job with a pod failure
// policy. See ExampleSucceededPods.
//
// The sets are the caller's, changed between syncs and only read by
// Reconcile: do not change a set while a Reconcile call reads it, nor
// modify a pod it holds (put the new version). With all three, a sync of a
// Job of a million pods reads the pods that changed state, and the CPU time
// of Reconcile per pod of the Job grows little from ten thousand pods to a
// million (BENCHMARKS.md at the repository root has the measurements).
//
// # Files
//
// Each file of the package holds one thing:
//
//   - doc.go: this documentation.
//   - reconcile.go: Reconcile, the list of the steps of one sync in
//     upstream's order, which assembles the plan.
//   - assemble.go: the plan parts the scan, pod and tracking steps return, and
//     their assembly into the plan.
//   - plan.go: Snapshot, what a sync reads, and Plan with its parts, what it
//     decides.
//   - options.go: Options, upstream's flags, constants and feature gates
//     that a sync reads.
//   - input.go: InputError and the checks of a snapshot that Reconcile
//     cannot decide on.
//   - state.go: syncState, what every step reads, the status a sync
//     builds, and the pod counts.
//   - census.go: podCensus, what the scan finds of the pods, which the steps
//     query.
//   - skip.go: the syncs that stop before reading any pod.
//   - scan.go: scan, the one pass over the listed pods, with the ownership
//     claims and the duplicate-UID check.
//   - shortlist.go: the ranking of active pods for deletion while the scan
//     reads them.
//   - order.go: the orders of pods upstream's steps imply, and the queue
//     that takes finished pods in canonical order.
//   - grow.go: the growth of the lists the scan builds over many pods.
//   - uidfilter.go: the hashes that spare the scan a set of every UID.
//   - labelmatch.go: the match of pod labels against the Job's selector.
//   - ownership.go: what tells the Job's pods from others: controller
//     references and owner UIDs.
//   - claim.go: the adoption and release claims and their patches.
//   - predicates.go: podRecord, what a sync knows of a finished or deleting
//     pod, and tests of pods and Jobs.
//   - count.go: the count step: succeeded and failed pods so far and the
//     backoff record.
//   - indexprogress.go: the index step: succeeded and failed indexes and the
//     removals delayed per index.
//   - failurecounts.go: the per-index failure counts a pod carries in its
//     annotations.
//   - failurepolicy.go: what a pod failure policy says of a failed pod.
//   - successpolicy.go: the match of an Indexed Job's success policy.
//   - finish.go: decideFinish, whether and how the Job is finishing, and the
//     completion check.
//   - manage.go: the pod step: deletions of a finishing, suspended or
//     surplus Job's pods, and creations.
//   - removal.go: which active pods the pod step deletes, and why.
//   - create.go: the pods a sync creates.
//   - suspend.go: the Suspended condition, its events and startTime.
//   - tracking.go: track, the write-ahead accounting of finished pods, the
//     status writes and the terminal condition.
//   - conditions.go: the Job conditions, reasons and messages upstream
//     writes.
//   - untracked.go: the note on terminal pods the status cannot have
//     counted.
//   - wording.go: the wording of counts in reasons and notes.
//   - steps.go: Plan.Steps, the calls and events of each step of a plan.
//   - resume.go: Resume and PodFailures: the rest of a plan after failed pod
//     calls.
//   - advance.go: Advance and Memory: what to keep of a plan carried out so
//     far.
//   - observe.go: Observe: what a pod informer event lowers in the
//     expectations.
//   - plancopy.go: Plan.DeepCopy.
//   - settled.go: SettledFilter, which tells the pods a sync can do without.
//   - activepods.go: ActivePods, the caller's set of a Job's active pods
//     with the sums a sync reads.
//   - succeededpods.go: SucceededPods, the caller's set of succeeded pods
//     waiting to be recorded.
//   - indexset.go: indexSet, the set of completion indexes the scan and
//     ActivePods keep.
//   - ttl.go: TTLAfterFinished, the TTL-after-finished controller's
//     decision.
package jobsync
