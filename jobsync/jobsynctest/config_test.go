package jobsynctest_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// A Script and Faults read from YAML, as `jobsim run --script FILE` reads
// them: durations are Go duration strings or numbers of seconds.
func TestScriptAndFaultsFromYAML(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want jobsynctest.Config
	}{{
		name: "per index and attempt",
		yaml: `
seed: 7
script:
  default: {startDelay: 2s, runTime: 1m30s}
  pods:
  - index: 2
    attempt: 0
    behavior: {runTime: 30s, exitCode: 42, container: main}
  - pod: 5
    behavior: {disruption: true, disruptionReason: EvictionByEvictionAPI, runTime: 10}
  - behavior: {forever: true, shutdown: 2.5}
`,
		want: jobsynctest.Config{
			Seed: 7,
			Script: jobsynctest.Script{
				Default: &jobsynctest.Behavior{StartDelay: 2 * time.Second, RunTime: 90 * time.Second},
				Pods: []jobsynctest.PodRule{
					{Index: ptr(2), Attempt: ptr(0), Behavior: jobsynctest.Behavior{RunTime: 30 * time.Second, ExitCode: 42, Container: "main"}},
					{Pod: ptr(5), Behavior: jobsynctest.Behavior{Disruption: true, DisruptionReason: "EvictionByEvictionAPI", RunTime: 10 * time.Second}},
					{Behavior: jobsynctest.Behavior{Forever: true, Shutdown: 2500 * time.Millisecond}},
				},
			},
		},
	}, {
		name: "faults and job changes",
		yaml: `
faults:
  apiError: 0.1
  crash: 0.05
  staleView: 0.2
  maxLag: 20s
  podDeletion: 0.01
  jobChanges:
  - {at: 1m, suspend: true}
  - {at: 2m, suspend: false}
  - {at: 3m, scale: 4}
  - {at: 4m, parallelism: 2}
  - {at: 5m, delete: true}
`,
		want: jobsynctest.Config{Faults: jobsynctest.Faults{
			APIError: 0.1, Crash: 0.05, StaleView: 0.2, MaxLag: 20 * time.Second, PodDeletion: 0.01,
			JobChanges: []jobsynctest.JobChange{
				{At: time.Minute, Suspend: ptr(true)},
				{At: 2 * time.Minute, Suspend: ptr(false)},
				{At: 3 * time.Minute, Scale: ptr(int32(4))},
				{At: 4 * time.Minute, Parallelism: ptr(int32(2))},
				{At: 5 * time.Minute, Delete: true},
			},
		}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got jobsynctest.Config
			if err := yaml.UnmarshalStrict([]byte(tt.yaml), &got); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("decoded config (-want +got):\n%s", d)
			}
			// And back: what is written reads the same.
			out, err := yaml.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var again jobsynctest.Config
			if err := yaml.UnmarshalStrict(out, &again); err != nil {
				t.Fatalf("%v in\n%s", err, out)
			}
			if d := cmp.Diff(got, again); d != "" {
				t.Errorf("round trip (-first +second):\n%s\n%s", d, out)
			}
		})
	}
}

func TestBehaviorRejectsBadDurations(t *testing.T) {
	for _, in := range []string{`{runTime: -1s}`, `{runTime: soon}`, `{startDelay: [1]}`} {
		var b jobsynctest.Behavior
		if err := yaml.Unmarshal([]byte(in), &b); err == nil {
			t.Errorf("%s: decoded as %+v, want an error", in, b)
		}
	}
}
