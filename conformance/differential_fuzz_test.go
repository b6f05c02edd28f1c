package conformance_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/jobsync/jobsync/conformance/apival"
	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/harness"
	"github.com/jobsync/jobsync/internal/testsupport/adversarial"
	"github.com/jobsync/jobsync/jobspec"
	"github.com/jobsync/jobsync/jobsync"
)

// FuzzDifferential runs upstream's controller and Reconcile side by side on
// adversarial snapshots (package adversarial: odd and nil fields, counters
// at the int32 limits, strange clocks and owners), built from the fuzzer's
// bytes. It fails when
//
//   - Reconcile panics;
//   - Reconcile refuses a snapshot (an error) that a cluster can hold: a
//     refusal must name a Job the API server would not store, a status it
//     would not accept, a counter past int32 (DEVIATIONS.md D1) or pods no
//     informer lists (a nil pod, a UID twice);
//   - for a Job the API server stores (jobspec.Validate finds nothing),
//     both sides decide and differ outside DEVIATIONS.md, or the library
//     writes a status the API server rejects while it accepts upstream's.
//
// For a Job the API server would refuse, only the first two are checked:
// such a Job is refused, decided as upstream decides it, or, in the cases
// listed in jobsync/INPUT.md, decided otherwise.
//
// A panic inside upstream's syncJob is upstream's: the snapshot passes,
// whatever the library did short of panicking.
//
// CI runs it for 30 seconds (.ci/run); longer:
//
//	cd conformance && go test . -run '^$' -fuzz '^FuzzDifferential$' -fuzztime 1000000x -parallel 1
func FuzzDifferential(f *testing.F) {
	allowed := loadAllowed(f)
	for _, seed := range []string{"", "\x00", "adversarial", "\xff\xff\xff\xff", "0123456789abcdef0123456789abcdef"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := adversarial.FromBytes(data)
		if s.Job == nil {
			return // the driver cannot run a snapshot without a Job
		}
		// Snapshots the library refuses, and Jobs the API server would
		// never store, are judged before upstream sees them: upstream's
		// syncJob starts goroutines that a Job the API server rejects can
		// crash (a negative parallelism makes it delete nil pods), and a
		// panic in one of those ends the whole fuzzing process, where no
		// recover can classify it.
		_, err := reconcileRecovering(t, s)
		if err != nil {
			if why := refusalUnjustified(s, err); why != "" {
				t.Fatalf("Reconcile refused a snapshot a cluster can hold (%s): %v", why, err)
			}
			return
		}
		if len(jobspec.Validate(s.Job)) > 0 {
			return
		}
		v := harness.Check(gen.Case{Family: "adversarial", Snapshot: s})
		switch {
		case v.Panic != "":
			t.Fatalf("Reconcile panicked: %s", v.Panic)
		case v.Setup != "":
			return // the driver cannot run this snapshot
		case strings.Contains(v.Upstream.Error, "upstream syncJob panicked"):
			return // upstream's own panic
		}
		if !v.OK() && !allowed(v) {
			t.Fatalf("upstream and the library differ (%s):\n%s", v.Class(), report(v))
		}
	})
}

// reconcileRecovering calls Reconcile and turns a panic into a test failure
// that names it.
func reconcileRecovering(t *testing.T, s jobsync.Snapshot) (plan jobsync.Plan, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Reconcile panicked: %v", r)
		}
	}()
	return jobsync.Reconcile(s, jobsync.Options{})
}

func loadAllowed(f *testing.F) func(harness.Verdict) bool {
	devs, err := harness.LoadDeviations("DEVIATIONS.md")
	if err != nil {
		f.Fatal(err)
	}
	return harness.Allowed(devs)
}

// refusalUnjustified returns why an error of Reconcile on s is not one of
// the refusals it may make, or "" when it is.
func refusalUnjustified(s jobsync.Snapshot, err error) string {
	var ie *jobsync.InputError
	if !errors.As(err, &ie) {
		return "not an *InputError"
	}
	switch {
	case strings.HasPrefix(ie.Field, "pods["):
		return "" // a nil pod, or a UID twice among pods to count
	case strings.Contains(ie.Msg, "does not fit in int32"):
		return "" // DEVIATIONS.md D1
	case ie.Field == "job":
		return ""
	}
	if len(jobspec.Validate(s.Job)) > 0 {
		return "" // the API server would not store this Job
	}
	if _, err := apival.CreateJob(s.Job); err != nil {
		return ""
	}
	if errs := apival.ValidateStatusUpdate(s.Job, &s.Job.Status); len(errs) > 0 {
		return "" // nor accept this status
	}
	return "the API server stores this Job and status"
}

func report(v harness.Verdict) string {
	out, err := harness.Report(v, true, true)
	if err != nil {
		return err.Error()
	}
	return out
}
