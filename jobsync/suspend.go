package jobsync

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// updateSuspendCondition keeps the Suspended condition in step with
// spec.suspend: True with the Suspended event when the Job is suspended
// (clearing startTime), False with the Resumed event when it runs again
// (restarting startTime, so that activeDeadlineSeconds counts only time
// spent running). It reports whether the condition changed, and returns
// the startTime to keep given start, the one the sync had so far.
func (sync *syncState) updateSuspendCondition(start *metav1.Time) (bool, *metav1.Time) {
	var changed bool
	if sync.suspended {
		sync.st.Conditions, changed = setCondition(sync.st.Conditions, "Suspended", corev1.ConditionTrue, reasonSuspended, msgSuspended, sync.now)
		if changed {
			sync.plan.Events = append(sync.plan.Events, Event{corev1.EventTypeNormal, "Suspended", msgSuspended})
			if !sync.opts.KeepStartTimeOnSuspend {
				start = nil
			}
		}
		return changed, start
	}
	sync.st.Conditions, changed = setCondition(sync.st.Conditions, "Suspended", corev1.ConditionFalse, reasonResumed, msgResumed, sync.now)
	if changed {
		sync.plan.Events = append(sync.plan.Events, Event{corev1.EventTypeNormal, "Resumed", msgResumed})
		start = ptrTime(sync.now)
	}
	return changed, start
}
