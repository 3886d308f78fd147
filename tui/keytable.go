package tui

import "strings"

// keyRow is one action of the key table and, per tab, what does it there:
// the keys in backticks (as the tab's help names them), then words. The
// README shows this table (keyTableMarkdown); a test keeps the README,
// the table and every tab's key map in agreement.
type keyRow struct {
	action string
	cells  [numTabs]string
}

// keyTable has one meaning per key across tabs: enter opens, esc or ←
// backs out, / filters, s searches, r reloads, d deletes (asking first),
// n adds (new), c composes (issue 22 point 11: s, c and n meant
// something else on each tab).
var keyTable = []keyRow{
	{"move", [numTabs]string{
		tabBrowse: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`", tabLeases: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`",
		tabAlarms: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`", tabQueues: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`",
		tabCompose: "`↑/k` `↓/j`", tabRace: "`←/h` `→/l` clients", tabSweep: "`↑/k` `↓/j`",
		tabActivity: "`↑/k` `↓/j` `pgup` `pgdn` `g/home` `G/end`"}},
	{"open, go in", [numTabs]string{
		tabBrowse: "`enter` open/close; `→/l` expand", tabAlarms: "`→/l` the class's alarms",
		tabQueues: "`→/l` messages; `enter` peek", tabCompose: "`enter` edit op", tabRace: "`space` next step",
		tabSweep: "`enter` dry run"}},
	{"back out", [numTabs]string{
		tabBrowse: "`←/h` parent; `esc` clears the filter", tabLeases: "`esc` clears the filter",
		tabAlarms: "`←/h` classes; `esc` clears the filter", tabQueues: "`←/h` queues; `esc` closes the peek, clears the filter",
		tabSweep: "`esc` clears the filter", tabActivity: "`esc` clears the filter, then the mark"}},
	{"filter", [numTabs]string{tabBrowse: "`/` level; `s` search values (jq or text)", tabLeases: "`/`", tabAlarms: "`/`", tabQueues: "`/`", tabSweep: "`/`",
		tabActivity: "`/` key prefix"}},
	{"reload", [numTabs]string{
		tabBrowse: "`r`", tabLeases: "`r`", tabAlarms: "`r`", tabQueues: "`r`",
		tabCompose: "`r` refresh stale checks, retry", tabRace: "`r` read the counter", tabSweep: "`r`",
		tabActivity: "`r`"}},
	{"add", [numTabs]string{
		tabBrowse: "`n` key", tabLeases: "`n` acquire", tabAlarms: "`n` set", tabQueues: "`n` send",
		tabCompose: "`c` `n` `d` check / set / delete", tabRace: "`n` client"}},
	{"edit", [numTabs]string{tabBrowse: "`e` value; `E` in $EDITOR (asks)", tabAlarms: "`e` reschedule", tabCompose: "`enter` op"}},
	{"delete", [numTabs]string{
		tabBrowse: "`d`", tabLeases: "`d` release own; `b` break", tabAlarms: "`d`", tabQueues: "`d` purge",
		tabCompose: "`x` op; `X` all", tabSweep: "`d` sweep"}},
	{"copy", [numTabs]string{tabBrowse: "`y` key; `Y` value"}},
	{"mark rows, act on many", [numTabs]string{
		tabBrowse: "`space` mark row; `ctrl+a` all shown / clear; `B` bulk: delete, copy keys", tabAlarms: "`space` mark row; `ctrl+a` all shown / clear; `B` bulk: delete, fire now, copy keys",
		tabQueues:   "`space` mark row; `ctrl+a` all shown / clear; `B` bulk: retry now, dead-letter, delete, copy keys",
		tabActivity: "`space` mark row; `ctrl+a` all shown / clear; `B` bulk: copy keys, delete as written"}},
	{"undo", [numTabs]string{
		tabBrowse: "`z` journal", tabLeases: "`z` journal", tabAlarms: "`z` journal", tabQueues: "`z` journal",
		tabCompose: "`z` journal", tabRace: "`z` journal", tabSweep: "`z` journal", tabActivity: "`z` journal"}},
	{"switch store", [numTabs]string{
		tabBrowse: "`O` saved stores", tabLeases: "`O` saved stores", tabAlarms: "`O` saved stores", tabQueues: "`O` saved stores",
		tabCompose: "`O` saved stores", tabRace: "`O` saved stores", tabSweep: "`O` saved stores", tabActivity: "`O` saved stores"}},
	{"find keys", [numTabs]string{
		tabBrowse: "`ctrl+p` the store", tabLeases: "`ctrl+p` the store", tabAlarms: "`ctrl+p` the store", tabQueues: "`ctrl+p` the store",
		tabCompose: "`ctrl+p` the store", tabRace: "`ctrl+p` the store", tabSweep: "`ctrl+p` the store", tabActivity: "`ctrl+p` the store"}},
	{"back, forward", [numTabs]string{
		tabBrowse: "`[/ctrl+o` `]`", tabLeases: "`[/ctrl+o` `]`", tabAlarms: "`[/ctrl+o` `]`", tabQueues: "`[/ctrl+o` `]`",
		tabCompose: "`[/ctrl+o` `]`", tabRace: "`[/ctrl+o` `]`", tabSweep: "`[/ctrl+o` `]`", tabActivity: "`[/ctrl+o` `]`"}},
	{"jump", [numTabs]string{
		tabBrowse: "`o` a dwk_* key's tab", tabLeases: "`o` raw key in Browse", tabAlarms: "`o` raw key in Browse",
		tabQueues: "`o` raw key in Browse", tabActivity: "`enter` the key in Browse"}},
	{"the tab's own", [numTabs]string{
		tabBrowse: "`c` compose from key; `K` `J` scroll value; `v` read value (`space` page, `/` `n` `N` search); `\\|` pipe value ($PAGER or a command)", tabLeases: "`S` sort", tabAlarms: "`f` fire due (asks)",
		tabQueues:  "`t` take a batch as a consumer (asks)",
		tabCompose: "`ctrl+s` commit (asks); `f` fill stamp; `K` `J` move op; `w` `o` save / load",
		tabRace: "`m` mode; `u` naive; `i` stage; `ctrl+s` commit (asks); `v` recover; `R` replay (asks); `X` reset; " +
			"`enter` start workers (asks); `x` stop; `+` `-` workers; `L` lockstep",
		tabSweep: "`x` cancel a sweep", tabActivity: "`m` mark (again clears)"}},
}

// keyTableMarkdown renders the table as the README shows it.
func keyTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| action |")
	for t := range numTabs {
		b.WriteString(" " + t.String() + " |")
	}
	b.WriteString("\n|---|")
	for range numTabs {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range keyTable {
		b.WriteString("| " + r.action + " |")
		for _, c := range r.cells {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// tableKeys are the keys (in backticks) of tab t's column.
func tableKeys(t tab) []string {
	var out []string
	for _, r := range keyTable {
		parts := strings.Split(r.cells[t], "`")
		for i := 1; i < len(parts); i += 2 {
			out = append(out, strings.ReplaceAll(parts[i], `\|`, "|")) // a Markdown cell writes | as \|
		}
	}
	return out
}
