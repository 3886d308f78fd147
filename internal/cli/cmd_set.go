package cli

import (
	"fmt"
	"io"
	"time"
)

// SetCmd writes a value unconditionally.
type SetCmd struct {
	Key      string `arg:"" name:"key" help:"Key text or tagged JSON."`
	Value    string `arg:"" name:"json" help:"The value as JSON; - reads it from stdin. A negative number needs -- before it."`
	ExpireIn string `name:"expire-in" placeholder:"DURATION" help:"Expire the row this long after now (Go duration, e.g. 30s)."`
}

// commitJSON is the result line of a successful set or atomic commit;
// versionstamp is null for a commit without a set.
type commitJSON struct {
	OK           bool    `json:"ok"`
	Versionstamp *string `json:"versionstamp"`
}

// Writes names the write for the read-only refusal (writer).
func (c *SetCmd) Writes() string { return "set" }

// Run commits the set and prints its versionstamp.
func (c *SetCmd) Run(app *App) error {
	key, err := ParseKey("KEY", c.Key)
	if err != nil {
		return err
	}
	raw := []byte(c.Value)
	if c.Value == "-" {
		if raw, err = io.ReadAll(app.Stdin); err != nil {
			return fmt.Errorf("read the value from stdin: %w", err)
		}
	}
	value, err := ParseValue("JSON", raw)
	if err != nil {
		return err
	}
	var expireIn *time.Duration
	if c.ExpireIn != "" {
		d, err := ParseExpireIn("--expire-in", c.ExpireIn)
		if err != nil {
			return err
		}
		if d <= 0 {
			app.Warnf("--expire-in %s writes a row that is already expired", c.ExpireIn)
		}
		expireIn = &d
	}
	s, err := app.Open(app.Context(), Opening{Write: true, Create: MayCreate, OneCall: true})
	if err != nil {
		return err
	}
	stamp, err := s.Set(app.Context(), key, value, expireIn)
	if err != nil {
		return err
	}
	app.Out.Result(commitJSON{OK: true, Versionstamp: &stamp}, stamp)
	return nil
}
