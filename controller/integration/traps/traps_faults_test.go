package traps

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// faults fails or slows chosen requests on their way to the API server: a
// RoundTripper wrapped around a rest.Config's transport, so that every
// other request reaches the real server untouched.
type faults struct {
	mu    sync.Mutex
	rules []*rule
	// calls counts the requests seen per "METHOD path-kind" (see kind).
	calls map[string]int
}

// rule is one fault: requests for which match holds are answered with
// code (if non-zero), or passed on after delay; times bounds how often (0 is
// no bound).
type rule struct {
	match func(r *http.Request, body string) bool
	code  int
	delay time.Duration
	times int
	hits  int
}

func (f *faults) add(r *rule) *rule {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = append(f.rules, r)
	return r
}

func (f *faults) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

func (f *faults) hitsOf(r *rule) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return r.hits
}

// wrap returns a copy of cfg whose requests go through f.
func (f *faults) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = -1, -1
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripper(func(req *http.Request) (*http.Response, error) { return f.roundTrip(rt, req) })
	})
	return cfg
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// kind names a request for counting: "POST pods", "PATCH pods", "DELETE
// pods", "PUT jobs/status" and so on (watches and lists are "GET ...").
func kind(r *http.Request) string {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	res := ""
	for i, p := range parts {
		if p == "namespaces" && i+2 < len(parts) {
			res = parts[i+2]
			if i+4 < len(parts) {
				res += "/" + parts[i+4]
			}
			break
		}
	}
	return r.Method + " " + res
}

func (f *faults) roundTrip(rt http.RoundTripper, req *http.Request) (*http.Response, error) {
	body := ""
	if req.Body != nil && req.Method != http.MethodGet {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		body = string(b)
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	f.mu.Lock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[kind(req)]++
	if debugFaults {
		fmt.Printf("faults: %s %s %q\n", kind(req), req.Header.Get("Content-Type"), body[:min(len(body), 80)])
	}
	var hit *rule
	for _, r := range f.rules {
		if (r.times == 0 || r.hits < r.times) && r.match(req, body) {
			r.hits++
			hit = r
			break
		}
	}
	f.mu.Unlock()
	if hit == nil {
		return rt.RoundTrip(req)
	}
	if hit.delay > 0 {
		time.Sleep(hit.delay)
	}
	if hit.code == 0 {
		return rt.RoundTrip(req)
	}
	reason := map[int]string{http.StatusConflict: "Conflict", http.StatusInternalServerError: "InternalError", http.StatusForbidden: "Forbidden",
		http.StatusNotFound: "NotFound", http.StatusUnprocessableEntity: "Invalid"}[hit.code]
	status := fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected by the test","reason":%q,"code":%d}`, reason, hit.code)
	return &http.Response{
		StatusCode: hit.code,
		Status:     fmt.Sprintf("%d %s", hit.code, http.StatusText(hit.code)),
		Header:     http.Header{"Content-Type": []string{"application/json"}},
		Body:       io.NopCloser(strings.NewReader(status)),
		Request:    req,
		ProtoMajor: 1, ProtoMinor: 1,
	}, nil
}

// is matches requests of kind k (see kind) whose body contains every one
// of the strings.
func is(k string, contains ...string) func(*http.Request, string) bool {
	return func(r *http.Request, body string) bool {
		if kind(r) != k {
			return false
		}
		for _, s := range contains {
			if !strings.Contains(body, s) {
				return false
			}
		}
		return true
	}
}

var debugFaults = false
