package apicalls

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestName(t *testing.T) {
	for _, c := range []struct{ method, url, want string }{
		{http.MethodGet, "/api/v1/namespaces/ns/pods", "list pods"},
		{http.MethodGet, "/api/v1/pods?watch=true&resourceVersion=5", "watch pods"},
		{http.MethodGet, "/api/v1/namespaces/ns/pods?watch=1", "watch pods"},
		{http.MethodGet, "/api/v1/namespaces/ns/pods/p", "get pods"},
		{http.MethodPost, "/api/v1/namespaces/ns/pods", "create pods"},
		{http.MethodPatch, "/api/v1/namespaces/ns/pods/p", "patch pods"},
		{http.MethodDelete, "/api/v1/namespaces/ns/pods/p", "delete pods"},
		{http.MethodDelete, "/api/v1/namespaces/ns/pods", "deletecollection pods"},
		{http.MethodPut, "/apis/batch/v1/namespaces/ns/jobs/j/status", "update jobs/status"},
		{http.MethodGet, "/apis/batch/v1/jobs", "list jobs"},
		{http.MethodPost, "/apis/events.k8s.io/v1/namespaces/ns/events", "create events"},
		{http.MethodPut, "/apis/coordination.k8s.io/v1/namespaces/ns/leases/l", "update leases"},
		{http.MethodGet, "/api/v1/namespaces/ns", "get namespaces"},
		{http.MethodGet, "/healthz", "GET /healthz"},
		{http.MethodGet, "/apis", "GET /apis"},
	} {
		if got := Name(httptest.NewRequest(c.method, c.url, nil)); got != c.want {
			t.Errorf("%s %s: got %q, want %q", c.method, c.url, got, c.want)
		}
	}
}
