package jobcontroller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// LeaderElection configures RunLeaderElected. The zero value of each field
// means its default, kube-controller-manager's where it has one.
type LeaderElection struct {
	// Namespace and Name locate the Lease. Defaults "default" and
	// LeaseNameFor(ControllerName).
	Namespace, Name string
	// Identity names this replica in the Lease. Default the host name and
	// a random suffix.
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod: defaults 15s, 10s, 2s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// WatchDog, when not nil, is told about the election, so that a health
	// check fails while this replica holds the Lease without renewing it.
	WatchDog *leaderelection.HealthzAdaptor
}

// ErrLeaseLost is returned by RunLeaderElected when this replica lost the
// Lease while it ran the controller. A Controller runs once: the process
// should end and its supervisor start a fresh one.
var ErrLeaseLost = errors.New("jobcontroller: lost the leader election lease")

var notLeaseChar = regexp.MustCompile(`[^a-z0-9.-]+`)

// LeaseNameFor derives a Lease name from a controller name
// ("example.com/jobsync" gives "jobsync-controller.example.com.jobsync").
func LeaseNameFor(controllerName string) string {
	name := "jobsync-controller." + notLeaseChar.ReplaceAllString(strings.ToLower(controllerName), ".")
	return strings.Trim(name[:min(len(name), 253)], ".-")
}

func (le LeaderElection) withDefaults(controllerName string) LeaderElection {
	if le.Namespace == "" {
		le.Namespace = "default"
	}
	if le.Name == "" {
		le.Name = LeaseNameFor(controllerName)
	}
	if le.Identity == "" {
		host, _ := os.Hostname()
		le.Identity = host + "_" + string(uuid.NewUUID())
	}
	if le.LeaseDuration <= 0 {
		le.LeaseDuration = 15 * time.Second
	}
	if le.RenewDeadline <= 0 {
		le.RenewDeadline = 10 * time.Second
	}
	if le.RetryPeriod <= 0 {
		le.RetryPeriod = 2 * time.Second
	}
	return le
}

// RunLeaderElected runs the controller only while this replica holds the
// Lease le names (client-go's leaderelection on a Lease lock), so that
// several replicas can be deployed and one runs at a time. It returns
// ctx's error if ctx ends before this replica leads, nil after a graceful
// shutdown, and ErrLeaseLost if the Lease was lost while running.
//
// The controller stops (see Run) as soon as this replica may no longer be
// the leader: once RenewDeadline has passed since the last successful
// renewal of the Lease was sent, even if the elector is still trying to
// renew. Another replica takes the Lease only LeaseDuration after it saw
// that renewal, later than that, so the two never write at once. (client-go's
// elector alone ends the leading context only after its renewal attempts
// have given up and it has tried to release the Lease, which can be a
// RenewDeadline later, past the time another replica takes over.) The
// Lease is released only once the controller has stopped.
func (c *Controller) RunLeaderElected(ctx context.Context, le LeaderElection) error {
	le = le.withDefaults(c.opts.ControllerName)
	logger := klog.FromContext(ctx).WithValues("lease", klog.KRef(le.Namespace, le.Name), "identity", le.Identity)
	inner, err := resourcelock.New(resourcelock.LeasesResourceLock, le.Namespace, le.Name,
		c.client.CoreV1(), c.client.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: le.Identity})
	if err != nil {
		return fmt.Errorf("jobcontroller: the leader election lock: %w", err)
	}
	term := &leaderTerm{identity: le.Identity, renewDeadline: le.RenewDeadline}
	lock := &termLock{Interface: inner, term: term}
	// The election runs on its own context, ended once the controller has
	// stopped (or at once on a shutdown before this replica led).
	electCtx, endElection := context.WithCancel(context.WithoutCancel(ctx))
	defer endElection()
	var (
		mu      sync.Mutex
		started bool
		runErr  error
	)
	stopped := make(chan struct{})
	defer context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !started {
			endElection()
		}
	})()
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		WatchDog:        le.WatchDog, // health hook
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leading context.Context) {
				mu.Lock()
				started = true
				mu.Unlock()
				defer close(stopped)
				defer endElection()
				logger.Info("Became the leader")
				// Stop on a shutdown, on the elector's loss of the Lease, or
				// once the renew deadline has passed, whichever comes first.
				runCtx, cancel := context.WithCancelCause(leading)
				defer cancel(nil)
				defer context.AfterFunc(ctx, func() { cancel(context.Cause(ctx)) })()
				defer term.begin(func() {
					logger.Info("The renew deadline has passed since the last renewal of the Lease: stopping", "renewDeadline", le.RenewDeadline)
					cancel(ErrLeaseLost)
				})()
				runErr = c.Run(klog.NewContext(runCtx, logger))
			},
			OnStoppedLeading: func() { logger.Info("No longer the leader") },
			OnNewLeader: func(identity string) {
				if identity != le.Identity {
					logger.Info("Another replica leads", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("jobcontroller: leader election: %w", err)
	}
	elector.Run(electCtx)
	mu.Lock()
	led := started
	mu.Unlock()
	if !led {
		return ctx.Err()
	}
	<-stopped
	if ctx.Err() == nil {
		return ErrLeaseLost
	}
	return runErr
}
