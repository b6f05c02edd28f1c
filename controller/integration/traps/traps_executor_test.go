package traps

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/memory"
	"github.com/jobsync/jobsync/jobsync"
)

// TestTrapFinalStatusNeedsTheInterimWritesResourceVersion: a sync that
// counts a finished pod writes status twice, and the second write must
// carry the resourceVersion the first one returned. Sent on the Job of the
// snapshot, the real API server refuses it with a conflict (client-go's
// fake clientset would not).
func TestTrapFinalStatusNeedsTheInterimWritesResourceVersion(t *testing.T) {
	r := newRig(t)
	job := r.create(newJob("pi", 1, 1))
	if _, _, err := r.sync("pi"); err != nil {
		t.Fatal(err)
	}
	pods := r.pods(job)
	if len(pods) != 1 {
		t.Fatalf("%d pods after the first sync, want 1", len(pods))
	}
	finishPod(t, r.ctx, r.client, pods[0], 0)

	plan, res, err := r.sync("pi")
	if plan.InterimStatus == nil || plan.Status == nil {
		t.Fatalf("the plan does not write status twice (interim %v, final %v): the test proves nothing", plan.InterimStatus != nil, plan.Status != nil)
	}
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	if !res.InterimStatusWritten || !res.StatusWritten {
		t.Errorf("writes: interim %v, final %v; want both", res.InterimStatusWritten, res.StatusWritten)
	}
	if got := r.job("pi"); !hasCondition(got, batchv1.JobComplete) || got.Status.Succeeded != 1 {
		t.Errorf("the Job is not complete with 1 success: %+v", got.Status)
	}
}

// TestTrapBackoffKeptOnlyIfTheInterimStatusIsWritten: the plan's backoff
// record counts the failures its interim status records. If that write
// fails, the failure is still new to the next sync, which counts it again;
// keeping the plan's record anyway would count it twice and double the
// replacement delay.
func TestTrapBackoffKeptOnlyIfTheInterimStatusIsWritten(t *testing.T) {
	r := newRig(t)
	job := r.create(newJob("pi", 1, 1))
	if _, _, err := r.sync("pi"); err != nil {
		t.Fatal(err)
	}
	pod := r.pods(job)[0]
	finishPod(t, r.ctx, r.client, pod, 1)

	fail := r.faults.add(&rule{match: is("PUT jobs/status"), code: http.StatusInternalServerError, times: 1})
	plan, res, err := r.sync("pi")
	if plan.InterimStatus == nil || plan.Backoff.FailuresAfterLastSuccess != 1 {
		t.Fatalf("the plan has no interim status with a new failure: the test proves nothing (backoff %+v)", plan.Backoff)
	}
	var stepErr *executor.Error
	if !errors.As(err, &stepErr) || stepErr.Step != executor.StepInterimStatus || r.faults.hitsOf(fail) != 1 {
		t.Fatalf("Execute: got %v, want the injected interim status failure", err)
	}
	if res.FinalizersRemoved != 0 {
		t.Errorf("%d finalizers removed after the interim status failed: write-ahead broken", res.FinalizersRemoved)
	}
	mem := r.memory(job)
	if mem.Backoff.FailuresAfterLastSuccess != 0 {
		t.Errorf("backoff kept after the interim status failed: %+v", mem.Backoff)
	}
	if mem.Expectations.ExpectsFinalizerRemoval(pod.UID) {
		t.Errorf("the finalizer removal that was never sent is still expected")
	}

	// The retry counts the failure once.
	if _, _, err := r.sync("pi"); err != nil {
		t.Fatal(err)
	}
	if got := r.memory(job).Backoff.FailuresAfterLastSuccess; got != 1 {
		t.Errorf("after the retry the backoff counts %d failures, want 1", got)
	}
}

