package jobtest

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// TestScriptFor: ScriptFor wins, then Script, then every pod running
// PodRunTime (DefaultPodRunTime when unset) and succeeding.
func TestScriptFor(t *testing.T) {
	failing := &jobsynctest.Script{Default: &jobsynctest.Behavior{ExitCode: 1}}
	slow := &jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: time.Minute}}
	pick := func(job *batchv1.Job) *jobsynctest.Script {
		if job.Name == "fail" {
			return failing
		}
		return nil
	}
	job := func(name string) *batchv1.Job { return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name}} }
	tests := []struct {
		opts Options
		job  string
		want jobsynctest.Behavior
	}{
		{Options{}, "ok", jobsynctest.Behavior{RunTime: DefaultPodRunTime}},
		{Options{PodRunTime: time.Second}, "ok", jobsynctest.Behavior{RunTime: time.Second}},
		{Options{Script: slow}, "ok", jobsynctest.Behavior{RunTime: time.Minute}},
		{Options{Script: slow, ScriptFor: pick}, "ok", jobsynctest.Behavior{RunTime: time.Minute}},
		{Options{Script: slow, ScriptFor: pick}, "fail", jobsynctest.Behavior{ExitCode: 1}},
	}
	for i, tt := range tests {
		got := tt.opts.scriptFor(job(tt.job))
		if got.Default == nil || *got.Default != tt.want || len(got.Pods) != 0 {
			t.Errorf("case %d: script %+v, want every pod to %+v", i, got, tt.want)
		}
	}
}

func TestStartNeedsAConfig(t *testing.T) {
	if _, err := Start(t.Context(), nil, Options{}); err == nil {
		t.Error("Start with a nil config: no error")
	}
}
