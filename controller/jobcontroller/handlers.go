package jobcontroller

import (
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/tools/cache"
)

// enqueue wakes the Job after delay; the kit's Handlers call it.
func (c *Controller) enqueue(job *batchv1.Job, delay time.Duration) {
	key, err := cache.MetaNamespaceKeyFunc(job)
	if err != nil {
		return
	}
	c.queue.AddAfter(key, delay)
}
