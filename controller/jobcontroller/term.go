package jobcontroller

import (
	"context"
	"sync"
	"time"

	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// leaderTerm bounds how long this replica may act on its last renewal of
// the Lease: until renewDeadline after that renewal was sent. Other
// replicas count the Lease's duration from the moment they see the
// renewal, which is later than it was sent, and the Lease's duration is
// longer than the renew deadline, so a replica that stops writing at the
// end of its term never overlaps with the next leader, whatever its Lease
// requests are doing meanwhile (hanging, timing out, slow).
type leaderTerm struct {
	identity      string
	renewDeadline time.Duration

	mu    sync.Mutex
	sent  time.Time // when the last successful write of the Lease by this replica was sent
	timer *time.Timer
}

// renewed records that a write of the Lease holding it for this replica,
// sent at sent, succeeded.
func (t *leaderTerm) renewed(sent time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if sent.Before(t.sent) {
		return
	}
	t.sent = sent
	if t.timer != nil {
		t.timer.Reset(time.Until(sent.Add(t.renewDeadline)))
	}
}

// begin calls end once the term ends (at once if it has ended already),
// unless the returned function is called first.
func (t *leaderTerm) begin(end func()) (cancel func()) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var once sync.Once
	t.timer = time.AfterFunc(time.Until(t.sent.Add(t.renewDeadline)), func() { once.Do(end) })
	timer := t.timer
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		timer.Stop()
		if t.timer == timer {
			t.timer = nil
		}
	}
}

// termLock is the Lease lock, noting in term each successful write that
// makes or keeps this replica the holder.
type termLock struct {
	resourcelock.Interface
	term *leaderTerm
}

func (l *termLock) Create(ctx context.Context, rec resourcelock.LeaderElectionRecord) error {
	sent := time.Now()
	err := l.Interface.Create(ctx, rec)
	if err == nil && rec.HolderIdentity == l.term.identity {
		l.term.renewed(sent)
	}
	return err
}

func (l *termLock) Update(ctx context.Context, rec resourcelock.LeaderElectionRecord) error {
	sent := time.Now()
	err := l.Interface.Update(ctx, rec)
	if err == nil && rec.HolderIdentity == l.term.identity {
		l.term.renewed(sent)
	}
	return err
}
