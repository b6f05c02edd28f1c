package jobsync

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// updateSuspendCondition keeps the Suspended condition of st, the status
// being built, in step with spec.suspend: True with the Suspended event
// when the Job is suspended (clearing startTime), False with the Resumed
// event when it runs again (restarting startTime, so that
// activeDeadlineSeconds counts only time spent running). Given start, the
// startTime the sync had so far, it returns the startTime to keep and,
// when the condition changed, the event to record (changed false, and no
// event, otherwise).
func (sync *syncState) updateSuspendCondition(st *batchv1.JobStatus, start *metav1.Time) (_ *metav1.Time, ev Event, changed bool) {
	if sync.suspended {
		st.Conditions, changed = setCondition(st.Conditions, "Suspended", corev1.ConditionTrue, reasonSuspended, msgSuspended, sync.now)
		if !changed {
			return start, Event{}, false
		}
		if !sync.opts.KeepStartTimeOnSuspend {
			start = nil
		}
		return start, Event{corev1.EventTypeNormal, "Suspended", msgSuspended}, true
	}
	st.Conditions, changed = setCondition(st.Conditions, "Suspended", corev1.ConditionFalse, reasonResumed, msgResumed, sync.now)
	if !changed {
		return start, Event{}, false
	}
	return ptrTime(sync.now), Event{corev1.EventTypeNormal, "Resumed", msgResumed}, true
}
