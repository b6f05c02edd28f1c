package jobcontroller

import (
	"errors"
	"testing"

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
	statusErr := &executor.Error{Step: executor.StepStatus, Err: errors.New("conflict")}
	if got, want := outcomeOf(res, statusErr), (metrics.Outcome{Err: true, Created: 3, InterimStatusWritten: true}); got != want {
		t.Errorf("failed status write: %+v, want %+v", got, want)
	}
}
