//go:build !upstream_1_37

package gen

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// --- workload-with-job: the WorkloadWithJob gate on ---

// familyWorkloadWithJob turns the WorkloadWithJob gate on (with
// GenericWorkload) and makes Jobs that qualify for gang scheduling (Indexed,
// parallelism above 1 equal to completions, no scheduling group in the
// template) and some that just miss; new Jobs and running ones; and
// Workloads and PodGroups as a cluster may hold them: none, the Job's own,
// ones the Job does not control, a Workload with two templates, several
// that refer to the Job, ones of other Jobs or namespaces.
func familyWorkloadWithJob(g *G) {
	g.workloadWithJob = true
	n := g.between(2, 8)
	s := shape{indexed: true, completions: i32(n), parallelism: i32(n)}
	switch x := g.r.Float64(); {
	case x < 0.06:
		s.parallelism, s.completions = i32(1), i32(1)
	case x < 0.12:
		s.indexed = false
	case x < 0.18:
		s.completions = i32(n + g.between(1, 3))
	}
	g.newJob(s)
	if g.chance(0.06) {
		g.job.Spec.Template.Spec.SchedulingGroup = &corev1.PodSchedulingGroup{PodGroupName: ptr.To("set-by-jobset")}
	}
	if g.chance(0.5) {
		// Running already: pods, a start time, maybe finished pods.
		g.begin()
		ix := g.cyclicIndex()
		g.activePods(g.between(0, n), ix)
		for i := range g.between(0, 2) {
			g.pod(ix(n-1-i), pick(g, succeeded, failed))
		}
		g.build()
	} else if g.chance(0.1) {
		// Created suspended and resumed: no start time, but a Suspended
		// condition.
		g.condition(batchv1.JobSuspended, corev1.ConditionFalse, "Resumed", "Job resumed", g.now.Add(-g.secs(1, 30)))
	}

	job := g.job
	ours := func() metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	}
	workload := func(name string, owned bool, templates int) *schedulingv1alpha2.Workload {
		wl := &schedulingv1alpha2.Workload{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: job.Namespace, UID: types.UID(g.uid()), CreationTimestamp: job.CreationTimestamp},
			Spec: schedulingv1alpha2.WorkloadSpec{
				ControllerRef: &schedulingv1alpha2.TypedLocalObjectReference{APIGroup: "batch", Kind: "Job", Name: job.Name},
			},
		}
		if owned {
			wl.OwnerReferences = []metav1.OwnerReference{ours()}
		} else if g.chance(0.5) {
			wl.OwnerReferences = []metav1.OwnerReference{{APIVersion: "jobset.x-k8s.io/v1alpha2", Kind: "JobSet", Name: "js", UID: types.UID(g.uid()), Controller: ptr.To(true)}}
		}
		for i := range templates {
			wl.Spec.PodGroupTemplates = append(wl.Spec.PodGroupTemplates, schedulingv1alpha2.PodGroupTemplate{
				Name:             fmt.Sprintf("%s-pgt-%d", job.Name, i),
				SchedulingPolicy: schedulingv1alpha2.PodGroupSchedulingPolicy{Gang: &schedulingv1alpha2.GangSchedulingPolicy{MinCount: *job.Spec.Parallelism}},
			})
		}
		return wl
	}
	podGroup := func(wl *schedulingv1alpha2.Workload, owned bool) *schedulingv1alpha2.PodGroup {
		pg := &schedulingv1alpha2.PodGroup{
			ObjectMeta: metav1.ObjectMeta{Name: wl.Name + "-pg-" + g.suffix(4), Namespace: wl.Namespace, UID: types.UID(g.uid())},
			Spec: schedulingv1alpha2.PodGroupSpec{
				PodGroupTemplateRef: &schedulingv1alpha2.PodGroupTemplateReference{Workload: &schedulingv1alpha2.WorkloadPodGroupTemplateReference{WorkloadName: wl.Name, PodGroupTemplateName: job.Name + "-pgt-0"}},
				SchedulingPolicy:    schedulingv1alpha2.PodGroupSchedulingPolicy{Gang: &schedulingv1alpha2.GangSchedulingPolicy{MinCount: *job.Spec.Parallelism}},
			},
		}
		if owned {
			pg.OwnerReferences = []metav1.OwnerReference{ours()}
		}
		return pg
	}
	switch x := g.r.Float64(); {
	case x < 0.45:
		// Nothing yet.
	case x < 0.75:
		wl := workload(job.Name+"-"+g.suffix(8), true, 1)
		g.workloads = append(g.workloads, wl)
		switch y := g.r.Float64(); {
		case y < 0.4:
		case y < 0.75:
			g.podGroups = append(g.podGroups, podGroup(wl, true))
		case y < 0.9:
			g.podGroups = append(g.podGroups, podGroup(wl, false))
		default:
			g.podGroups = append(g.podGroups, podGroup(wl, true), podGroup(wl, true))
		}
	case x < 0.82:
		g.workloads = append(g.workloads, workload(job.Name+"-"+g.suffix(8), false, 1))
	case x < 0.88:
		g.workloads = append(g.workloads, workload(job.Name+"-"+g.suffix(8), true, pick(g, 0, 2)))
	case x < 0.94:
		g.workloads = append(g.workloads, workload(job.Name+"-a", true, 1), workload(job.Name+"-b", true, 1))
	default:
		// Another Job's Workload, and one in another namespace.
		other := workload("other-"+g.suffix(5), true, 1)
		other.Spec.ControllerRef.Name = "other"
		away := workload(job.Name+"-"+g.suffix(8), true, 1)
		away.Namespace = "elsewhere"
		g.workloads = append(g.workloads, other, away)
	}
}
