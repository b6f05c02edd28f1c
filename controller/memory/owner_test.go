package memory

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/expectations"
	"github.com/jobsync/jobsync/jobsync"
)

// TestObserverResolvesTheConfiguredOwnerKind: with Owner set to a custom
// kind, pods whose controller reference names that kind lower the memory
// of the resource seen as a Job, and pods naming a Job do not; by default
// it is the other way round. The deletion of the resource, an unstructured
// object (or its tombstone), forgets its memory.
func TestObserverResolvesTheConfiguredOwnerKind(t *testing.T) {
	trainJob := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "TrainJob"}
	jobPod := testPod("a", "j1", fin)
	crPod := testPod("b", "j1", fin)
	crPod.OwnerReferences[0].APIVersion, crPod.OwnerReferences[0].Kind = "example.com/v1", "TrainJob"
	for _, tc := range []struct {
		name  string
		owner schema.GroupVersionKind
		want  int64 // creations left of 2 after both pods are added
	}{
		{"default owner: the Job pod counts", schema.GroupVersionKind{}, 1},
		{"custom owner: the TrainJob pod counts", trainJob, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewStore()
			job := testJob("j1")
			snap := snapOf(s, job, t0)
			s.Begin(snap, jobsync.Options{Owner: tc.owner}, jobsync.Plan{Expectations: snap.Expectations.ExpectCreations(2, t0)})
			o := observerFor(s, job)
			o.Owner = tc.owner
			o.PodAdded(jobPod)
			o.PodAdded(crPod)
			got, _ := s.Get("ns", "pi", "j1")
			if got.Expectations.Creations != tc.want {
				t.Errorf("creations left %d, want %d", got.Expectations.Creations, tc.want)
			}
			// Which pod counted: adding it again (a new resourceVersion
			// is an update, not an add) lowers nothing more, adding a copy
			// under another UID lowers one more.
			again := crPod.DeepCopy()
			if tc.owner.Empty() {
				again = jobPod.DeepCopy()
			}
			again.UID, again.Name = "c", "pi-c"
			o.PodAdded(again)
			if got, _ := s.Get("ns", "pi", "j1"); got.Expectations.Creations != tc.want-1 {
				t.Errorf("after a third pod of the owner kind, creations left %d, want %d", got.Expectations.Creations, tc.want-1)
			}
		})
	}

	s := NewStore()
	job := testJob("j1")
	s.Begin(snapOf(s, job, t0), jobsync.Options{Owner: trainJob}, jobsync.Plan{Expectations: expectations.Expectations{Creations: 1, SetAt: t0}})
	cr := &unstructured.Unstructured{}
	cr.SetGroupVersionKind(trainJob)
	cr.SetNamespace("ns")
	cr.SetName("pi")
	cr.SetUID("other")
	o := Observer{Store: s, Finalizer: fin, Owner: trainJob}
	o.JobDeleted(cr)
	if s.Len() != 1 {
		t.Fatal("the deletion of another resource of that name (another UID) forgot the memory")
	}
	cr.SetUID("j1")
	o.JobDeleted(cache.DeletedFinalStateUnknown{Key: "ns/pi", Obj: cr})
	if s.Len() != 0 {
		t.Error("the deletion of the resource (tombstone) kept its memory")
	}
}
