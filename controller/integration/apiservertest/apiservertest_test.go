package apiservertest_test

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/integration/apiservertest"
)

func TestMain(m *testing.M) { apiservertest.Main(m) }

// TestServerIsReal shows that the server defaults and validates as a real
// kube-apiserver does: a Job gets its defaults and a selector, and a status
// that validation forbids is rejected with 422.
func TestServerIsReal(t *testing.T) {
	ctx := context.Background()
	srv := apiservertest.Start(t)
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "pi", Namespace: "default"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "pi", Image: "perl"}},
		}}},
	}
	got, err := srv.Client.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.BackoffLimit == nil || *got.Spec.BackoffLimit != 6 || got.Spec.Selector == nil || got.UID == "" {
		t.Fatalf("the API server did not default the Job: %+v", got.Spec)
	}
	got.Status.Succeeded = -1
	_, err = srv.Client.BatchV1().Jobs("default").UpdateStatus(ctx, got, metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("status with succeeded -1: got %v, want 422 Invalid", err)
	}
}

// minimalT has only what apiservertest.T asks for, as an adapter of another
// test framework might: no Name, TempDir, Errorf or Setenv.
type minimalT struct{ t *testing.T }

func (m minimalT) Helper()                           { m.t.Helper() }
func (m minimalT) Cleanup(f func())                  { m.t.Cleanup(f) }
func (m minimalT) Fatalf(format string, args ...any) { m.t.Fatalf(format, args...) }
func (m minimalT) Logf(format string, args ...any)   { m.t.Logf(format, args...) }

// TestStartTakesAMinimalT: a T that is not a *testing.T, with none of
// testing.TB's other methods, starts a working server, stopped at the end
// of the test.
func TestStartTakesAMinimalT(t *testing.T) {
	srv := apiservertest.Start(minimalT{t})
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "minimal"}}
	if _, err := srv.Client.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Client.CoreV1().Namespaces().Get(t.Context(), "minimal", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
}
