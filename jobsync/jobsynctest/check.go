package jobsynctest

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/jobsync/jobsync/jobsync"
)

// checker holds what the invariant checks (Config.Check) need to remember.
type checker struct {
	c       *Cluster
	pending []Violation
}

func newChecker(c *Cluster) *checker { return &checker{c: c} }

func (k *checker) violate(rule, format string, args ...any) {
	k.pending = append(k.pending, Violation{Rule: rule, Time: k.c.now, Detail: fmt.Sprintf(format, args...)})
}

func (k *checker) beforePlan(snap jobsync.Snapshot, plan jobsync.Plan)           {}
func (k *checker) created(sp *simPod, plan *jobsync.Plan, snap jobsync.Snapshot) {}
func (k *checker) finalizerRemoval(sp *simPod, surplus bool, plan *jobsync.Plan, snap jobsync.Snapshot) {
}
func (k *checker) statusWritten(old, updated *batchv1.Job, final bool) {}
func (k *checker) jobChanged(j *batchv1.Job)                           {}
func (k *checker) atEnd(o Outcome)                                     {}
