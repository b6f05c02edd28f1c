package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"

	"k8s.io/client-go/rest"

	"github.com/jobsync/jobsync/controller/integration/apicalls"
)

// apiCalls counts the requests a controller sends, by verb and resource
// ("create pods", "update jobs/status", "watch pods"), keeps the status
// writes the API server rejected as invalid (422), and can fail a share of
// the controller's writes before they leave (fault runs).
type apiCalls struct {
	mu       sync.Mutex
	counts   map[string]int
	rejected []string
	// jobs are the names of the Jobs whose calls are also counted apart
	// (perJob), known by the object a request names or the body it sends.
	jobs   []string
	perJob map[string]map[string]int
	// failWrites is the probability that a write (POST, PUT, PATCH,
	// DELETE) fails with a 500 before reaching the API server.
	failWrites float64
	rng        *rand.Rand
	injected   int
}

func newAPICalls() *apiCalls {
	return &apiCalls{counts: map[string]int{}, perJob: map[string]map[string]int{}}
}

// track counts the calls about Job name apart from now on.
func (c *apiCalls) track(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.jobs = append(c.jobs, name)
	c.perJob[name] = map[string]int{}
}

// jobCalls returns the calls counted for Job name.
func (c *apiCalls) jobCalls(name string) map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.perJob[name] {
		out[k] = v
	}
	return out
}

// attribute names the tracked Job a request is about: the Job it names, or
// the Job whose name begins the pod or event it names (pods are named
// "<job>-<suffix>", events "<job>.<suffix>"), or for a create the longest
// tracked name its body holds (the pod's owner, the event's object).
// c.mu is held.
func (c *apiCalls) attribute(req *http.Request, key string) string {
	if len(c.jobs) == 0 {
		return ""
	}
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	name := ""
	for i := 0; i+2 < len(parts); i++ {
		if parts[i] == "namespaces" {
			if i+3 < len(parts) {
				name = parts[i+3]
			}
			break
		}
	}
	best := ""
	if name != "" {
		for _, j := range c.jobs {
			if (name == j || strings.HasPrefix(name, j+"-") || strings.HasPrefix(name, j+".")) && len(j) > len(best) {
				best = j
			}
		}
		return best
	}
	if req.Method != http.MethodPost || req.GetBody == nil {
		return ""
	}
	body, err := req.GetBody()
	if err != nil {
		return ""
	}
	b, _ := io.ReadAll(body)
	body.Close()
	for _, j := range c.jobs {
		if len(j) > len(best) && bytes.Contains(b, []byte(j)) {
			best = j
		}
	}
	return best
}

// config returns a copy of cfg whose requests are counted by c, with the
// client-side rate limits given (qps < 0: none).
func (c *apiCalls) config(cfg *rest.Config, qps float32, burst int) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = qps, burst
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countingTransport{c, rt} })
	return cfg
}

type countingTransport struct {
	c  *apiCalls
	rt http.RoundTripper
}

func (t countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	key := apicalls.Name(req)
	write := req.Method != http.MethodGet
	t.c.mu.Lock()
	t.c.counts[key]++
	if job := t.c.attribute(req, key); job != "" {
		t.c.perJob[job][key]++
	}
	fail := write && t.c.failWrites > 0 && t.c.rng.Float64() < t.c.failWrites && !strings.HasSuffix(key, " events")
	if fail {
		t.c.injected++
	}
	t.c.mu.Unlock()
	if fail {
		body := `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"injected fault","reason":"InternalError","code":500}`
		return &http.Response{
			StatusCode: http.StatusInternalServerError, Status: "500 Internal Server Error",
			Header: http.Header{"Content-Type": []string{"application/json"}},
			Body:   io.NopCloser(strings.NewReader(body)), Request: req, ContentLength: int64(len(body)),
		}, nil
	}
	resp, err := t.rt.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusUnprocessableEntity && strings.HasSuffix(key, "jobs/status") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(b))
		t.c.mu.Lock()
		t.c.rejected = append(t.c.rejected, fmt.Sprintf("%s %s: %s", req.Method, req.URL.Path, b))
		t.c.mu.Unlock()
	}
	return resp, err
}

// snapshot returns the counts so far.
func (c *apiCalls) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.counts))
	for k, v := range c.counts {
		out[k] = v
	}
	return out
}

func (c *apiCalls) rejectedWrites() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.rejected...)
}

// summary prints counts as "create pods 3, update jobs/status 4".
func summary(counts map[string]int, skipReads bool) string {
	var keys []string
	for k := range counts {
		if skipReads && (strings.HasPrefix(k, "list ") || strings.HasPrefix(k, "watch ") || strings.HasPrefix(k, "get ")) {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", k, counts[k])
	}
	return b.String()
}

func total(counts map[string]int) int {
	n := 0
	for _, v := range counts {
		n += v
	}
	return n
}
