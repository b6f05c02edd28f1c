package main

import (
	"fmt"
	"testing"
)

// BenchmarkDecodeList reads a List of pods as `kubectl get pods -o yaml`
// prints it; 100,000 pods is a large Job (about 55 MB of YAML).
//
//	go test ./cmd/jobsim -run '^$' -bench DecodeList -benchmem -benchtime 1x
func BenchmarkDecodeList(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		data := podList(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if objs, _, err := decodeFile("list.yaml", data); err != nil || len(objs) != n {
					b.Fatalf("%d objects, %v", len(objs), err)
				}
			}
		})
	}
}
