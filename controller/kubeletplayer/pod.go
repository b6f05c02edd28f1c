package kubeletplayer

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
	"github.com/jobsync/jobsync/jobsync/jobsynctest/podlife"
)

// podPlay plays one pod. Everything it does runs through its own queue, one
// step at a time and in the order the steps were asked for, so the fields
// below the queue need no lock.
type podPlay struct {
	p         *Player
	key       podKey
	namespace string
	name      string
	uid       types.UID
	spec      corev1.PodSpec
	b         jobsynctest.Behavior

	qmu     sync.Mutex
	queue   []func(context.Context)
	running bool

	tmu   sync.Mutex
	timer clock.Timer

	seen        bool // the first observation was handled
	started     bool // bound and running (it ran at least once)
	terminal    bool // Succeeded or Failed
	deleting    bool // its deletion was seen
	grace       int64
	last        *corev1.Pod // as the informer or a status patch last gave it
	finalDelete bool        // the kubelet's delete with grace 0 was sent
	gone        bool        // the API server removed it
	epoch       int         // bumped to void scheduled steps
	startedAt   time.Time

	restartsLeft int32
	restartCount int32
}

// enqueue runs step after the steps already queued for this pod.
func (pp *podPlay) enqueue(step func(context.Context)) {
	pp.qmu.Lock()
	pp.queue = append(pp.queue, step)
	if pp.running {
		pp.qmu.Unlock()
		return
	}
	pp.running = true
	pp.qmu.Unlock()

	p := pp.p
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		pp.qmu.Lock()
		pp.queue, pp.running = nil, false
		pp.qmu.Unlock()
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go pp.drain()
}

