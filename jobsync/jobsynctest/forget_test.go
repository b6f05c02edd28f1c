package jobsynctest

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/expectations"
)

// TestDeletedJobLeavesNoMemory: once the Job informer delivers the Job's
// removal, the controller keeps no expectations or backoff for it, as
// upstream's deletion handler drops them, so that a new Job of the same
// name would start clean.
func TestDeletedJobLeavesNoMemory(t *testing.T) {
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "t", Namespace: "default", UID: "7e57a11d-0000-4000-8000-000000000002"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "main", Image: "busybox"}},
		}}},
	}
	c, err := NewCluster(job, Config{})
	if err != nil {
		t.Fatal(err)
	}
	c.mem.exp = expectations.Expectations{}.ExpectCreations(2, DefaultStart)
	c.mem.backoff.FailuresAfterLastSuccess = 1
	c.deliverJob(watchEvent{job: c.job})
	if c.mem.exp.Creations != 2 {
		t.Fatal("an update of the Job dropped its memory")
	}
	c.deliverJob(watchEvent{deleted: true, job: c.job})
	if c.mem.exp.Creations != 0 || c.mem.backoff.FailuresAfterLastSuccess != 0 {
		t.Errorf("memory kept after the Job's removal: expectations %+v, backoff %+v", c.mem.exp, c.mem.backoff)
	}
}
