package executor

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// gang creates the plan's Workload and PodGroup (WorkloadWithJob), the
// Workload first, and fills the PodGroup's owner reference to a Workload
// created in the same plan with the UID the API server gave it. A create
// answered with AlreadyExists fails the step like any other error: the
// view was stale, and the next sync sees the object.
func (r *run) gang(ctx context.Context) error {
	wl, pg := r.plan.WorkloadCreation, r.plan.PodGroupCreation
	if wl != nil {
		created, err := r.x.Client.SchedulingV1alpha2().Workloads(r.job.Namespace).Create(ctx, wl, metav1.CreateOptions{})
		if err != nil {
			return r.fail(StepGang, fmt.Errorf("creating Workload %s: %w", wl.Name, err))
		}
		r.res.WorkloadCreated = true
		if pg != nil {
			pg = pg.DeepCopy()
			for i, ref := range pg.OwnerReferences {
				if ref.Kind == "Workload" && ref.Name == created.Name && ref.UID == "" {
					pg.OwnerReferences[i].UID = created.UID
				}
			}
		}
	}
	if pg != nil {
		if _, err := r.x.Client.SchedulingV1alpha2().PodGroups(r.job.Namespace).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
			return r.fail(StepGang, fmt.Errorf("creating PodGroup %s: %w", pg.Name, err))
		}
		r.res.PodGroupCreated = true
	}
	return nil
}
