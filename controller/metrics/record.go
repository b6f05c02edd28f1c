package metrics

import (
	"time"

	"k8s.io/component-base/metrics"
)

// counters maps Add.Metric to its counter.
var counters = map[string]*metrics.CounterVec{
	nameJobsFinished:        JobsFinished,
	namePodsFinished:        PodsFinished,
	nameFinishedIndexes:     FinishedIndexes,
	namePodFailuresByPolicy: PodFailuresByPolicy,
	namePodsCreated:         PodsCreated,
}

// Apply records r, the sync having taken elapsed.
func (r Record) Apply(elapsed time.Duration) {
	for _, a := range r.Adds {
		if c := counters[a.Metric]; c != nil {
			c.WithLabelValues(a.Labels...).Add(a.Value)
		}
	}
	if r.Counted {
		SyncDuration.WithLabelValues(r.CompletionMode, r.Result, r.Action).Observe(elapsed.Seconds())
		Syncs.WithLabelValues(r.CompletionMode, r.Result, r.Action).Inc()
	}
}

// RecordStaleJob counts a sync held back because the cached Job is older
// than the controller's own last write.
func RecordStaleJob() {
	StaleSyncSkips.WithLabelValues("batch", "jobs").Inc()
}

// RecordStalePods counts a sync held back because the pod informer has
// not shown the controller's own last pod write yet.
func RecordStalePods() {
	StaleSyncSkips.WithLabelValues("", "pods").Inc()
}

// RecordTerminated counts a TerminatedEvent, if any.
func RecordTerminated(event string) {
	if event != "" {
		TerminatedPodsWithFinalizer.WithLabelValues(event).Inc()
	}
}

// RecordJobAdded counts a Job another controller manages, as the informer
// first sees it.
func RecordJobAdded(controllerName string, external bool) {
	if external {
		ByExternalController.WithLabelValues(controllerName).Inc()
	}
}
