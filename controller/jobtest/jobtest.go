package jobtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/jobsync/jobsync/controller/jobcontroller"
	"github.com/jobsync/jobsync/controller/kubeletplayer"
	"github.com/jobsync/jobsync/jobsync"
	"github.com/jobsync/jobsync/jobsync/jobsynctest"
)

// DefaultPodRunTime is how long a pod runs before it succeeds when no
// script says otherwise.
const DefaultPodRunTime = 100 * time.Millisecond

// Options configure Start. The zero value of each field means its default.
type Options struct {
	// PodRunTime is how long every pod runs before it succeeds, when
	// neither Script nor ScriptFor gives its Job a script. Default
	// DefaultPodRunTime.
	PodRunTime time.Duration
	// Script plays the pods of every Job, instead of PodRunTime. A script
	// without a Default leaves the pods no rule matches to
	// jobsynctest's random model (seeded by Player.Seed).
	Script *jobsynctest.Script
	// ScriptFor, when set, picks the script of each Job as it is first
	// seen (from its name, labels or annotations, say); nil falls back to
	// Script, then to PodRunTime.
	ScriptFor func(*batchv1.Job) *jobsynctest.Script
	// Sync are the jobsync options of every sync; tests lower BackoffBase
	// here so that failing Jobs retry quickly. Their ControllerName and
	// TrackingFinalizer are the built-in controller's.
	Sync jobsync.Options
	// Workers is the number of Jobs synced at once. Default
	// jobcontroller.DefaultWorkers.
	Workers int
	// Player configures the kubelets (node name, restart delay, random
	// seed). Its Namespace also limits the Jobs played; the controller
	// still runs the Jobs of every namespace.
	Player kubeletplayer.Options
}

// Env is a running Job controller and kubelet player. Stop it with Stop,
// or by ending the context given to Start and then calling Stop to wait.
type Env struct {
	cancel context.CancelFunc
	player *kubeletplayer.Player
	done   chan struct{}

	stopOnce sync.Once
	mu       sync.Mutex
	err      error
}

// Start starts the Job controller in the built-in mode and the kubelet
// player against the API server cfg reaches, and returns at once: Jobs
// created from then on (and those already there) are run until Stop is
// called or ctx ends. Each part gets its own client from a copy of cfg,
// without client-side throttling when cfg sets none.
func Start(ctx context.Context, cfg *rest.Config, opts Options) (*Env, error) {
	if cfg == nil {
		return nil, errors.New("jobtest: Start needs a *rest.Config")
	}
	controllerClient, err := clientFor(cfg, "jobtest-job-controller")
	if err != nil {
		return nil, err
	}
	playerClient, err := clientFor(cfg, "jobtest-kubeletplayer")
	if err != nil {
		return nil, err
	}
	ctrl, err := jobcontroller.New(controllerClient, jobcontroller.Options{ActAsBuiltIn: true, Workers: opts.Workers, Sync: opts.Sync})
	if err != nil {
		return nil, err
	}
	player := kubeletplayer.New(playerClient, opts.Player)

	// The player plays the pods of the Jobs it is told of: a Job informer
	// tells it of every Job, with the script the options give it.
	factory := informers.NewSharedInformerFactoryWithOptions(playerClient, 0, informers.WithNamespace(opts.Player.Namespace))
	jobs := factory.Batch().V1().Jobs().Informer()
	if _, err := jobs.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if job, ok := obj.(*batchv1.Job); ok {
				player.Play(job, opts.scriptFor(job))
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("jobtest: %w", err)
	}

	ctx, cancel := context.WithCancel(ctx)
	e := &Env{cancel: cancel, player: player, done: make(chan struct{})}
	var wg sync.WaitGroup
	wg.Go(func() { e.fail(ctrl.Run(ctx)) })
	wg.Go(func() { e.fail(player.Run(ctx)) })
	factory.Start(ctx.Done())
	go func() {
		wg.Wait()
		factory.Shutdown()
		close(e.done)
	}()
	return e, nil
}

// scriptFor is the script of job's pods.
func (o Options) scriptFor(job *batchv1.Job) jobsynctest.Script {
	if o.ScriptFor != nil {
		if s := o.ScriptFor(job); s != nil {
			return *s
		}
	}
	if o.Script != nil {
		return *o.Script
	}
	run := o.PodRunTime
	if run <= 0 {
		run = DefaultPodRunTime
	}
	return jobsynctest.Script{Default: &jobsynctest.Behavior{RunTime: run}}
}

// clientFor is a clientset on a copy of cfg with its own user agent.
func clientFor(cfg *rest.Config, agent string) (kubernetes.Interface, error) {
	c := rest.CopyConfig(cfg)
	c.UserAgent = agent
	if c.QPS == 0 && c.Burst == 0 && c.RateLimiter == nil {
		c.QPS, c.Burst = -1, -1 // a test server: no client-side throttling
	}
	client, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("jobtest: %w", err)
	}
	return client, nil
}

func (e *Env) fail(err error) {
	if err == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil {
		e.err = err
	}
}

// Stop stops the controller and the player and waits until they have: the
// syncs under way finish, no pod is played any more. It returns the error
// either ended with (nil normally; the context's error if it ended before
// the controller's caches synced). It may be called more than once.
func (e *Env) Stop() error {
	e.stopOnce.Do(e.cancel)
	<-e.done
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// Done is closed once the controller and the player have stopped.
func (e *Env) Done() <-chan struct{} { return e.done }

// Stats returns what the kubelet player did so far: pods started,
// succeeded, failed, and API calls that failed.
func (e *Env) Stats() kubeletplayer.Stats { return e.player.Stats() }