// TestTrapJobFinishedClearedIfTheFinalStatusIsNotWritten: a plan that
// finishes the Job makes the next syncs wait until the informer shows the
// finished Job. If the final write failed, the Job never shows finished:
// remembering JobFinished anyway would skip every later sync, forever.
func TestTrapJobFinishedClearedIfTheFinalStatusIsNotWritten(t *testing.T) {
	r := newRig(t)
	job := r.create(newJob("pi", 1, 1))
	if _, _, err := r.sync("pi"); err != nil {
		t.Fatal(err)
	}
	finishPod(t, r.ctx, r.client, r.pods(job)[0], 0)

	// client-go sends protobuf: a condition's type is its field 1, so a
	// Complete condition shows as the bytes 0x0a 0x08 "Complete".
	fail := r.faults.add(&rule{match: is("PUT jobs/status", "\x0a\x08Complete"), code: http.StatusInternalServerError, times: 1})
	plan, res, err := r.sync("pi")
	if plan.Status == nil || !plan.Expectations.JobFinished {
		t.Fatal("the plan does not finish the Job: the test proves nothing")
	}
	var stepErr *executor.Error
	if !errors.As(err, &stepErr) || stepErr.Step != executor.StepStatus || r.faults.hitsOf(fail) != 1 {
		t.Fatalf("Execute: got %v (result %+v), want the injected final status failure", err, res)
	}
	if r.memory(job).Expectations.JobFinished {
		t.Error("JobFinished kept although the final status was not written")
	}
	plan, _, err = r.sync("pi")
	if err != nil {
		t.Fatal(err)
	}
	if plan.Skipped != "" {
		t.Errorf("the retry was skipped: %s", plan.Skipped)
	}
	if !hasCondition(r.job("pi"), batchv1.JobComplete) {
		t.Error("the Job did not complete on the retry")
	}
	if !r.memory(job).Expectations.JobFinished {
		t.Error("JobFinished not kept once the final status was written")
	}
}

// TestTrapDeletionsLoweredOnlyIfThePlanSetThem: the deletions of a Job
// that is finishing raise no expectations, so their failure lowers none;
// lowering anyway would eat into deletions still expected from an earlier
// sync and let the Job act on a view that has not caught up.
func TestTrapDeletionsLoweredOnlyIfThePlanSetThem(t *testing.T) {
	r := newRig(t)
	spec := newJob("pi", 2, 2)
	zero := int32(0)
	spec.Spec.BackoffLimit = &zero
	job := r.create(spec)
	if _, _, err := r.sync("pi"); err != nil {
		t.Fatal(err)
	}
	pods := r.pods(job)
	finishPod(t, r.ctx, r.client, pods[0], 1) // the Job fails: backoffLimit 0

	// Two deletions of an earlier sync are still unobserved.
	snap, _ := r.store.Snapshot(r.job("pi"), time.Now(), memory.NoPods)
	r.store.Begin(snap, r.opts, jobsync.Plan{Expectations: snap.Expectations.ExpectDeletions(2, time.Now())})

	fail := r.faults.add(&rule{match: is("DELETE pods"), code: http.StatusInternalServerError, times: 1})
	plan, _, err := r.sync("pi")
	if len(plan.Deletions) != 1 || plan.Expectations.Deletions != 2 {
		t.Fatalf("want a plan deleting the active pod without raising expectations; got %d deletions, expectations %+v", len(plan.Deletions), plan.Expectations)
	}
	var stepErr *executor.Error
	if !errors.As(err, &stepErr) || stepErr.Step != executor.StepDelete || r.faults.hitsOf(fail) != 1 {
		t.Fatalf("Execute: got %v, want the injected deletion failure", err)
	}
	if got := r.memory(job).Expectations.Deletions; got != 2 {
		t.Errorf("expected deletions = %d after the failed deletion, want 2 (the plan raised none)", got)
	}
	if ev := r.events(); !slices.ContainsFunc(ev, func(e string) bool { return strings.HasPrefix(e, "Warning FailedDelete") }) {
		t.Errorf("no FailedDelete event; events: %q", ev)
	}
}

// TestTrapReleaseRemovesTheFinalizerToo: a pod that stops matching its
// Job's selector is released with upstream's patch, which deletes the
// owner reference and the tracking finalizer. No finalizer removal is ever
// planned for a released pod, so a patch dropping only the reference would
// leave the finalizer on it forever.
func TestTrapReleaseRemovesTheFinalizerToo(t *testing.T) {
	r := newRig(t)
	job := r.create(newJob("pi", 1, 1))
	if _, _, err := r.sync("pi"); err != nil {
		t.Fatal(err)
	}
	pod := r.pods(job)[0]
	if !slices.Contains(pod.Finalizers, finalizer) {
		t.Fatalf("the created pod has no tracking finalizer: %v", pod.Finalizers)
	}
	// Someone relabels the pod out of the Job's selector.
	patch := `{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"someone-else","controller-uid":"someone-else"}}}`
	if _, err := r.client.CoreV1().Pods("default").Patch(r.ctx, pod.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	plan, _, err := r.sync("pi")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Releases) != 1 {
		t.Fatalf("%d releases planned, want 1", len(plan.Releases))
	}
	got, err := r.client.CoreV1().Pods("default").Get(r.ctx, pod.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.OwnerReferences) != 0 || slices.Contains(got.Finalizers, finalizer) {
		t.Errorf("released pod keeps owner references %v, finalizers %v; want neither", got.OwnerReferences, got.Finalizers)
	}
}

