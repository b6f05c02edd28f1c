package jobsync_test

import (
	"hash/fnv"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/jobsync/jobsync/internal/testsupport/adversarial"
	"github.com/jobsync/jobsync/jobsync"
)

// FuzzReconcile drives Reconcile with snapshots built from the fuzzer's
// bytes by the adversarial generator (package adversarial: every input
// makes a full snapshot, the leading bytes choosing the Job's shape), and,
// for inputs starting with an odd byte, snapshots generated as a cluster
// would produce them and then mutated into bad ones (nil and negative
// fields, malformed indexes and annotations, pods of other owners, repeated
// UIDs, huge counters). Every one must keep Reconcile's contract
// (checkReconcileContract): no panic or hang, input untouched, an
// *InputError or a plan, the same plan whatever the pod order, with the
// settled pods left out or the active pods held in an ActivePods, no memory
// shared with the snapshot, the plan's safety rules, and no pod released
// twice once the plan is carried out.
func FuzzReconcile(f *testing.F) {
	for _, seed := range []string{"", "\x00", "\x01", "adversarial", "\xff\xff\xff\xff", "0123456789abcdef0123456789abcdef"} {
		f.Add([]byte(seed))
	}
	// An Indexed Job whose two active pods share an index, both held in
	// an ActivePods (checkHeldActive): found in a second by the fuzzer
	// when the scan ignores a held repeated index, which the seeds above
	// and TestPropertyHeldActivePods do not reach.
	f.Add([]byte("$\xbb\x8f\x8f\x8f\x8f"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h := fnv.New64a()
		h.Write(data)
		seed := h.Sum64()
		if len(data) > 0 && data[0]%2 == 1 {
			mutated(t, data[1:], seed)
			return
		}
		checkReconcileContract(t, adversarial.FromBytes(data), seed)
	})
}

// mutated checks the contract on genSnapshot's snapshot mutated by
// mutateSnapshot, with data as rapid's choices.
func mutated(t *testing.T, data []byte, seed uint64) {
	rapid.MakeFuzz(func(rt *rapid.T) {
		s := genSnapshot(rt)
		mutateSnapshot(rt, &s)
		checkReconcileContract(rt, s, seed)
	})(t, data)
}

func mutateSnapshot(t *rapid.T, s *jobsync.Snapshot) {
	job := s.Job
	for range rapid.IntRange(0, 3).Draw(t, "mutations") {
		switch rapid.IntRange(0, 13).Draw(t, "mutation") {
		case 0:
			job.Spec.Parallelism = nil
		case 1:
			job.Spec.Completions = ptr(int32(rapid.IntRange(-2, 3).Draw(t, "completions")))
		case 2:
			job.Status.Succeeded = int32(rapid.SampledFrom([]int{-1, 2147483647, 2147483646}).Draw(t, "succeeded"))
		case 3:
			job.Status.CompletedIndexes = rapid.SampledFrom([]string{"x", "3-1", "1,1", "-", "0-2147483647", "5,2", ","}).Draw(t, "completedIndexes")
		case 4:
			job.Status.FailedIndexes = ptr(rapid.SampledFrom([]string{"x", "2-", "0,0", "99999999999"}).Draw(t, "failedIndexes"))
		case 5:
			job.Status.UncountedTerminatedPods = nil
		case 6:
			job.Spec.Selector = nil
		case 7:
			if len(s.Pods) > 0 {
				p := s.Pods[rapid.IntRange(0, len(s.Pods)-1).Draw(t, "pod")]
				setAnnotation(p, batchv1.JobCompletionIndexAnnotation, rapid.SampledFrom([]string{"-1", "abc", "99999999999999999999", "+3", " 2"}).Draw(t, "index"))
			}
		case 8:
			if len(s.Pods) > 0 {
				p := s.Pods[rapid.IntRange(0, len(s.Pods)-1).Draw(t, "pod")]
				setAnnotation(p, batchv1.JobIndexFailureCountAnnotation, rapid.SampledFrom([]string{"-1", "x", "2147483648", "2147483647"}).Draw(t, "count"))
			}
		case 9:
			if len(s.Pods) > 1 {
				s.Pods[1].UID = s.Pods[0].UID
			}
		case 10:
			if len(s.Pods) > 0 {
				s.Pods[0].OwnerReferences = nil
			}
		case 11:
			s.Pods = append(s.Pods, &corev1.Pod{})
		case 12:
			job.Spec.CompletionMode = nil
		case 13:
			job.Status.Ready = ptr(int32(-1))
		}
	}
}

// setAnnotation sets one annotation of p, which may have none.
func setAnnotation(p *corev1.Pod, key, value string) {
	if p.Annotations == nil {
		p.Annotations = map[string]string{}
	}
	p.Annotations[key] = value
}
