package jobsynctest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The controller side: the work queue, the informer and the carrying out of
// plans, as a controller built on jobsync would do them.

const (
	// podBatchPeriod is how long the work queue gathers pod events before
	// a sync, as upstream's controller batches them.
	podBatchPeriod = time.Second
	// retryBase and retryMax bound the rate-limited retry of a failed sync.
	retryBase = time.Second
	retryMax  = time.Minute
)

var (
	errAPI      = errors.New("the API server returned an error (injected)")
	errConflict = errors.New("the Job's resourceVersion is stale (conflict)")
	errNotFound = errors.New("not found")
)

// handle carries out a non-sync event.
func (c *Cluster) handle(ev event) StepRecord {
	switch ev.kind {
	case evPodStart:
		return c.startPod(c.pods[ev.uid])
	case evPodExit:
		return c.exitPod(c.pods[ev.uid])
	case evPodDisrupt:
		return c.disruptPod(c.pods[ev.uid])
	case evPodStop:
		return c.stopPod(c.pods[ev.uid])
	case evPodDeleteByOther:
		sp := c.pods[ev.uid]
		c.result.Faults.PodDeletes++
		c.deletePod(sp)
		return StepRecord{Kind: KindPodDeleted, Pod: sp.obj.Name, Detail: "deleted by another actor"}
	case evPodRemove:
		sp := c.pods[ev.uid]
		if sp == nil || sp.obj.DeletionTimestamp == nil || !podlife.IsTerminal(sp.obj) || len(sp.obj.Finalizers) > 0 {
			return StepRecord{Kind: KindPodRemoved, Detail: "nothing to remove"}
		}
		delete(c.pods, ev.uid)
		c.emitPod(sp.obj, true)
		return StepRecord{Kind: KindPodRemoved, Pod: sp.obj.Name}
	case evInformerPods:
		c.podStream.stalled = false
		c.flush()
		return StepRecord{Kind: KindInformer, Detail: "pod watch"}
	case evInformerJob:
		c.jobStream.stalled = false
		c.flush()
		return StepRecord{Kind: KindInformer, Detail: "Job watch"}
	case evInformerAll:
		c.podStream.stalled, c.jobStream.stalled = false, false
		c.flush()
		return StepRecord{Kind: KindInformer, Detail: "pod and Job watches"}
	case evJobChange:
		return c.changeJob(c.cfg.Faults.JobChanges[ev.change])
	case evTTLCheck:
		return c.ttlCheck()
	case evJobRemove:
		if c.job == nil || c.job.DeletionTimestamp == nil || len(c.pods) > 0 {
			return StepRecord{Kind: KindJobRemoved, Detail: "nothing to remove"}
		}
		old := c.job
		c.job = nil
		c.emitJob(old, true)
		return StepRecord{Kind: KindJobRemoved}
	}
	panic(fmt.Sprintf("jobsynctest: unknown event kind %d", ev.kind))
}

// ttlCheck is one look of the TTL-after-finished controller at the Job as
// the API server holds it: it deletes the Job (foreground) once its TTL
// has run out, and otherwise looks again when it will.
func (c *Cluster) ttlCheck() StepRecord {
	rec := StepRecord{Kind: KindTTL}
	if c.job == nil {
		rec.Detail = "the Job is gone"
		return rec
	}
	d, err := jobsync.TTLAfterFinished(c.job, c.now)
	switch {
	case err != nil:
		rec.Detail = "cannot decide: " + err.Error()
	case d.Delete:
		rec.Kind = KindJobDeleted
		rec.Detail = "the TTL-after-finished controller deletes the Job: " + d.Reason
		j := c.job.DeepCopy()
		now := metav1.NewTime(c.now)
		j.DeletionTimestamp = &now
		j.Finalizers = append(j.Finalizers, metav1.FinalizerDeleteDependents)
		c.storeJob(j)
		c.result.TTLDeletedAt = c.now
	case d.RequeueAfter > 0:
		rec.Detail = d.Reason
		c.schedule(event{at: c.now.Add(d.RequeueAfter), kind: evTTLCheck})
	default:
		rec.Detail = d.Reason
	}
	return rec
}