// TestTrapCreationsInSlowStartBatches: creations go out 1, 2, 4, ... at a
// time and stop after the first batch with a failure, as upstream's do; the
// expectations are lowered for the failed creation and for every one
// never attempted, or the Job would wait five minutes for pods that do not
// exist; and the status is written for the pods that were made.
func TestTrapCreationsInSlowStartBatches(t *testing.T) {
	r := newRig(t)
	job := r.create(newJob("pi", 10, 10))
	creates := 0
	r.faults.add(&rule{match: func(req *http.Request, body string) bool {
		if kind(req) != "POST pods" {
			return false
		}
		creates++ // under the faults mutex
		return creates == 2
	}, code: http.StatusForbidden})

	plan, res, err := r.sync("pi")
	if len(plan.Creations) != 10 {
		t.Fatalf("%d creations planned, want 10", len(plan.Creations))
	}
	var stepErr *executor.Error
	if !errors.As(err, &stepErr) || stepErr.Step != executor.StepCreate || !apierrors.IsForbidden(err) {
		t.Fatalf("Execute: got %v, want the injected creation failure", err)
	}
	if got := r.faults.count("POST pods"); got != 3 {
		t.Errorf("%d pod creations sent, want 3 (a batch of 1, then a batch of 2 with the failure)", got)
	}
	if res.Created != 2 || len(r.pods(job)) != 2 {
		t.Errorf("created %d (pods on the server %d), want 2", res.Created, len(r.pods(job)))
	}
	// Nothing observes here: what is left expected is what was created.
	if got := r.memory(job).Expectations; got.Creations != 2 {
		t.Errorf("expected creations = %d, want 2 (10 planned, 1 failed, 7 never attempted)", got.Creations)
	}
	ev := r.events()
	var created, failed int
	for _, e := range ev {
		switch {
		case strings.HasPrefix(e, "Normal SuccessfulCreate Created pod: pi-"):
			created++
		case strings.HasPrefix(e, "Warning FailedCreate Error creating: "):
			failed++
		}
	}
	if created != 2 || failed != 1 {
		t.Errorf("events: %d SuccessfulCreate, %d FailedCreate, want 2 and 1: %q", created, failed, ev)
	}
	// The status is still written, as upstream writes it: counting the two
	// pods made, not the ten planned.
	if !res.InterimStatusWritten || res.Job == nil || res.Job.Status.Active != 2 || res.Job.Status.StartTime == nil {
		t.Errorf("status after the failed creations: written %v, %+v; want active 2 and startTime set", res.InterimStatusWritten, res.Job)
	}
}

// TestTrapNoAdoptionByAJobBeingDeleted: an orphan matching the Job's
// selector is adopted (owner reference and tracking finalizer, one patch),
// but only after a fresh read of the Job: a Job the cache still shows alive
// may already be being deleted, and a pod it adopted then would be left
// behind with its finalizer.
func TestTrapNoAdoptionByAJobBeingDeleted(t *testing.T) {
	r := newRig(t)
	orphanOf := func(job *batchv1.Job, name string) corev1.Pod {
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: job.Spec.Template.Labels},
			Spec:       job.Spec.Template.Spec,
		}
		pod, err := r.client.CoreV1().Pods("default").Create(r.ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return *pod
	}
	adopted := func(name string, job *batchv1.Job) bool {
		p, err := r.client.CoreV1().Pods("default").Get(r.ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref := metav1.GetControllerOfNoCopy(p)
		return ref != nil && ref.UID == job.UID && slices.Contains(p.Finalizers, finalizer)
	}

	alive := r.create(newJob("alive", 1, 1))
	orphanOf(alive, "stray-a")
	plan, _, err := r.sync("alive")
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Adoptions) != 1 || !adopted("stray-a", alive) {
		t.Fatalf("the orphan of a live Job was not adopted (%d adoptions planned)", len(plan.Adoptions))
	}

	doomed := r.create(newJob("doomed", 1, 1))
	stale := r.job("doomed") // the cache's view, taken before the deletion
	orphanOf(doomed, "stray-b")
	fg := metav1.DeletePropagationForeground
	if err := r.client.BatchV1().Jobs("default").Delete(r.ctx, "doomed", metav1.DeleteOptions{PropagationPolicy: &fg}); err != nil {
		t.Fatal(err)
	}
	plan, _, err = r.syncView(stale)
	if len(plan.Adoptions) != 1 {
		t.Fatalf("%d adoptions planned on the stale view, want 1: the test proves nothing", len(plan.Adoptions))
	}
	var stepErr *executor.Error
	if !errors.As(err, &stepErr) || stepErr.Step != executor.StepAdopt {
		t.Errorf("Execute: got %v, want the adoption step refused", err)
	}
	if adopted("stray-b", doomed) {
		t.Error("a Job being deleted adopted a pod")
	}
	if n := len(r.pods(doomed)); n != 1 {
		t.Errorf("%d pods after the refused adoption, want 1 (no creations after a failed step)", n)
	}
}

