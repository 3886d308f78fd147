package coordkit

import (
	"fmt"

	"github.com/charmbracelet/lipgloss"

	"kvdeck/codec"
	"kvdeck/store/coord"
	"kvdeck/themes"
	"kvdeck/views/widgets"
)

// Findings are store/coord's findings filed under their key's text
// (FindingsByKey).
type Findings map[string][]coord.Finding

// Of are the findings on the row of key k.
func (f Findings) Of(k codec.Key) []coord.Finding { return f[codec.Format(k)] }

// FindingsByKey files findings under their key's text; store-wide ones
// (no key) are left out.
func FindingsByKey(fs []coord.Finding) Findings {
	out := Findings{}
	for _, f := range fs {
		if f.Key != nil {
			k := codec.Format(f.Key)
			out[k] = append(out[k], f)
		}
	}
	return out
}

// SeverityStyle is how a finding of severity s is drawn.
func SeverityStyle(st themes.Styles, s coord.Severity) lipgloss.Style {
	switch s {
	case coord.SeverityError:
		return st.Error
	case coord.SeverityWarning:
		return st.Warn
	case coord.SeverityInfo:
	}
	return st.Muted
}

// FindingLines renders findings as wrapped prose, w cells wide, each
// naming its key when withKey is set.
func FindingLines(st themes.Styles, fs []coord.Finding, w int, withKey bool) []string {
	var out []string
	for _, f := range fs {
		text := fmt.Sprintf("%s %s: %s", SeverityMark(f.Severity), f.Code, f.Message)
		if withKey {
			text = fmt.Sprintf("%s %s %s: %s", SeverityMark(f.Severity), f.Code, codec.Format(f.Key), f.Message)
		}
		out = append(out, widgets.HangingLines(widgets.Sanitize(text), SeverityStyle(st, f.Severity), w, 2)...)
	}
	return out
}

// SeverityMark is a one-cell sign of a severity that reads without colour.
func SeverityMark(s coord.Severity) string {
	switch s {
	case coord.SeverityError:
		return "✗"
	case coord.SeverityWarning:
		return "⚠"
	case coord.SeverityInfo:
	}
	return "·"
}

// Unplaced returns the findings whose key is none of keys: rows a view
// has no line for (a key of the wrong shape), so it lists them apart.
func Unplaced(fs []coord.Finding, keys map[string]bool) []coord.Finding {
	var out []coord.Finding
	for _, f := range fs {
		if f.Key != nil && !keys[codec.Format(f.Key)] {
			out = append(out, f)
		}
	}
	return out
}

// WorstSeverity is the most severe severity among fs (info when empty).
func WorstSeverity(fs []coord.Finding) coord.Severity {
	w := coord.SeverityInfo
	for _, f := range fs {
		switch f.Severity {
		case coord.SeverityError:
			return f.Severity
		case coord.SeverityWarning:
			w = f.Severity
		case coord.SeverityInfo: // w is at least info already
		}
	}
	return w
}
