package jobsynctest

import (
	"iter"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest/internal/oracle"
)

// The checks of Config.Check live in internal/oracle, apart from the world
// they judge; checkedWorld is what they read of it.

// checkedWorld shows the cluster to the checks as the API server holds it.
type checkedWorld struct{ c *Cluster }

func (w checkedWorld) Now() time.Time    { return w.c.now }
func (w checkedWorld) Job() *batchv1.Job { return w.c.job }

func (w checkedWorld) Pods() iter.Seq[oracle.Pod] {
	return func(yield func(oracle.Pod) bool) {
		for _, sp := range w.c.pods {
			if !yield(oracle.Pod{Obj: sp.obj, Index: sp.index}) {
				return
			}
		}
	}
}

func (w checkedWorld) SortedPods() []oracle.Pod {
	sps := w.c.sortedPods()
	out := make([]oracle.Pod, len(sps))
	for i, sp := range sps {
		out[i] = checkedPod(sp)
	}
	return out
}

func (w checkedWorld) Controlled(p *corev1.Pod) bool { return w.c.controlled(p) }
func (w checkedWorld) Tolerate(note string) {
	w.c.result.Tolerated = append(w.c.result.Tolerated, note)
}

func checkedPod(sp *simPod) oracle.Pod { return oracle.Pod{Obj: sp.obj, Index: sp.index} }

// newChecker starts the checks of a cluster whose Job is stored.
func newChecker(c *Cluster) *oracle.Checker {
	return oracle.New(checkedWorld{c}, c.opts, c.fin, c.cfg.Seed)
}

// takeViolations moves the violations the checks found since the last
// call into the public form.
func (c *Cluster) takeViolations() []Violation {
	var out []Violation
	for _, v := range c.check.Take() {
		out = append(out, Violation{Rule: v.Rule, Time: v.Time, Detail: v.Detail})
	}
	return out
}

// checkEnd runs the end-of-run checks of a Job that finished with o.
func (c *Cluster) checkEnd(o Outcome) {
	if o == OutcomeComplete || o == OutcomeFailed {
		c.check.AtEnd(o == OutcomeComplete)
	}
	c.result.Violations = append(c.result.Violations, c.takeViolations()...)
}
