package workload136

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"

	"github.com/jobsync/jobsync/jobsync"
)

// Snapshot is jobsync's snapshot plus the scheduling objects the gate reads.
type Snapshot struct {
	jobsync.Snapshot
	// Workloads and PodGroups are the caller's view of the
	// scheduling.k8s.io/v1alpha2 objects in the Job's namespace (any others
	// are ignored).
	Workloads []*schedulingv1alpha2.Workload
	PodGroups []*schedulingv1alpha2.PodGroup
}

// Plan is jobsync's plan plus the scheduling objects to create.
type Plan struct {
	jobsync.Plan
	// WorkloadCreation and PodGroupCreation are the objects to create for
	// a Job that qualifies for gang scheduling, after the claims and
	// before any pod is deleted or created, the Workload first. A PodGroup
	// created in the same plan as its Workload has, in its owner reference
	// to the Workload, an empty UID: fill it in from the created Workload.
	// A create answered with AlreadyExists means the view was stale:
	// reconcile again from a fresh one. Pods created in this plan already
	// name the PodGroup in spec.schedulingGroup.
	WorkloadCreation *schedulingv1alpha2.Workload `json:"workloadCreation,omitempty"`
	PodGroupCreation *schedulingv1alpha2.PodGroup `json:"podGroupCreation,omitempty"`
}

// DeepCopy returns a copy of the plan that shares no memory with it.
func (p Plan) DeepCopy() Plan {
	return Plan{Plan: p.Plan.DeepCopy(), WorkloadCreation: p.WorkloadCreation.DeepCopy(), PodGroupCreation: p.PodGroupCreation.DeepCopy()}
}

// Reconcile decides one sync of s.Job as upstream's Job controller of
// Kubernetes 1.36 would with the WorkloadWithJob gate on (and
// GenericWorkload, which it needs). Errors, purity and ordering are
// jobsync.Reconcile's.
//
// The gate's step runs, in upstream, after the pods are claimed and
// before any is managed; its only effect on the rest of the sync is the
// scheduling group of the pods created. So jobsync decides first, and the
// step is then added where upstream takes it: its event first (nothing
// before it records one), its note after the claim notes, and the
// PodGroup on every pod created.
func Reconcile(s Snapshot, opts jobsync.Options) (Plan, error) {
	base, err := jobsync.Reconcile(s.Snapshot, opts)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{Plan: base}
	if base.Skipped != "" || !gangCandidate(s.Job) {
		return plan, nil
	}
	c := claimsOf(s.Snapshot, base)
	d := decide(s.Job, s.Workloads, s.PodGroups, started(s.Snapshot, c))
	plan.WorkloadCreation, plan.PodGroupCreation = d.workload, d.podGroup
	if d.event != nil {
		plan.Events = slices.Insert(slices.Clip(plan.Events), 0, *d.event)
	}
	if d.note != "" {
		plan.Notes = slices.Insert(slices.Clip(plan.Notes), c.notes, d.note)
	}
	if d.group != "" {
		for i := range plan.Creations {
			name := d.group
			plan.Creations[i].Pod.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: &name}
		}
	}
	return plan, nil
}
