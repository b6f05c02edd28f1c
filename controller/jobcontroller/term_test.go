package jobcontroller

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// TestTermEndsRenewDeadlineAfterTheLastRenewalWasSent: the term ends at
// the renew deadline counted from when the last successful renewal was
// sent, however long that renewal took, and a later renewal extends it.
func TestTermEndsRenewDeadlineAfterTheLastRenewalWasSent(t *testing.T) {
	term := &leaderTerm{identity: "me", renewDeadline: 300 * time.Millisecond}
	start := time.Now()
	term.renewed(start)
	ended := make(chan time.Time, 2)
	stop := term.begin(func() { ended <- time.Now() })
	defer stop()
	time.Sleep(150 * time.Millisecond)
	term.renewed(time.Now())
	select {
	case at := <-ended:
		if d := at.Sub(start); d < 400*time.Millisecond {
			t.Errorf("the term ended %v after the first renewal, before the second renewal's deadline", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the term did not end")
	}
	select {
	case <-ended:
		t.Error("the term ended twice")
	case <-time.After(400 * time.Millisecond):
	}
}

func TestTermThatHasEndedEndsAtOnce(t *testing.T) {
	term := &leaderTerm{identity: "me", renewDeadline: time.Second}
	term.renewed(time.Now().Add(-2 * time.Second))
	ended := make(chan struct{})
	defer term.begin(func() { close(ended) })()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("a term whose deadline had passed did not end")
	}
}

// fakeLock fails its writes while failing is set.
type fakeLock struct {
	resourcelock.Interface
	delay   time.Duration
	failing bool
}

func (l *fakeLock) Update(context.Context, resourcelock.LeaderElectionRecord) error {
	time.Sleep(l.delay)
	if l.failing {
		return errors.New("timed out")
	}
	return nil
}

func (l *fakeLock) Create(ctx context.Context, rec resourcelock.LeaderElectionRecord) error {
	return l.Update(ctx, rec)
}

// TestTermLockNotesOnlyItsOwnSuccessfulWrites: a renewal counts from when
// it was sent (not when its answer came back), and neither a failed write
// nor one that gives the Lease up (the release) extends the term.
func TestTermLockNotesOnlyItsOwnSuccessfulWrites(t *testing.T) {
	term := &leaderTerm{identity: "me", renewDeadline: time.Second}
	inner := &fakeLock{delay: 50 * time.Millisecond}
	lock := &termLock{Interface: inner, term: term}
	before := time.Now()
	if err := lock.Update(t.Context(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"}); err != nil {
		t.Fatal(err)
	}
	if term.sent.Before(before) || term.sent.After(before.Add(40*time.Millisecond)) {
		t.Errorf("renewal noted at %v, sent at about %v", term.sent, before)
	}
	noted := term.sent
	_ = lock.Update(t.Context(), resourcelock.LeaderElectionRecord{HolderIdentity: ""})
	inner.failing = true
	_ = lock.Create(t.Context(), resourcelock.LeaderElectionRecord{HolderIdentity: "me"})
	if !term.sent.Equal(noted) {
		t.Errorf("a release or a failed write extended the term")
	}
}
