package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// plan is what the generated module pins: each staging module of
// k8s.io/kubernetes to its release, and etcd's server.
type plan struct {
	kubernetes string
	staging    map[string]string // module path => version
	etcd       string
}

var releaseVersion = regexp.MustCompile(`^v1\.(\d+)\.(\d+)(-[0-9A-Za-z.-]+)?$`)

// minorOf returns the minor version of a Kubernetes release ("36" for
// v1.36.3).
func minorOf(version string) (string, error) {
	m := releaseVersion.FindStringSubmatch(version)
	if m == nil {
		return "", fmt.Errorf("%q is not a Kubernetes release version such as %s", version, DefaultKubernetesVersion)
	}
	return m[1], nil
}

// stagingVersion is the release of the staging modules that matches a
// Kubernetes release: v0.36.3 for v1.36.3.
func stagingVersion(kubernetes string) string {
	return "v0." + strings.TrimPrefix(kubernetes, "v1.")
}

// planFor reads k8s.io/kubernetes's go.mod: its replaces of staging modules
// by local directories become pins to the matching release, and the etcd
// server it requires is built unless etcd names another version.
func planFor(kube goMod, kubernetes, etcd string) (plan, error) {
	p := plan{kubernetes: kubernetes, staging: map[string]string{}, etcd: etcd}
	for _, r := range kube.Replace {
		if strings.HasPrefix(r.New.Path, "./staging/") && r.New.Version == "" {
			p.staging[r.Old.Path] = stagingVersion(kubernetes)
		}
	}
	if len(p.staging) == 0 {
		return plan{}, fmt.Errorf("k8s.io/kubernetes %s replaces no staging module: not a release this command knows how to build", kubernetes)
	}
	if p.etcd == "" {
		for _, r := range kube.Require {
			if r.Path == "go.etcd.io/etcd/server/v3" {
				p.etcd = r.Version
			}
		}
	}
	if p.etcd == "" {
		return plan{}, fmt.Errorf("k8s.io/kubernetes %s does not require go.etcd.io/etcd/server/v3: give -etcd-version", kubernetes)
	}
	return p, nil
}

// editArgs are the `go mod edit` flags that write the plan into the
// generated module, in a stable order.
func (p plan) editArgs() []string {
	args := []string{"-require=k8s.io/kubernetes@" + p.kubernetes, "-require=go.etcd.io/etcd/server/v3@" + p.etcd}
	paths := make([]string, 0, len(p.staging))
	for path := range p.staging {
		paths = append(paths, path)
	}
	slices.Sort(paths)
	for _, path := range paths {
		args = append(args, "-replace="+path+"="+path+"@"+p.staging[path])
	}
	return args
}

// stamp names the versions built.
func (p plan) stamp() string {
	return "kubernetes " + p.kubernetes + ", etcd " + p.etcd
}

// kubeLDFlags sets the version variables a Kubernetes release build sets
// (hack/lib/version.sh upstream), so that the server reports its release
// on /version and derives its compatibility version from it.
func kubeLDFlags(kubernetes, minor string, now time.Time) string {
	vars := [][2]string{
		{"gitVersion", kubernetes},
		{"gitMajor", "1"},
		{"gitMinor", minor},
		{"gitTreeState", "clean"},
		{"buildDate", now.UTC().Format("2006-01-02T15:04:05Z")},
	}
	var flags []string
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, v := range vars {
			flags = append(flags, "-X '"+pkg+"."+v[0]+"="+v[1]+"'")
		}
	}
	return strings.Join(flags, " ")
}
