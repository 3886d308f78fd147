package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/kong"

	"kvdeck/internal/demo"
	"kvdeck/internal/editsession"
	"kvdeck/internal/usertext"
	"kvdeck/store"
)

// Option configures Main.
type Option func(*options)

type options struct {
	tui          TUIRunner
	demoProgress func(demo.Summary)
	wrapRecorder func(store.Recorder) store.Recorder
	terminal     func(io.Reader) bool
	name         string
}

// WithTUI hands Main the function that shows the TUI (main.go passes one
// that calls tui.Run). Without it the tui command says the build has none.
func WithTUI(run TUIRunner) Option { return func(o *options) { o.tui = run } }

// WithName gives Main the name kvdeck was invoked as (os.Args[0]): the
// completion scripts call it by that name. Without it, kvdeck.
func WithName(argv0 string) Option { return func(o *options) { o.name = programName(argv0) } }

// WithDemoProgress hands `kvdeck demo` a function called after every poll
// cycle of its simulation (demo.SimConfig.Progress), so that a test can
// stop the demo once the activity it waits for happened, however slow the
// machine.
func WithDemoProgress(fn func(demo.Summary)) Option {
	return func(o *options) { o.demoProgress = fn }
}

// jsonDefaulter is implemented by commands whose output is JSON unless
// --output text is given (dump: its lines are load's input).
type jsonDefaulter interface{ DefaultJSON() bool }

// kongExit carries the code kong asked to exit with (after --help) out of
// the parser without ending the process.
type kongExit int

// Main runs kvdeck with args (without the program name), the given
// streams and environment, and returns the exit code. It never calls
// os.Exit, so tests run it in-process.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env map[string]string, opts ...Option) int {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	errw := &redactor{w: stderr, secrets: secrets(args, env)}
	var root Root
	parser, err := newParser(&root, stdout, errw)
	if err != nil {
		fmt.Fprintf(errw, "kvdeck: %v\n", err)
		return CodeError
	}
	if env["COMP_LINE"] != "" {
		return completeLine(parser, env) // the shell asks for completions (cmd_completion.go)
	}
	kctx, exit, err := parse(parser, args)
	switch {
	case exit >= 0:
		return exit
	case err != nil:
		fmt.Fprintf(errw, "kvdeck: %s\n", parseErrorText(err))
		return CodeError
	}
	// The edit folders a TUI killed with SIGKILL left (no code of its
	// ran) go at the next command of any kind, once their editor ended.
	editsession.RemoveStale(editsession.BaseOf(env["XDG_RUNTIME_DIR"]))
	vc, err := settleGlobals(ctx, kctx, &root.Globals, env, errw)
	if err != nil {
		fmt.Fprintf(errw, "kvdeck: %v\n", err)
		return CodeError
	}
	app := newApp(ctx, kctx, root.Globals, o, stdin, stdout, errw, env, vc)
	if app.writes != "" {
		// The one early refusal: before Run reads any input or opens
		// anything (a load of a large stdin is not read to be refused).
		if err := app.readOnlyRefusal(app.writes); err != nil {
			fmt.Fprintf(errw, "kvdeck: %v\n", err)
			return ExitCode(err)
		}
	}
	return run(kctx, app, errw)
}

// newApp is the App the parsed command kctx runs with: the settled
// globals g and clock vc, the streams (errw already scrubs secrets) and
// the options o.
func newApp(ctx context.Context, kctx *kong.Context, g Globals, o options, stdin io.Reader, stdout io.Writer, errw *redactor, env map[string]string, vc *store.VirtualClock) *App {
	jsonDefault, writes := traits(kctx)
	app := &App{
		Globals:      g,
		Out:          newPrinter(stdout, g.JSON(jsonDefault)),
		Stdin:        stdin,
		Stderr:       errw,
		Env:          env,
		Clock:        vc,
		ctx:          store.WithWriteOp(ctx, commandOp(kctx)),
		tui:          o.tui,
		demoProgress: o.demoProgress,
		wrapRecorder: o.wrapRecorder,
		terminal:     o.terminal,
		name:         cmp.Or(o.name, "kvdeck"),
		command:      commandOp(kctx),
		writes:       writes,
	}
	if app.terminal == nil {
		app.terminal = stdinTerminal
	}
	return app
}

// settleGlobals checks the global flags, resolves a saved store (its
// token joins the secrets errw scrubs) and builds the clock.
func settleGlobals(ctx context.Context, kctx *kong.Context, g *Globals, env map[string]string, errw *redactor) (*store.VirtualClock, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	token, err := resolveSaved(ctx, kctx, g, env)
	if err != nil {
		return nil, err
	}
	errw.secrets = append(errw.secrets, token)
	return g.clock()
}

