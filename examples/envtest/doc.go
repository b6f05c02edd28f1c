// Package runner is a small controller of the kind whose tests need Jobs
// that finish: for each ConfigMap labelled example.com/run it runs a Job
// (the ConfigMap's "command", "backoffLimit" and "suspend" entries shape
// it) and writes the Job's outcome back as the ConfigMap's "result".
//
// Its test suite (suite_test.go) is a controller-runtime envtest suite
// written with Ginkgo, as kubebuilder lays them out; jobtest.Start gives
// the test API server the Job controller and kubelets it lacks, so the
// Jobs complete, fail, and suspend and resume as on a cluster. Run it with
// envtest's binaries built by the controller module's envtest-assets
// command:
//
//	(cd controller && go run ./cmd/envtest-assets -o /tmp/envtest-assets)
//	cd examples/envtest && KUBEBUILDER_ASSETS=/tmp/envtest-assets go test ./...
//
// The module finds github.com/jobsync/jobsync and its controller module
// through the repository's go.work, so its go.mod requires neither (nor
// replaces them); a project of its own would require their releases.
package runner
