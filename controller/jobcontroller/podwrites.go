package jobcontroller

import (
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podWrites remembers, per Job, the newest resourceVersion of the pods
// this controller created or patched for it, and holds the Job's next
// sync back until the pod informer has seen that version. Upstream's
// controller (StaleControllerConsistencyJob, on by default since v1.36)
// does the same with its pod writes. The memory already keeps a sync on a
// lagging cache from acting twice; what this gate changes is how often a
// Job syncs: without it, a sync soon after a burst of writes decides on a
// pod cache halfway through them and writes a status that the next sync
// replaces, a status update upstream's controller never sends.
//
// The zero value is ready once read is set; it is safe for concurrent use.
type podWrites struct {
	// read returns the newest resourceVersion the pod informer's store
	// has seen, "" when it cannot tell (then nothing is held back).
	read func() string

	mu sync.Mutex
	m  map[types.NamespacedName]podWrite
}

type podWrite struct {
	uid types.UID // the Job's
	rv  uint64
}

// wrote records a pod as a create or patch returned it, against the Job
// that controls it.
func (w *podWrites) wrote(pod *corev1.Pod) {
	ref := metav1.GetControllerOfNoCopy(pod)
	if ref == nil {
		return // released: no Job of this controller waits for it
	}
	rv, err := strconv.ParseUint(pod.ResourceVersion, 10, 64)
	if err != nil {
		return // not a number: no order to wait for
	}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: ref.Name}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m == nil {
		w.m = map[types.NamespacedName]podWrite{}
	}
	if prev, ok := w.m[key]; ok && prev.uid == ref.UID && prev.rv >= rv {
		return
	}
	w.m[key] = podWrite{uid: ref.UID, rv: rv}
}

// check returns an error while the pod informer has not seen the newest
// pod write recorded for the Job namespace/name of UID uid; once it has,
// or when the writes were for another Job of that name, the record is
// dropped. The caller retries rate-limited, as upstream does.
func (w *podWrites) check(namespace, name string, uid types.UID) error {
	key := types.NamespacedName{Namespace: namespace, Name: name}
	w.mu.Lock()
	defer w.mu.Unlock()
	last, ok := w.m[key]
	if !ok {
		return nil
	}
	seen, err := strconv.ParseUint(w.read(), 10, 64)
	if last.uid != uid || err != nil || seen >= last.rv {
		delete(w.m, key)
		return nil
	}
	return fmt.Errorf("the pod informer has seen resourceVersion %d, older than this controller's last pod write for Job %s (%d): waiting for the informer", seen, key, last.rv)
}

// forget drops what is recorded for the Job namespace/name, once it is
// gone or no longer the controller's.
func (w *podWrites) forget(namespace, name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.m, types.NamespacedName{Namespace: namespace, Name: name})
}
