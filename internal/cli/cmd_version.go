package cli

import (
	"runtime/debug"
	"strings"
)

// VersionCmd prints build information.
type VersionCmd struct{}

// versionJSON is the result line of version.
type versionJSON struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
}

// Run prints the module version, the VCS revision when the binary was built
// with it, and the Go version.
func (c *VersionCmd) Run(app *App) error {
	v := versionJSON{Version: "(unknown)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Version, v.GoVersion = bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	lines := []string{"kvdeck " + v.Version, "go " + v.GoVersion}
	if v.Revision != "" {
		rev := "commit " + v.Revision
		if v.Time != "" {
			rev += " " + v.Time
		}
		if v.Modified {
			rev += " (modified)"
		}
		lines = append(lines, rev)
	}
	app.Out.Result(v, strings.Join(lines, "\n"))
	return nil
}
