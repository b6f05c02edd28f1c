package jobsynctest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/jobsync/jobsync/jobsync"
)

// Config says how a Cluster runs one Job.
type Config struct {
	// Start is the clock reading at the first sync. The zero time is
	// replaced by 2026-01-01T00:00:00Z so that printed times stay readable.
	Start time.Time `json:"start,omitempty"`
	// Seed drives every random choice: pod names and UIDs, the behaviour of
	// pods that Script leaves open, and which faults strike when.
	Seed int64 `json:"seed,omitempty"`
	// Script fixes the behaviour of pods, per pod, per completion index and
	// per attempt. The zero Script leaves every pod to the seeded random
	// model.
	Script Script `json:"script,omitempty"`
	// Faults are the fault probabilities and scheduled changes to the Job.
	// The zero value injects nothing.
	Faults Faults `json:"faults,omitempty"`
	// Options are passed to jobsync.Reconcile at every sync.
	Options jobsync.Options `json:"-"`
	// MaxSyncs bounds Run: it stops after this many syncs even if the Job
	// has not finished. Zero means 2000.
	MaxSyncs int `json:"maxSyncs,omitempty"`
	// Check turns on the invariant checks of the simulator: every step is
	// checked against the rules listed on Violation, and what does not hold
	// is reported in StepRecord.Violations and Result.Violations. Checks
	// cost some time (each sync is reconciled a second time with its pods
	// in another order).
	Check bool `json:"check,omitempty"`
	// DiscardSteps keeps Result.Steps empty, for long runs where only the
	// outcome matters.
	DiscardSteps bool `json:"-"`
	// DiscardPods keeps Result.Pods empty: copying every pod of a Job of a
	// million pods into the result takes seconds and gigabytes, for runs
	// that only want the outcome and the counts.
	DiscardPods bool `json:"-"`
}

// DefaultStart is the clock reading used when Config.Start is zero.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// DefaultMaxSyncs is the bound on syncs used when Config.MaxSyncs is zero.
const DefaultMaxSyncs = 2000

// Script fixes how pods behave. For each new pod the first rule in Pods
// that matches it decides; when none matches, Default decides; when
// Default is nil too, the pod gets a random behaviour drawn from the seed.
//
// In YAML (sigs.k8s.io/yaml), with durations as Go duration strings:
//
//	default: {startDelay: 2s, runTime: 30s}
//	pods:
//	- index: 2        # completion index 2 ...
//	  attempt: 0      # ... its first pod only
//	  behavior: {runTime: 30s, exitCode: 42}
//	- pod: 5          # the sixth pod the Job creates
//	  behavior: {disruption: true}
type Script struct {
	// Default is the behaviour of pods no rule matches; nil leaves them to
	// the seeded random model.
	Default *Behavior `json:"default,omitempty"`
	// Pods are the rules, tried in order.
	Pods []PodRule `json:"pods,omitempty"`
}

// PodRule gives a Behavior to the pods it matches. Unset selectors match
// every pod, so a rule with none matches all of them.
type PodRule struct {
	// Pod matches the n-th pod (from 0) the Job creates, in creation order.
	Pod *int `json:"pod,omitempty"`
	// Index matches pods of this completion index (Indexed Jobs only).
	Index *int `json:"index,omitempty"`
	// Attempt matches the n-th pod (from 0) created for the pod's
	// completion index, or for the Job when it is not Indexed.
	Attempt *int `json:"attempt,omitempty"`
	// Behavior is what the matched pods do.
	Behavior Behavior `json:"behavior"`
}