// newParser builds kong's parser of the command tree into root; help and
// errors go to stdout and errw, and kong's exits come back as panics that
// parse turns into codes.
func newParser(root *Root, stdout, errw io.Writer) (*kong.Kong, error) {
	return kong.New(root,
		kong.Name("kvdeck"),
		kong.Description("A terminal explorer and scriptable CLI for a Deno-KV-like coordination store kept in libSQL."),
		kong.Writers(stdout, errw),
		kong.Exit(func(code int) { panic(kongExit(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
}

// traits are what the selected command declares of itself: whether its
// output defaults to JSON (jsonDefaulter) and what it writes (writer).
func traits(kctx *kong.Context) (jsonDefault bool, writes string) {
	node := kctx.Selected()
	if node == nil || !node.Target.CanAddr() {
		return false, ""
	}
	cmd := node.Target.Addr().Interface()
	if d, ok := cmd.(jsonDefaulter); ok {
		jsonDefault = d.DefaultJSON()
	}
	if w, ok := cmd.(writer); ok {
		writes = w.Writes()
	}
	return jsonDefault, writes
}

// run runs the command, flushes its output and says its error on errw
// (an interrupt and a journal failure with what to do); the exit code.
func run(kctx *kong.Context, app *App, errw io.Writer) int {
	start := time.Now()
	err := kctx.Run(app)
	app.close()
	if app.Globals.Stats {
		fmt.Fprintf(errw, "kvdeck: stats: %s\n", costText(app.cost, time.Since(start)))
	}
	if ferr := app.Out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	if err != nil {
		if msg := err.Error(); msg != "" {
			if errors.Is(err, context.Canceled) {
				msg = interruptedText(msg)
			}
			if errors.Is(err, store.ErrJournal) {
				msg += "; " + journalHint
			}
			fmt.Fprintf(errw, "kvdeck: %s\n", msg)
		}
	}
	return ExitCode(err)
}

// parse runs kong's parser; exit is the code kong asked for (help), or -1.
func parse(parser *kong.Kong, args []string) (kctx *kong.Context, exit int, err error) {
	defer func() {
		if r := recover(); r != nil {
			code, ok := r.(kongExit)
			if !ok {
				panic(r)
			}
			kctx, exit, err = nil, int(code), nil
		}
	}()
	kctx, err = parser.Parse(args)
	return kctx, -1, err
}

// parseErrorText is kong's refusal of the command line, pointing to the
// help of the command that was being typed ("kvdeck watch --help", not
// "kvdeck --help"), and saying in words which argument is missing and what
// it is where kong says only `expected "<key> ..."`.
func parseErrorText(err error) string {
	path, msg := "kvdeck", err.Error()
	var pe *kong.ParseError
	if !errors.As(err, &pe) || pe.Context == nil {
		return msg + " (see kvdeck --help)"
	}
	node := pe.Context.Selected()
	if node == nil || node.Name == "tui" && strings.HasPrefix(msg, "unexpected argument") {
		// An unknown command word lands on the default command (tui).
		return msg + " (see kvdeck --help)"
	}
	path = node.FullPath()
	if rest, ok := strings.CutPrefix(msg, `expected "<`); ok {
		name, _, _ := strings.Cut(rest, ">")
		msg = strings.TrimPrefix(path, "kvdeck ") + ": missing " + strings.ToUpper(name)
		if strings.Contains(rest, "...") {
			msg += "..."
		}
		for _, arg := range node.Positional {
			if arg.Name == name && arg.Help != "" {
				help := strings.TrimSuffix(arg.Help, ".")
				msg += ": " + strings.ToLower(help[:1]) + help[1:]
			}
		}
	}
	return msg + " (see " + path + " --help)"
}

// secrets collects the auth tokens Main can see: the values given to
// --auth-token and to every flag of a side's own token (--a-auth-token,
// --from-auth-token, …), and the variables whose name ends in
// AUTH_TOKEN (KVDECK_AUTH_TOKEN, KVDECK_DIFF_A_AUTH_TOKEN, …).
func secrets(args []string, env map[string]string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			break
		}
		flag, v, hasValue := strings.Cut(a, "=")
		if !strings.HasPrefix(flag, "--") || !strings.HasSuffix(flag, "auth-token") {
			continue
		}
		if hasValue {
			out = append(out, v)
		} else if i+1 < len(args) {
			out = append(out, args[i+1])
		}
	}
	for name, v := range env {
		if strings.HasSuffix(name, "AUTH_TOKEN") {
			out = append(out, v)
		}
	}
	return out
}

// redactor replaces every known secret in what is written to it, so that
// no error message (kong's included) can show the token, and then applies
// the terminal-safety rule (usertext.SanitizeLines): an error that quotes
// a stored name or a typed argument cannot act on the terminal.
type redactor struct {
	w       io.Writer
	mu      sync.Mutex
	secrets []string
}

// add makes secret one of those never written (a token had after the
// command started: a saved store's, a minted one), safe beside Write.
func (r *redactor) add(secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, secret)
}

// Write redacts p and writes it; it reports len(p) on success.
func (r *redactor) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := string(p)
	for _, sec := range r.secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "<redacted>")
		}
	}
	if _, err := io.WriteString(r.w, usertext.SanitizeLines(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// interruptedText says "interrupted" in words instead of Go's "context
// canceled", keeping what the command was doing when the error says it:
// "stats: context canceled" becomes "interrupted (stats)".
func interruptedText(msg string) string {
	rest := strings.TrimSuffix(strings.TrimSuffix(msg, context.Canceled.Error()), ": ")
	if rest == "" || rest == msg {
		if rest == msg && msg != context.Canceled.Error() {
			return "interrupted: " + msg
		}
		return "interrupted"
	}
	return "interrupted (" + rest + ")"
}
