package interaction

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `# A comment.

job
metadata: {name: pi}
----
pi: NonIndexed

sync fail=create#2
----
create pi-a: reason
  => fails

# trailing comment
`

func TestParse(t *testing.T) {
	f, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	want := File{
		Directives: []Directive{
			{Leading: "# A comment.\n\n", Line: 3, Command: "job", Input: "metadata: {name: pi}\n", Output: "pi: NonIndexed\n"},
			{Leading: "\n", Line: 8, Command: "sync", Args: []string{"fail=create#2"}, Output: "create pi-a: reason\n  => fails\n"},
		},
		Trailing: "\n# trailing comment\n",
	}
	if d := cmp.Diff(want, f); d != "" {
		t.Errorf("Parse (-want +got):\n%s", d)
	}
	if v, ok := f.Directives[1].Arg("fail"); !ok || v != "create#2" {
		t.Errorf(`Arg("fail") = %q, %v`, v, ok)
	}
	if got := f.Rewrite([]string{f.Directives[0].Output, f.Directives[1].Output}); got != sample {
		t.Errorf("Rewrite with the same outputs changed the file:\n%s", cmp.Diff(sample, got))
	}
	rewritten := f.Rewrite([]string{"new\n", ""})
	if !strings.Contains(rewritten, "----\nnew\n\nsync fail=create#2\n----\n\n# trailing") {
		t.Errorf("Rewrite with new outputs:\n%s", rewritten)
	}
}

func TestParseRejectsMissingSeparator(t *testing.T) {
	if _, err := Parse("sync\nobserve\n"); err == nil {
		t.Error("a command without ---- was accepted")
	}
}

// FuzzParse: whatever Parse accepts, rewriting it with its own outputs and
// parsing again gives the same directives.
func FuzzParse(f *testing.F) {
	f.Add(sample)
	f.Add("sync\n----\n")
	f.Add("a b=c\nin\n----\nout\nout2\n\n\n# x\nb\n----")
	f.Fuzz(func(t *testing.T, text string) {
		file, err := Parse(text)
		if err != nil {
			return
		}
		outputs := make([]string, len(file.Directives))
		for i, d := range file.Directives {
			outputs[i] = d.Output
		}
		again, err := Parse(file.Rewrite(outputs))
		if err != nil {
			t.Fatalf("the rewritten file does not parse: %v", err)
		}
		if len(again.Directives) != len(file.Directives) {
			t.Fatalf("%d directives, then %d", len(file.Directives), len(again.Directives))
		}
		for i := range file.Directives {
			a, b := file.Directives[i], again.Directives[i]
			if a.Command != b.Command || !cmp.Equal(a.Args, b.Args) || a.Input != b.Input || a.Output != b.Output {
				t.Fatalf("directive %d changed:\n%s", i, cmp.Diff(a, b))
			}
		}
	})
}
