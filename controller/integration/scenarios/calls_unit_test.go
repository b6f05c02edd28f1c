package scenarios

import (
	"net/http"
	"net/url"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct{ method, url, want string }{
		{"GET", "/api/v1/pods?limit=500", "list pods"},
		{"GET", "/api/v1/pods?watch=true&resourceVersion=5", "watch pods"},
		{"POST", "/api/v1/namespaces/default/pods", "create pods"},
		{"PATCH", "/api/v1/namespaces/default/pods/p-1", "patch pods"},
		{"DELETE", "/api/v1/namespaces/default/pods/p-1", "delete pods"},
		{"PUT", "/apis/batch/v1/namespaces/default/jobs/j/status", "update jobs/status"},
		{"GET", "/apis/batch/v1/namespaces/default/jobs/j", "get jobs"},
		{"POST", "/api/v1/namespaces/default/events", "create events"},
		{"PATCH", "/apis/events.k8s.io/v1/namespaces/default/events/e", "patch events"},
	} {
		u, _ := url.Parse(tc.url)
		if got := classify(&http.Request{Method: tc.method, URL: u}); got != tc.want {
			t.Errorf("%s %s: got %q, want %q", tc.method, tc.url, got, tc.want)
		}
	}
}