// drain runs the queued steps, each holding one of the player's action
// slots.
func (pp *podPlay) drain() {
	defer pp.p.wg.Done()
	for {
		pp.qmu.Lock()
		if len(pp.queue) == 0 {
			pp.running = false
			pp.qmu.Unlock()
			return
		}
		step := pp.queue[0]
		pp.queue = pp.queue[1:]
		pp.qmu.Unlock()

		ctx := pp.p.context()
		if ctx == nil {
			pp.qmu.Lock()
			pp.queue, pp.running = nil, false
			pp.qmu.Unlock()
			return
		}
		select {
		case pp.p.sem <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		step(ctx)
		<-pp.p.sem
	}
}

// after schedules step d from now, unless the pod's plan changes first
// (cancel) or it is gone.
func (pp *podPlay) after(d time.Duration, step func(context.Context)) {
	pp.epoch++
	e := pp.epoch
	t := pp.p.opts.Clock.AfterFunc(d, func() {
		pp.enqueue(func(ctx context.Context) {
			if pp.epoch == e && !pp.gone {
				step(ctx)
			}
		})
	})
	pp.tmu.Lock()
	if pp.timer != nil {
		pp.timer.Stop()
	}
	pp.timer = t
	pp.tmu.Unlock()
}

// cancel voids the scheduled step.
func (pp *podPlay) cancel() {
	pp.epoch++
	pp.stopTimer()
}

func (pp *podPlay) stopTimer() {
	pp.tmu.Lock()
	if pp.timer != nil {
		pp.timer.Stop()
		pp.timer = nil
	}
	pp.tmu.Unlock()
}

func (pp *podPlay) logger(ctx context.Context) klog.Logger {
	return klog.FromContext(ctx).WithValues("pod", klog.KRef(pp.namespace, pp.name))
}

// observe acts on the pod as the informer shows it now.
func (pp *podPlay) observe(ctx context.Context, pod *corev1.Pod) {
	if pp.gone {
		return
	}
	pp.last = pod
	if podlife.IsTerminal(pod) {
		pp.terminal = true
	}
	if pod.DeletionTimestamp != nil {
		if pod.DeletionGracePeriodSeconds != nil {
			pp.grace = *pod.DeletionGracePeriodSeconds
		}
		pp.observeDeletion(ctx, pod)
		return
	}
	if pp.seen {
		return
	}
	pp.seen = true
	switch {
	case pp.terminal:
	case pod.Spec.NodeName != "" || pod.Status.Phase == corev1.PodRunning:
		// Started by someone else (a player before this one): play the rest
		// of its run from now.
		pp.started, pp.startedAt = true, pp.p.opts.Clock.Now()
		pp.scheduleRunEnd()
	default:
		pp.after(pp.b.StartDelay, pp.start)
	}
}

// observeDeletion stops a pod seen with a deletion timestamp, or, once it
// is terminal, removes it as the kubelet does.
func (pp *podPlay) observeDeletion(ctx context.Context, pod *corev1.Pod) {
	if pp.terminal {
		pp.cancel()
		pp.removeIfGraceful(ctx)
		return
	}
	if pp.deleting {
		return
	}
	pp.deleting = true
	pp.cancel()
	if !pp.started && pod.Spec.NodeName == "" {
		pp.collect(ctx)
		return
	}
	after, code := podlife.Stop(pp.b.Shutdown, time.Duration(pp.grace)*time.Second)
	pp.after(after, func(ctx context.Context) { pp.stop(ctx, code) })
}

// scheduleRunEnd schedules what ends the current run of a started pod.
func (pp *podPlay) scheduleRunEnd() {
	switch {
	case pp.b.Disruption:
		pp.after(pp.b.RunTime, pp.disrupt)
	case pp.b.Forever:
	default:
		pp.after(pp.b.RunTime, pp.exit)
	}
}

// start binds the pod and runs it.
func (pp *podPlay) start(ctx context.Context) {
	if pp.deleting || pp.terminal {
		return
	}
	if !pp.bind(ctx) {
		return
	}
	now := pp.p.opts.Clock.Now()
	if !pp.patchStatus(ctx, "start", pp.runningStatus(now)) {
		return
	}
	pp.started, pp.startedAt = true, now
	pp.p.count(func(s *Stats) { s.Started++ })
	pp.logger(ctx).V(4).Info("Pod running", "behavior", pp.b)
	pp.scheduleRunEnd()
}

// exit ends a run of the pod's container: a restart under restartPolicy
// OnFailure while it fails, else the end of the pod.
func (pp *podPlay) exit(ctx context.Context) {
	if pp.deleting || pp.terminal {
		return
	}
	exiting := podlife.ExitingContainer(pp.b.Container, &pp.spec)
	if code, restart := podlife.Exit(pp.spec.RestartPolicy, pp.restartsLeft, pp.b.ExitCode); restart {
		now := pp.p.opts.Clock.Now()
		if !pp.patchStatus(ctx, "restart", pp.restartedStatus(exiting, code, now)) {
			return
		}
		if pp.restartsLeft > 0 {
			pp.restartsLeft--
		}
		pp.restartCount++
		pp.startedAt = now
		pp.p.count(func(s *Stats) { s.Restarted++ })
		pp.after(podlife.RestartDelay(pp.p.opts.RestartDelay, pp.restartCount)+pp.b.RunTime, pp.exit)
		return
	}
	code := pp.b.ExitCode
	if !pp.terminate(ctx, "exit", func(name string) int32 {
		if name == exiting {
			return code
		}
		return 0
	}) {
		return
	}
	pp.p.count(func(s *Stats) {
		if code == 0 {
			s.Succeeded++
		} else {
			s.Failed++
		}
	})
}

// disrupt marks the pod as a disruption target and deletes it, as an
// eviction or a preemption does; its deletion is then played as any other.
func (pp *podPlay) disrupt(ctx context.Context) {
	if pp.deleting || pp.terminal {
		return
	}
	reason := pp.b.DisruptionReason
	if reason == "" {
		reason = "PreemptionByScheduler"
	}
	now := pp.p.opts.Clock.Now()
	if !pp.patchStatus(ctx, "disrupt", statusPatch{Conditions: []corev1.PodCondition{
		condition(corev1.DisruptionTarget, corev1.ConditionTrue, reason, "kubeletplayer: disrupted by the script", now),
	}}) {
		return
	}
	pp.p.count(func(s *Stats) { s.Disrupted++ })
	pp.remove(ctx, "disrupt", nil)
}

// stop ends a deleted pod: Failed, its containers exiting with code.
func (pp *podPlay) stop(ctx context.Context, code int32) {
	if pp.terminal {
		return
	}
	if pp.terminate(ctx, "stop", func(string) int32 { return code }) {
		pp.p.count(func(s *Stats) { s.Stopped++ })
	}
}

// collect fails a pod deleted before it was bound, as the pod garbage
// collector does, with a DisruptionTarget condition of reason
// DeletionByPodGC: the API server gave it no grace period, no kubelet will
// ever stop it, and it must be terminal for the Job controller to count it.
func (pp *podPlay) collect(ctx context.Context) {
	now := pp.p.opts.Clock.Now()
	if pp.patchStatus(ctx, "collect", statusPatch{Phase: corev1.PodFailed, Conditions: []corev1.PodCondition{
		condition(corev1.DisruptionTarget, corev1.ConditionTrue, podlife.ReasonDeletionByPodGC, "kubeletplayer: deleted before it was bound", now),
	}}) {
		pp.terminal = true
		pp.p.count(func(s *Stats) { s.Stopped++ })
	}
}

// terminate makes the pod terminal, its containers exiting with the codes
// given, then removes it if it is being deleted gracefully.
func (pp *podPlay) terminate(ctx context.Context, what string, codeOf func(string) int32) bool {
	now := pp.p.opts.Clock.Now()
	if !pp.patchStatus(ctx, what, pp.terminatedStatus(codeOf, now)) {
		return false
	}
	pp.terminal = true
	pp.cancel()
	if pp.deleting {
		pp.removeIfGraceful(ctx)
	}
	return true
}

// removeIfGraceful makes the kubelet's final delete, with grace period 0,
// of a pod that stopped while being deleted gracefully
// (podlife.KubeletDeletes), so that the API server removes it once its
// finalizers are gone. A pod deleted with no grace period needs no such
// call.
func (pp *podPlay) removeIfGraceful(ctx context.Context) {
	if pp.finalDelete || pp.last == nil || !podlife.KubeletDeletes(pp.last) {
		return
	}
	zero := int64(0)
	if pp.remove(ctx, "remove", &zero) {
		pp.finalDelete = true
	}
}
