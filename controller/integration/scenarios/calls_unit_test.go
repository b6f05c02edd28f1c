package scenarios

import (
	"net/http"
	"net/url"
	"slices"
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

func TestSelectsRun(t *testing.T) {
	runs := []string{"Indexed/qps100/upstream", "Indexed/qps100/ours", "NonIndexed/qps100/upstream", "NonIndexed/unthrottled/ours"}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"", runs},
		{"Indexed/qps100", []string{"Indexed/qps100/upstream", "Indexed/qps100/ours"}},
		{"Indexed", []string{"Indexed/qps100/upstream", "Indexed/qps100/ours"}},
		{"*/*/ours", []string{"Indexed/qps100/ours", "NonIndexed/unthrottled/ours"}},
		{"NonIndexed/unthrottled/ours", []string{"NonIndexed/unthrottled/ours"}},
		{"Indexed/qps100/ours/extra", nil},
	} {
		var got []string
		for _, r := range runs {
			if selectsRun(tc.pattern, r) {
				got = append(got, r)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("pattern %q selects %v, want %v", tc.pattern, got, tc.want)
		}
	}
}
