package harness

import (
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/jobsync/jobsync/conformance/gen"
	"github.com/jobsync/jobsync/conformance/upstream"
	"github.com/jobsync/jobsync/jobsync"
)

// firstCase returns the first case of family whose upstream sync does what
// want asks for.
func firstCase(t *testing.T, family string, want func(upstream.Result) bool) gen.Case {
	t.Helper()
	for seed := range uint64(500) {
		c, err := gen.Generate(family, seed)
		if err != nil {
			t.Fatal(err)
		}
		s := c.Snapshot
		r, err := upstream.Run(upstream.Input{Job: s.Job, Pods: s.Pods, Now: s.Now, Expectations: s.Expectations, Backoff: s.Backoff, Gates: c.Gates(), PodOrder: CanonicalOrder(s.Job)})
		if err != nil {
			t.Fatal(err)
		}
		if want(r) {
			return c
		}
	}
	t.Fatalf("no %s case found", family)
	return gen.Case{}
}

// TestDiffCatchesAlteredPlans alters correct plans in the ways a buggy
// library could, and checks that each alteration is reported under the
// field it touches.
func TestDiffCatchesAlteredPlans(t *testing.T) {
	creating := firstCase(t, "basic", func(r upstream.Result) bool { return len(r.Creates) > 1 })
	removing := firstCase(t, "finalizers", func(r upstream.Result) bool {
		return len(r.FinalizerRemovals) > 0 && len(r.Writes) == 2
	})
	for _, tc := range []struct {
		name  string
		c     gen.Case
		alter func(*jobsync.Plan)
		class string
	}{
		{"one creation missing", creating, func(p *jobsync.Plan) { p.Creations = p.Creations[1:] }, "Creations"},
		{"creation without finalizer", creating, func(p *jobsync.Plan) {
			p.Creations[0].Pod = p.Creations[0].Pod.DeepCopy()
			p.Creations[0].Pod.Finalizers = nil
		}, "Creations"},
		{"interim active off by one", creating, func(p *jobsync.Plan) { p.InterimStatus.Active++ }, "InterimStatus.Active"},
		{"requeue invented", creating, func(p *jobsync.Plan) { p.RequeueAfter = time.Second }, "RequeueAfter"},
		{"expectations not raised", creating, func(p *jobsync.Plan) { p.Expectations.Creations = 0 }, "Expectations.Creations"},
		{"removal dropped", removing, func(p *jobsync.Plan) { p.FinalizerRemovals = p.FinalizerRemovals[1:] }, "FinalizerRemovals"},
		{"final write dropped", removing, func(p *jobsync.Plan) { p.Status = nil }, "Status"},
		{"event added", removing, func(p *jobsync.Plan) {
			p.Events = append(p.Events, jobsync.Event{Type: "Normal", Reason: "Completed", Message: "Job completed"})
		}, "Events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.c.Snapshot
			plan, err := tc.c.Reconcile()
			if err != nil {
				t.Fatal(err)
			}
			r, err := upstream.Run(upstream.Input{Job: s.Job, Pods: s.Pods, Now: s.Now, Expectations: s.Expectations, Backoff: s.Backoff, Gates: tc.c.Gates(), PodOrder: CanonicalOrder(s.Job)})
			if err != nil {
				t.Fatal(err)
			}
			up := fromUpstream(r, s)
			normalize(&up)
			lib := fromPlan(plan, nil, s)
			normalize(&lib)
			if d, _ := diff(up, lib); d != "" {
				t.Fatalf("the unaltered plan already differs:\n%s", d)
			}
			tc.alter(&plan.Plan)
			lib = fromPlan(plan, nil, s)
			normalize(&lib)
			d, classes := diff(up, lib)
			if d == "" || !slices.ContainsFunc(classes, func(c string) bool { return strings.HasPrefix(c, tc.class) }) {
				t.Errorf("classes %v, want %s; diff:\n%s", classes, tc.class, d)
			}
		})
	}
}

func TestValidateWritesUsesTheStatusStrategy(t *testing.T) {
	c, _ := gen.Generate("basic", 1)
	job := c.Snapshot.Job.DeepCopy()
	job.Status = batchv1.JobStatus{StartTime: ptr.To(metav1.NewTime(c.Snapshot.Now)), Active: 1, Ready: ptr.To[int32](1)}
	bad := job.Status.DeepCopy()
	bad.Ready = ptr.To[int32](2)
	errs := validateWrites(job, bad, nil)
	if len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), "ready") {
		t.Errorf("more ready than active pods accepted: %v", errs)
	}
	done := job.Status.DeepCopy()
	done.Conditions = []batchv1.JobCondition{
		{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
		{Type: batchv1.JobComplete, Status: corev1.ConditionTrue},
	}
	done.CompletionTime = done.StartTime
	if errs := validateWrites(job, nil, done); len(errs) == 0 {
		t.Errorf("a Complete Job with an active pod accepted")
	}
}
