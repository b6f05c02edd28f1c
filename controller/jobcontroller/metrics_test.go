package jobcontroller

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/controller/executor"
	"github.com/jobsync/jobsync/controller/metrics"
)

func TestOutcomeOf(t *testing.T) {
	res := executor.Result{Created: 3, InterimStatusWritten: true}
	if got, want := outcomeOf(res, nil), (metrics.Outcome{Created: 3, InterimStatusWritten: true}); got != want {
		t.Errorf("success: %+v, want %+v", got, want)
	}
	createErr := &executor.Error{Step: executor.StepCreate, Err: errors.Join(errors.New("quota"), errors.New("quota"))}
	if got, want := outcomeOf(executor.Result{Created: 1}, createErr), (metrics.Outcome{Err: true, Created: 1, CreateFailed: 2}); got != want {
		t.Errorf("failed creations: %+v, want %+v", got, want)
	}
	// A creation refused because the namespace is being deleted is not
	// counted, as upstream does not count it.
	terminating := apierrors.NewForbidden(corev1.Resource("pods"), "", errors.New("namespace is terminating"))
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
	createErr = &executor.Error{Step: executor.StepCreate, Err: errors.Join(errors.New("quota"), fmt.Errorf("creating a pod: %w", terminating))}
	if got, want := outcomeOf(executor.Result{}, createErr), (metrics.Outcome{Err: true, CreateFailed: 1}); got != want {
		t.Errorf("a creation refused in a terminating namespace: %+v, want %+v", got, want)
	}
	statusErr := &executor.Error{Step: executor.StepStatus, Err: errors.New("conflict")}
	if got, want := outcomeOf(res, statusErr), (metrics.Outcome{Err: true, Created: 3, InterimStatusWritten: true}); got != want {
		t.Errorf("failed status write: %+v, want %+v", got, want)
	}
}
