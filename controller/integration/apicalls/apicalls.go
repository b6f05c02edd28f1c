// Package apicalls names the requests a client sends to the API server,
// for the tests that count a controller's calls by verb and resource.
//
// The name is the one the API server's audit log gives a request, read by
// the API server's own parser of request paths (k8s.io/apiserver's
// RequestInfoFactory), so that "list", "watch" and "deletecollection" are
// told apart exactly as the server tells them apart.
package apicalls

import (
	"net/http"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// parser reads request paths as a kube-apiserver serving the core group
// under /api and the others under /apis does.
var parser = request.RequestInfoFactory{
	APIPrefixes:          sets.NewString("api", "apis"),
	GrouplessAPIPrefixes: sets.NewString("api"),
}

// Name is "verb resource" for a request to the resource API, the resource
// with its subresource ("update jobs/status", "patch pods", "watch pods"),
// and "METHOD path" for any other request (/healthz, /version, discovery).
func Name(req *http.Request) string {
	info, err := parser.NewRequestInfo(req)
	if err != nil || !info.IsResourceRequest {
		return req.Method + " " + req.URL.Path
	}
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	return info.Verb + " " + resource
}
