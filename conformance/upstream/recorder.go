package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/controller"
)

// recorder stands in for every side effect of one upstream sync: it is the
// controller's PodControlInterface, its status-update and patch handlers,
// its event recorder and the receiver of its work queue's re-queues. Upstream
// calls it from several goroutines at once (creates and deletes are
// parallel), hence the mutex.
type recorder struct {
	mu  sync.Mutex
	res *Result
}

var _ sideEffects = (*recorder)(nil)

func (r *recorder) logf(format string, args ...any) {
	r.res.Log = append(r.res.Log, fmt.Sprintf(format, args...))
}

// CreatePods is not used by the Job controller; it is here for the interface.
func (r *recorder) CreatePods(ctx context.Context, namespace string, template *corev1.PodTemplateSpec, object kruntime.Object, controllerRef *metav1.OwnerReference) error {
	return r.CreatePodsWithGenerateName(ctx, namespace, template, object, controllerRef, "")
}

// CreatePodsWithGenerateName builds the pod as upstream's RealPodControl
// would send it to the API server (podToCreate) and records it.
func (r *recorder) CreatePodsWithGenerateName(_ context.Context, namespace string, template *corev1.PodTemplateSpec, object kruntime.Object, controllerRef *metav1.OwnerReference, generateName string) error {
	pod, err := podToCreate(namespace, template, object, controllerRef, generateName)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.logf("create refused: %v", err)
		return err
	}
	r.res.Creates = append(r.res.Creates, pod)
	r.logf("create %s", pod.GenerateName)
	return nil
}

// podToCreate builds the pod exactly as upstream's RealPodControl builds it
// before its API call, with the same refusals: an owner reference it does
// not accept, a pod without labels.
func podToCreate(namespace string, template *corev1.PodTemplateSpec, object kruntime.Object, controllerRef *metav1.OwnerReference, generateName string) (*corev1.Pod, error) {
	if err := checkControllerRef(controllerRef); err != nil {
		return nil, err
	}
	pod, err := controller.GetPodFromTemplate(template, object, controllerRef)
	if err != nil {
		return nil, err
	}
	if generateName != "" {
		pod.GenerateName = generateName
	}
	pod.Namespace = namespace
	if len(pod.Labels) == 0 {
		return nil, errors.New("unable to create pods, no labels")
	}
	return pod, nil
}

// checkControllerRef repeats the checks RealPodControl makes on the owner
// reference before it creates anything.
func checkControllerRef(ref *metav1.OwnerReference) error {
	switch {
	case ref == nil:
		return errors.New("controllerRef is nil")
	case ref.APIVersion == "" || ref.Kind == "":
		return errors.New("controllerRef has no APIVersion or Kind")
	case ref.Controller == nil || !*ref.Controller:
		return errors.New("controllerRef.Controller is not set to true")
	case ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion:
		return errors.New("controllerRef.BlockOwnerDeletion is not set")
	}
	return nil
}

func (r *recorder) DeletePod(_ context.Context, namespace, name string, _ kruntime.Object) error {
	site := callSite()
	r.mu.Lock()
	defer r.mu.Unlock()
	patched := false
	for _, p := range r.res.deleteFinalizerPatches {
		if p == namespace+"/"+name {
			patched = true
		}
	}
	r.res.Deletes = append(r.res.Deletes, Deletion{Pod: name, Site: site, FinalizerPatchedFirst: patched})
	r.logf("delete %s (%s)", name, site)
	return nil
}

func (r *recorder) PatchPod(_ context.Context, namespace, name string, data []byte) error {
	site := callSite()
	kind := classifyPatch(data)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case kind == patchRemoveFinalizer && site == "deleteJobPods":
		r.res.deleteFinalizerPatches = append(r.res.deleteFinalizerPatches, namespace+"/"+name)
	case kind == patchRemoveFinalizer && site == "removeTrackingFinalizerFromPods":
		r.res.FinalizerRemovals = append(r.res.FinalizerRemovals, name)
	case kind == patchAdopt:
		r.res.Adoptions = append(r.res.Adoptions, Claim{Pod: name, Patch: string(data)})
	case kind == patchRelease:
		r.res.Releases = append(r.res.Releases, Claim{Pod: name, Patch: string(data)})
	default:
		r.res.OtherPatches = append(r.res.OtherPatches, fmt.Sprintf("%s from %s: %s", name, site, data))
	}
	r.logf("patch %s %s (%s)", kind, name, site)
	return nil
}

type patchKind string

const (
	patchRemoveFinalizer patchKind = "remove-finalizer"
	patchAdopt           patchKind = "adopt"
	patchRelease         patchKind = "release"
	patchOther           patchKind = "other"
)