// changeJob carries out a user's change to the Job's spec.
func (c *Cluster) changeJob(ch JobChange) StepRecord {
	rec := StepRecord{Detail: ch.String()}
	switch {
	case ch.Suspend != nil && *ch.Suspend:
		rec.Kind = KindJobSuspended
	case ch.Suspend != nil:
		rec.Kind = KindJobResumed
	case ch.Delete:
		rec.Kind = KindJobDeleted
	default:
		rec.Kind = KindJobScaled
	}
	if c.job == nil || c.job.DeletionTimestamp != nil {
		rec.Detail += ": the Job is gone or being deleted, nothing changes"
		return rec
	}
	if isFinished(c.job) && !ch.Delete {
		rec.Detail += ": the Job has finished, nothing changes"
		return rec
	}
	c.result.Faults.JobChanges++
	j := c.job.DeepCopy()
	switch {
	case ch.Suspend != nil:
		j.Spec.Suspend = ptr(*ch.Suspend)
	case ch.Parallelism != nil:
		j.Spec.Parallelism = ptr(*ch.Parallelism)
	case ch.Scale != nil:
		j.Spec.Parallelism = ptr(*ch.Scale)
		j.Spec.Completions = ptr(*ch.Scale)
	case ch.Delete:
		now := metav1.NewTime(c.now)
		j.DeletionTimestamp = &now
		j.Finalizers = append(j.Finalizers, metav1.FinalizerDeleteDependents)
	}
	j.Generation++
	c.storeJob(j)
	if c.check != nil {
		c.check.jobChanged(j)
	}
	return rec
}

func isFinished(job *batchv1.Job) bool {
	return hasTrueCondition(job, batchv1.JobComplete) || hasTrueCondition(job, batchv1.JobFailed)
}

func (c *Cluster) storeJob(j *batchv1.Job) {
	j.ResourceVersion = c.nextRV()
	c.job, c.lastJob = j, j
	c.emitJob(j, false)
}

// emitPod and emitJob put a change on its watch stream. A stream that is
// not stalled may stall now (Faults.StaleView); one that is not stalled
// delivers at once unless a sync is under way.
func (c *Cluster) emitPod(p *corev1.Pod, deleted bool) {
	c.emit(&c.podStream, watchEvent{deleted: deleted, pod: p}, evInformerPods)
}

func (c *Cluster) emitJob(j *batchv1.Job, deleted bool) {
	c.emit(&c.jobStream, watchEvent{deleted: deleted, job: j}, evInformerJob)
}

func (c *Cluster) emit(s *stream, ev watchEvent, kind evKind) {
	s.queue = append(s.queue, ev)
	f := &c.cfg.Faults
	switch {
	case !c.podStream.stalled && !c.jobStream.stalled && f.StaleView > 0 && c.rng.Float64() < f.StaleView:
		// Both watches stall together: the view is a consistent picture
		// of the past.
		c.podStream.stalled, c.jobStream.stalled = true, true
		c.result.Faults.Stalls++
		c.schedule(event{at: c.now.Add(c.lag()), kind: evInformerAll})
	case !s.stalled && f.SkewedView > 0 && c.rng.Float64() < f.SkewedView:
		s.stalled = true
		c.result.Faults.Stalls++
		c.schedule(event{at: c.now.Add(c.lag()), kind: kind})
	}
	if !c.holding {
		c.flush()
	}
}

// lag draws how long a stalled watch holds its events: whole seconds up to
// MaxLag.
func (c *Cluster) lag() time.Duration {
	if c.maxLag <= time.Second {
		return c.maxLag
	}
	return time.Duration(1+c.rng.Int64N(int64(c.maxLag/time.Second))) * time.Second
}

