// Package podorder decides which active pods of a Job go first when some
// must be deleted: the ones least far along, so that the least work is lost.
//
// The order is upstream's controller.ActivePods, made total: where upstream
// leaves two pods tied, its sort keeps them in the order it listed them
// (for the few pods a sort of up to 12 elements holds, an insertion sort,
// stable; beyond that its unstable sort may swap them), and this package
// breaks the tie in that listing order (completion index for Indexed Jobs,
// the Job's own pods before adopted ones, name, UID), so that the order of
// the input never changes the choice.
package podorder

import (
	corev1 "k8s.io/api/core/v1"
)

// Less reports whether a should be deleted before b. In turn, the first rule
// that tells them apart decides:
//  1. a pod not yet assigned to a node before an assigned one;
//  2. Pending before Unknown before Running (other phases count as Pending);
//  3. not ready before ready;
//  4. of two ready pods, the one ready for less time (a zero ready time
//     counts as the most recent);
//  5. the pod whose busiest container restarted more, then the same for
//     sidecar containers;
//  6. the newer pod (a zero creation time counts as the newest);
//  7. tie-breaks in the order upstream lists pods, which its sort keeps
//     among pods it ranks equal: for FirstForRemovalIndexed the lower
//     completion index, then a pod with a controller reference before one
//     without (upstream lists the pods a Job controls before the orphans
//     it adopts), then name and UID, ascending.
func Less(a, b *corev1.Pod) bool {
	return Compare(a, b) < 0
}

// Compare is Less as a three-way comparison for slices.SortFunc.
func Compare(a, b *corev1.Pod) int {
	ra, rb := Rank(a), Rank(b)
	return CompareRanked(&ra, &rb)
}

// FirstForRemoval returns the n pods that come first in the deletion order,
// first to last, in a new slice; pods is not modified. n is clamped to
// [0, len(pods)].
func FirstForRemoval(pods []*corev1.Pod, n int) []*corev1.Pod {
	return podsOf(pods, n, false)
}

// FirstForRemovalIndexed is FirstForRemoval for the pods of an Indexed Job,
// which upstream sorts for deletion from a list ordered by completion
// index: of pods the order ranks equal, the lower index goes first.
func FirstForRemovalIndexed(pods []*corev1.Pod, n int) []*corev1.Pod {
	return podsOf(pods, n, true)
}

// FirstRanked is FirstForRemoval returning each chosen pod's rank, which
// carries the pod and its readiness: a caller that acts on the pods in
// deletion order (a deletion records whether the pod was ready) then reads
// no pod's conditions a second time.
func FirstRanked(pods []*corev1.Pod, n int) []Ranked {
	return ranksOf(pods, n, false)
}

// FirstRankedIndexed is FirstForRemovalIndexed returning each chosen pod's
// rank, as FirstRanked does.
func FirstRankedIndexed(pods []*corev1.Pod, n int) []Ranked {
	return ranksOf(pods, n, true)
}

func podsOf(pods []*corev1.Pod, n int, indexed bool) []*corev1.Pod {
	n = max(0, min(n, len(pods)))
	if n == 0 {
		return nil
	}
	first := firstByRank(pods, n, indexed)
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = first[i].pod
	}
	return out
}

func ranksOf(pods []*corev1.Pod, n int, indexed bool) []Ranked {
	n = max(0, min(n, len(pods)))
	if n == 0 {
		return nil
	}
	first := firstByRank(pods, n, indexed)
	out := make([]Ranked, n)
	for i := range out {
		out[i] = *first[i]
	}
	return out
}

// IsReady reports whether the pod's Ready condition is True.
func IsReady(p *corev1.Pod) bool {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.PodReady {
			return p.Status.Conditions[i].Status == corev1.ConditionTrue
		}
	}
	return false
}

func phaseRank(p corev1.PodPhase) int8 {
	switch p {
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	default:
		return 0
	}
}

func maxRestarts(p *corev1.Pod) (regular, sidecar int32) {
	for _, s := range p.Status.ContainerStatuses {
		regular = max(regular, s.RestartCount)
	}
	for _, s := range p.Status.InitContainerStatuses {
		if isSidecar(p, s.Name) {
			sidecar = max(sidecar, s.RestartCount)
		}
	}
	return regular, sidecar
}

func isSidecar(p *corev1.Pod, name string) bool {
	for _, c := range p.Spec.InitContainers {
		if c.Name == name && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			return true
		}
	}
	return false
}
