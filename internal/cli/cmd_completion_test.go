package cli

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// complete runs kvdeck as a shell's completion request does: COMP_LINE
// and COMP_POINT in the process environment (where kongplete reads them)
// and in the environment handed to Main (where kvdeck sees the request
// and the config).
func completeWords(t *testing.T, env map[string]string, line string) []string {
	t.Helper()
	t.Setenv("COMP_LINE", line)
	t.Setenv("COMP_POINT", strconv.Itoa(len(line)))
	e := map[string]string{"COMP_LINE": line, "COMP_POINT": strconv.Itoa(len(line))}
	for k, v := range env {
		e[k] = v
	}
	r := runMain(t, e, "", nil)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("completing %q: %+v", line, r)
	}
	words := lines(r.stdout)
	slices.Sort(words)
	return words
}

func TestCompletion(t *testing.T) {
	env := storesEnv(t)
	configFile(t, env, "[stores.prod-eu]\nurl = \"a.db\"\ngroup = \"prod\"\n[stores.dev]\nurl = \"b.db\"\ngroup = \"dev\"\n[stores.prod-us]\nurl = \"c.db\"\ngroup = \"prod\"\n", 0o600)
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"kvdeck --store ", []string{"dev", "prod-eu", "prod-us"}},
		{"kvdeck -s prod", []string{"prod-eu", "prod-us"}},
		{"kvdeck get --store d", []string{"dev"}},
		{"kvdeck stores show ", []string{"dev", "prod-eu", "prod-us"}},
		{"kvdeck stores remove p", []string{"prod-eu", "prod-us"}},
		{"kvdeck sto", []string{"stores"}},
		{"kvdeck stores ", []string{"add", "discover", "list", "remove", "show"}},
		{"kvdeck completion ", []string{"bash", "fish", "zsh"}},
		{"kvdeck --the", []string{"--theme"}},
		{"kvdeck --theme ", []string{"auto", "dark", "high-contrast", "light"}},
		{"kvdeck list --wh", []string{"--where"}},
		{"kvdeck fleet doctor --group ", []string{"dev", "prod"}},
		{"kvdeck stores list -g p", []string{"prod"}},
	} {
		if got := completeWords(t, env, tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("%q completes to %q, want %q", tc.line, got, tc.want)
		}
	}
	// No config: --store offers nothing, and says nothing.
	if got := completeWords(t, map[string]string{}, "kvdeck --store "); len(got) != 0 {
		t.Errorf("no config: %q", got)
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "complete -C /opt/kv/kvdeck kvdeck\n",
		"zsh":  "bashcompinit\ncomplete -C /opt/kv/kvdeck kvdeck\n",
		"fish": "set -lx COMP_LINE (commandline -cp)",
	} {
		var b strings.Builder
		if err := writeCompletion(&b, shell, "kvdeck", "/opt/kv/kvdeck"); err != nil || !strings.Contains(b.String(), want) {
			t.Errorf("%s: %v\n%s", shell, err, b.String())
		}
	}
	var b strings.Builder
	_ = writeCompletion(&b, "bash", "kvdeck", "/home/o'brien/my bin/kvdeck")
	if !strings.Contains(b.String(), `complete -C '/home/o'\''brien/my bin/kvdeck' kvdeck`) {
		t.Errorf("quoting: %s", b.String())
	}
	if r := runMain(t, nil, "", []string{"completion", "bash"}); r.code != 0 || !strings.HasPrefix(lines(r.stdout)[1], "complete -C /") {
		t.Errorf("kvdeck completion bash: %+v", r)
	}
}
