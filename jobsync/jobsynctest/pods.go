package jobsynctest

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The pod lifecycle model. A created pod is Pending; StartDelay later it
// runs and is ready; RunTime later its container exits (restarting under
// restartPolicy OnFailure while it fails) or it is disrupted. A deleted pod
// stops Shutdown later (capped by its grace period) and is Failed; it
// leaves the API server once it is terminal, deleted and free of
// finalizers.

const (
	defaultGracePeriod = 30 * time.Second
	// restartBase and restartMax bound the kubelet's back-off between
	// container restarts.
	restartBase = 10 * time.Second
	restartMax  = 5 * time.Minute
)

// behaviorFor picks the behaviour of the n-th pod, of index ix (-1 when
// none) and attempt.
func (c *Cluster) behaviorFor(n, ix, attempt int) Behavior {
	for _, r := range c.cfg.Script.Pods {
		if r.Pod != nil && *r.Pod != n {
			continue
		}
		if r.Index != nil && *r.Index != ix {
			continue
		}
		if r.Attempt != nil && *r.Attempt != attempt {
			continue
		}
		return r.Behavior
	}
	if d := c.cfg.Script.Default; d != nil {
		return *d
	}
	return c.randomBehavior()
}

// failureExitCodes are the exit codes of randomly failing pods.
var failureExitCodes = []int32{1, 2, 3, 42}

// randomBehavior draws a behaviour: mostly success after up to two
// minutes, sometimes a failure with one of failureExitCodes, sometimes a
// disruption.
func (c *Cluster) randomBehavior() Behavior {
	b := Behavior{
		StartDelay: time.Duration(c.rng.IntN(11)) * time.Second,
		RunTime:    time.Duration(1+c.rng.IntN(120)) * time.Second,
		Shutdown:   time.Duration(c.rng.IntN(11)) * time.Second,
	}
	switch r := c.rng.Float64(); {
	case r < 0.65:
	case r < 0.9:
		b.ExitCode = failureExitCodes[c.rng.IntN(len(failureExitCodes))]
	default:
		b.Disruption = true
		if c.rng.IntN(2) == 0 {
			b.DisruptionReason = "EvictionByEvictionAPI"
		}
	}
	if c.job.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure && c.rng.IntN(3) == 0 {
		b.Restarts = int32(1 + c.rng.IntN(2))
	}
	return b
}

// createPod stores a pod the controller asked for, named and given a UID
// as the API server does, and starts its lifecycle.
func (c *Cluster) createPod(tmpl *corev1.Pod) *simPod {
	// The creation is the plan's: the stored pod shares its spec, labels
	// and annotations (never written to), and update copies what it
	// changes.
	p := new(corev1.Pod)
	*p = *tmpl
	if p.Namespace == "" {
		p.Namespace = c.job.Namespace
	}
	if p.Name == "" {
		p.Name = c.newName(p.GenerateName)
	} else {
		c.names[p.Name] = true
	}
	p.UID = c.newUID()
	p.CreationTimestamp = metav1.NewTime(c.now)
	p.ResourceVersion = c.nextRV()
	p.Status = corev1.PodStatus{
		Phase:      corev1.PodPending,
		Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(c.now)}},
	}
	ix := -1
	if s, ok := p.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		if v, err := strconv.Atoi(s); err == nil {
			ix = v
		}
	}
	sp := &simPod{obj: p, index: ix, attempt: c.attempts[ix], n: c.created}
	c.attempts[ix]++
	c.created++
	sp.b = c.behaviorFor(sp.n, ix, sp.attempt)
	sp.restarts = sp.b.Restarts
	c.pods[p.UID] = sp
	c.emitPod(p, false)
	c.schedule(event{at: c.now.Add(sp.b.StartDelay), kind: evPodStart, uid: p.UID, epoch: sp.epoch})
	return sp
}

// update stores a changed copy of the pod and emits it. The copy shares
// with the stored object what no change touches (the spec, labels and
// annotations): stored objects are never written to, so the versions of a
// pod can share them, as they share nothing the changes write. This spares
// a deep copy of the spec at every write, most of the garbage of a long run.
func (c *Cluster) update(sp *simPod, change func(p *corev1.Pod)) {
	p := new(corev1.Pod)
	*p = *sp.obj
	sp.obj.Status.DeepCopyInto(&p.Status)
	change(p)
	p.ResourceVersion = c.nextRV()
	sp.obj = p
	c.emitPod(p, false)
}

func terminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func setCondition(p *corev1.Pod, t corev1.PodConditionType, s corev1.ConditionStatus, reason string, now time.Time) {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			if p.Status.Conditions[i].Status != s {
				p.Status.Conditions[i].Status = s
				p.Status.Conditions[i].Reason = reason
				p.Status.Conditions[i].LastTransitionTime = metav1.NewTime(now)
			}
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: s, Reason: reason, LastTransitionTime: metav1.NewTime(now)})
}

// exitingContainer is the container whose exit code decides.
func (sp *simPod) exitingContainer() string {
	if sp.b.Container != "" {
		return sp.b.Container
	}
	if cs := sp.obj.Spec.Containers; len(cs) > 0 {
		return cs[0].Name
	}
	return ""
}

func (c *Cluster) startPod(sp *simPod) StepRecord {
	sp.started = true
	c.update(sp, func(p *corev1.Pod) {
		now := metav1.NewTime(c.now)
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &now
		setCondition(p, corev1.PodReady, corev1.ConditionTrue, "", c.now)
		p.Status.InitContainerStatuses = nil
		for _, ic := range p.Spec.InitContainers {
			p.Status.InitContainerStatuses = append(p.Status.InitContainerStatuses, corev1.ContainerStatus{
				Name: ic.Name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, StartedAt: now, FinishedAt: now, Reason: "Completed"}},
			})
		}
		p.Status.ContainerStatuses = nil
		for _, ct := range p.Spec.Containers {
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: ct.Name, Ready: true, Started: ptr(true), State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
			})
		}
	})
	if sp.b.Disruption {
		c.schedule(event{at: c.now.Add(sp.b.RunTime), kind: evPodDisrupt, uid: sp.obj.UID, epoch: sp.epoch})
	} else if !sp.b.Forever {
		c.schedule(event{at: c.now.Add(sp.b.RunTime), kind: evPodExit, uid: sp.obj.UID, epoch: sp.epoch})
	}
	if c.cfg.Faults.PodDeletion > 0 && c.rng.Float64() < c.cfg.Faults.PodDeletion {
		span := max(sp.b.RunTime, time.Second)
		at := c.now.Add(time.Duration(c.rng.Int64N(int64(span))))
		c.schedule(event{at: at, kind: evPodDeleteByOther, uid: sp.obj.UID, epoch: sp.epoch})
	}
	return StepRecord{Kind: KindPodRunning, Pod: sp.obj.Name}
}

// exitPod ends a run of the pod's container.
func (c *Cluster) exitPod(sp *simPod) StepRecord {
	onFailure := sp.obj.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
	name := sp.exitingContainer()
	if onFailure && (sp.restarts > 0 || sp.b.ExitCode != 0) {
		code := sp.b.ExitCode
		if sp.restarts > 0 {
			sp.restarts--
			code = 1
		}
		var count int32
		c.update(sp, func(p *corev1.Pod) {
			for i := range p.Status.ContainerStatuses {
				cs := &p.Status.ContainerStatuses[i]
				if cs.Name != name {
					continue
				}
				started := metav1.NewTime(c.now)
				if cs.State.Running != nil {
					started = cs.State.Running.StartedAt
				}
				cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: started, FinishedAt: metav1.NewTime(c.now), Reason: "Error"}}
				cs.RestartCount++
				count = cs.RestartCount
				cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(c.now)}}
			}
		})
		delay := restartBase
		for i := int32(1); i < count && delay < restartMax; i++ {
			delay *= 2
		}
		delay = min(delay, restartMax)
		c.schedule(event{at: c.now.Add(delay + sp.b.RunTime), kind: evPodExit, uid: sp.obj.UID, epoch: sp.epoch})
		return StepRecord{Kind: KindPodRestarted, Pod: sp.obj.Name, Detail: fmt.Sprintf("container %s exited %d, restart %d", name, code, count)}
	}
	code := sp.b.ExitCode
	c.terminate(sp, func(ct string) int32 {
		if ct == name {
			return code
		}
		return 0
	}, "")
	if code == 0 {
		return StepRecord{Kind: KindPodSucceeded, Pod: sp.obj.Name}
	}
	return StepRecord{Kind: KindPodFailed, Pod: sp.obj.Name, Detail: fmt.Sprintf("container %s exited %d", name, code)}
}