// Behavior is what one pod does once created. All durations count from the
// previous stage; in JSON and YAML they are Go duration strings ("30s",
// "1m30s") or numbers of seconds.
type Behavior struct {
	// StartDelay is the time from creation until the pod runs and is ready
	// (scheduling, image pull, start-up).
	StartDelay time.Duration `json:"-"`
	// RunTime is the time from start until the container exits (or, with
	// Disruption, until the pod is disrupted). Under restartPolicy
	// OnFailure each restarted run takes RunTime again.
	RunTime time.Duration `json:"-"`
	// ExitCode is the exit code of the container named by Container; other
	// containers exit 0. Zero means success. Under restartPolicy OnFailure a
	// non-zero code makes the container restart (RestartCount) forever, as
	// the kubelet would, and the pod never fails by itself.
	ExitCode int32 `json:"exitCode,omitempty"`
	// Container is the container that exits with ExitCode; empty means the
	// first container of the pod.
	Container string `json:"container,omitempty"`
	// Disruption makes the pod disrupted RunTime after its start: it gets a
	// DisruptionTarget condition (reason DisruptionReason) and is deleted,
	// as an eviction or a preemption does, and then fails.
	Disruption bool `json:"disruption,omitempty"`
	// DisruptionReason is the reason of the DisruptionTarget condition;
	// empty means "PreemptionByScheduler".
	DisruptionReason string `json:"disruptionReason,omitempty"`
	// Restarts, under restartPolicy OnFailure, is how many times the
	// container first fails (exit code 1) and restarts before the run that
	// ends with ExitCode. Ignored under restartPolicy Never.
	Restarts int32 `json:"restarts,omitempty"`
	// Forever makes the pod run until it is deleted.
	Forever bool `json:"forever,omitempty"`
	// Shutdown is how long the pod takes to stop once deleted; the pod's
	// terminationGracePeriodSeconds (30s when unset) caps it. A pod stopped
	// before the grace period ends exits 143 (SIGTERM), one killed at its
	// end exits 137.
	Shutdown time.Duration `json:"-"`
}

// behaviorJSON is Behavior with its durations as strings.
type behaviorJSON struct {
	StartDelay       *jsonDuration `json:"startDelay,omitempty"`
	RunTime          *jsonDuration `json:"runTime,omitempty"`
	ExitCode         int32         `json:"exitCode,omitempty"`
	Container        string        `json:"container,omitempty"`
	Disruption       bool          `json:"disruption,omitempty"`
	DisruptionReason string        `json:"disruptionReason,omitempty"`
	Restarts         int32         `json:"restarts,omitempty"`
	Forever          bool          `json:"forever,omitempty"`
	Shutdown         *jsonDuration `json:"shutdown,omitempty"`
}

// MarshalJSON writes durations as Go duration strings.
func (b Behavior) MarshalJSON() ([]byte, error) {
	out := behaviorJSON{
		ExitCode: b.ExitCode, Container: b.Container, Disruption: b.Disruption,
		DisruptionReason: b.DisruptionReason, Restarts: b.Restarts, Forever: b.Forever,
	}
	opt := func(d time.Duration) *jsonDuration {
		if d == 0 {
			return nil
		}
		j := jsonDuration(d)
		return &j
	}
	out.StartDelay, out.RunTime, out.Shutdown = opt(b.StartDelay), opt(b.RunTime), opt(b.Shutdown)
	return json.Marshal(out)
}

// UnmarshalJSON reads durations as Go duration strings or as numbers of
// seconds.
func (b *Behavior) UnmarshalJSON(data []byte) error {
	var in behaviorJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*b = Behavior{
		ExitCode: in.ExitCode, Container: in.Container, Disruption: in.Disruption,
		DisruptionReason: in.DisruptionReason, Restarts: in.Restarts, Forever: in.Forever,
	}
	get := func(d *jsonDuration) time.Duration {
		if d == nil {
			return 0
		}
		return time.Duration(*d)
	}
	b.StartDelay, b.RunTime, b.Shutdown = get(in.StartDelay), get(in.RunTime), get(in.Shutdown)
	if b.StartDelay < 0 || b.RunTime < 0 || b.Shutdown < 0 {
		return fmt.Errorf("behavior: durations must not be negative")
	}
	return nil
}

// jsonDuration is a duration written as "30s" and read from "30s" or 30.
type jsonDuration time.Duration

