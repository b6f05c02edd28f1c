//go:build upstream_1_37

package upstream

import (
	"context"

	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	schedulinginformers "k8s.io/client-go/informers/scheduling/v1beta1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	jobctrl "k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/kubernetes/pkg/features"
)

// The scheduling API of WorkloadWithJob as v1.37 speaks it
// (scheduling.k8s.io/v1beta1; v1.36's v1alpha2 is gone from k8s.io/api
// v0.37). The library does not model v1.37's WorkloadWithJob (see
// DEVIATIONS.md); these let the conformance run show what upstream does.

// SchedulingObjects are the Workloads and PodGroups of a snapshot.
type SchedulingObjects struct {
	Workloads []*schedulingv1beta1.Workload
	PodGroups []*schedulingv1beta1.PodGroup
}

// SchedulingCreates are the Workloads and PodGroups a sync created.
type SchedulingCreates struct {
	WorkloadCreates []*schedulingv1beta1.Workload
	PodGroupCreates []*schedulingv1beta1.PodGroup
}

// newController builds the controller through its exported constructor.
// The workload informers are handed over only when the WorkloadWithJob gate
// (alpha and off by default in v1.37) asks for them.
func newController(ctx context.Context, client *fake.Clientset, factory informers.SharedInformerFactory, podInformer coreinformers.PodInformer, jobInformer batchinformers.JobInformer) (*jobctrl.Controller, error) {
	var workloads schedulinginformers.WorkloadInformer
	var podGroups schedulinginformers.PodGroupInformer
	if utilfeature.DefaultFeatureGate.Enabled(features.WorkloadWithJob) {
		workloads = factory.Scheduling().V1beta1().Workloads()
		podGroups = factory.Scheduling().V1beta1().PodGroups()
	}
	return jobctrl.NewController(ctx, client, podInformer, jobInformer, workloads, podGroups)
}

// addSchedulingObjects puts Workloads and PodGroups in the controller's
// informers, when the WorkloadWithJob gate gave it any.
func (d *driven) addSchedulingObjects(in SchedulingObjects) error {
	if !utilfeature.DefaultFeatureGate.Enabled(features.WorkloadWithJob) {
		return nil
	}
	wi := d.factory.Scheduling().V1beta1().Workloads().Informer().GetIndexer()
	for _, wl := range in.Workloads {
		if err := wi.Add(wl.DeepCopy()); err != nil {
			return err
		}
	}
	pi := d.factory.Scheduling().V1beta1().PodGroups().Informer().GetIndexer()
	for _, pg := range in.PodGroups {
		if err := pi.Add(pg.DeepCopy()); err != nil {
			return err
		}
	}
	return nil
}

// schedulingCreates returns the Workloads and PodGroups the sync created
// through the fake clientset, as sent.
func (d *driven) schedulingCreates() (out SchedulingCreates) {
	for _, a := range d.client.Actions() {
		c, ok := a.(k8stesting.CreateAction)
		if !ok {
			continue
		}
		switch o := c.GetObject().(type) {
		case *schedulingv1beta1.Workload:
			out.WorkloadCreates = append(out.WorkloadCreates, o.DeepCopy())
		case *schedulingv1beta1.PodGroup:
			out.PodGroupCreates = append(out.PodGroupCreates, o.DeepCopy())
		}
	}
	return out
}