// TestClaimsToleratePodsGoneOrChanged: as upstream's ControllerRefManager,
// a release answered 404 (the pod is gone) or 422 (the pod was replaced or
// holds no reference any more) is done, and so is an adoption answered 404;
// any other refusal fails the step.
func TestClaimsToleratePodsGoneOrChanged(t *testing.T) {
	for _, tc := range []struct {
		name    string
		code    int
		wantErr bool
	}{{"release 404", http.StatusNotFound, false}, {"release 422", http.StatusUnprocessableEntity, false}, {"release 500", http.StatusInternalServerError, true}} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t)
			job := r.create(newJob("pi", 1, 1))
			if _, _, err := r.sync("pi"); err != nil {
				t.Fatal(err)
			}
			pod := r.pods(job)[0]
			patch := `{"metadata":{"labels":{"batch.kubernetes.io/controller-uid":"someone-else"}}}`
			if _, err := r.client.CoreV1().Pods("default").Patch(r.ctx, pod.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			r.faults.add(&rule{match: is("PATCH pods", "$patch"), code: tc.code, times: 1})
			plan, res, err := r.sync("pi")
			if len(plan.Releases) != 1 {
				t.Fatalf("%d releases planned, want 1", len(plan.Releases))
			}
			if tc.wantErr != (err != nil) {
				t.Errorf("Execute: %v, want an error: %v", err, tc.wantErr)
			}
			if !tc.wantErr && res.Released != 1 {
				t.Errorf("released %d, want 1", res.Released)
			}
		})
	}
}

// TestTrapStatusWriteAfterAnotherWritersLabelChange: another actor that
// writes only the Job's labels between the sync's read and its status write
// makes the API server refuse the write as a conflict. The plan's inputs
// did not change, so the write is sent again on the fresh Job and the
// Suspended condition is recorded in this sync (in the fault runs, a label
// writer every 150ms kept refusing the rate-limited retries until the Job
// was resumed, and Suspended=True was never written). A change of the spec
// in the same window is not overridden: the conflict is returned.
func TestTrapStatusWriteAfterAnotherWritersLabelChange(t *testing.T) {
	r := newRig(t)
	r.create(newJob("pi", 1, 1))
	if _, _, err := r.sync("pi"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.client.BatchV1().Jobs("default").Patch(r.ctx, "pi", types.MergePatchType, []byte(`{"spec":{"suspend":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	view := r.job("pi")
	if _, err := r.client.BatchV1().Jobs("default").Patch(r.ctx, "pi", types.MergePatchType, []byte(`{"metadata":{"labels":{"other":"writer"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	plan, res, err := r.syncView(view)
	if len(plan.Deletions) != 1 || (plan.InterimStatus == nil && plan.Status == nil) {
		t.Fatalf("the plan does not delete the running pod and write status: the test proves nothing (%d deletions)", len(plan.Deletions))
	}
	if err != nil {
		t.Fatalf("Execute: %v, want the status written on the fresh Job", err)
	}
	if !res.InterimStatusWritten && !res.StatusWritten {
		t.Error("no status written")
	}
	got := r.job("pi")
	if !hasCondition(got, batchv1.JobSuspended) || got.Labels["other"] != "writer" {
		t.Errorf("the Job has conditions %+v and labels %v; want Suspended=True beside the other writer's label", got.Status.Conditions, got.Labels)
	}

	// Resumed, then a stale view: parallelism changed after the read.
	if _, err := r.client.BatchV1().Jobs("default").Patch(r.ctx, "pi", types.MergePatchType, []byte(`{"spec":{"suspend":false}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	view = r.job("pi")
	if _, err := r.client.BatchV1().Jobs("default").Patch(r.ctx, "pi", types.MergePatchType, []byte(`{"spec":{"parallelism":2}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	_, _, err = r.syncView(view)
	if !apierrors.IsConflict(err) {
		t.Fatalf("Execute on a Job whose spec changed since it was read: %v, want the conflict", err)
	}
	if got := r.job("pi"); !hasCondition(got, batchv1.JobSuspended) {
		t.Errorf("the resume was written over a spec the plan never saw: conditions %+v", got.Status.Conditions)
	}
}
