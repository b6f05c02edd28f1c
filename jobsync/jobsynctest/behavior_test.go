package jobsynctest

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestScriptPick(t *testing.T) {
	ix2, first, fifth := 2, 0, 5
	def := Behavior{RunTime: time.Second}
	s := Script{
		Default: &def,
		Pods: []PodRule{
			{Index: &ix2, Attempt: &first, Behavior: Behavior{ExitCode: 42}},
			{Pod: &fifth, Behavior: Behavior{Disruption: true}},
			{Index: &ix2, Behavior: Behavior{Forever: true}},
		},
	}
	for _, tc := range []struct {
		n, index, attempt int
		want              Behavior
	}{
		{0, 2, 0, Behavior{ExitCode: 42}},
		{5, 2, 0, Behavior{ExitCode: 42}}, // the first rule that matches wins
		{5, 1, 0, Behavior{Disruption: true}},
		{3, 2, 1, Behavior{Forever: true}},
		{3, 1, 1, def},
	} {
		got, ok := s.Pick(tc.n, tc.index, tc.attempt)
		if !ok || got != tc.want {
			t.Errorf("Pick(%d, %d, %d) = %+v, %v; want %+v", tc.n, tc.index, tc.attempt, got, ok, tc.want)
		}
	}
	if _, ok := (Script{Pods: s.Pods[:1]}).Pick(1, 0, 0); ok {
		t.Errorf("a pod no rule matches, with no default, was picked")
	}
}

func TestRandomBehaviorIsReplayed(t *testing.T) {
	draw := func(policy corev1.RestartPolicy) []Behavior {
		rng := rand.New(rand.NewPCG(7, 9))
		var bs []Behavior
		for range 200 {
			bs = append(bs, RandomBehavior(rng, policy))
		}
		return bs
	}
	a, b := draw(corev1.RestartPolicyOnFailure), draw(corev1.RestartPolicyOnFailure)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("one source gave two sequences")
	}
	var restarts, failures, disruptions int
	for _, x := range a {
		if x.RunTime < time.Second || x.RunTime > 120*time.Second || x.StartDelay > 10*time.Second {
			t.Errorf("durations out of range: %+v", x)
		}
		if x.Restarts > 0 {
			restarts++
		}
		if x.ExitCode != 0 {
			failures++
		}
		if x.Disruption {
			disruptions++
		}
	}
	if restarts == 0 || failures == 0 || disruptions == 0 {
		t.Errorf("200 draws gave %d restarts, %d failures, %d disruptions; want some of each", restarts, failures, disruptions)
	}
	for _, x := range draw(corev1.RestartPolicyNever) {
		if x.Restarts != 0 {
			t.Errorf("restartPolicy Never drew restarts: %+v", x)
		}
	}
}
