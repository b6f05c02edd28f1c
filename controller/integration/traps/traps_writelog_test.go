package traps

import (
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// writeLog is a transport wrapper that makes a controller's requests
// slower and notes every write it sends: when, on a context still live or
// not, and when and how it was answered.
type writeLog struct {
	// minDelay and maxDelay bound the delay added before each request is
	// sent (drawn uniformly); zero means none.
	minDelay, maxDelay time.Duration

	mu     sync.Mutex
	rng    *rand.Rand
	writes []write
}

// write is one write request that reached the network.
type write struct {
	what       string // method and path
	sent       time.Time
	answered   time.Time
	successful bool // a 2xx answer
}

// wrap returns a copy of cfg whose requests go through l.
func (l *writeLog) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, -1
	l.rng = rand.New(rand.NewPCG(1, 2))
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return logTransport{l, rt} })
	return cfg
}

func (l *writeLog) delay() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.maxDelay <= 0 {
		return 0
	}
	return l.minDelay + time.Duration(l.rng.Int64N(int64(l.maxDelay-l.minDelay)+1))
}

// since returns the writes sent at or after t, and those answered with
// success after t.
func (l *writeLog) since(t time.Time) (sent, succeeded []write) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.writes {
		if !w.sent.Before(t) {
			sent = append(sent, w)
		}
		if w.successful && w.answered.After(t) {
			succeeded = append(succeeded, w)
		}
	}
	return sent, succeeded
}

func (l *writeLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.writes)
}

type logTransport struct {
	l  *writeLog
	rt http.RoundTripper
}

func (t logTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	if d := t.l.delay(); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if ctx.Err() != nil {
		// What the network transport would do: nothing is sent.
		return nil, ctx.Err()
	}
	if req.Method == http.MethodGet || strings.Contains(req.URL.Path, "/leases") {
		return t.rt.RoundTrip(req)
	}
	w := write{what: req.Method + " " + req.URL.Path, sent: time.Now()}
	resp, err := t.rt.RoundTrip(req)
	w.answered = time.Now()
	w.successful = err == nil && resp.StatusCode >= 200 && resp.StatusCode < 300
	t.l.mu.Lock()
	t.l.writes = append(t.l.writes, w)
	t.l.mu.Unlock()
	return resp, err
}
