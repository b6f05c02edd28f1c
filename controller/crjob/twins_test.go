package crjob_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/jobsync/jobsync/controller/jobcontroller"
)

// waitLong bounds every wait: the API server is shared with the other
// tests of the suite and the machine may be loaded.
const waitLong = 3 * time.Minute

// twin is the same Job twice: run by jobcontroller (as the built-in
// controller) and by crjob.
type twin struct {
	builtin, ours *batchv1.Job
}

func (tw twin) both() []*batchv1.Job { return []*batchv1.Job{tw.builtin, tw.ours} }

// newTwins creates the twin Jobs name-builtin and name-crjob, with pods
// played by script, shaped by shape.
func newTwins(t *testing.T, name, script string, shape func(*batchv1.JobSpec)) twin {
	t.Helper()
	// A namespace per pair, so that the suite can run again (-count) on
	// the same API server.
	ns, err := clientset.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: name + "-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var tw twin
	for _, managedBy := range []*string{nil, new(controllerName)} {
		suffix := "-builtin"
		if managedBy != nil {
			suffix = "-crjob"
		}
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: name + suffix, Labels: map[string]string{scriptLabel: script}},
			Spec: batchv1.JobSpec{
				ManagedBy: managedBy,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "main", Image: "busybox", Command: []string{"true"}}},
				}},
			},
		}
		shape(&job.Spec)
		created, err := clientset.BatchV1().Jobs(ns.Name).Create(context.Background(), job, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if managedBy == nil {
			tw.builtin = created
		} else {
			tw.ours = created
		}
	}
	return tw
}

// ending is what is compared of two Jobs' statuses: what they counted and
// concluded, not when.
type ending struct {
	Conditions                      []string
	Active, Succeeded, Failed       int32
	Ready, Terminating              int32
	CompletedIndexes, FailedIndexes string
	Uncounted                       int
	StartTimeSet, CompletionTimeSet bool
}

func endingOf(job *batchv1.Job) ending {
	s := job.Status
	e := ending{
		Active: s.Active, Succeeded: s.Succeeded, Failed: s.Failed,
		CompletedIndexes: s.CompletedIndexes, StartTimeSet: s.StartTime != nil, CompletionTimeSet: s.CompletionTime != nil,
	}
	for _, c := range s.Conditions {
		e.Conditions = append(e.Conditions, string(c.Type)+"="+string(c.Status)+"/"+c.Reason)
	}
	if s.Ready != nil {
		e.Ready = *s.Ready
	}
	if s.Terminating != nil {
		e.Terminating = *s.Terminating
	}
	if s.FailedIndexes != nil {
		e.FailedIndexes = *s.FailedIndexes
	}
	if u := s.UncountedTerminatedPods; u != nil {
		e.Uncounted = len(u.Succeeded) + len(u.Failed)
	}
	return e
}

func finished(job *batchv1.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func get(ctx context.Context, job *batchv1.Job) (*batchv1.Job, error) {
	return clientset.BatchV1().Jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
}

// waitFor waits until cond holds for both Jobs of tw.
func waitFor(t *testing.T, tw twin, what string, cond func(*batchv1.Job) bool) {
	t.Helper()
	for _, job := range tw.both() {
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, waitLong, true, func(ctx context.Context) (bool, error) {
			cur, err := get(ctx, job)
			return err == nil && cond(cur), nil
		})
		if err != nil {
			cur, _ := get(context.Background(), job)
			t.Fatalf("%s: not %s after %v; status %+v", job.Name, what, waitLong, cur.Status)
		}
	}
}

// endAlike waits until both Jobs have finished and their endings agree,
// and fails with the difference if they do not.
func endAlike(t *testing.T, tw twin) {
	t.Helper()
	waitFor(t, tw, "finished", finished)
	var diff string
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, waitLong, true, func(ctx context.Context) (bool, error) {
		b, err1 := get(ctx, tw.builtin)
		o, err2 := get(ctx, tw.ours)
		if err1 != nil || err2 != nil {
			return false, nil
		}
		diff = cmp.Diff(endingOf(b), endingOf(o))
		return diff == "" && endingOf(o).Uncounted == 0 && endingOf(o).Terminating == 0, nil
	})
	if err != nil {
		t.Fatalf("the twins ended differently (-jobcontroller +crjob):\n%s", diff)
	}
	b, _ := get(context.Background(), tw.builtin)
	t.Logf("both ended as %+v", endingOf(b))
}

