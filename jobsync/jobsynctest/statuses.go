package jobsynctest

import (
	"errors"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Statuses runs job in a Cluster whose pods behave as script says, until
// the Job is Complete or Failed, and returns every status the controller
// wrote, in the order the API server took them: each sync's interim status
// (the write-ahead record of finished pods) and its final status. The last
// one is the status the Job ends with.
//
// It is for tests of code that reads Jobs (a fake client, a reconciler
// under test): rather than write conditions by hand, which the API server
// has rejected since v1.31 unless they are exactly what a controller would
// write (Complete needs SuccessCriteriaMet, startTime and completionTime;
// Failed needs FailureTarget and no active pods...), a test sets
// job.Status to one of these. Each was accepted by the Cluster's model of
// the API server's status validation, taking the one before it as the old
// status, and the run's invariant checks (Config.Check) all held.
//
// The clock starts at the Job's creationTimestamp, or DefaultStart when it
// has none; times in the statuses come from it. The Job is defaulted as
// the API server would (jobspec.Default) and must be valid; it is not
// modified. A run that does not end with the Job finished (a Job
// suspended, managed by another controller, or whose pods run forever
// without a deadline) is an error that says how it ended, as are an
// invariant the run broke and a status write the API server refused.
func Statuses(job *batchv1.Job, script Script) ([]batchv1.JobStatus, error) {
	if job == nil {
		return nil, errors.New("jobsynctest: the Job is nil")
	}
	start := DefaultStart
	if !job.CreationTimestamp.IsZero() {
		start = job.CreationTimestamp.Time
	}
	c, err := NewCluster(job, Config{Start: start, Script: script, Check: true, DiscardPods: true})
	if err != nil {
		return nil, err
	}
	var out []batchv1.JobStatus
	for {
		rec, ok, err := c.Step()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if len(rec.Violations) > 0 {
			return nil, fmt.Errorf("jobsynctest: the run broke an invariant at %v: %v", rec.Time.Sub(start), rec.Violations[0])
		}
		if rec.Kind != KindSync || rec.Plan == nil {
			continue
		}
		// Without faults a plan is carried out to the end, and what it
		// writes is stored as it is: its interim status, then its final one.
		if rec.Interrupted != "" {
			return nil, fmt.Errorf("jobsynctest: a sync at %v was interrupted: %s", rec.Time.Sub(start), rec.Interrupted)
		}
		wrote := false
		for _, st := range []*batchv1.JobStatus{rec.Plan.InterimStatus, rec.Plan.Status} {
			if st != nil {
				out = append(out, *st.DeepCopy())
				wrote = true
			}
		}
		if wrote && !equality.Semantic.DeepEqual(out[len(out)-1], rec.Status) {
			return nil, fmt.Errorf("jobsynctest: the status stored after the sync at %v is not the last one the plan wrote", rec.Time.Sub(start))
		}
	}
	res := c.Result()
	if len(res.Violations) > 0 {
		return nil, fmt.Errorf("jobsynctest: the run broke an invariant: %v", res.Violations[0])
	}
	if res.Outcome != OutcomeComplete && res.Outcome != OutcomeFailed {
		return nil, fmt.Errorf("jobsynctest: the Job did not finish (outcome %s after %v): its status would not settle", res.Outcome, res.End.Sub(start))
	}
	return out, nil
}

// FinalStatus is the last of Statuses: the status the Job ends with, Complete
// or Failed, as a real Job controller would leave it.
func FinalStatus(job *batchv1.Job, script Script) (batchv1.JobStatus, error) {
	all, err := Statuses(job, script)
	if err != nil {
		return batchv1.JobStatus{}, err
	}
	if len(all) == 0 {
		return batchv1.JobStatus{}, errors.New("jobsynctest: the controller wrote no status")
	}
	return all[len(all)-1], nil
}

// The scripts for the usual outcomes: every pod starts a second after its
// creation and runs ten seconds, then does what the script says.
const (
	quickStart = time.Second
	quickRun   = 10 * time.Second
)

// AllSucceed is the Script of pods that all succeed.
func AllSucceed() Script {
	return Script{Default: &Behavior{StartDelay: quickStart, RunTime: quickRun}}
}

// FailFirst is the Script of pods whose first n attempts fail with
// exitCode (exit code 1 when exitCode is zero) and whose later ones
// succeed. Attempts count per completion index in an Indexed Job and per
// Job otherwise (see PodRule.Attempt): with a backoffLimit below n the Job
// fails, and an exit code a pod failure policy rule matches takes that
// rule's action.
func FailFirst(n int, exitCode int32) Script {
	if exitCode == 0 {
		exitCode = 1
	}
	s := AllSucceed()
	for i := range n {
		s.Pods = append(s.Pods, PodRule{Attempt: &i, Behavior: Behavior{StartDelay: quickStart, RunTime: quickRun, ExitCode: exitCode}})
	}
	return s
}

// RunForever is the Script of pods that run until they are deleted: a Job
// with activeDeadlineSeconds then fails with DeadlineExceeded.
func RunForever() Script {
	return Script{Default: &Behavior{StartDelay: quickStart, Forever: true}}
}
