package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
	"github.com/posener/complete"
	"github.com/willabides/kongplete"

	"kvdeck/internal/storeconfig"
)

// completeLine answers a shell's completion request: the shell runs
// kvdeck with COMP_LINE (and COMP_POINT) set, and kongplete prints the
// words that may follow, from the kong model: commands, flags, enum
// values, and the saved stores' names for --store and the stores
// commands that take a name (the "store" predictor). It returns the exit
// code.
func completeLine(parser *kong.Kong, env map[string]string) int {
	cmd, err := kongplete.Command(parser,
		kongplete.WithPredictor("store", storePredictor(env)),
		kongplete.WithPredictor("group", groupPredictor(env)),
	)
	if err != nil {
		return CodeError // a completion prints no error
	}
	withDefaultFlags(parser.Model.Node, &cmd)
	c := complete.New(parser.Model.Name, cmd)
	c.Out = parser.Stdout
	c.Complete()
	return 0
}

// withDefaultFlags gives a command with a default subcommand (fleet's
// status) that subcommand's flags, as the parser does: `kvdeck fleet
// --group <TAB>` then offers groups, not the subcommands.
func withDefaultFlags(node *kong.Node, cmd *complete.Command) {
	for _, child := range node.Children {
		sub, ok := cmd.Sub[child.Name]
		if !ok {
			continue
		}
		withDefaultFlags(child, &sub)
		cmd.Sub[child.Name] = sub
	}
	if node.DefaultCmd == nil {
		return
	}
	for name, p := range cmd.Sub[node.DefaultCmd.Name].GlobalFlags {
		if _, ok := cmd.GlobalFlags[name]; !ok {
			cmd.GlobalFlags[name] = p
		}
	}
}

// storePredictor offers the names of the saved stores of env's config; a
// missing or unreadable config offers none (a completion prints no error).
func storePredictor(env map[string]string) complete.Predictor {
	return configPredictor(env, (*storeconfig.Config).Names)
}

// groupPredictor offers the groups of the saved stores (--group).
func groupPredictor(env map[string]string) complete.Predictor {
	return configPredictor(env, func(c *storeconfig.Config) []string {
		var out []string
		for _, s := range c.Stores {
			if s.Group != "" && !slices.Contains(out, s.Group) {
				out = append(out, s.Group)
			}
		}
		slices.Sort(out)
		return out
	})
}

// configPredictor offers what words takes from env's config, nothing
// when there is none or it does not parse.
func configPredictor(env map[string]string, words func(*storeconfig.Config) []string) complete.Predictor {
	return complete.PredictFunc(func(complete.Args) []string {
		path, err := storeconfig.Path(env)
		if err != nil {
			return nil
		}
		cfg, err := storeconfig.Load(path)
		if err != nil {
			return nil
		}
		return words(cfg)
	})
}

// ShellCmd (kvdeck completion SHELL) prints the shell code that makes the shell ask kvdeck
// for completions.
type ShellCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"bash, zsh or fish."`
}

// Run prints the script for the shell, which calls kvdeck by the name
// it was invoked as (found on PATH when the shell completes), as other
// Go CLIs' scripts do: never a path, which `go run` makes a build
// cache's.
func (c *ShellCmd) Run(app *App) error {
	return writeCompletion(outWriter{app.Out}, c.Shell, app.name)
}

// programName is the name kvdeck was invoked as (argv[0]) without its
// directory; kvdeck when it is not a plain word (the completion scripts
// name it unquoted, fish in a function's name).
func programName(argv0 string) string {
	name := filepath.Base(argv0)
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
		return "kvdeck"
	}
	return name
}

// writeCompletion writes the completion script of shell for the command
// cmd: bash and zsh (through bashcompinit) call it with COMP_LINE set
// (`complete -C`); fish sets COMP_LINE itself. The same scripts as
// kongplete's installer, calling the command by its name.
func writeCompletion(w io.Writer, shell, cmd string) error {
	var s string
	switch shell {
	case "bash":
		s = "# kvdeck completion for bash: source <(" + cmd + " completion bash), or add that line to ~/.bashrc\n" +
			"complete -C " + cmd + " " + cmd + "\n"
	case "zsh":
		s = "# kvdeck completion for zsh: source <(" + cmd + " completion zsh), or add that line to ~/.zshrc\n" +
			"autoload -U +X bashcompinit && bashcompinit\n" +
			"complete -C " + cmd + " " + cmd + "\n"
	case "fish":
		s = "# kvdeck completion for fish: " + cmd + " completion fish > ~/.config/fish/completions/" + cmd + ".fish\n" +
			"function __complete_" + cmd + "\n" +
			"    set -lx COMP_LINE (commandline -cp)\n" +
			"    test -z (commandline -ct)\n" +
			"    and set COMP_LINE \"$COMP_LINE \"\n" +
			"    " + cmd + "\n" +
			"end\n" +
			"complete -f -c " + cmd + " -a \"(__complete_" + cmd + ")\"\n"
	default:
		return fmt.Errorf("completion %s: want bash, zsh or fish", shown(shell))
	}
	_, err := io.WriteString(w, s)
	return err
}

// shellQuote quotes s for sh, bash, zsh and fish alike (single quotes; a
// single quote inside is closed, escaped and reopened).
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// outWriter writes raw text through the Printer (the script must reach
// stdout as is: it holds no stored data).
type outWriter struct{ p *Printer }

func (o outWriter) Write(b []byte) (int, error) {
	o.p.Textf("%s", strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
