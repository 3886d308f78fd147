package views

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
)

// findingsByKey files findings under their key's text; store-wide ones
// (no key) are left out.
func findingsByKey(fs []coord.Finding) map[string][]coord.Finding {
	out := map[string][]coord.Finding{}
	for _, f := range fs {
		if f.Key != nil {
			k := codec.Format(f.Key)
			out[k] = append(out[k], f)
		}
	}
	return out
}

// severityStyle is how a finding of severity s is drawn.
func severityStyle(st themes.Styles, s coord.Severity) lipgloss.Style {
	switch s {
	case coord.SeverityError:
		return st.Error
	case coord.SeverityWarning:
		return st.Warn
	}
	return st.Muted
}

// findingLines renders findings as wrapped prose, w cells wide, each
// naming its key when withKey is set.
func findingLines(st themes.Styles, fs []coord.Finding, w int, withKey bool) []string {
	var out []string
	for _, f := range fs {
		text := fmt.Sprintf("%s %s: %s", severityMark(f.Severity), f.Code, f.Message)
		if withKey {
			text = fmt.Sprintf("%s %s %s: %s", severityMark(f.Severity), f.Code, codec.Format(f.Key), f.Message)
		}
		out = append(out, hangingLines(sanitize(text), severityStyle(st, f.Severity), w, 2)...)
	}
	return out
}

// severityMark is a one-cell sign of a severity that reads without colour.
func severityMark(s coord.Severity) string {
	switch s {
	case coord.SeverityError:
		return "✗"
	case coord.SeverityWarning:
		return "⚠"
	}
	return "·"
}

// unplaced returns the findings whose key is none of keys: rows a view
// has no line for (a key of the wrong shape), so it lists them apart.
func unplaced(fs []coord.Finding, keys map[string]bool) []coord.Finding {
	var out []coord.Finding
	for _, f := range fs {
		if f.Key != nil && !keys[codec.Format(f.Key)] {
			out = append(out, f)
		}
	}
	return out
}

// worstSeverity is the most severe severity among fs (info when empty).
func worstSeverity(fs []coord.Finding) coord.Severity {
	w := coord.SeverityInfo
	for _, f := range fs {
		switch {
		case f.Severity == coord.SeverityError:
			return f.Severity
		case f.Severity == coord.SeverityWarning:
			w = f.Severity
		}
	}
	return w
}