// flush delivers what the streams that are not stalled hold.
func (c *Cluster) flush() {
	if !c.jobStream.stalled {
		q := c.jobStream.queue
		c.jobStream.queue = nil
		for _, ev := range q {
			c.deliverJob(ev)
		}
	}
	if !c.podStream.stalled {
		q := c.podStream.queue
		c.podStream.queue = nil
		for _, ev := range q {
			c.deliverPod(ev)
		}
	}
}

// deliverJob is the Job informer's event handler.
func (c *Cluster) deliverJob(ev watchEvent) {
	if ev.deleted {
		c.view.setJob(nil)
		// The Job's memory goes with it, as upstream (v1.37) drops a
		// deleted Job's expectations in its deletion handler: a new Job of
		// the same name must not wait for what the old one expected.
		c.mem = memory{}
		return
	}
	c.view.setJob(ev.job)
	c.requestSync(c.now)
}

// deliverPod is the pod informer's event handler: it updates the view and
// lowers the expectations as upstream's handlers do.
func (c *Cluster) deliverPod(ev watchEvent) {
	p := ev.pod
	old := c.view.get(p.UID)
	switch {
	case ev.deleted:
		c.view.remove(p.UID)
		c.observeDeletion(p, true)
	case old == nil:
		c.view.put(p)
		if p.DeletionTimestamp != nil {
			c.observeDeletion(p, false)
		} else if c.controlled(p) {
			c.mem.exp = c.mem.exp.CreationObserved()
		}
	default:
		c.view.put(p)
		if old.ResourceVersion == p.ResourceVersion {
			return
		}
		if p.DeletionTimestamp != nil {
			c.observeDeletion(p, false)
		} else if c.controlled(p) && !podlife.HasFinalizer(p, c.fin) {
			c.mem.exp = c.mem.exp.FinalizerRemovalObserved(p.UID)
		}
	}
	c.requestSync(c.now.Add(podBatchPeriod))
}

// observeDeletion: a pod seen being deleted (final: gone) lowers the
// deletion expectations, and the finalizer expectation once the finalizer
// is gone, unless the Job is finished in the view.
func (c *Cluster) observeDeletion(p *corev1.Pod, final bool) {
	if !c.controlled(p) || c.view.job == nil || isFinished(c.view.job) {
		return
	}
	c.mem.exp = c.mem.exp.DeletionObserved()
	if final || !podlife.HasFinalizer(p, c.fin) {
		c.mem.exp = c.mem.exp.FinalizerRemovalObserved(p.UID)
	}
}

func (c *Cluster) controlled(p *corev1.Pod) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && c.lastJob != nil && ref.UID == c.lastJob.UID
}

// crash loses the controller's memory; it comes back with a fresh
// informer view (a full list) and syncs at once.
func (c *Cluster) crash() {
	c.result.Faults.Crashes++
	if c.check != nil {
		c.check.crashed()
	}
	c.mem = memory{}
	c.podStream, c.jobStream = stream{}, stream{}
	c.view = newView(c.job, c.opts, len(c.pods))
	for _, sp := range c.sortedPods() {
		c.view.put(sp.obj)
	}
	c.apiRetries = 0
	c.requestSync(c.now)
}

// call is one API call of a plan.
type call struct {
	kind     string // "release", "adopt", "unfinalize-delete", "delete", "create", "interim", "unfinalize", "status"
	pod      jobsync.PodRef
	creation *jobsync.PodCreation
	claim    *jobsync.PodClaim
	status   *batchv1.JobStatus
	deletion int // index in plan.Deletions
}

