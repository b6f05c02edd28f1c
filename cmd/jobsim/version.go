package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// referenceVersion is the Kubernetes release whose Job controller jobsync
// decides as.
const referenceVersion = "v1.36.3"

// versionText is what 'jobsim version' prints: jobsim's module version and
// VCS revision as the Go toolchain recorded them, the Go version, and the
// Kubernetes release it follows.
func versionText() string {
	version, revision, goVersion := "(unknown)", "", ""
	if info, ok := debug.ReadBuildInfo(); ok {
		version, goVersion = info.Main.Version, info.GoVersion
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					revision += " (modified)"
				}
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "jobsim %s\n", version)
	if revision != "" {
		fmt.Fprintf(&b, "revision: %s\n", revision)
	}
	if goVersion != "" {
		fmt.Fprintf(&b, "go: %s\n", goVersion)
	}
	fmt.Fprintf(&b, "decides as: the Job controller of Kubernetes %s (default feature gates)\n", referenceVersion)
	return b.String()
}
