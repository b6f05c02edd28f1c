package kubeletplayer

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// Options configure a Player. The zero value of each field means its
// default.
type Options struct {
	// Namespace limits the player to the pods of one namespace; empty means
	// all namespaces.
	Namespace string
	// NodeName is the node pods are bound to when they start. Default
	// "kubeletplayer". No Node object is needed.
	NodeName string
	// RestartDelay is the kubelet's crash-loop back-off base under
	// restartPolicy OnFailure: the n-th restart of a container waits
	// RestartDelay·2^(n-1), never more than five minutes, before the
	// container runs again. Default 10s, the kubelet's.
	RestartDelay time.Duration
	// Seed draws the behaviour of pods that no rule of their Job's script
	// matches when the script has no Default (jobsynctest's random model).
	Seed int64
	// Concurrency bounds the pod actions (and so the API calls) in flight.
	// Default 16.
	Concurrency int
	// Clock times the behaviours; nil means the real clock.
	Clock clock.WithDelayedExecution
	// Owner is the kind whose controller references tie a pod to its Job
	// (jobsync.Options.Owner), for a custom resource that embeds a
	// JobSpec. Default batch/v1 Job.
	Owner schema.GroupVersionKind
}

func (o Options) withDefaults() Options {
	if o.NodeName == "" {
		o.NodeName = "kubeletplayer"
	}
	if o.RestartDelay <= 0 {
		o.RestartDelay = 10 * time.Second
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 16
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Owner.Empty() {
		o.Owner = batchv1.SchemeGroupVersion.WithKind("Job")
	}
	return o
}

// maxRestartDelay caps the crash-loop back-off, as the kubelet does.
const maxRestartDelay = 5 * time.Minute

// Player plays the pods of Jobs on an API server as kubelets would, from a
// jobsynctest.Script per Job. Create it with New, register Jobs with Play
// (before or after Run starts) and run it with Run.
type Player struct {
	client kubernetes.Interface
	opts   Options

	sem chan struct{} // bounds the actions in flight
	wg  sync.WaitGroup

	mu      sync.Mutex
	ctx     context.Context // set by Run
	stopped bool
	jobs    map[types.UID]*jobPlay
	pods    map[types.UID]*podPlay
	waiting map[types.UID][]*corev1.Pod // pods seen before their Job was played
	stats   Stats
}

// Stats count what a Player did.
type Stats struct {
	// Started, Succeeded, Failed, Restarted, Disrupted and Stopped count
	// pods that started running, ended with success, ended with failure
	// (on their own), restarted a container, were disrupted, and stopped
	// after their deletion.
	Started, Succeeded, Failed, Restarted, Disrupted, Stopped int
	// Retries counts the calls tried again after an error that may pass
	// (the API server away, overloaded or failing for a while).
	Retries int
	// Errors counts API calls that failed for good, other
	// than those that found the pod gone; Err is the last of them.
	Errors int
	Err    error
}

// jobPlay is a played Job: its script and the numbering of its pods.
type jobPlay struct {
	script   jobsynctest.Script
	seen     int
	attempts map[int]int
}

// New returns a Player that acts through client. client should not be the
// client of the controller under test, so that the player's calls are not
// counted as the controller's.
func New(client kubernetes.Interface, opts Options) *Player {
	opts = opts.withDefaults()
	return &Player{
		client:  client,
		opts:    opts,
		sem:     make(chan struct{}, opts.Concurrency),
		jobs:    map[types.UID]*jobPlay{},
		pods:    map[types.UID]*podPlay{},
		waiting: map[types.UID][]*corev1.Pod{},
	}
}

// Play starts playing the pods of job (known by its UID, so pass the Job as
// the API server returned it) with script. Pods of the Job seen before Play
// is called are played from then on, in the order they were seen.
func (p *Player) Play(job *batchv1.Job, script jobsynctest.Script) {
	p.mu.Lock()
	if _, ok := p.jobs[job.UID]; ok {
		p.mu.Unlock()
		return
	}
	p.jobs[job.UID] = &jobPlay{script: script, attempts: map[int]int{}}
	early := p.waiting[job.UID]
	delete(p.waiting, job.UID)
	p.mu.Unlock()
	for _, pod := range early {
		p.observe(pod)
	}
}

// Stats returns what the player did so far.
func (p *Player) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// Run watches pods and plays them until ctx is done, then waits for the
// actions in flight to end. It returns an error only if the pod informer
// could not start or Run was called before.
func (p *Player) Run(ctx context.Context) error {
	logger := klog.FromContext(ctx).WithName("kubeletplayer")
	ctx = klog.NewContext(ctx, logger)
	p.mu.Lock()
	if p.ctx != nil {
		p.mu.Unlock()
		return fmt.Errorf("kubeletplayer: Run called twice")
	}
	p.ctx = ctx
	p.mu.Unlock()

	factory := informers.NewSharedInformerFactoryWithOptions(p.client, 0, informers.WithNamespace(p.opts.Namespace))
	inf := factory.Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { p.observeObj(obj) },
		UpdateFunc: func(_, obj any) { p.observeObj(obj) },
		DeleteFunc: p.forget,
	}); err != nil {
		return fmt.Errorf("kubeletplayer: %w", err)
	}
	factory.Start(ctx.Done())
	logger.V(2).Info("Playing pods", "namespace", p.opts.Namespace, "node", p.opts.NodeName)
	<-ctx.Done()
	p.mu.Lock()
	p.stopped = true
	for _, pp := range p.pods {
		pp.stopTimer()
	}
	p.mu.Unlock()
	factory.Shutdown()
	p.wg.Wait()
	return nil
}

