package jobcontroller

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/tools/cache"
)

// podHandlers are the pod informer's handlers: the kit's, after the held
// pods take the event. The order matters: the memory is lowered after the
// held pods show the event, never before (held.go).
func (c *Controller) podHandlers() cache.ResourceEventHandlerFuncs {
	if c.opts.ScanPods {
		return cache.ResourceEventHandlerFuncs{AddFunc: c.handlers.AddPod, UpdateFunc: c.handlers.UpdatePod, DeleteFunc: c.handlers.DeletePod}
	}
	c.held = newHeldPods(c.opts.Sync)
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.held.add(obj); c.handlers.AddPod(obj) },
		UpdateFunc: func(old, cur any) { c.held.update(old, cur); c.handlers.UpdatePod(old, cur) },
		DeleteFunc: func(obj any) { c.held.remove(obj); c.handlers.DeletePod(obj) },
	}
}

// enqueue wakes the Job after delay; the kit's Handlers call it.
func (c *Controller) enqueue(job *batchv1.Job, delay time.Duration) {
	key, err := cache.MetaNamespaceKeyFunc(job)
	if err != nil {
		return
	}
	c.queue.AddAfter(key, delay)
}
