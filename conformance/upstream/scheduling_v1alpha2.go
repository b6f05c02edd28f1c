//go:build !upstream_1_37

package upstream

import (
	"context"

	schedulingv1alpha2 "k8s.io/api/scheduling/v1alpha2"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	batchinformers "k8s.io/client-go/informers/batch/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	schedulinginformers "k8s.io/client-go/informers/scheduling/v1alpha2"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	jobctrl "k8s.io/kubernetes/pkg/controller/job"
	"k8s.io/kubernetes/pkg/features"
)

// The scheduling API of WorkloadWithJob as v1.36 speaks it
// (scheduling.k8s.io/v1alpha2). v1.37 rewrote it on v1beta1
// (scheduling_v1beta1.go, built with the upstream_1_37 tag).

// SchedulingObjects are the Workloads and PodGroups of a snapshot.
type SchedulingObjects struct {
	Workloads []*schedulingv1alpha2.Workload
	PodGroups []*schedulingv1alpha2.PodGroup
}

// SchedulingCreates are the Workloads and PodGroups a sync created.
type SchedulingCreates struct {
	WorkloadCreates []*schedulingv1alpha2.Workload
	PodGroupCreates []*schedulingv1alpha2.PodGroup
}

// newController builds the controller through its exported constructor.
// The workload informers are handed over only when the WorkloadWithJob gate
// (off by default in v1.36) asks for them.
func newController(ctx context.Context, client *fake.Clientset, factory informers.SharedInformerFactory, podInformer coreinformers.PodInformer, jobInformer batchinformers.JobInformer) (*jobctrl.Controller, error) {
	var workloads schedulinginformers.WorkloadInformer
	var podGroups schedulinginformers.PodGroupInformer
	if utilfeature.DefaultFeatureGate.Enabled(features.WorkloadWithJob) {
		workloads = factory.Scheduling().V1alpha2().Workloads()
		podGroups = factory.Scheduling().V1alpha2().PodGroups()
	}
	return jobctrl.NewController(ctx, client, podInformer, jobInformer, workloads, podGroups)
}

// addSchedulingObjects puts Workloads and PodGroups in the controller's
// informers, when the WorkloadWithJob gate gave it any.
func (d *driven) addSchedulingObjects(in SchedulingObjects) error {
	if !utilfeature.DefaultFeatureGate.Enabled(features.WorkloadWithJob) {
		return nil
	}
	wi := d.factory.Scheduling().V1alpha2().Workloads().Informer().GetIndexer()
	for _, wl := range in.Workloads {
		if err := wi.Add(wl.DeepCopy()); err != nil {
			return err
		}
	}
	pi := d.factory.Scheduling().V1alpha2().PodGroups().Informer().GetIndexer()
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
		case *schedulingv1alpha2.Workload:
			out.WorkloadCreates = append(out.WorkloadCreates, o.DeepCopy())
		case *schedulingv1alpha2.PodGroup:
			out.PodGroupCreates = append(out.PodGroupCreates, o.DeepCopy())
		}
	}
	return out
}