// classifyPatch tells the three kinds of pod patch the Job controller sends:
// the strategic-merge directive that drops the tracking finalizer, the
// owner-reference patch of an adoption, and the "$patch: delete" of a
// release.
func classifyPatch(data []byte) patchKind {
	var p struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if json.Unmarshal(data, &p) != nil || p.Metadata == nil {
		return patchOther
	}
	if refs, ok := p.Metadata["ownerReferences"]; ok {
		var list []map[string]any
		if json.Unmarshal(refs, &list) == nil {
			for _, r := range list {
				if r["$patch"] == "delete" {
					return patchRelease
				}
			}
			return patchAdopt
		}
		return patchOther
	}
	if raw, ok := p.Metadata["$deleteFromPrimitiveList/finalizers"]; ok && len(p.Metadata) == 1 {
		var fs []string
		if json.Unmarshal(raw, &fs) == nil && len(fs) == 1 && fs[0] == batchv1.JobTrackingFinalizer {
			return patchRemoveFinalizer
		}
	}
	return patchOther
}

// updateStatus records one status write. Upstream writes at most twice per
// sync: in flushUncountedAndRemoveFinalizers, before it removes finalizers
// (Plan.InterimStatus), and at the end of trackJobStatusAndRemoveFinalizers
// (Plan.Status). The call site, not the count, tells which is which: a
// single write may be either.
func (r *recorder) updateStatus(_ context.Context, job *batchv1.Job) (*batchv1.Job, error) {
	site := callSite()
	r.mu.Lock()
	defer r.mu.Unlock()
	w := StatusWrite{Site: site, Status: *job.Status.DeepCopy()}
	switch site {
	case "flushUncountedAndRemoveFinalizers":
		w.Final = false
	case "trackJobStatusAndRemoveFinalizers":
		w.Final = true
	default:
		w.Unexpected = true
	}
	r.res.Writes = append(r.res.Writes, w)
	r.logf("status write (%s)", site)
	// What the API server would answer: the object with the new status.
	return job, nil
}

func (r *recorder) patchJob(_ context.Context, job *batchv1.Job, patch []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.OtherPatches = append(r.res.OtherPatches, fmt.Sprintf("job %s: %s", job.Name, patch))
	r.logf("job patch")
	return nil
}

// Event, Eventf and AnnotatedEventf make recorder a record.EventRecorder.
func (r *recorder) Event(_ kruntime.Object, eventtype, reason, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.res.Events = append(r.res.Events, Event{Type: eventtype, Reason: reason, Message: message})
	r.logf("event %s %s", eventtype, reason)
}

func (r *recorder) Eventf(obj kruntime.Object, eventtype, reason, format string, args ...any) {
	r.Event(obj, eventtype, reason, fmt.Sprintf(format, args...))
}

func (r *recorder) AnnotatedEventf(obj kruntime.Object, _ map[string]string, eventtype, reason, format string, args ...any) {
	r.Event(obj, eventtype, reason, fmt.Sprintf(format, args...))
}

// requeue keeps the delay of one re-queue. A delay that is not positive
// (upstream computes one when activeDeadlineSeconds is near the limit of a
// time.Duration and the clock is before startTime: the subtraction wraps)
// makes client-go's delaying queue add the Job at once; it is kept as 1ns,
// the library's "requeue now" (a plan's zero RequeueAfter means none).
func (r *recorder) requeue(item string, after time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if after <= 0 {
		r.logf("requeue %s after %v, that is at once", item, after)
		after = time.Nanosecond
	}
	r.res.Requeues = append(r.res.Requeues, after)
	r.logf("requeue %s after %v", item, after)
}

// callSite names the upstream Job-controller method that is calling the
// recorder: "deleteJobPods", "flushUncountedAndRemoveFinalizers", ... The
// stack is walked with inlining taken into account.
func callSite() string {
	var pcs [32]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	const pkg = "k8s.io/kubernetes/pkg/controller/"
	for {
		f, more := frames.Next()
		if i := strings.Index(f.Function, pkg); i >= 0 {
			name := f.Function[i+len(pkg):]
			// "job.(*Controller).deleteJobPods.func1" -> "deleteJobPods"
			if j := strings.Index(name, ")."); j >= 0 {
				name = name[j+2:]
			} else if j := strings.Index(name, "."); j >= 0 {
				name = name[j+1:]
			}
			if j := strings.Index(name, "."); j >= 0 {
				name = name[:j]
			}
			return name
		}
		if !more {
			return "unknown"
		}
	}
}
