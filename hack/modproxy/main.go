// Command modproxy writes a file-system Go module proxy holding modules of
// a source tree at one version, zipped as a tag of that version would
// publish them (golang.org/x/mod/zip: the files of the module's directory
// without nested modules, vendor directories and the like). With
// GOPROXY=file://DIR,... a Go user's commands fetch them as if released,
// which shows what a release would give before it is tagged.
//
//	modproxy -out DIR -version v0.37.0 ROOT/ ROOT/controller ...
//
// Each argument is a module directory; its go.mod names the module path.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

func main() {
	out := flag.String("out", "", "directory of the proxy to write (created; existing versions are replaced)")
	version := flag.String("version", "", "version to publish every module at, such as v0.37.0")
	flag.Parse()
	if *out == "" || *version == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: modproxy -out DIR -version vX.Y.Z MODULE_DIR...")
		os.Exit(2)
	}
	for _, dir := range flag.Args() {
		path, err := publish(*out, *version, dir)
		if err != nil {
			fmt.Fprintf(os.Stderr, "modproxy: %s: %v\n", dir, err)
			os.Exit(1)
		}
		fmt.Printf("%s@%s from %s\n", path, *version, dir)
	}
}

// publish writes the .info, .mod, .zip and list files of the module in
// dir at version, and returns its path.
func publish(out, version, dir string) (string, error) {
	gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return "", err
	}
	f, err := modfile.ParseLax("go.mod", gomod, nil)
	if err != nil {
		return "", err
	}
	if f.Module == nil {
		return "", errors.New("go.mod names no module")
	}
	m := module.Version{Path: f.Module.Mod.Path, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return "", err
	}
	escaped, err := module.EscapePath(m.Path)
	if err != nil {
		return "", err
	}
	ev, err := module.EscapeVersion(m.Version)
	if err != nil {
		return "", err
	}
	vdir := filepath.Join(out, escaped, "@v")
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		return "", err
	}
	zf, err := os.Create(filepath.Join(vdir, ev+".zip"))
	if err != nil {
		return "", err
	}
	if err := modzip.CreateFromDir(zf, m, dir); err != nil {
		zf.Close()
		return "", err
	}
	if err := zf.Close(); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(vdir, ev+".mod"), gomod, 0o644); err != nil {
		return "", err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{m.Version, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(vdir, ev+".info"), info, 0o644); err != nil {
		return "", err
	}
	return m.Path, os.WriteFile(filepath.Join(vdir, "list"), []byte(m.Version+"\n"), 0o644)
}
