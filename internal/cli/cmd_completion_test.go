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
		{"kvdeck fleet --group ", []string{"dev", "prod"}}, // fleet status, the default
		{"kvdeck fleet -g d", []string{"dev"}},
		{"kvdeck fleet find --group ", []string{"dev", "prod"}},
		{"kvdeck fleet ", []string{"doctor", "find", "status"}},
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

// TestCompletionScripts: the scripts call kvdeck by the name it was
// invoked as, found on PATH when the shell completes, never by a path:
// `go run . completion bash` pinned a build cache's.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{
		"bash": "\ncomplete -C kvdeck kvdeck\n",
		"zsh":  "bashcompinit\ncomplete -C kvdeck kvdeck\n",
		"fish": "set -lx COMP_LINE (commandline -cp)",
	} {
		var b strings.Builder
		if err := writeCompletion(&b, shell, "kvdeck"); err != nil || !strings.Contains(b.String(), want) {
			t.Errorf("%s: %v\n%s", shell, err, b.String())
		}
	}
	for argv0, want := range map[string]string{
		"":                                    "complete -C kvdeck kvdeck",
		"/tmp/go-build1234/b001/exe/kvdeck":   "complete -C kvdeck kvdeck",
		"./kvd":                               "complete -C kvd kvd",
		"/home/o'brien/my bin/kvdeck":         "complete -C kvdeck kvdeck",
		"/home/o'brien/bin/kv deck; rm -rf ~": "complete -C kvdeck kvdeck",
	} {
		var opts []Option
		if argv0 != "" {
			opts = append(opts, WithName(argv0))
		}
		r := runMain(t, nil, "", []string{"completion", "bash"}, opts...)
		if r.code != 0 || len(lines(r.stdout)) != 2 || lines(r.stdout)[1] != want {
			t.Errorf("kvdeck completion bash, invoked as %q: %+v, want %q", argv0, r, want)
		}
	}
}
