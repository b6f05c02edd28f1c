package main

import (
	"os"
	"regexp"
	"testing"
)

// TestDefaultIsTheIntegrationModulesRelease: envtest suites run the
// Kubernetes release the integration module's in-process API server runs,
// so that both kinds of test meet the same API server.
func TestDefaultIsTheIntegrationModulesRelease(t *testing.T) {
	mod, err := os.ReadFile("../../integration/go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/kubernetes (v\S+)`).FindSubmatch(mod)
	if m == nil {
		t.Fatal("controller/integration/go.mod requires no k8s.io/kubernetes")
	}
	if got := string(m[1]); got != DefaultKubernetesVersion {
		t.Errorf("controller/integration requires k8s.io/kubernetes %s, DefaultKubernetesVersion is %s", got, DefaultKubernetesVersion)
	}
}
