package jobsynctest

import (
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/jobsync/jobsync/jobsync/jobsynctest/apirules"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// The pod lifecycle model. A created pod is Pending; StartDelay later it
// runs and is ready; RunTime later its container exits (restarting under
// restartPolicy OnFailure while it fails) or it is disrupted. A deleted pod
// stops Shutdown later (capped by its grace period) and is Failed; the
// API server stores and removes it by apirules' deletion rules.

const (
	// restartBase is the kubelet's first back-off before a container
	// restart; podlife doubles and caps it.
	restartBase = 10 * time.Second
	// simNode is the node every started pod is bound to.
	simNode = "node-1"
)

// behaviorFor picks the behaviour of the n-th pod, of index ix (-1 when
// none) and attempt: the script's, else a draw from the cluster's source.
func (c *Cluster) behaviorFor(n, ix, attempt int) Behavior {
	if b, ok := c.cfg.Script.Pick(n, ix, attempt); ok {
		return b
	}
	return RandomBehavior(c.rng, c.job.Spec.Template.Spec.RestartPolicy)
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

func (c *Cluster) startPod(sp *simPod) StepRecord {
	sp.started = true
	c.update(sp, func(p *corev1.Pod) {
		now := metav1.NewTime(c.now)
		// Bound to a node as it starts, as the kubelet player binds it: a
		// bound pod's deletion waits for the kubelet (apirules.Delete).
		p.Spec.NodeName = simNode
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &now
		setCondition(p, corev1.PodReady, corev1.ConditionTrue, "", c.now)
		p.Status.InitContainerStatuses, p.Status.ContainerStatuses = podlife.Running(&p.Spec, c.now)
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
	name := podlife.ExitingContainer(sp.b.Container, &sp.obj.Spec)
	code, restart := podlife.Exit(sp.obj.Spec.RestartPolicy, sp.restarts, sp.b.ExitCode)
	if restart {
		if sp.restarts > 0 {
			sp.restarts--
		}
		var count int32
		c.update(sp, func(p *corev1.Pod) {
			for i := range p.Status.ContainerStatuses {
				if cs := &p.Status.ContainerStatuses[i]; cs.Name == name {
					podlife.Restart(cs, code, c.now)
					count = cs.RestartCount
				}
			}
		})
		delay := podlife.RestartDelay(restartBase, count)
		c.schedule(event{at: c.now.Add(delay + sp.b.RunTime), kind: evPodExit, uid: sp.obj.UID, epoch: sp.epoch})
		return StepRecord{Kind: KindPodRestarted, Pod: sp.obj.Name, Detail: fmt.Sprintf("container %s exited %d, restart %d", name, code, count)}
	}
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
		p.Status.Phase = podlife.Terminate(p.Status.ContainerStatuses, sp.started, codeOf, c.now)
		if p.Status.Phase == corev1.PodFailed {
			p.Status.Reason = reason
		}
		setCondition(p, corev1.PodReady, corev1.ConditionFalse, podlife.ReasonPodCompleted, c.now)
	})
	if podlife.KubeletDeletes(sp.obj) {
		c.update(sp, func(p *corev1.Pod) {
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = apirules.Delete(p, ptr(int64(0)), c.now)
		})
	}
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

// deletePod is a delete call, stored as the API server stores it
// (apirules.Delete): a terminal pod, or one never bound to a node, is
// deleted at once and leaves when it has no finalizers; a running one gets
// its grace period and stops Shutdown later (podlife.Stop). A pod deleted
// before it was bound but kept by a finalizer is failed at once, as the
// pod garbage collector fails it.
func (c *Cluster) deletePod(sp *simPod) {
	if sp.obj.DeletionTimestamp != nil {
		return
	}
	sp.epoch++
	c.update(sp, func(p *corev1.Pod) {
		p.DeletionTimestamp, p.DeletionGracePeriodSeconds = apirules.Delete(p, nil, c.now)
	})
	if podlife.IsTerminal(sp.obj) || apirules.Removed(sp.obj) {
		c.maybeRemove(sp)
		return
	}
	grace := time.Duration(apirules.DefaultGracePeriodSeconds) * time.Second
	if g := sp.obj.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	shutdown := sp.b.Shutdown
	if !sp.started {
		shutdown = 0
	}
	var stop time.Duration
	stop, sp.stopCode = podlife.Stop(shutdown, grace)
	c.schedule(event{at: c.now.Add(stop), kind: evPodStop, uid: sp.obj.UID, epoch: sp.epoch})
}

// stopPod ends a deleted pod: Failed, its containers exiting with the
// code its deletion decided (podlife.Stop).
func (c *Cluster) stopPod(sp *simPod) StepRecord {
	code := sp.stopCode
	if !sp.started {
		c.update(sp, func(p *corev1.Pod) {
			setCondition(p, corev1.DisruptionTarget, corev1.ConditionTrue, podlife.ReasonDeletionByPodGC, c.now)
		})
	}
	c.terminate(sp, func(string) int32 { return code }, "")
	return StepRecord{Kind: KindPodStopped, Pod: sp.obj.Name, Detail: fmt.Sprintf("exit %d", code)}
}

// maybeRemove schedules the removal of a pod the API server no longer
// stores (apirules.Removed).
func (c *Cluster) maybeRemove(sp *simPod) {
	if apirules.Removed(sp.obj) {
		c.schedule(event{at: c.now, kind: evPodRemove, uid: sp.obj.UID})
	}
}

func ptr[T any](v T) *T { return &v }