func planCalls(plan *jobsync.Plan, finalizersFirst bool) []call {
	var calls []call
	for i, r := range plan.Releases {
		calls = append(calls, call{kind: "release", pod: r.Pod, claim: &plan.Releases[i]})
	}
	for i, a := range plan.Adoptions {
		calls = append(calls, call{kind: "adopt", pod: a.Pod, claim: &plan.Adoptions[i]})
	}
	for i, d := range plan.Deletions {
		if d.RemoveFinalizer {
			calls = append(calls, call{kind: "unfinalize-delete", pod: d.Pod, deletion: i})
		}
		calls = append(calls, call{kind: "delete", pod: d.Pod, deletion: i})
	}
	for i := range plan.Creations {
		calls = append(calls, call{kind: "create", creation: &plan.Creations[i]})
	}
	removals := make([]call, 0, len(plan.FinalizerRemovals))
	for _, r := range plan.FinalizerRemovals {
		removals = append(removals, call{kind: "unfinalize", pod: r.Pod})
	}
	if finalizersFirst {
		calls = append(calls, removals...)
		removals = nil
	}
	if plan.InterimStatus != nil {
		calls = append(calls, call{kind: "interim", status: plan.InterimStatus})
	}
	calls = append(calls, removals...)
	if plan.Status != nil {
		calls = append(calls, call{kind: "status", status: plan.Status})
	}
	return calls
}

// sync is one controller sync: Reconcile on the view, then the plan
// carried out call by call until one fails or the controller crashes.
func (c *Cluster) sync() (StepRecord, error) {
	c.result.Syncs++
	rec := StepRecord{Kind: KindSync}
	if c.view.job == nil {
		rec.Detail = "the Job is gone from the informer: nothing to do"
		return rec, nil
	}
	live, held, succeeded, settled := c.view.list()
	snap := jobsync.Snapshot{Job: c.view.job, Pods: live, Active: held, Succeeded: succeeded, SettledPods: settled, Now: c.now, Expectations: c.mem.exp, Backoff: c.mem.backoff}
	c.listed += int64(len(snap.Pods))
	// The checks read the whole view, settled and held pods included: the plan
	// must be the one for every pod the controller sees (beforePlan
	// compares it with Reconcile's plan for them, shuffled).
	seen := snap
	if c.check != nil {
		seen.Pods, seen.Active, seen.Succeeded, seen.SettledPods = c.view.all(), nil, nil, 0
	}
	plan, err := jobsync.Reconcile(snap, c.opts)
	if err != nil {
		if c.check != nil {
			c.check.violate("reconcile-error", "%s", err.Error())
		}
		c.apiRetries++
		c.requestSync(c.now.Add(c.retryDelay()))
		return rec, fmt.Errorf("jobsynctest: Reconcile at %s: %w", c.now.Format(time.RFC3339), err)
	}
	rec.Plan = &plan
	if c.check != nil {
		c.check.beforePlan(seen, plan)
	}

	calls := planCalls(&plan, c.finalizersFirst)
	crashAt := -1
	if c.cfg.Faults.Crash > 0 && c.rng.Float64() < c.cfg.Faults.Crash {
		crashAt = c.rng.IntN(len(calls) + 1)
	}
	c.holding = true
	r := carrying{c: c, snap: snap, seen: seen, plan: plan, rv: snap.Job.ResourceVersion, crashAt: crashAt}
	r.carryOut(calls)
	done, failure := r.made, r.failure
	rec.Done, rec.Calls = done, len(calls)
	plan = r.plan

	if r.crashed {
		rec.Interrupted = fmt.Sprintf("the controller crashed after %d of %d calls", done, len(calls))
		c.holding = false
		c.crash()
		rec.Detail = summarize(&plan, done, len(calls))
		return rec, nil
	}

	// Remember what the library says to remember of a plan carried out
	// this far (jobsync.Advance).
	mem := jobsync.Advance(snap, plan, r.progress)
	c.mem.exp, c.mem.backoff = mem.Expectations, mem.Backoff
	if c.check != nil {
		c.check.planWritten(&plan, r.progress.Done(jobsync.StepInterimStatus) && plan.InterimStatus != nil)
	}
	c.holding = false
	c.flush()

	rec.Detail = summarize(&plan, done, len(calls))
	if failure != nil {
		rec.Interrupted = failure.Error()
		c.apiRetries++
		c.requestSync(c.now.Add(c.retryDelay()))
		return rec, nil
	}
	c.apiRetries = 0
	if plan.RequeueAfter > 0 {
		c.requestSync(c.now.Add(plan.RequeueAfter))
	}
	return rec, nil
}