// MarshalJSON writes the duration as a Go duration string.
func (d jsonDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON reads a Go duration string or a number of seconds.
func (d *jsonDuration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = jsonDuration(v)
		return nil
	}
	f, err := strconv.ParseFloat(string(data), 64)
	if err != nil {
		return fmt.Errorf("duration %s: want a string such as \"30s\" or a number of seconds", data)
	}
	// time.Duration holds about 292 years; beyond, the conversion would
	// wrap around to a negative duration.
	if ns := f * float64(time.Second); !(ns > math.MinInt64 && ns < math.MaxInt64) {
		return fmt.Errorf("duration %s: out of range (at most %d seconds either way)", data, int64(math.MaxInt64/time.Second))
	}
	*d = jsonDuration(time.Duration(f * float64(time.Second)))
	return nil
}

// Faults are the misfortunes a Cluster injects. Probabilities are in
// [0, 1]; each is drawn from the seeded source, so a Config replays the
// same faults.
type Faults struct {
	// APIError is the probability that any one API call of a plan (claim,
	// finalizer patch, deletion, creation, status write) fails. A failed
	// pod creation or deletion lets the plan go on to its status writes
	// and finalizer removals (jobsync.Resume); any other stops it. The
	// controller keeps the memory jobsync.Advance says and syncs again
	// after a rate-limited delay.
	APIError float64 `json:"apiError,omitempty"`
	// RefusedCreation is the probability that the API server refuses one
	// pod creation, as a ResourceQuota, PodSecurity admission or a
	// validating webhook would.
	RefusedCreation float64 `json:"refusedCreation,omitempty"`
	// Crash is the probability that the controller crashes during a sync,
	// at a step chosen uniformly among the plan's calls (possibly before
	// the first or after the last). The rest of the plan is lost, and so is
	// the controller's memory (expectations and backoff record); it starts
	// again with a fresh informer view.
	Crash float64 `json:"crash,omitempty"`
	// StaleView is the probability that a change in the API server starts
	// a stall of the controller's informer: both watch streams (pods and
	// the Job) stop delivering for a random time up to MaxLag, then deliver
	// everything in order. Syncs in between see a stale but consistent
	// picture of the past, and the controller's own writes are seen late.
	StaleView float64 `json:"staleView,omitempty"`
	// SkewedView is the probability that a change starts a stall of its
	// own watch stream only (pods or the Job), so that the view of the pods
	// and the view of the Job lag by different amounts. Upstream's
	// controller has races under such skew that jobsync reproduces (see the
	// package README): use it to study them.
	SkewedView float64 `json:"skewedView,omitempty"`
	// MaxLag bounds how late a stalled watch stream delivers. Zero means
	// 30s. Keep it below the expectations timeout (5m).
	MaxLag time.Duration `json:"-"`
	// PodDeletion is the probability, per pod that starts running, that
	// another actor (a user, a drain) deletes it at a random moment of its
	// run.
	PodDeletion float64 `json:"podDeletion,omitempty"`
	// JobChanges are changes that users make to the Job at given times.
	JobChanges []JobChange `json:"jobChanges,omitempty"`
}

// faultsJSON is Faults with MaxLag as a string.
type faultsJSON struct {
	APIError        float64       `json:"apiError,omitempty"`
	RefusedCreation float64       `json:"refusedCreation,omitempty"`
	Crash           float64       `json:"crash,omitempty"`
	StaleView       float64       `json:"staleView,omitempty"`
	SkewedView      float64       `json:"skewedView,omitempty"`
	MaxLag          *jsonDuration `json:"maxLag,omitempty"`
	PodDeletion     float64       `json:"podDeletion,omitempty"`
	JobChanges      []JobChange   `json:"jobChanges,omitempty"`
}

