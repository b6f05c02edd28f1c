package jobsync

import (
	corev1 "k8s.io/api/core/v1"
)

// updateSuspendCondition keeps the Suspended condition in step with
// spec.suspend: True with the Suspended event when the Job is suspended
// (clearing startTime), False with the Resumed event when it runs again
// (restarting startTime, so that activeDeadlineSeconds counts only time
// spent running). It reports whether the condition changed.
func (sync *syncState) updateSuspendCondition() bool {
	var changed bool
	if sync.suspended {
		sync.st.Conditions, changed = setCondition(sync.st.Conditions, "Suspended", corev1.ConditionTrue, reasonSuspended, msgSuspended, sync.now)
		if changed {
			sync.plan.Events = append(sync.plan.Events, Event{corev1.EventTypeNormal, "Suspended", msgSuspended})
			if !sync.opts.KeepStartTimeOnSuspend {
				sync.st.StartTime = nil
			}
		}
		return changed
	}
	sync.st.Conditions, changed = setCondition(sync.st.Conditions, "Suspended", corev1.ConditionFalse, reasonResumed, msgResumed, sync.now)
	if changed {
		sync.plan.Events = append(sync.plan.Events, Event{corev1.EventTypeNormal, "Resumed", msgResumed})
		sync.st.StartTime = ptrTime(sync.now)
	}
	return changed
}