// podsOf lists the pods the Job's selector matches.
func podsOf(t *testing.T, job *batchv1.Job) []corev1.Pod {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector)
	if err != nil {
		t.Fatal(err)
	}
	list, err := clientset.CoreV1().Pods(job.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

func TestNonIndexed(t *testing.T) {
	t.Parallel()
	tw := newTwins(t, "nonindexed", "succeed", func(s *batchv1.JobSpec) {
		s.Completions, s.Parallelism = new(int32(4)), new(int32(2))
	})
	endAlike(t, tw)
}

func TestIndexed(t *testing.T) {
	t.Parallel()
	tw := newTwins(t, "indexed", "succeed", func(s *batchv1.JobSpec) {
		s.Completions, s.Parallelism = new(int32(3)), new(int32(3))
		s.CompletionMode = new(batchv1.IndexedCompletion)
	})
	endAlike(t, tw)
}

func TestBackoffLimit(t *testing.T) {
	t.Parallel()
	tw := newTwins(t, "backoff", "fail", func(s *batchv1.JobSpec) {
		s.BackoffLimit = new(int32(2))
	})
	endAlike(t, tw)
}

func TestPodFailurePolicy(t *testing.T) {
	t.Parallel()
	tw := newTwins(t, "pfp", "exit42", func(s *batchv1.JobSpec) {
		s.BackoffLimit = new(int32(6))
		s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
			Action:      batchv1.PodFailurePolicyActionFailJob,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{42}},
		}}}
	})
	endAlike(t, tw)
}

func TestSuspendResume(t *testing.T) {
	t.Parallel()
	tw := newTwins(t, "suspend", "succeed", func(s *batchv1.JobSpec) {
		s.Completions, s.Parallelism = new(int32(2)), new(int32(2))
		s.Suspend = new(true)
	})
	waitFor(t, tw, "suspended", func(job *batchv1.Job) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == batchv1.JobSuspended && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	})
	for _, job := range tw.both() {
		if pods := podsOf(t, job); len(pods) != 0 {
			t.Errorf("%s: %d pods while suspended", job.Name, len(pods))
		}
		patch := []byte(`{"spec":{"suspend":false}}`)
		if _, err := clientset.BatchV1().Jobs(job.Namespace).Patch(context.Background(), job.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	endAlike(t, tw)
}

// TestDeletionWithPods: once a running Job is deleted, its pods lose the
// tracking finalizer (envtest runs no garbage collector, so the pods stay,
// as a cluster's would until it deletes them).
func TestDeletionWithPods(t *testing.T) {
	t.Parallel()
	tw := newTwins(t, "deletion", "forever", func(s *batchv1.JobSpec) {
		s.Completions, s.Parallelism = new(int32(3)), new(int32(2))
	})
	waitFor(t, tw, "running two pods", func(job *batchv1.Job) bool { return job.Status.Active == 2 })
	finalizers := map[*batchv1.Job]string{tw.builtin: batchv1.JobTrackingFinalizer, tw.ours: jobcontroller.TrackingFinalizerFor(controllerName)}
	for _, job := range tw.both() {
		for _, p := range podsOf(t, job) {
			if !slices.Contains(p.Finalizers, finalizers[job]) {
				t.Fatalf("%s: pod %s has finalizers %v, not %s", job.Name, p.Name, p.Finalizers, finalizers[job])
			}
		}
	}
	for _, job := range tw.both() {
		if err := clientset.BatchV1().Jobs(job.Namespace).Delete(context.Background(), job.Name,
			metav1.DeleteOptions{PropagationPolicy: new(metav1.DeletePropagationBackground)}); err != nil {
			t.Fatal(err)
		}
	}
	counts := map[string]int{}
	for _, job := range tw.both() {
		err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, waitLong, true, func(context.Context) (bool, error) {
			pods := podsOf(t, job)
			counts[job.Name] = len(pods)
			for _, p := range pods {
				if len(p.Finalizers) > 0 {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			t.Errorf("%s: its pods kept a finalizer after the Job was deleted", job.Name)
		}
	}
	if counts[tw.builtin.Name] != counts[tw.ours.Name] || counts[tw.ours.Name] != 2 {
		t.Errorf("pods left: %v, want 2 each", counts)
	}
}