func (p *Player) observeObj(obj any) {
	if pod, ok := obj.(*corev1.Pod); ok {
		p.observe(pod)
	}
}

// observe hands a pod seen by the informer to its player, creating it the
// first time.
func (p *Player) observe(pod *corev1.Pod) {
	jobUID := jobOf(pod, p.opts.Owner.Kind)
	if jobUID == "" {
		return
	}
	p.mu.Lock()
	pp := p.pods[pod.UID]
	if pp == nil {
		jp := p.jobs[jobUID]
		if jp == nil {
			p.waiting[jobUID] = append(p.waiting[jobUID], pod)
			p.mu.Unlock()
			return
		}
		pp = p.admit(jp, pod)
	}
	p.mu.Unlock()
	pp.enqueue(func(ctx context.Context) { pp.observe(ctx, pod) })
}

// admit numbers a new pod and picks its behaviour. p.mu is held.
func (p *Player) admit(jp *jobPlay, pod *corev1.Pod) *podPlay {
	k := podKey{n: jp.seen, index: -1}
	if s, ok := pod.Annotations[batchv1.JobCompletionIndexAnnotation]; ok {
		if v, err := strconv.Atoi(s); err == nil {
			k.index = v
		}
	}
	k.attempt = jp.attempts[k.index]
	jp.attempts[k.index]++
	jp.seen++
	pp := &podPlay{
		p:         p,
		key:       k,
		namespace: pod.Namespace,
		name:      pod.Name,
		uid:       pod.UID,
		spec:      *pod.Spec.DeepCopy(),
		b:         behaviorFor(jp.script, k, pod.Spec.RestartPolicy, p.opts.Seed),
	}
	pp.restartsLeft = pp.b.Restarts
	p.pods[pod.UID] = pp
	return pp
}

// forget drops a pod the API server removed.
func (p *Player) forget(obj any) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	p.mu.Lock()
	pp := p.pods[pod.UID]
	delete(p.pods, pod.UID)
	p.mu.Unlock()
	if pp != nil {
		pp.enqueue(func(context.Context) { pp.gone = true; pp.stopTimer() })
	}
}

// jobOf is the UID of the Job a pod belongs to: its controller reference
// to the owner kind, else the controller-uid label a Job's selector
// matches.
func jobOf(pod *corev1.Pod, ownerKind string) types.UID {
	if ref := metav1.GetControllerOf(pod); ref != nil {
		if ref.Kind == ownerKind {
			return ref.UID
		}
		return ""
	}
	if uid := pod.Labels[batchv1.ControllerUidLabel]; uid != "" {
		return types.UID(uid)
	}
	return types.UID(pod.Labels["controller-uid"])
}

// count updates the statistics.
func (p *Player) count(f func(s *Stats)) {
	p.mu.Lock()
	f(&p.stats)
	p.mu.Unlock()
}

// context is Run's context, or nil once the player stopped.
func (p *Player) context() context.Context {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil
	}
	return p.ctx
}
