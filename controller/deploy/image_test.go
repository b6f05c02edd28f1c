// Package deploy holds the shipped manifests and Dockerfile; its test
// checks what can be checked of the image without a container engine.
package deploy

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes/scheme"
)

// stage is one FROM ... stage of a Dockerfile, its instructions joined
// across continuation lines.
type stage struct {
	from  string
	lines []string
}

func parseDockerfile(t *testing.T, path string) []stage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages []stage
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(rest)
			continue
		}
		cur.WriteString(line)
		instr := cur.String()
		cur.Reset()
		if from, ok := strings.CutPrefix(instr, "FROM "); ok {
			stages = append(stages, stage{from: from})
			continue
		}
		if len(stages) == 0 {
			t.Fatalf("%s: %q before any FROM", path, instr)
		}
		stages[len(stages)-1].lines = append(stages[len(stages)-1].lines, instr)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return stages
}

// TestImage checks the Dockerfile's promises where no Docker engine runs:
// the final stage is FROM scratch and holds only the binary, run as a
// non-root user the Deployment runs as too; and the binary, built with the
// builder stage's own command line, is static (no program interpreter, no
// shared library), so it can run on scratch.
func TestImage(t *testing.T) {
	stages := parseDockerfile(t, "Dockerfile")
	if len(stages) != 2 {
		t.Fatalf("the Dockerfile has %d stages, want a builder and the image", len(stages))
	}
	build, final := stages[0], stages[1]
	if final.from != "scratch" {
		t.Errorf("the image is FROM %q, want scratch", final.from)
	}
	var user, entrypoint, copied string
	for _, l := range final.lines {
		verb, rest, _ := strings.Cut(l, " ")
		switch verb {
		case "USER":
			user = rest
		case "ENTRYPOINT":
			entrypoint = rest
		case "COPY":
			f := strings.Fields(rest)
			if len(f) != 3 || !strings.HasPrefix(f[0], "--from=") {
				t.Errorf("the image copies %q; want one file from the builder", rest)
				continue
			}
			copied = f[2]
		default:
			t.Errorf("the image has %q; want only COPY, USER and ENTRYPOINT", l)
		}
	}
	uid, gid, _ := strings.Cut(user, ":")
	u, errU := strconv.Atoi(uid)
	g, errG := strconv.Atoi(gid)
	if errU != nil || errG != nil || u == 0 || g == 0 {
		t.Errorf("USER %q: want numeric, non-root uid:gid (scratch has no /etc/passwd)", user)
	}
	if entrypoint != `["`+copied+`"]` {
		t.Errorf("ENTRYPOINT %s does not run the copied %s", entrypoint, copied)
	}
	checkDeploymentUser(t, u, g)

	// The builder's go build, run here as written (its output path
	// redirected), from the module directory it cds into.
	var goBuild string
	for _, l := range build.lines {
		if strings.Contains(l, "go build") {
			goBuild = strings.TrimPrefix(l, "RUN ")
		}
	}
	cmdLine, ok := strings.CutPrefix(goBuild, "cd controller && ")
	if !ok {
		t.Fatalf("the builder's go build %q: want it run in controller/", goBuild)
	}
	bin := filepath.Join(t.TempDir(), "jobsync-controller")
	args, env := splitCommand(t, cmdLine)
	for i, a := range args {
		if a == "-o" && i+1 < len(args) {
			args[i+1] = bin
		}
	}
	if env["CGO_ENABLED"] != "0" {
		t.Errorf("the builder builds with CGO_ENABLED=%q, want 0", env["CGO_ENABLED"])
	}
	// GOWORK=off needs the library at the version go.mod requires, which
	// the Docker build gets from the checkout; here the workspace gives it.
	delete(env, "GOWORK")
	cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
	cmd.Dir = ".."
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmdLine, err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("the binary has a %v program header: it is dynamically linked", p.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err == nil && len(libs) > 0 {
		t.Errorf("the binary needs shared libraries %v", libs)
	}
	if f.Type != elf.ET_EXEC {
		t.Errorf("the binary is %v, want a static executable (ET_EXEC)", f.Type)
	}
}

// splitCommand splits "A=1 B=2 go build ..." into the command's words and
// its environment, with the quotes of -ldflags="-s -w" removed.
func splitCommand(t *testing.T, s string) ([]string, map[string]string) {
	t.Helper()
	var words []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	env := map[string]string{}
	for len(words) > 0 {
		k, v, ok := strings.Cut(words[0], "=")
		if !ok || strings.HasPrefix(k, "-") {
			break
		}
		env[k] = v
		words = words[1:]
	}
	if len(words) < 2 || words[0] != "go" || words[1] != "build" {
		t.Fatalf("%q is not a go build", s)
	}
	return words, env
}

// checkDeploymentUser: the Deployment runs the pod as the image's user,
// non-root, with a read-only root filesystem (the binary writes nothing).
func checkDeploymentUser(t *testing.T, uid, gid int) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("base", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		t.Fatalf("deployment.yaml holds a %T", obj)
	}
	sc := d.Spec.Template.Spec.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != int64(uid) ||
		sc.RunAsGroup == nil || *sc.RunAsGroup != int64(gid) {
		t.Errorf("the Deployment's pod security context %+v; want runAsNonRoot as %d:%d, the image's user", sc, uid, gid)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
			t.Errorf("container %s: want a read-only root filesystem", c.Name)
		}
	}
}
