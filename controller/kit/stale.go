package kit

import (
	"fmt"
	"strconv"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/types"
)

// StaleGuard remembers, per Job, the resourceVersion of the controller's
// last status write that the Job informer has not shown yet. A sync on a
// cached Job older than that would decide again on a status it has
// already replaced: it would record the Suspended or Resumed event a
// second time and then meet a conflict. Upstream's controller (v1.36, with
// its StaleControllerConsistencyJob feature on by default) likewise does
// not sync a Job until its informers show its own writes; the pods' side
// of that is the memory's expectations.
//
// The zero value is ready to use; it is safe for concurrent use.
type StaleGuard struct {
	mu sync.Mutex
	m  map[types.NamespacedName]written
}

type written struct {
	uid types.UID
	rv  uint64
}

// Wrote records that a status write returned job (executor.Result.Job).
func (g *StaleGuard) Wrote(job *batchv1.Job) {
	if job == nil {
		return
	}
	rv, err := strconv.ParseUint(job.ResourceVersion, 10, 64)
	if err != nil {
		return // not a number: no order to wait for
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[types.NamespacedName]written{}
	}
	key := types.NamespacedName{Namespace: job.Namespace, Name: job.Name}
	if prev, ok := g.m[key]; ok && prev.uid == job.UID && prev.rv >= rv {
		return
	}
	g.m[key] = written{uid: job.UID, rv: rv}
}

// Check returns an error if cached is older than the last status write
// recorded for it; retry the sync rate-limited, as upstream does. Once the
// cache shows the write, Check forgets it.
func (g *StaleGuard) Check(cached *batchv1.Job) error {
	key := types.NamespacedName{Namespace: cached.Namespace, Name: cached.Name}
	g.mu.Lock()
	defer g.mu.Unlock()
	last, ok := g.m[key]
	if !ok {
		return nil
	}
	rv, err := strconv.ParseUint(cached.ResourceVersion, 10, 64)
	if last.uid != cached.UID || err != nil || rv >= last.rv {
		delete(g.m, key)
		return nil
	}
	return fmt.Errorf("the cached Job %s has resourceVersion %d, older than this controller's last status write (%d): waiting for the informer", key, rv, last.rv)
}

// Forget drops what is recorded for the Job namespace/name, once it is
// gone or no longer the controller's.
func (g *StaleGuard) Forget(namespace, name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.m, types.NamespacedName{Namespace: namespace, Name: name})
}
