package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// kubeGoMod is the shape of k8s.io/kubernetes's go.mod as `go mod edit
// -json` prints it, cut down to a few lines.
const kubeGoMod = `{
	"Require": [
		{"Path": "go.etcd.io/etcd/client/v3", "Version": "v3.6.8"},
		{"Path": "go.etcd.io/etcd/server/v3", "Version": "v3.6.8", "Indirect": true},
		{"Path": "k8s.io/api", "Version": "v0.0.0"}
	],
	"Replace": [
		{"Old": {"Path": "k8s.io/api"}, "New": {"Path": "./staging/src/k8s.io/api"}},
		{"Old": {"Path": "k8s.io/client-go"}, "New": {"Path": "./staging/src/k8s.io/client-go"}},
		{"Old": {"Path": "github.com/example/fork"}, "New": {"Path": "github.com/example/fork", "Version": "v1.2.3"}}
	]
}`

func parse(t *testing.T, s string) goMod {
	t.Helper()
	var m goMod
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPlanPinsStagingModulesToTheRelease(t *testing.T) {
	p, err := planFor(parse(t, kubeGoMod), "v1.37.2", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"-require=k8s.io/kubernetes@v1.37.2",
		"-require=go.etcd.io/etcd/server/v3@v3.6.8",
		"-replace=k8s.io/api=k8s.io/api@v0.37.2",
		"-replace=k8s.io/client-go=k8s.io/client-go@v0.37.2",
	}
	if got := p.editArgs(); !slices.Equal(got, want) {
		t.Errorf("go mod edit arguments:\n got %q\nwant %q", got, want)
	}
	if p.stamp() != "kubernetes v1.37.2, etcd v3.6.8" {
		t.Errorf("stamp %q", p.stamp())
	}
	if p, err := planFor(parse(t, kubeGoMod), "v1.37.2", "v3.6.9"); err != nil || p.etcd != "v3.6.9" {
		t.Errorf("-etcd-version v3.6.9: plan %+v, %v", p, err)
	}
}

func TestPlanRefusesAModuleItCannotBuild(t *testing.T) {
	if _, err := planFor(parse(t, `{"Require": [{"Path": "go.etcd.io/etcd/server/v3", "Version": "v3.6.8"}]}`), "v1.36.3", ""); err == nil {
		t.Error("a go.mod without staging replaces: no error")
	}
	noEtcd := parse(t, `{"Replace": [{"Old": {"Path": "k8s.io/api"}, "New": {"Path": "./staging/src/k8s.io/api"}}]}`)
	if _, err := planFor(noEtcd, "v1.36.3", ""); err == nil {
		t.Error("a go.mod without etcd's server and no -etcd-version: no error")
	}
	for _, v := range []string{"1.36.3", "v2.0.0", "v1.36", "latest"} {
		if _, err := minorOf(v); err == nil {
			t.Errorf("minorOf(%q): no error", v)
		}
	}
	if m, err := minorOf("v1.36.3"); err != nil || m != "36" {
		t.Errorf("minorOf(v1.36.3) = %q, %v", m, err)
	}
}

// TestLDFlagsSetTheRelease: the flags set the release in both places a
// Kubernetes binary reads it from, with a numeric major and minor.
func TestLDFlagsSetTheRelease(t *testing.T) {
	got := kubeLDFlags("v1.36.3", "36", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		for _, want := range []string{".gitVersion=v1.36.3'", ".gitMajor=1'", ".gitMinor=36'", ".gitTreeState=clean'", ".buildDate=2026-01-02T03:04:05Z'"} {
			if !strings.Contains(got, "-X '"+pkg+want) {
				t.Errorf("ldflags %q lack %s%s", got, pkg, want)
			}
		}
	}
}

// TestBuiltNeedsBothBinariesAtTheStamp: an output directory is reused only
// when it holds both executables built at the same versions.
func TestBuiltNeedsBothBinariesAtTheStamp(t *testing.T) {
	dir := t.TempDir()
	const stamp = "kubernetes v1.36.3, etcd v3.6.8"
	write := func(name, content string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(stampFile, stamp+"\n", 0o644)
	write("kube-apiserver", "x", 0o755)
	if built(dir, stamp) {
		t.Error("reused without etcd")
	}
	write("etcd", "x", 0o755)
	if !built(dir, stamp) {
		t.Error("not reused with both binaries at the same versions")
	}
	if built(dir, "kubernetes v1.37.2, etcd v3.6.8") {
		t.Error("reused for another Kubernetes release")
	}
}