func (c *Cluster) retryDelay() time.Duration {
	d := retryBase
	for k := 1; k < c.apiRetries && d < retryMax; k++ {
		d *= 2
	}
	return min(d, retryMax)
}

// do carries out one API call against the fake API server.
func (c *Cluster) do(cl call, plan *jobsync.Plan, snap jobsync.Snapshot, rv *string) error {
	switch cl.kind {
	case "release", "adopt":
		sp := c.pods[cl.pod.UID]
		if sp == nil {
			return errNotFound
		}
		patched, err := applyClaim(sp.obj, *cl.claim, cl.kind == "adopt")
		if err != nil {
			return err
		}
		c.update(sp, func(p *corev1.Pod) { *p = *patched })
		c.maybeRemove(sp) // a release drops the tracking finalizer
		return nil
	case "unfinalize-delete", "unfinalize":
		sp := c.pods[cl.pod.UID]
		if sp == nil {
			return nil // upstream treats a pod gone as a removal done
		}
		if c.check != nil {
			c.check.finalizerRemoval(sp, cl.kind == "unfinalize-delete", plan, snap)
		}
		if podlife.HasFinalizer(sp.obj, c.fin) {
			c.update(sp, func(p *corev1.Pod) {
				// DeleteFunc writes in place: the list is shared with
				// the earlier versions of the pod (see update).
				p.Finalizers = slices.DeleteFunc(slices.Clone(p.Finalizers), func(f string) bool { return f == c.fin })
			})
			c.maybeRemove(sp)
		}
		return nil
	case "delete":
		sp := c.pods[cl.pod.UID]
		if sp == nil {
			return nil // not found: the controller counts it as observed
		}
		c.result.Deleted++
		c.deletePod(sp)
		return nil
	case "create":
		c.result.Created++
		sp := c.createPod(cl.creation.Pod)
		if c.check != nil {
			c.check.created(sp, plan, snap)
		}
		return nil
	case "interim", "status":
		if c.job == nil {
			return errNotFound
		}
		if c.job.ResourceVersion != *rv {
			c.result.Faults.Conflicts++
			return errConflict
		}
		if errs := validateStatusUpdate(c.job, cl.status); len(errs) > 0 {
			c.result.Faults.Rejections++
			msg := strings.Join(errs, "; ")
			if c.check != nil {
				c.check.rejected(cl.kind, errs)
			}
			return fmt.Errorf("status rejected: %s", msg)
		}
		j := c.job.DeepCopy()
		j.Status = *cl.status.DeepCopy()
		if c.check != nil {
			c.check.statusWritten(c.job, j, cl.kind == "status")
		}
		c.storeJob(j)
		*rv = j.ResourceVersion
		return nil
	}
	return fmt.Errorf("unknown call %q", cl.kind)
}

// summarize says what a sync did, for people.
func summarize(plan *jobsync.Plan, done, calls int) string {
	if plan.Skipped != "" {
		return "skipped: " + plan.Skipped
	}
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(len(plan.Deletions), "deletions")
	add(len(plan.Creations), "creations")
	add(len(plan.FinalizerRemovals), "finalizer removals")
	if plan.InterimStatus != nil || plan.Status != nil {
		parts = append(parts, "status")
	}
	for _, e := range plan.Events {
		parts = append(parts, "event "+e.Reason)
	}
	if plan.RequeueAfter > 0 {
		parts = append(parts, "requeue after "+plan.RequeueAfter.String())
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to do")
	}
	s := strings.Join(parts, ", ")
	if done < calls {
		s += fmt.Sprintf(" (%d of %d calls done)", done, calls)
	}
	return s
}
