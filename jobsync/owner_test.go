package jobsync_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/internal/testsupport/scenario"
	"github.com/jobsync/jobsync/jobsync"
)

// trainJob is the owner kind of the tests of Options.Owner: a custom
// resource that embeds a JobSpec.
var trainJob = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TrainJob"}

// reKind returns a copy of p whose owner references naming kind Job name
// owner instead, as the pods of a custom resource carry them.
func reKind(p *corev1.Pod, owner schema.GroupVersionKind) *corev1.Pod {
	if p == nil {
		return nil
	}
	c := p.DeepCopy()
	for i := range c.OwnerReferences {
		if c.OwnerReferences[i].Kind == "Job" {
			c.OwnerReferences[i].APIVersion = owner.GroupVersion().String()
			c.OwnerReferences[i].Kind = owner.Kind
		}
	}
	return c
}

// reKindAll is reKind over a list of pods.
func reKindAll(pods []*corev1.Pod, owner schema.GroupVersionKind) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		out[i] = reKind(p, owner)
	}
	return out
}

// backToJob undoes reKind in what a plan made under owner carries: the
// owner references of created pods and of adoptions, and the adoption
// patches, so that the plan can be compared with the default's.
func backToJob(plan jobsync.Plan, owner schema.GroupVersionKind) jobsync.Plan {
	from := `"apiVersion":"` + owner.GroupVersion().String() + `","kind":"` + owner.Kind + `"`
	to := `"apiVersion":"batch/v1","kind":"Job"`
	for i := range plan.Creations {
		for j, r := range plan.Creations[i].Pod.OwnerReferences {
			if r.Kind == owner.Kind {
				plan.Creations[i].Pod.OwnerReferences[j].APIVersion, plan.Creations[i].Pod.OwnerReferences[j].Kind = "batch/v1", "Job"
			}
		}
	}
	for i := range plan.Adoptions {
		a := &plan.Adoptions[i]
		if a.OwnerReference.Kind == owner.Kind {
			a.OwnerReference.APIVersion, a.OwnerReference.Kind = "batch/v1", "Job"
		}
		a.Patch = []byte(strings.ReplaceAll(string(a.Patch), from, to))
	}
	for i := range plan.Releases {
		r := &plan.Releases[i]
		if r.OwnerReference.Kind == owner.Kind {
			r.OwnerReference.APIVersion, r.OwnerReference.Kind = "batch/v1", "Job"
		}
	}
	return plan
}

// TestOwnerChangesOnlyTheKind checks that a custom owner kind changes
// nothing but the kind the plan names: every scenario file, its pods owned
// by the custom kind where they were owned by a Job, decides under
// Options.Owner what it decides by default, up to the owner references
// and claim patches, which name the custom kind.
func TestOwnerChangesOnlyTheKind(t *testing.T) {
	files, err := filepath.Glob("../testdata/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".yaml"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			sc, _, _, err := scenario.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			snap := sc.Snapshot()
			opts := sc.JobsyncOptions()
			want, wantErr := jobsync.Reconcile(snap, opts)
			custom := snap
			custom.Pods = reKindAll(snap.Pods, trainJob)
			opts.Owner = trainJob
			got, err := jobsync.Reconcile(custom, opts)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("error under the custom owner %v, by default %v", err, wantErr)
			}
			for _, c := range got.Creations {
				checkRef(t, "created pod", c.Pod.OwnerReferences[len(c.Pod.OwnerReferences)-1], trainJob)
			}
			for _, a := range got.Adoptions {
				checkRef(t, "adoption", a.OwnerReference, trainJob)
				if !strings.Contains(string(a.Patch), `"apiVersion":"example.com/v1","kind":"TrainJob"`) {
					t.Errorf("adoption patch does not name the custom kind: %s", a.Patch)
				}
			}
			if d := cmp.Diff(want, backToJob(got, trainJob)); d != "" {
				t.Errorf("the custom owner changed the plan beyond the kind (-default +custom):\n%s", d)
			}
		})
	}
}

// TestOwnerChangesOnlyTheKindGenerated is TestOwnerChangesOnlyTheKind on
// generated snapshots.
func TestOwnerChangesOnlyTheKindGenerated(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSnapshot(t)
		want, wantErr := jobsync.Reconcile(s, jobsync.Options{})
		custom := s
		custom.Pods = reKindAll(s.Pods, trainJob)
		got, err := jobsync.Reconcile(custom, jobsync.Options{Owner: trainJob})
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("error under the custom owner %v, by default %v", err, wantErr)
		}
		if d := cmp.Diff(want, backToJob(got, trainJob)); d != "" {
			t.Fatalf("the custom owner changed the plan beyond the kind (-default +custom):\n%s", d)
		}
	})
}

func checkRef(t *testing.T, what string, ref metav1.OwnerReference, owner schema.GroupVersionKind) {
	t.Helper()
	if ref.APIVersion != owner.GroupVersion().String() || ref.Kind != owner.Kind {
		t.Errorf("%s: owner reference %s %s, want %s", what, ref.APIVersion, ref.Kind, owner)
	}
	if ref.Controller == nil || !*ref.Controller || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("%s: owner reference %+v is not a blocking controller reference", what, ref)
	}
}

