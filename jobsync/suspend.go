package jobsync

import (
	corev1 "k8s.io/api/core/v1"
)

// updateSuspendCondition keeps the Suspended condition in step with
// spec.suspend: True with the Suspended event when the Job is suspended
// (clearing startTime), False with the Resumed event when it runs again
// (restarting startTime, so that activeDeadlineSeconds counts only time
// spent running). It reports whether the condition changed.
func (x *syncState) updateSuspendCondition() bool {
	var changed bool
	if x.suspended {
		x.st.Conditions, changed = setCondition(x.st.Conditions, "Suspended", corev1.ConditionTrue, reasonSuspended, msgSuspended, x.now)
		if changed {
			x.plan.Events = append(x.plan.Events, Event{corev1.EventTypeNormal, "Suspended", msgSuspended})
			if !x.opts.KeepStartTimeOnSuspend {
				x.st.StartTime = nil
			}
		}
		return changed
	}
	x.st.Conditions, changed = setCondition(x.st.Conditions, "Suspended", corev1.ConditionFalse, reasonResumed, msgResumed, x.now)
	if changed {
		x.plan.Events = append(x.plan.Events, Event{corev1.EventTypeNormal, "Resumed", msgResumed})
		x.st.StartTime = ptrTime(x.now)
	}
	return changed
}
