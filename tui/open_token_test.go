package tui

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/teatest"

	"kvdeck/internal/storetest"
	"kvdeck/store"
	"kvdeck/themes"
	"kvdeck/views"
	"kvdeck/views/viewtest"
)

// recorder is an app whose every screen byte is kept.
type recorder struct {
	*app
	screen bytes.Buffer
}

// waitFor waits for texts and keeps what was drawn meanwhile.
func (r *recorder) waitFor(texts ...string) {
	r.t.Helper()
	teatest.WaitFor(r.t, r.tm.Output(), func(b []byte) bool {
		for _, s := range texts {
			if !bytes.Contains(b, []byte(s)) {
				return false
			}
		}
		r.screen.Write(b)
		return true
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

// finish quits and returns the final model, with the rest of the screen
// kept.
func (r *recorder) finish() model {
	r.t.Helper()
	r.keys("ctrl+c")
	m := r.tm.FinalModel(r.t, teatest.WithFinalTimeout(10*time.Second)).(model)
	rest, _ := io.ReadAll(r.tm.FinalOutput(r.t))
	r.screen.Write(rest)
	return m
}

// notRepeated types the command line, which holds secret, then enter;
// once the screen shows after, no line drawn since enter may show secret
// (what says fails).
func (r *recorder) notRepeated(line, secret, after, what string) {
	r.t.Helper()
	r.keys(":")
	r.tm.Type(line)
	r.waitFor(secret)
	r.screen.Reset() // what was typed shows while typing; what follows must not
	r.keys("enter")
	r.waitFor(after)
	if strings.Contains(r.screen.String(), secret) {
		r.t.Errorf("%s", what)
	}
}

// TestOpenNeverShowsATokenOnScreen: :open URL --auth-token asks for the
// token at a prompt that shows asterisks, hands it to OpenWithToken and
// forgets it; a token inside a typed URL is not repeated by the
// "opening"/"cannot open" lines (before the fix the
// error line echoed the typed URL whole).
func TestOpenNeverShowsATokenOnScreen(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	var mu sync.Mutex
	var given []string
	cfg := Config{Clock: clock, Refresh: time.Hour,
		Open: func(ctx context.Context, url string) (*store.Store, error) {
			return store.Open(ctx, url, store.Options{Clock: clock.Now})
		},
		OpenWithToken: func(_ context.Context, url, token string) (*store.Store, error) {
			mu.Lock()
			given = append(given, url+" "+token)
			mu.Unlock()
			return nil, errors.New("the server refused it")
		},
	}
	m := newModel(s, cfg, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	r := &recorder{app: &app{t: t, s: s, clock: clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))}}
	r.waitFor(`"accounts"`)

	// a token in the URL: the user typed it, but no line repeats it
	r.notRepeated("open http://127.0.0.1:1/db?authToken=URLSECRET1", "URLSECRET1", "cannot open http://127.0.0.1:1/db?…",
		"a line after :open shows the token typed in the URL")
	// --auth-token=VALUE is refused without repeating it
	r.notRepeated("open http://127.0.0.1:1 --auth-token=INLINESECRET", "INLINESECRET", "give it at the prompt",
		"the refusal of --auth-token=VALUE shows the token")

	// the prompt: asterisks on screen, the token to OpenWithToken only
	r.screen.Reset()
	r.command("open http://127.0.0.1:1 --auth-token")
	r.waitFor("auth token for http://127.0.0.1:1:")
	r.tm.Type("PROMPTSECRET")
	r.waitFor(strings.Repeat("*", len("PROMPTSECRET")))
	r.keys("enter")
	r.waitFor("cannot open http://127.0.0.1:1: the server refused it")
	final := r.finish()
	if strings.Contains(r.screen.String(), "PROMPTSECRET") {
		t.Errorf("the token typed at the prompt reached the screen")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(given) != 1 || given[0] != "http://127.0.0.1:1 PROMPTSECRET" {
		t.Errorf("OpenWithToken got %q", given)
	}
	if c := final.cmdline(); c != nil {
		t.Errorf("the command line kept the prompt's state: %q %q %v %q", c.askingFor, c.input.Value(), c.input.EchoMode, c.input.Prompt)
	}
}

// TestFlashAndLogAreTerminalSafe: a message carrying escape sequences (an
// error quoting a stored name, say) reaches neither the flash line nor
// the :log raw; it shows escaped.
func TestFlashAndLogAreTerminalSafe(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, storetest.CopyReference(t), clock, false)
	m := newModel(s, Config{Clock: clock, Refresh: time.Hour}, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	r := &recorder{app: &app{t: t, s: s, clock: clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))}}
	r.waitFor(`"accounts"`)
	r.tm.Send(views.FlashMsg{Level: views.FlashError, Text: "holder \x1b]52;c;cHduZWQ=\x07 \u009b2J \u202eevil"})
	r.waitFor(`holder \u001b]52;c;cHduZWQ=\u0007 \u009b2J \u202eevil`)
	r.command("log")
	r.waitFor("MESSAGE LOG", `\u001b]52;c;cHduZWQ=`)
	r.finish()
	for _, raw := range []string{"\x1b]52", "\u009b", "\u202e", "\x07"} {
		if strings.Contains(r.screen.String(), raw) {
			t.Errorf("the screen got %q raw", raw)
		}
	}
}

// TestQuitOnALargeValue: with a 20 MB value selected the screen draws (the
// value shown truncated) and q quits (before the fix the
// frame never drew and q was ignored).
func TestQuitOnALargeValue(t *testing.T) {
	clock := viewtest.FixedClock()
	s := viewtest.Open(t, "file:"+filepath.Join(t.TempDir(), "big.db"), clock, false)
	big := `{"blob":"` + strings.Repeat("x", 20<<20) + `"}`
	if _, err := s.Set(context.Background(), storetest.Key(t, `["big", "v"]`), []byte(big), nil); err != nil {
		t.Fatal(err)
	}
	m := newModel(s, Config{Clock: clock, Refresh: time.Hour}, themes.NewStyles(themes.Dark()), func(string) error { return nil })
	r := &recorder{app: &app{t: t, s: s, clock: clock, tm: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 30))}}
	r.waitFor(`"big"`)
	r.keys("enter", "j")
	r.waitFor("value is 20.0 MiB: its first 64.0 KiB shown")
	r.keys("q")
	r.tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
}
