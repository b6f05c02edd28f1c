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
// A caller that keeps its pods by event, as an informer's handlers do, can
// spare each sync the reading of pods that cannot change its decision or
// whose sums are enough: the settled pods (SettledFilter, counted in
// Snapshot.SettledPods), the active pods (ActivePods, in Snapshot.Active)
// and a NonIndexed Job's succeeded pods waiting to be recorded
// (SucceededPods, in Snapshot.Succeeded). Reconcile decides the same with
// the pods in those places as with every pod in Snapshot.Pods, and a sync
// of a Job of a million pods then reads the pods that changed state.
package jobsync
