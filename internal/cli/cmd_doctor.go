package cli

import (
	"kvdeck/internal/usertext"
	"kvdeck/store/coord"
)

// DoctorCmd checks the store.
type DoctorCmd struct{}

// Run prints one finding per line, most severe first
// (`error  alarm.never-fires  ["dwk_alarm_by_id", "Cart", "…"]  message`;
// json: {"severity","code","key","message"}), and exits 1 when any finding
// is an error. Opening the store already checked the schema: a database
// that is not a store exits 2.
func (c *DoctorCmd) Run(app *App) error {
	s, err := app.Open(app.Context(), Opening{})
	if err != nil {
		return err
	}
	fs, err := coord.Doctor(app.Context(), s, app.Now())
	if err != nil {
		return err
	}
	for _, f := range fs {
		app.Out.Result(f, usertext.Sanitize(f.String()))
	}
	if len(fs) == 0 && !app.Out.JSON() {
		app.Out.Textf("no findings")
	}
	if coord.HasErrors(fs) {
		return NotDone("")
	}
	return nil
}
