package podlife

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

func TestExit(t *testing.T) {
	never, onFailure := corev1.RestartPolicyNever, corev1.RestartPolicyOnFailure
	for _, tc := range []struct {
		policy      corev1.RestartPolicy
		left, exit  int32
		wantCode    int32
		wantRestart bool
	}{
		{never, 0, 0, 0, false},
		{never, 0, 42, 42, false},
		{never, 2, 0, 1, false}, // restarts only count under OnFailure
		{onFailure, 0, 0, 0, false},
		{onFailure, 0, 3, 3, true}, // a failing container restarts forever
		{onFailure, 1, 0, 1, true},
		{onFailure, 1, 7, 1, true},
	} {
		code, restart := Exit(tc.policy, tc.left, tc.exit)
		if code != tc.wantCode || restart != tc.wantRestart {
			t.Errorf("Exit(%s, %d, %d) = %d, %v; want %d, %v", tc.policy, tc.left, tc.exit, code, restart, tc.wantCode, tc.wantRestart)
		}
	}
}

func TestRestartDelay(t *testing.T) {
	base := 10 * time.Second
	for count, want := range map[int32]time.Duration{
		0: base, 1: base, 2: 20 * time.Second, 3: 40 * time.Second, 6: 5 * time.Minute, 100: 5 * time.Minute,
	} {
		if got := RestartDelay(base, count); got != want {
			t.Errorf("RestartDelay(%v, %d) = %v, want %v", base, count, got, want)
		}
	}
	if got := RestartDelay(7*time.Minute, 1); got != MaxRestartDelay {
		t.Errorf("a base over the cap gives %v, want %v", got, MaxRestartDelay)
	}
}

func TestStop(t *testing.T) {
	for _, tc := range []struct {
		shutdown, grace, wantAfter time.Duration
		wantCode                   int32
	}{
		{5 * time.Second, 30 * time.Second, 5 * time.Second, ExitTerminated},
		{30 * time.Second, 30 * time.Second, 30 * time.Second, ExitKilled},
		{time.Minute, 30 * time.Second, 30 * time.Second, ExitKilled},
		{0, 0, 0, ExitKilled}, // grace 0 leaves no time for SIGTERM
		{0, 30 * time.Second, 0, ExitTerminated},
	} {
		after, code := Stop(tc.shutdown, tc.grace)
		if after != tc.wantAfter || code != tc.wantCode {
			t.Errorf("Stop(%v, %v) = %v, %d; want %v, %d", tc.shutdown, tc.grace, after, code, tc.wantAfter, tc.wantCode)
		}
	}
}

func TestExitingContainer(t *testing.T) {
	spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "main"}, {Name: "side"}}}
	if got := ExitingContainer("", spec); got != "main" {
		t.Errorf("unnamed: %q, want main", got)
	}
	if got := ExitingContainer("side", spec); got != "side" {
		t.Errorf("named: %q, want side", got)
	}
	if got := ExitingContainer("", &corev1.PodSpec{}); got != "" {
		t.Errorf("no containers: %q, want empty", got)
	}
}

func TestLifecycle(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
		Containers:     []corev1.Container{{Name: "main", Image: "app"}, {Name: "side", Image: "proxy"}},
	}
	inits, cs := Running(spec, t0)
	if len(inits) != 1 || inits[0].State.Terminated == nil || inits[0].State.Terminated.Reason != ReasonCompleted {
		t.Fatalf("init statuses: %+v", inits)
	}
	if len(cs) != 2 || cs[1].Image != "proxy" || !cs[0].Ready || cs[0].State.Running == nil || !cs[0].State.Running.StartedAt.Time.Equal(t0) {
		t.Fatalf("running statuses: %+v", cs)
	}

	t1 := t0.Add(time.Minute)
	Restart(&cs[0], 1, t1)
	last := cs[0].LastTerminationState.Terminated
	if cs[0].RestartCount != 1 || last == nil || last.ExitCode != 1 || !last.StartedAt.Time.Equal(t0) || !last.FinishedAt.Time.Equal(t1) {
		t.Fatalf("after a restart: %+v", cs[0])
	}
	if !cs[0].State.Running.StartedAt.Time.Equal(t1) {
		t.Errorf("the restarted run starts at %v, want %v", cs[0].State.Running.StartedAt, t1)
	}

	t2 := t1.Add(time.Minute)
	codes := map[string]int32{"main": 0, "side": 0}
	ok := append([]corev1.ContainerStatus(nil), cs...)
	if ph := Terminate(ok, true, func(n string) int32 { return codes[n] }, t2); ph != corev1.PodSucceeded {
		t.Errorf("all exit 0: phase %s, want Succeeded", ph)
	}
	if ok[0].Ready || *ok[0].Started || !ok[0].State.Terminated.StartedAt.Time.Equal(t1) || ok[1].State.Terminated.Reason != ReasonCompleted {
		t.Errorf("terminated statuses: %+v", ok)
	}
	if cs[0].State.Running == nil {
		t.Errorf("Terminate wrote to statuses it was not given")
	}
	codes["side"] = 2
	failed := append([]corev1.ContainerStatus(nil), cs...)
	if ph := Terminate(failed, true, func(n string) int32 { return codes[n] }, t2); ph != corev1.PodFailed {
		t.Errorf("a container exits 2: phase %s, want Failed", ph)
	}
	if r := failed[1].State.Terminated; r.ExitCode != 2 || r.Reason != ReasonError {
		t.Errorf("failed container: %+v", r)
	}
	if ph := Terminate(nil, true, func(string) int32 { return 0 }, t2); ph != corev1.PodFailed {
		t.Errorf("no containers: phase %s, want Failed", ph)
	}
	never := []corev1.ContainerStatus{{Name: "main"}}
	if ph := Terminate(never, false, func(string) int32 { return 0 }, t2); ph != corev1.PodFailed {
		t.Errorf("never ran: phase %s, want Failed", ph)
	}
	if !never[0].State.Terminated.StartedAt.Time.Equal(t2) {
		t.Errorf("a container that never ran starts when it ends, got %v", never[0].State.Terminated.StartedAt)
	}
}

func TestPredicates(t *testing.T) {
	p := &corev1.Pod{}
	p.Finalizers = []string{"a", "batch.kubernetes.io/job-tracking"}
	if !HasFinalizer(p, "batch.kubernetes.io/job-tracking") || HasFinalizer(p, "b") {
		t.Errorf("HasFinalizer on %v", p.Finalizers)
	}
	for phase, want := range map[corev1.PodPhase]bool{
		corev1.PodPending: false, corev1.PodRunning: false, corev1.PodSucceeded: true, corev1.PodFailed: true, corev1.PodUnknown: false,
	} {
		p.Status.Phase = phase
		if IsTerminal(p) != want {
			t.Errorf("IsTerminal(%s) = %v", phase, !want)
		}
	}
}