// MarshalJSON writes MaxLag as a Go duration string.
func (f Faults) MarshalJSON() ([]byte, error) {
	out := faultsJSON{APIError: f.APIError, RefusedCreation: f.RefusedCreation, Crash: f.Crash, StaleView: f.StaleView, SkewedView: f.SkewedView, PodDeletion: f.PodDeletion, JobChanges: f.JobChanges}
	if f.MaxLag != 0 {
		d := jsonDuration(f.MaxLag)
		out.MaxLag = &d
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads MaxLag as a Go duration string or a number of
// seconds.
func (f *Faults) UnmarshalJSON(data []byte) error {
	var in faultsJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*f = Faults{APIError: in.APIError, RefusedCreation: in.RefusedCreation, Crash: in.Crash, StaleView: in.StaleView, SkewedView: in.SkewedView, PodDeletion: in.PodDeletion, JobChanges: in.JobChanges}
	if in.MaxLag != nil {
		f.MaxLag = time.Duration(*in.MaxLag)
	}
	return nil
}

// JobChange is one change a user makes to the Job's spec, At after Start.
// Set exactly one of Suspend, Parallelism, Scale and Delete.
type JobChange struct {
	// At is the time of the change, from Config.Start.
	At time.Duration `json:"-"`
	// Suspend sets spec.suspend (true suspends, false resumes).
	Suspend *bool `json:"suspend,omitempty"`
	// Parallelism sets spec.parallelism.
	Parallelism *int32 `json:"parallelism,omitempty"`
	// Scale sets spec.completions and spec.parallelism together, the
	// elastic scaling of an Indexed Job (the API server accepts a change of
	// completions only in this form).
	Scale *int32 `json:"scale,omitempty"`
	// Delete deletes the Job with foreground propagation: the Job gets a
	// deletion timestamp, its pods are deleted, and it is gone once they
	// are.
	Delete bool `json:"delete,omitempty"`
}

type jobChangeJSON struct {
	At          jsonDuration `json:"at"`
	Suspend     *bool        `json:"suspend,omitempty"`
	Parallelism *int32       `json:"parallelism,omitempty"`
	Scale       *int32       `json:"scale,omitempty"`
	Delete      bool         `json:"delete,omitempty"`
}

// MarshalJSON writes At as a Go duration string.
func (c JobChange) MarshalJSON() ([]byte, error) {
	return json.Marshal(jobChangeJSON{At: jsonDuration(c.At), Suspend: c.Suspend, Parallelism: c.Parallelism, Scale: c.Scale, Delete: c.Delete})
}

// UnmarshalJSON reads At as a Go duration string or a number of seconds.
func (c *JobChange) UnmarshalJSON(data []byte) error {
	var in jobChangeJSON
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	*c = JobChange{At: time.Duration(in.At), Suspend: in.Suspend, Parallelism: in.Parallelism, Scale: in.Scale, Delete: in.Delete}
	return nil
}

// String describes the change.
func (c JobChange) String() string {
	switch {
	case c.Suspend != nil && *c.Suspend:
		return "suspend"
	case c.Suspend != nil:
		return "resume"
	case c.Parallelism != nil:
		return fmt.Sprintf("parallelism=%d", *c.Parallelism)
	case c.Scale != nil:
		return fmt.Sprintf("completions=parallelism=%d", *c.Scale)
	case c.Delete:
		return "delete"
	}
	return "no change"
}

// Validate reports a change that sets not exactly one field, a negative
// parallelism or scale, or a negative time.
func (c JobChange) Validate() error { return c.validate() }

func (c JobChange) validate() error {
	n := 0
	if c.Suspend != nil {
		n++
	}
	if c.Parallelism != nil {
		n++
		if *c.Parallelism < 0 {
			return fmt.Errorf("job change at %v: parallelism %d is negative", c.At, *c.Parallelism)
		}
	}
	if c.Scale != nil {
		n++
		if *c.Scale < 0 {
			return fmt.Errorf("job change at %v: scale %d is negative", c.At, *c.Scale)
		}
	}
	if c.Delete {
		n++
	}
	if n != 1 {
		return fmt.Errorf("job change at %v: set exactly one of suspend, parallelism, scale and delete", c.At)
	}
	if c.At < 0 {
		return fmt.Errorf("job change at %v: negative time", c.At)
	}
	return nil
}
