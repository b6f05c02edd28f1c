module github.com/jobsync/jobsync/alpha/workload136

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/jobsync/jobsync v0.37.0
	k8s.io/api v0.36.3
	k8s.io/apimachinery v0.36.3
	sigs.k8s.io/yaml v1.6.0
)