// terminate makes the pod terminal: its containers exit with the codes
// given, and the phase follows from them.
func (c *Cluster) terminate(sp *simPod, codeOf func(string) int32, reason string) {
	sp.epoch++
	c.update(sp, func(p *corev1.Pod) {
		now := metav1.NewTime(c.now)
		failed := false
		for i := range p.Status.ContainerStatuses {
			cs := &p.Status.ContainerStatuses[i]
			started := now
			if cs.State.Running != nil {
				started = cs.State.Running.StartedAt
			}
			code := codeOf(cs.Name)
			r := "Completed"
			if code != 0 {
				r = "Error"
				failed = true
			}
			cs.Ready = false
			cs.Started = ptr(false)
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: started, FinishedAt: now, Reason: r}}
		}
		if len(p.Status.ContainerStatuses) == 0 {
			failed = true // a pod stopped before it ran
		}
		p.Status.Phase = corev1.PodSucceeded
		if failed {
			p.Status.Phase = corev1.PodFailed
			p.Status.Reason = reason
		}
		setCondition(p, corev1.PodReady, corev1.ConditionFalse, "PodCompleted", c.now)
	})
	c.maybeRemove(sp)
}

// disruptPod marks the pod with a DisruptionTarget condition and deletes
// it, as an eviction or a preemption does.
func (c *Cluster) disruptPod(sp *simPod) StepRecord {
	reason := sp.b.DisruptionReason
	if reason == "" {
		reason = "PreemptionByScheduler"
	}
	c.update(sp, func(p *corev1.Pod) {
		setCondition(p, corev1.DisruptionTarget, corev1.ConditionTrue, reason, c.now)
	})
	c.result.Faults.Disruptions++
	c.deletePod(sp)
	return StepRecord{Kind: KindPodDisrupted, Pod: sp.obj.Name, Detail: reason}
}

// deletePod is a delete call: a terminal pod gets a deletion timestamp
// now; a running one gets it at the end of its grace period and stops
// Shutdown after the call, or at once if it never started (the pod
// garbage collector fails it).
func (c *Cluster) deletePod(sp *simPod) {
	if sp.obj.DeletionTimestamp != nil {
		return
	}
	sp.epoch++
	if terminal(sp.obj) {
		c.update(sp, func(p *corev1.Pod) {
			now := metav1.NewTime(c.now)
			p.DeletionTimestamp = &now
			p.DeletionGracePeriodSeconds = ptr(int64(0))
		})
		c.maybeRemove(sp)
		return
	}
	grace := defaultGracePeriod
	if g := sp.obj.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	stop := min(sp.b.Shutdown, grace)
	if !sp.started {
		stop = 0
	}
	c.update(sp, func(p *corev1.Pod) {
		at := metav1.NewTime(c.now.Add(grace))
		p.DeletionTimestamp = &at
		p.DeletionGracePeriodSeconds = ptr(int64(grace / time.Second))
	})
	c.schedule(event{at: c.now.Add(stop), kind: evPodStop, uid: sp.obj.UID, epoch: sp.epoch})
}

// stopPod ends a deleted pod: Failed, its containers exiting 143 when it
// stopped within its grace period and 137 when it was killed.
func (c *Cluster) stopPod(sp *simPod) StepRecord {
	code := int32(143)
	if sp.obj.DeletionTimestamp != nil && !c.now.Before(sp.obj.DeletionTimestamp.Time) {
		code = 137
	}
	if !sp.started {
		c.update(sp, func(p *corev1.Pod) {
			setCondition(p, corev1.DisruptionTarget, corev1.ConditionTrue, "DeletionByPodGC", c.now)
		})
	}
	c.terminate(sp, func(string) int32 { return code }, "")
	return StepRecord{Kind: KindPodStopped, Pod: sp.obj.Name, Detail: fmt.Sprintf("exit %d", code)}
}

// maybeRemove schedules the final removal of a deleted, terminal pod
// without finalizers.
func (c *Cluster) maybeRemove(sp *simPod) {
	if sp.obj.DeletionTimestamp != nil && terminal(sp.obj) && len(sp.obj.Finalizers) == 0 {
		c.schedule(event{at: c.now, kind: evPodRemove, uid: sp.obj.UID})
	}
}

func ptr[T any](v T) *T { return &v }
