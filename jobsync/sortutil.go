package jobsync

import (
	"math/bits"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

func slicesSortInts(s []int) { slices.Sort(s) }

func slicesSortPods(s []*corev1.Pod, cmp func(a, b *corev1.Pod) int) { slices.SortFunc(s, cmp) }

func bitsTrailingZeros(w uint64) int { return bits.TrailingZeros64(w) }
