package upstream

// This file reaches into the unexported parts of upstream's Job controller.
// Upstream's own tests live inside the package and set these fields
// directly; from outside we need two tools:
//
//   - reflect + unsafe, to read and replace unexported fields of
//     *job.Controller whose types are exported (interfaces, funcs, sync.Map,
//     cache.Store);
//   - pull-style //go:linkname, to call three unexported methods of
//     unexported helper types. Go 1.23 and later reject such references only
//     into the standard library; into a non-standard package they link
//     without any -ldflags.
//
// Everything here depends on upstream's field and method names at v1.36.5 and v1.37.2;
// mustField panics with the missing name if a future version renames one,
// which the smoke test reports at once.

import (
	"reflect"
	"sort"
	"time"
	"unsafe"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/controller"
	jobctrl "k8s.io/kubernetes/pkg/controller/job"
)

// fieldPtr returns a pointer to the named field of the controller, typed as
// *T. It panics when the field does not exist or has another type.
func fieldPtr[T any](jm *jobctrl.Controller, name string) *T {
	v := reflect.ValueOf(jm).Elem()
	f := v.FieldByName(name)
	if !f.IsValid() {
		panic("upstream Job controller has no field " + name)
	}
	want := reflect.TypeFor[T]()
	if f.Type() != want {
		panic("upstream Job controller field " + name + " is a " + f.Type().String() + ", not a " + want.String())
	}
	return (*T)(unsafe.Pointer(f.UnsafeAddr()))
}

// opaqueField returns the address of a field whose type is unexported, for
// handing to a linknamed method.
func opaqueField(jm *jobctrl.Controller, name string) unsafe.Pointer {
	f := reflect.ValueOf(jm).Elem().FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		panic("upstream Job controller has no pointer field " + name)
	}
	return f.UnsafePointer()
}

// --- finalizer expectations (type uidTrackingExpectations) ---

//go:linkname upExpectFinalizersRemoved k8s.io/kubernetes/pkg/controller/job.(*uidTrackingExpectations).expectFinalizersRemoved
func upExpectFinalizersRemoved(u unsafe.Pointer, logger klog.Logger, jobKey string, uids []types.UID) error

//go:linkname upGetExpectedUIDs k8s.io/kubernetes/pkg/controller/job.(*uidTrackingExpectations).getExpectedUIDs
func upGetExpectedUIDs(u unsafe.Pointer, jobKey string) sets.Set[types.UID]

func seedFinalizerExpectations(jm *jobctrl.Controller, key string, uids []types.UID) {
	if len(uids) == 0 {
		return
	}
	if err := upExpectFinalizersRemoved(opaqueField(jm, "finalizerExpectations"), klog.Background(), key, uids); err != nil {
		panic(err)
	}
}

func readFinalizerExpectations(jm *jobctrl.Controller, key string) []types.UID {
	set := upGetExpectedUIDs(opaqueField(jm, "finalizerExpectations"), key)
	if set.Len() == 0 {
		return nil
	}
	out := set.UnsortedList()
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// --- pod-failure backoff (type backoffStore holding *backoffRecord) ---

// backoffRecordLayout has the fields of upstream's backoffRecord, in its
// order and with its types, so that a value of it is passed to the
// linknamed method exactly as upstream's own would be.
type backoffRecordLayout struct {
	key                      string
	failuresAfterLastSuccess int32
	lastFailureTime          *time.Time
}

//go:linkname upUpdateBackoffRecord k8s.io/kubernetes/pkg/controller/job.(*backoffStore).updateBackoffRecord
func upUpdateBackoffRecord(s unsafe.Pointer, record backoffRecordLayout) error

func seedBackoff(jm *jobctrl.Controller, key string, failures int32, last *time.Time) {
	var lt *time.Time
	if last != nil {
		t := *last
		lt = &t
	}
	if err := upUpdateBackoffRecord(opaqueField(jm, "podBackoffStore"), backoffRecordLayout{key: key, failuresAfterLastSuccess: failures, lastFailureTime: lt}); err != nil {
		panic(err)
	}
}

// readBackoff returns the record upstream keeps for key after the sync.
func readBackoff(jm *jobctrl.Controller, key string) (failures int32, last *time.Time, ok bool) {
	storeType := reflect.ValueOf(jm).Elem().FieldByName("podBackoffStore").Type().Elem()
	bs := reflect.NewAt(storeType, opaqueField(jm, "podBackoffStore")).Elem()
	sf := bs.FieldByName("store")
	if !sf.IsValid() || sf.Type() != reflect.TypeFor[cache.Store]() {
		panic("upstream backoffStore has no cache.Store field store")
	}
	store := *(*cache.Store)(unsafe.Pointer(sf.UnsafeAddr()))
	obj, exists, err := store.GetByKey(key)
	if err != nil || !exists {
		return 0, nil, false
	}
	rec := reflect.ValueOf(obj).Elem()
	failures = int32(rec.FieldByName("failuresAfterLastSuccess").Int())
	lf := rec.FieldByName("lastFailureTime")
	if !lf.IsNil() {
		t := *(*time.Time)(lf.UnsafePointer())
		last = &t
	}
	return failures, last, true
}

// --- pod creation/deletion expectations (exported types, unexported timestamp) ---

var controlleeTimestampOffset = func() uintptr {
	f, ok := reflect.TypeFor[controller.ControlleeExpectations]().FieldByName("timestamp")
	if !ok || f.Type != reflect.TypeFor[time.Time]() {
		panic("controller.ControlleeExpectations has no time.Time field timestamp")
	}
	return f.Offset
}()

// setControlleeTimestamp moves the moment an expectation was set. Upstream
// measures expiry with the real clock, not the controller's, so the
// harness sets it where the real clock gives the snapshot's verdict
// (seedExpectations).
func setControlleeTimestamp(e *controller.ControlleeExpectations, t time.Time) {
	*(*time.Time)(unsafe.Add(unsafe.Pointer(e), controlleeTimestampOffset)) = t
}

// hasField reports whether upstream's controller has a field of that name:
// for the seams one supported release has and another has not.
func hasField(jm *jobctrl.Controller, name string) bool {
	return reflect.ValueOf(jm).Elem().FieldByName(name).IsValid()
}
