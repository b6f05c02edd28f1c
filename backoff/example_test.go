package backoff_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/backoff"
)

// Three pods of a Job fail, the last at 12:00:00. With upstream's 10s base
// the third failure owes 40s, so a replacement may not be created before
// 12:00:40.
func ExampleRecord_Remaining() {
	noon := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	failedAt := func(t time.Time) *corev1.Pod {
		return &corev1.Pod{Status: corev1.PodStatus{
			Phase: corev1.PodFailed,
			ContainerStatuses: []corev1.ContainerStatus{{State: corev1.ContainerState{
				Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.NewTime(t)},
			}}},
		}}
	}

	var r backoff.Record
	r = r.Update(nil, []*corev1.Pod{failedAt(noon.Add(-time.Minute)), failedAt(noon.Add(-30 * time.Second))})
	r = r.Update(nil, []*corev1.Pod{failedAt(noon)})
	fmt.Println("failures:", r.FailuresAfterLastSuccess, "last at", r.LastFailureTime.Format(time.TimeOnly))

	for _, now := range []time.Time{noon, noon.Add(15 * time.Second), noon.Add(time.Minute)} {
		fmt.Printf("at %s wait %v\n", now.Format(time.TimeOnly), r.Remaining(now, 10*time.Second, 10*time.Minute))
	}
	// Output:
	// failures: 3 last at 12:00:00
	// at 12:00:00 wait 40s
	// at 12:00:15 wait 25s
	// at 12:01:00 wait 0s
}