// TestOwnerKindDecidesOwnership pins who owns a pod under each owner kind:
// a pod is the Job's only when its controller reference names the
// configured kind (by default Job) with the Job's name and UID; one naming
// the other kind with the right UID is left alone, as upstream leaves a
// pod its index does not list, so the Job creates a replacement.
func TestOwnerKindDecidesOwnership(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	job := validJob()
	job.Spec.Parallelism, job.Spec.Completions = ptr(int32(1)), ptr(int32(1))
	running := podFor(job, podShorthand{Name: "pi-a", Phase: corev1.PodRunning}, batchv1.JobTrackingFinalizer)
	orphan := podFor(job, podShorthand{Name: "stray", Owner: "none", Phase: corev1.PodRunning, NoFinalizer: true}, batchv1.JobTrackingFinalizer)
	tests := []struct {
		name          string
		owner         schema.GroupVersionKind
		pod           *corev1.Pod
		wantCreations int
		wantAdoptions int
		wantRefKind   string // of creations and adoptions
	}{
		{name: "default owner, Job pod", pod: running, wantRefKind: "Job"},
		{name: "default owner, custom-kind pod is left alone", pod: reKind(running, trainJob), wantCreations: 1, wantRefKind: "Job"},
		{name: "custom owner, custom-kind pod", owner: trainJob, pod: reKind(running, trainJob), wantRefKind: "TrainJob"},
		{name: "custom owner, Job pod is left alone", owner: trainJob, pod: running, wantCreations: 1, wantRefKind: "TrainJob"},
		{name: "explicit batch/v1 Job owner", owner: jobsync.DefaultOwner(), pod: running, wantRefKind: "Job"},
		{name: "custom owner, orphan adopted", owner: trainJob, pod: orphan, wantAdoptions: 1, wantRefKind: "TrainJob"},
		{name: "custom owner at another version, same kind", owner: schema.GroupVersionKind{Group: "example.com", Version: "v2", Kind: "TrainJob"}, pod: reKind(running, trainJob), wantRefKind: "TrainJob"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			snap := jobsync.Snapshot{Job: job, Pods: []*corev1.Pod{tc.pod}, Now: now}
			before := tc.pod.DeepCopy()
			plan, err := jobsync.Reconcile(snap, jobsync.Options{Owner: tc.owner})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(before, tc.pod); d != "" {
				t.Errorf("Reconcile modified its input pod:\n%s", d)
			}
			if len(plan.Creations) != tc.wantCreations || len(plan.Adoptions) != tc.wantAdoptions {
				t.Fatalf("%d creations and %d adoptions, want %d and %d", len(plan.Creations), len(plan.Adoptions), tc.wantCreations, tc.wantAdoptions)
			}
			want := tc.owner
			if want.Empty() {
				want = jobsync.DefaultOwner()
			}
			if want.Kind != tc.wantRefKind {
				t.Fatalf("test table: kind %q, owner %s", tc.wantRefKind, want)
			}
			for _, c := range plan.Creations {
				refs := c.Pod.OwnerReferences
				if len(refs) != 1 {
					t.Fatalf("created pod has owner references %+v, want one", refs)
				}
				checkRef(t, "created pod", refs[0], want)
				if refs[0].Name != job.Name || refs[0].UID != job.UID {
					t.Errorf("created pod's owner reference names %s/%s, want %s/%s", refs[0].Name, refs[0].UID, job.Name, job.UID)
				}
				if d := cmp.Diff(jobsync.OwnerReference(job, jobsync.Options{Owner: tc.owner}), refs[0]); d != "" {
					t.Errorf("OwnerReference disagrees with the created pod's (-OwnerReference +pod):\n%s", d)
				}
			}
			for _, a := range plan.Adoptions {
				checkRef(t, "adoption", a.OwnerReference, want)
				wantPatch := `{"metadata":{"ownerReferences":[{"apiVersion":"` + want.GroupVersion().String() + `","kind":"` + want.Kind + `","name":"pi","uid":"` + string(job.UID) + `","controller":true,"blockOwnerDeletion":true}],"uid":"uid-stray","finalizers":["batch.kubernetes.io/job-tracking"]}}`
				if d := cmp.Diff(wantPatch, string(a.Patch)); d != "" {
					t.Errorf("adoption patch (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestOwnerObserve checks that Observe counts a creation of a pod whose
// controller reference names the configured kind, and of no other.
func TestOwnerObserve(t *testing.T) {
	job := validJob()
	pod := podFor(job, podShorthand{Name: "pi-a", Phase: corev1.PodPending}, batchv1.JobTrackingFinalizer)
	custom := reKind(pod, trainJob)
	tests := []struct {
		name  string
		pod   *corev1.Pod
		owner schema.GroupVersionKind
		want  int
	}{
		{"Job pod, default owner", pod, schema.GroupVersionKind{}, 1},
		{"custom pod, default owner", custom, schema.GroupVersionKind{}, 0},
		{"custom pod, custom owner", custom, trainJob, 1},
		{"Job pod, custom owner", pod, trainJob, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := jobsync.Observe(job, jobsync.PodEvent{Pod: tc.pod}, jobsync.Options{Owner: tc.owner})
			if o.Creations != tc.want {
				t.Errorf("observed %d creations, want %d", o.Creations, tc.want)
			}
			// Its removal: a deletion, and the finalizer's removal.
			o = jobsync.Observe(job, jobsync.PodEvent{Pod: tc.pod, Deleted: true}, jobsync.Options{Owner: tc.owner})
			if o.Deletions != tc.want || len(o.FinalizerRemovals) != tc.want {
				t.Errorf("observed %d deletions and %d finalizer removals, want %d", o.Deletions, len(o.FinalizerRemovals), tc.want)
			}
		})
	}
}

// TestOwnerSets checks that the caller's pod sets and settled filter take
// the pods of the kind they were made for, and that Reconcile refuses a
// set made for another kind.
func TestOwnerSets(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)
	job := validJob()
	opts := jobsync.Options{Owner: trainJob}
	running := reKind(podFor(job, podShorthand{Name: "pi-a", Phase: corev1.PodRunning}, batchv1.JobTrackingFinalizer), trainJob)
	succeeded := reKind(podFor(job, podShorthand{Name: "pi-b", Phase: corev1.PodSucceeded}, batchv1.JobTrackingFinalizer), trainJob)
	settled := reKind(podFor(job, podShorthand{Name: "pi-c", Phase: corev1.PodSucceeded, NoFinalizer: true}, batchv1.JobTrackingFinalizer), trainJob)

	if jobsync.NewActivePods(job).Put(running) {
		t.Error("a set made for Job owners took a pod of the custom kind")
	}
	if jobsync.NewSucceededPods(job, jobsync.Options{}).Put(succeeded) {
		t.Error("a succeeded set made for Job owners took a pod of the custom kind")
	}
	if jobsync.NewSettledFilter(job, jobsync.Options{}).Settled(settled) {
		t.Error("a filter made for Job owners settled a pod of the custom kind")
	}
	if !jobsync.NewSettledFilter(job, opts).Settled(settled) {
		t.Error("a filter made for the custom kind did not settle its pod")
	}

	active := jobsync.NewActivePodsFor(job, opts)
	done := jobsync.NewSucceededPods(job, opts)
	if !active.Put(running) || !done.Put(succeeded) {
		t.Fatal("the sets made for the custom kind did not take its pods")
	}
	listed := []*corev1.Pod{running, succeeded, settled}
	want, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: listed, Now: now}, opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := jobsync.Reconcile(jobsync.Snapshot{Job: job, Pods: nil, SettledPods: 1, Active: active, Succeeded: done, Now: now}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("held sets decided otherwise than listed pods (-listed +held):\n%s", d)
	}

	var inErr *jobsync.InputError
	_, err = jobsync.Reconcile(jobsync.Snapshot{Job: job, Active: jobsync.NewActivePods(job), Now: now}, opts)
	if !errors.As(err, &inErr) || inErr.Field != "active" {
		t.Errorf("an active set made for Job owners, under the custom kind: got %v, want an InputError on active", err)
	}
	_, err = jobsync.Reconcile(jobsync.Snapshot{Job: job, Succeeded: jobsync.NewSucceededPods(job, jobsync.Options{}), Now: now}, opts)
	if !errors.As(err, &inErr) || inErr.Field != "succeeded" {
		t.Errorf("a succeeded set made for Job owners, under the custom kind: got %v, want an InputError on succeeded", err)
	}
}

// TestOwnerRejectsPartialKind checks that an owner set in part is an
// input error, not a plan whose owner references name nothing.
func TestOwnerRejectsPartialKind(t *testing.T) {
	for _, owner := range []schema.GroupVersionKind{
		{Group: "example.com", Version: "v1"},
		{Group: "example.com", Kind: "TrainJob"},
		{Kind: "TrainJob"},
	} {
		_, err := jobsync.Reconcile(jobsync.Snapshot{Job: validJob(), Now: time.Date(2026, 1, 1, 0, 1, 0, 0, time.UTC)}, jobsync.Options{Owner: owner})
		var inErr *jobsync.InputError
		if !errors.As(err, &inErr) || inErr.Field != "options.owner" {
			t.Errorf("owner %#v: got %v, want an InputError on options.owner", owner, err)
		}
	}
}

// TestOwnerReferenceOfNoJob: no Job gives a reference to no object, not a
// panic.
func TestOwnerReferenceOfNoJob(t *testing.T) {
	ref := jobsync.OwnerReference(nil, jobsync.Options{Owner: trainJob})
	if ref.Name != "" || ref.UID != "" || ref.Kind != "TrainJob" || ref.APIVersion != "example.com/v1" {
		t.Errorf("OwnerReference(nil) = %+v", ref)
	}
}
