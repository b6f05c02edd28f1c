package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// config is the command line.
type config struct {
	out, kubernetes, etcd, work string
}

// stampFile records, in the output directory, which versions its binaries
// were built at, so that a second run with the same versions does nothing.
const stampFile = ".envtest-assets"

// build builds kube-apiserver and etcd into cfg.out.
func build(ctx context.Context, cfg config) error {
	minor, err := minorOf(cfg.kubernetes)
	if err != nil {
		return err
	}
	kubeMod, err := readGoMod(ctx, "k8s.io/kubernetes@"+cfg.kubernetes)
	if err != nil {
		return err
	}
	plan, err := planFor(kubeMod, cfg.kubernetes, cfg.etcd)
	if err != nil {
		return err
	}
	out, err := filepath.Abs(cfg.out)
	if err != nil {
		return err
	}
	if built(out, plan.stamp()) {
		logf("%s already holds kube-apiserver and etcd built at %s", out, plan.stamp())
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	work := cfg.work
	if work == "" {
		if work, err = os.MkdirTemp("", "envtest-assets"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(work, "go.mod"))
	_ = os.Remove(filepath.Join(work, "go.sum"))
	steps := [][]string{{"mod", "init", "envtest-assets"}, append([]string{"mod", "edit"}, plan.editArgs()...)}
	steps = append(steps, []string{"get", "k8s.io/kubernetes/cmd/kube-apiserver@" + cfg.kubernetes, "go.etcd.io/etcd/server/v3@" + plan.etcd})
	steps = append(steps,
		[]string{"build", "-o", filepath.Join(out, "kube-apiserver"), "-ldflags", kubeLDFlags(cfg.kubernetes, minor, time.Now()), "k8s.io/kubernetes/cmd/kube-apiserver"},
		[]string{"build", "-o", filepath.Join(out, "etcd"), "go.etcd.io/etcd/server/v3"},
	)
	for _, args := range steps {
		logf("go %s", strings.Join(args, " "))
		if err := goCmd(ctx, work, args...).Run(); err != nil {
			return fmt.Errorf("go %s: %w", args[0], err)
		}
	}
	if err := os.WriteFile(filepath.Join(out, stampFile), []byte(plan.stamp()+"\n"), 0o644); err != nil {
		return err
	}
	logf("built %s and %s (%s)", filepath.Join(out, "kube-apiserver"), filepath.Join(out, "etcd"), plan.stamp())
	return nil
}

// built reports whether out holds both binaries, built at stamp.
func built(out, stamp string) bool {
	got, err := os.ReadFile(filepath.Join(out, stampFile))
	if err != nil || strings.TrimSpace(string(got)) != stamp {
		return false
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if fi, err := os.Stat(filepath.Join(out, bin)); err != nil || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// goCmd runs the go command outside any workspace (the generated module is
// in none), with its output passed through.
func goCmd(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, goBinary(), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd
}

// goBinary is the go command of the running toolchain when known.
func goBinary() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			return p
		}
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// goMod is the part of `go mod edit -json` this command reads.
type goMod struct {
	Require []struct{ Path, Version string }
	Replace []struct {
		Old struct{ Path string }
		New struct{ Path, Version string }
	}
}

// readGoMod downloads module@version's go.mod through the module proxy and
// parses it.
func readGoMod(ctx context.Context, moduleAtVersion string) (goMod, error) {
	var info struct{ GoMod, Error string }
	dl := exec.CommandContext(ctx, goBinary(), "mod", "download", "-json", moduleAtVersion)
	dl.Env = append(os.Environ(), "GOWORK=off")
	dl.Dir = os.TempDir()
	raw, err := dl.Output()
	if jerr := json.Unmarshal(raw, &info); jerr != nil || info.GoMod == "" {
		if info.Error != "" {
			return goMod{}, fmt.Errorf("downloading %s: %s", moduleAtVersion, info.Error)
		}
		return goMod{}, fmt.Errorf("downloading %s: %v", moduleAtVersion, err)
	}
	ed := exec.CommandContext(ctx, goBinary(), "mod", "edit", "-json", info.GoMod)
	ed.Env = dl.Env
	ed.Dir = dl.Dir
	raw, err = ed.Output()
	if err != nil {
		return goMod{}, fmt.Errorf("reading %s: %w", info.GoMod, err)
	}
	var m goMod
	if err := json.Unmarshal(raw, &m); err != nil {
		return goMod{}, fmt.Errorf("reading %s: %w", info.GoMod, err)
	}
	return m, nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "envtest-assets: "+format+"\n", args...)
}
