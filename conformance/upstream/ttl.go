package upstream

import (
	"context"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/go-logr/logr"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller/ttlafterfinished"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

// TTLInput is one decision of upstream's TTL-after-finished controller: the
// Job as its informer holds it, the Job as a fresh read from the API server
// returns it (nil: the same), and the clock.
type TTLInput struct {
	Job   *batchv1.Job
	Fresh *batchv1.Job
	Now   time.Time
}

// TTLResult is what one processJob call did.
type TTLResult struct {
	// Deleted says the Job was deleted, with these options.
	Deleted       bool
	DeleteOptions metav1.DeleteOptions
	// Requeues are the delays of the delayed re-queues of the Job.
	Requeues []time.Duration
	// Err is what processJob returned.
	Err error
}

//go:linkname upTTLProcessJob k8s.io/kubernetes/pkg/controller/ttlafterfinished.(*Controller).processJob
func upTTLProcessJob(tc *ttlafterfinished.Controller, ctx context.Context, key string) error

// RunTTL builds upstream's TTL-after-finished controller (its exported
// constructor, a fake clientset holding the fresh Job, the informer's
// indexer holding in.Job), sets its clock, calls its processJob once and
// records the delete call and the re-queues.
func RunTTL(in TTLInput) (TTLResult, error) {
	var res TTLResult
	if in.Job == nil {
		return res, fmt.Errorf("no job")
	}
	gateMu.RLock() // no gate changes under a run
	defer gateMu.RUnlock()
	fresh := in.Fresh
	if fresh == nil {
		fresh = in.Job
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	defer cancel()
	client := fake.NewSimpleClientset(fresh.DeepCopy())
	factory := informers.NewSharedInformerFactory(client, 0)
	jobInformer := factory.Batch().V1().Jobs()
	tc := ttlafterfinished.New(ctx, jobInformer, client)
	*ttlField[clock.Clock](tc, "clock") = clocktesting.NewFakeClock(in.Now)
	queue := *ttlField[workqueue.TypedRateLimitingInterface[string]](tc, "queue")
	defer queue.ShutDown()
	hook := &ttlQueue{TypedRateLimitingInterface: queue}
	*ttlField[workqueue.TypedRateLimitingInterface[string]](tc, "queue") = hook
	if err := jobInformer.Informer().GetIndexer().Add(in.Job.DeepCopy()); err != nil {
		return res, err
	}
	client.ClearActions()
	res.Err = upTTLProcessJob(tc, ctx, in.Job.Namespace+"/"+in.Job.Name)
	res.Requeues = hook.after
	for _, a := range client.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok && d.GetResource().Resource == "jobs" {
			res.Deleted = true
			res.DeleteOptions = d.DeleteOptions
		}
	}
	return res, nil
}

// ttlQueue keeps the delays of AddAfter and passes nothing on.
type ttlQueue struct {
	workqueue.TypedRateLimitingInterface[string]
	after []time.Duration
}

func (q *ttlQueue) AddAfter(_ string, after time.Duration) { q.after = append(q.after, after) }

// ttlField returns a pointer to the named unexported field of the TTL
// controller, typed as *T.
func ttlField[T any](tc *ttlafterfinished.Controller, name string) *T {
	f := reflect.ValueOf(tc).Elem().FieldByName(name)
	if !f.IsValid() || f.Type() != reflect.TypeFor[T]() {
		panic("upstream TTL controller has no field " + name + " of type " + reflect.TypeFor[T]().String())
	}
	return (*T)(unsafe.Pointer(f.UnsafeAddr()))
}
